#include "ui/plot/plotwidget.h"
#include "core/base/plural.h"
#include "core/records/csvtable.h"
#include "ui/plot/axisdialog.h"
#include "ui/plot/elidedlabel.h"
#include "ui/plot/plotlegend.h"
#include "ui/plot/theme.h"
#include <QApplication>
#include <QAreaSeries>
#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QFontMetricsF>
#include <QGraphicsLayout>
#include <QGraphicsScene>
#include <QHBoxLayout>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QMenu>
#include <QMouseEvent>
#include <QPainter>
#include <QResizeEvent>
#include <QRubberBand>
#include <QScatterSeries>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>
#include <QValueAxis>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>

namespace mhla::ui {

namespace {

/// The on-screen chart title's point size, and the width of the chart beside its title (the
/// chart's margins and its layout's, left and right).
constexpr double kScreenTitlePt = 11;
constexpr int kChartSideMargins = 40;
/// The point size of Qt Charts' tick labels on screen (its themes' default).
constexpr double kTickLabelPt = 9;

/// Bars at whole x only (singular values by index r): the x axis is ticked at whole numbers.
bool barsAtWholeX(const PlotState& st) {
    bool bars = false;
    for (const auto& s : st.series)
        if (s.style == PlotSeries::Style::Bars) {
            bars = true;
            for (const auto& p : s.points)
                if (p.x() != std::round(p.x())) return false;
        }
    return bars;
}

/// ticksThatFit() for a chart `widthPx` wide whose tick labels are `pt` points.
int xTicksThatFit(double widthPx, double pt) {
    QFont f = QApplication::font();
    f.setPointSizeF(pt);
    return plotmath::ticksThatFit(widthPx,
                                  QFontMetricsF(f).horizontalAdvance(QStringLiteral("0000")));
}

using namespace plotmath;

/// Every axis label in full: never "…" (Qt elides labels that do not fit by default).
void keepLabelsWhole(QAbstractAxis* a) { a->setTruncateLabels(false); }

/// Where a value goes on an axis. A log axis is a linear axis over log10(value) with labels at
/// the ticks of logTicks(): Qt's QLogValueAxis draws no labels and no title for ranges
/// narrower than 1e-12 (an exact fit's losses of 1e-30 had a bare y axis).
double toAxis(double v, bool log) { return log ? std::log10(v) : v; }
double fromAxis(double a, bool log) { return log ? std::pow(10.0, a) : a; }

void setLogTicks(QCategoryAxis* a, double lo, double hi, bool horizontal) {
    const QStringList old = a->categoriesLabels();
    for (const QString& l : old) a->remove(l);
    a->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    const double e0 = std::log10(lo), e1 = std::log10(hi);
    a->setStartValue(e0 - 1); // the first tick may sit at the lower end
    a->setRange(e0, e1);
    for (const LogTick& t : logTicks(lo, hi, horizontal)) a->append(t.label, t.exponent);
}

/// A category axis (states 0..n-1): one tick per category inside [lo, hi] at its integer value,
/// labelled with its name; nothing between them (no "0.5", no negative values).
void setCategoryTicks(QCategoryAxis* a, double lo, double hi, const QStringList& names) {
    const QStringList old = a->categoriesLabels();
    for (const QString& l : old) a->remove(l);
    a->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    a->setStartValue(lo - 1);
    a->setRange(lo, hi);
    for (qsizetype k = 0; k < names.size(); ++k)
        if (static_cast<double>(k) >= lo && static_cast<double>(k) <= hi)
            a->append(names[k], static_cast<double>(k));
}

QCategoryAxis* makeLogAxis(double lo, double hi, bool horizontal) {
    auto* a = new QCategoryAxis;
    setLogTicks(a, lo, hi, horizontal);
    keepLabelsWhole(a);
    return a;
}

/// Ticks of a linear axis at nice round positions. Fixed ticks over a range widened to the
/// nicest step (never Qt's dynamic ticks, whose label loop does not end when the interval does
/// not advance the value); manual ranges are shown as they are.
/// `maxTicks`: the most labels that fit beside each other (ticksThatFit(); 11: no limit);
/// `wholeSteps`: an axis of indices, ticked at whole numbers.
void setLinearTicks(QValueAxis* a, double lo, double hi, bool manual, int maxTicks = 11,
                    bool wholeSteps = false) {
    int count = 2;
    double step = hi - lo;
    if (!manual) {
        step = niceFixedRange(lo, hi, &count, maxTicks, wholeSteps);
    } else {
        // A zoomed or typed range is shown as it is, with ticks at round numbers inside it
        // (dynamic ticks, only with a step that clearly advances the value).
        const Ticks t = niceTicks(lo, hi, std::min(7, maxTicks), wholeSteps);
        if (t.count >= 2 && t.step > 1e-9 * std::max(std::abs(lo), std::abs(hi))) {
            a->setTickType(QValueAxis::TicksDynamic);
            a->setRange(lo, hi);
            a->setTickAnchor(t.first);
            a->setTickInterval(t.step);
            a->setLabelFormat(tickFormat(lo, hi, t.step));
            keepLabelsWhole(a);
            return;
        }
        count = std::min(6, maxTicks);
        step = (hi - lo) / (count - 1);
    }
    a->setTickType(QValueAxis::TicksFixed);
    a->setRange(lo, hi);
    a->setTickCount(std::clamp(count, 2, 11));
    a->setLabelFormat(tickFormat(lo, hi, step));
    keepLabelsWhole(a);
}

/// The drawable points of a series in axis coordinates (log axes: log10 of the value).
QList<QPointF> filtered(const PlotSeries& s, const PlotState& st, const Ranges& r) {
    QList<QPointF> out;
    if (s.style == PlotSeries::Style::HLine) {
        if (!s.points.isEmpty() && usable(QPointF(1, s.points.first().y()), false, st.logY)) {
            const double y = toAxis(shownY(s.points.first().y(), st.logY), st.logY);
            out << QPointF(toAxis(r.x0, st.logX), y) << QPointF(toAxis(r.x1, st.logX), y);
        }
        return out;
    }
    out.reserve(s.points.size());
    for (const auto& p : s.points)
        if (usable(p, st.logX, st.logY))
            out << QPointF(toAxis(p.x(), st.logX), toAxis(shownY(p.y(), st.logY), st.logY));
    return out;
}

/// Brings a chart series to `pts`: untouched when it already shows them (another run's curve
/// while one run trains), the new tail appended when it shows their beginning (a live curve
/// growing by a few points), replaced in one call otherwise. Qt Charts redraws a series on each
/// change, so a series that did not change costs nothing.
void setGrown(QXYSeries* series, const QList<QPointF>& pts) {
    const QList<QPointF> now = series->points();
    const qsizetype k = now.size();
    const bool prefix = k <= pts.size() && std::equal(now.begin(), now.end(), pts.begin());
    if (prefix && k == pts.size()) return;
    // Each appended point is one redraw of the series (Qt 6.4 has no batch append signal):
    // beyond a few points one replace() is cheaper.
    constexpr qsizetype kMaxAppend = 4;
    if (prefix && k > 0 && pts.size() - k <= kMaxAppend) {
        for (qsizetype i = k; i < pts.size(); ++i) series->append(pts[i]);
        return;
    }
    series->replace(pts);
}

/// Bars as a step outline over the baseline: (x-w, base), (x-w, y), (x+w, y), (x+w, base).
void barOutline(const QList<QPointF>& pts, double base, QList<QPointF>& upper,
                QList<QPointF>& lower) {
    upper.clear();
    lower.clear();
    const double w = 0.38;
    for (const auto& p : pts) {
        upper << QPointF(p.x() - w, base) << QPointF(p.x() - w, p.y()) << QPointF(p.x() + w, p.y())
              << QPointF(p.x() + w, base);
    }
    if (!upper.isEmpty())
        lower << QPointF(upper.first().x(), base) << QPointF(upper.last().x(), base);
}

QStringList signatureOf(const PlotState& st) {
    QStringList sig;
    sig << QStringLiteral("logx=%1 logy=%2").arg(st.logX).arg(st.logY);
    for (const auto& s : displayedSeries(st))
        sig << s.name + u'|' + QString::number(static_cast<int>(s.style)) + u'|' + s.color.name() +
                   u'|' + QString::number(s.width) + u'|' + QString::number(s.inLegend);
    return sig;
}

bool isDarkPalette(const QPalette& pal) { return pal.color(QPalette::Window).lightness() < 128; }

/// The lower edge of a band as a series of its own (so that it is filtered like any other).
PlotSeries bandLower(const PlotSeries& band) {
    PlotSeries lo = band;
    lo.style = PlotSeries::Style::Line;
    lo.points = band.lower;
    return lo;
}

/// Fills an empty chart with the series and axes of `st`; returns one handle per series.
/// `paper`: the figure for a paper (no title, its font and line sizes). `screenScale`: on
/// screen, the tick labels, axis titles, lines and markers this many times their usual size.
/// `widthPx`: the chart's width, for how many x tick labels fit (0: not known).
QList<QAbstractSeries*> populate(QChart* chart, const PlotState& st, bool dark, bool forExport,
                                 Ranges* shown = nullptr, const PaperStyle* paper = nullptr,
                                 double screenScale = 1.0, double widthPx = 0) {
    const double sizeScale = paper || forExport ? 1.0 : screenScale;
    const int xTicks = xTicksThatFit(widthPx, paper ? paper->fontPt : kTickLabelPt * sizeScale);
    const bool wholeX = barsAtWholeX(st);
    chart->setTheme(dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);
    chart->setBackgroundRoundness(0);
    // Room on the right for the last x tick label (the x axis ends at the data).
    chart->setMargins(paper ? QMargins(0, 2, 10, 0) : QMargins(4, 4, 14, 4));
    chart->setAnimationOptions(QChart::NoAnimation);
    QFont tf = chart->titleFont();
    tf.setBold(true);
    tf.setPointSizeF(forExport ? 12 : kScreenTitlePt * sizeScale);
    chart->setTitleFont(tf);
    // On screen the title is in the plot's tool row; a paper's caption says what it shows.
    chart->setTitle(forExport && !paper ? st.title : QString());
    chart->legend()->setAlignment(Qt::AlignBottom);
    chart->legend()->setShowToolTips(true);

    const Ranges r0 = computeRanges(st);
    QAbstractAxis* ax;
    QAbstractAxis* ay;
    auto linear = [&st](double lo, double hi, bool ticksInside = false, int maxTicks = 11,
                        bool whole = false) {
        auto* a = new QValueAxis;
        setLinearTicks(a, lo, hi, st.manualRange.has_value() || ticksInside, maxTicks, whole);
        return a;
    };
    if (st.logX) {
        ax = makeLogAxis(r0.x0, r0.x1, true);
    } else if (!st.xCategories.isEmpty()) {
        auto* ca = new QCategoryAxis;
        setCategoryTicks(ca, r0.x0, r0.x1, st.xCategories);
        keepLabelsWhole(ca);
        ax = ca;
    } else {
        ax = linear(r0.x0, r0.x1, r0.xTicksInside, xTicks, wholeX);
    }
    if (st.logY) {
        ay = makeLogAxis(r0.y0, r0.y1, false);
    } else if (!st.yCategories.isEmpty()) {
        auto* ca = new QCategoryAxis;
        setCategoryTicks(ca, r0.y0, r0.y1, st.yCategories);
        keepLabelsWhole(ca);
        ay = ca;
    } else {
        ay = linear(r0.y0, r0.y1);
    }
    // The axes may have rounded the range to nice numbers: reference lines span what is shown.
    Ranges r = r0;
    if (!st.logX)
        if (auto* va = qobject_cast<QValueAxis*>(ax)) {
            r.x0 = va->min();
            r.x1 = va->max();
        }
    if (!st.logY)
        if (auto* va = qobject_cast<QValueAxis*>(ay)) {
            r.y0 = va->min();
            r.y1 = va->max();
        }
    // Axis titles are rich text: key names are escaped, typeset names get subscripts.
    ax->setTitleText(axisTitleHtml(st.xTitle, st.xTitleText));
    ay->setTitleText(axisTitleHtml(st.yTitle, st.yTitleText));
    if (paper) {
        for (QAbstractAxis* a : {ax, ay}) {
            QFont f = a->labelsFont();
            f.setPointSizeF(paper->fontPt);
            a->setLabelsFont(f);
            f.setBold(false);
            a->setTitleFont(f);
            a->setLabelsColor(Qt::black);
            a->setTitleBrush(Qt::black);
        }
    }
    chart->addAxis(ax, Qt::AlignBottom);
    chart->addAxis(ay, Qt::AlignLeft);
    if (sizeScale != 1.0) // after addAxis: the theme has set its fonts, which are scaled
        for (QAbstractAxis* a : {ax, ay}) {
            QFont f = a->labelsFont();
            f.setPointSizeF(f.pointSizeF() * sizeScale);
            a->setLabelsFont(f);
            f = a->titleFont();
            f.setPointSizeF(f.pointSizeF() * sizeScale);
            a->setTitleFont(f);
        }

    if (shown) *shown = r;
    QList<QAbstractSeries*> handles;
    for (const auto& s : displayedSeries(st)) {
        const QList<QPointF> pts = filtered(s, st, r);
        QAbstractSeries* h = nullptr;
        // Black (the teacher's dots) would vanish on the dark background.
        const QColor color = dark && s.color.lightness() < 50 ? colors::kOnDark : s.color;
        const double lineScale = paper ? paper->lineScale : sizeScale;
        const double markerScale = paper ? 0.7 : sizeScale;
        QPen pen(color, s.width * lineScale);
        switch (s.style) {
        case PlotSeries::Style::Line:
        case PlotSeries::Style::Dashed:
        case PlotSeries::Style::Dotted:
        case PlotSeries::Style::HLine:
        case PlotSeries::Style::LineMarkers: {
            auto* ls = new QLineSeries;
            if (s.style == PlotSeries::Style::Dashed || s.style == PlotSeries::Style::HLine)
                pen.setStyle(Qt::DashLine);
            if (s.style == PlotSeries::Style::Dotted) pen.setStyle(Qt::DotLine);
            ls->setPen(pen);
            ls->setPointsVisible(s.style == PlotSeries::Style::LineMarkers);
            ls->replace(pts);
            h = ls;
            break;
        }
        case PlotSeries::Style::Markers:
        case PlotSeries::Style::Triangles: {
            auto* sc = new QScatterSeries;
            sc->setMarkerShape(s.style == PlotSeries::Style::Triangles
                                   ? QScatterSeries::MarkerShapeTriangle
                                   : QScatterSeries::MarkerShapeCircle);
            sc->setMarkerSize((s.style == PlotSeries::Style::Triangles ? 11 : 7) * markerScale);
            sc->setColor(color);
            sc->setBorderColor(color.darker(130));
            sc->replace(pts);
            h = sc;
            break;
        }
        case PlotSeries::Style::Floor: {
            auto* sc = new QScatterSeries;
            sc->setMarkerShape(QScatterSeries::MarkerShapeRotatedRectangle);
            sc->setMarkerSize(10 * markerScale);
            sc->setColor(dark ? QColor(Qt::black) : QColor(Qt::white));
            sc->setBorderColor(color);
            QPen border(color, 1.5 * lineScale);
            sc->setPen(border);
            sc->replace(pts);
            h = sc;
            break;
        }
        case PlotSeries::Style::Band: {
            auto* up = new QLineSeries;
            auto* lo = new QLineSeries;
            up->replace(pts);
            lo->replace(filtered(bandLower(s), st, r));
            auto* area = new QAreaSeries(up, lo);
            up->setParent(area);
            lo->setParent(area);
            QColor fill = color;
            fill.setAlpha(55);
            area->setColor(fill);
            area->setBorderColor(fill);
            h = area;
            break;
        }
        case PlotSeries::Style::Bars: {
            auto* up = new QLineSeries;
            auto* lo = new QLineSeries;
            QList<QPointF> u, l;
            barOutline(pts, toAxis(r.y0, st.logY), u, l);
            up->replace(u);
            lo->replace(l);
            auto* area = new QAreaSeries(up, lo);
            up->setParent(area);
            lo->setParent(area);
            area->setColor(color);
            area->setBorderColor(color.darker(140));
            h = area;
            break;
        }
        }
        h->setName(s.name);
        chart->addSeries(h);
        h->attachAxis(ax);
        h->attachAxis(ay);
        handles << h;
    }
    // Our own legend (ui/plotlegend) is drawn under the chart: it wraps instead of cutting names.
    chart->legend()->setVisible(false);
    return handles;
}

} // namespace

PlotWidget::PlotWidget(const QString& figureName, QWidget* parent)
    : QWidget(parent), m_name(figureName) {
    setObjectName(figureName + QStringLiteral("Plot"));
    auto* lay = new QVBoxLayout(this);
    lay->setContentsMargins(0, 0, 0, 0);
    lay->setSpacing(2);

    auto* bar = new QHBoxLayout;
    bar->setSpacing(2);
    auto mk = [this, bar](const QString& text, const QString& tip, bool checkable) {
        auto* b = new QToolButton(this);
        b->setText(text);
        b->setToolTip(tip);
        b->setCheckable(checkable);
        b->setAutoRaise(true);
        bar->addWidget(b);
        return b;
    };
    m_logXButton = mk(tr("log x"), tr("Logarithmic x axis"), true);
    m_logYButton = mk(tr("log y"), tr("Logarithmic y axis"), true);
    // Short texts: two plots side by side must fit a 1280×720 window with the docks open.
    // "Fit" carries the hand-set ranges in its menu (its arrow): two plots side by side fit a
    // 1178-px window (what a 2560×1440 screen at scale 2 gives) with both docks open.
    m_autoButton = mk(tr("Fit"),
                      tr("Autoscale: fit the axes to the data (also: double-click the plot). "
                         "The arrow sets the axis ranges by hand."),
                      false);
    auto* fitMenu = new QMenu(m_autoButton);
    fitMenu->addAction(tr("Set the axis ranges…"), this, &PlotWidget::editAxes);
    m_autoButton->setMenu(fitMenu);
    m_autoButton->setPopupMode(QToolButton::MenuButtonPopup);
    // The title sits in this row (elided, whole in its tooltip) rather than above the chart:
    // the chart keeps that height for its axes. While the mouse is over the plot, the values
    // under it take the title's place.
    m_titleLabel = new ElidedLabel(this);
    m_titleLabel->setObjectName(figureName + QStringLiteral("Title"));
    bar->addSpacing(4);
    bar->addWidget(m_titleLabel, 1);
    m_hover = new QLabel(this);
    m_hover->setVisible(false);
    m_hover->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_hover->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred); // never widens the window
    m_hover->setObjectName(figureName + QStringLiteral("Hover"));
    bar->addSpacing(4);
    bar->addWidget(m_hover, 1);
    auto* exportButton =
        mk(tr("Export…"), tr("Export this figure as SVG, PDF, PNG and CSV"), false);
    lay->addLayout(bar);

    m_chart = new QChart;
    m_view = new QChartView(m_chart, this);
    m_view->setRenderHint(QPainter::Antialiasing);
    m_view->setMinimumSize(180, 130); // small enough for a 1280×720 projector with the docks open
    m_view->viewport()->setMouseTracking(true);
    m_view->viewport()->installEventFilter(this);
    lay->addWidget(m_view, 1);
    m_legend = new PlotLegendView(this);
    m_legend->setObjectName(figureName + QStringLiteral("Legend"));
    // By value: a handler that hides a run redraws this legend, and its entries with it.
    m_legend->onToggle = [this](QString name) {
        if (m_legendClick && m_legendClick(name)) return;
        setSeriesHidden(name, !m_state.hidden.contains(name));
    };
    lay->addWidget(m_legend);
    m_rubberBand = new QRubberBand(QRubberBand::Rectangle, m_view->viewport());
    m_view->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(
        m_view, &QWidget::customContextMenuRequested, this, [this, exportButton](const QPoint& at) {
            QMenu menu(this);
            auto report = [this](const QString& err) {
                setHoverText(err.isEmpty() ? tr("Copied to the clipboard") : err);
            };
            menu.addAction(tr("Copy figure"), this, [this, report] {
                report(copyFigureToClipboard(*this, m_view->size() * 2, 192));
            });
            menu.addAction(tr("Copy for a paper (one column)"), this, [this, report] {
                const PaperFigure pf(*this, PaperStyle::oneColumn());
                report(copyFigureToClipboard(pf, pf.pixelSize(300), 300));
            });
            menu.addAction(tr("Copy for a paper (two columns)"), this, [this, report] {
                const PaperFigure pf(*this, PaperStyle::twoColumns());
                report(copyFigureToClipboard(pf, pf.pixelSize(300), 300));
            });
            menu.addSeparator();
            menu.addAction(tr("Fit to the data"), this, [this] { setManualRange(std::nullopt); });
            menu.addAction(tr("Set the axis ranges…"), this, &PlotWidget::editAxes);
            menu.addAction(tr("Export… (also for a paper)"), exportButton, &QToolButton::click);
            for (QAction* a : menu.actions()) a->setEnabled(a->isSeparator() || hasData());
            menu.exec(m_view->viewport()->mapToGlobal(at));
        });
    m_view->setToolTip(viewHelp());
    connect(m_chart, &QChart::plotAreaChanged, this, [this] { fitAxisTitles(); });
    m_noteLabel = new QLabel(this);
    m_noteLabel->setObjectName(figureName + QStringLiteral("Note"));
    m_noteLabel->setWordWrap(true);
    m_noteLabel->setVisible(false);
    lay->addWidget(m_noteLabel);

    deriveFonts();
    connect(m_logXButton, &QToolButton::toggled, this, &PlotWidget::setLogX);
    connect(m_logYButton, &QToolButton::toggled, this, &PlotWidget::setLogY);
    connect(m_autoButton, &QToolButton::clicked, this, [this] { setManualRange(std::nullopt); });
    connect(exportButton, &QToolButton::clicked, this, &PlotWidget::exportRequested);
    rebuild();
}

PlotWidget::~PlotWidget() = default;

void PlotWidget::setTitle(const QString& t) {
    m_state.title = t;
    placeTitle();
}

void PlotWidget::placeTitle() {
    // In the tool row when it fits there (the chart keeps that height for its axes); in a
    // narrow plot above the chart as before, where it has the whole width. Exports always
    // draw it above the chart.
    const int room = m_titleLabel->isVisible() ? m_titleLabel->width() : m_titleRoom;
    m_titleRoom = room;
    const bool inRow =
        room > 0 && m_titleLabel->fontMetrics().horizontalAdvance(m_state.title) <= room;
    m_titleLabel->setText(inRow ? m_state.title : QString());
    // Above the chart the title gets the chart's width, and a smaller font (down to 3/4) before
    // it is cut short; cut short, it is whole in the plot's tooltip.
    QFont font = m_chart->titleFont();
    font.setPointSizeF(kScreenTitlePt * m_screenScale);
    const FittedTitle fit = inRow ? FittedTitle{}
                                  : fitTitle(m_state.title, TitleText::Literal, font,
                                             m_view->width() - kChartSideMargins);
    if (!inRow && m_chart->titleFont() != fit.font) m_chart->setTitleFont(fit.font);
    m_chart->setTitle(inRow ? QString() : fit.html);
    if (m_titleElided != fit.elided) {
        m_titleElided = fit.elided;
        updateViewTip();
    }
}

void PlotWidget::updateViewTip() {
    QStringList whole = m_elidedAxisTitles;
    if (m_titleElided) whole.prepend(m_state.title);
    m_view->setToolTip(whole.isEmpty() ? viewHelp()
                                       : whole.join(u'\n') + QStringLiteral("\n\n") + viewHelp());
}

void PlotWidget::setHoverText(const QString& text) {
    m_hover->setText(text);
    m_hover->setVisible(!text.isEmpty());
    m_titleLabel->setVisible(text.isEmpty());
}

void PlotWidget::setAxisTitles(const QString& x, const QString& y, TitleText kind) {
    if (x == m_state.xTitle && y == m_state.yTitle && kind == m_state.xTitleText &&
        kind == m_state.yTitleText)
        return;
    m_state.xTitle = x;
    m_state.yTitle = y;
    m_state.xTitleText = kind;
    m_state.yTitleText = kind;
    rebuild();
}

void PlotWidget::setXCategories(const QStringList& names) {
    if (names == m_state.xCategories) return;
    m_state.xCategories = names;
    rebuild();
}

void PlotWidget::setYCategories(const QStringList& names) {
    if (names == m_state.yCategories) return;
    m_state.yCategories = names;
    rebuild();
}

void PlotWidget::setSeries(const QList<PlotSeries>& series) {
    m_state.series = series;
    if (signatureOf(m_state) == m_signature) refreshData();
    else rebuild();
}

void PlotWidget::setLogX(bool on) {
    if (m_state.logX == on) return;
    m_state.logX = on;
    m_state.manualRange.reset();
    {
        const QSignalBlocker b(m_logXButton);
        m_logXButton->setChecked(on);
    }
    rebuild();
}

void PlotWidget::setLogY(bool on) {
    if (m_state.logY == on) return;
    m_state.logY = on;
    m_state.manualRange.reset();
    {
        const QSignalBlocker b(m_logYButton);
        m_logYButton->setChecked(on);
    }
    rebuild();
}

void PlotWidget::setManualRange(const std::optional<QRectF>& r) {
    m_state.manualRange = r;
    refreshData();
}

QRectF PlotWidget::currentRange() const {
    const Ranges& r = m_shown; // what the axes show (nice ends included)
    return QRectF(QPointF(r.x0, r.y0), QPointF(r.x1, r.y1));
}

void PlotWidget::setNote(const QString& note) {
    m_state.note = note;
    updateNote();
}

QString PlotWidget::note() const { return fullNote(); }

void PlotWidget::setEmptyNote(const QString& note) {
    if (note == m_emptyNote) return;
    m_emptyNote = note;
    updateNote();
}

void PlotWidget::clear() { setSeries({}); }

QString PlotWidget::fullNote() const {
    const Ranges r = computeRanges(m_state);
    QStringList parts;
    if (!hasData())
        parts << (m_emptyNote.isEmpty() ? tr("No data yet: run an experiment (Ctrl+R).")
                                        : m_emptyNote);
    if (!m_state.note.isEmpty()) parts << m_state.note;
    if (r.droppedLogY > 0)
        parts << tr("Values ≤ 0 (%1) cannot be shown on the log y axis (switch log y off to "
                    "see them).")
                     .arg(countOf(r.droppedLogY, tr("value"), tr("values")));
    if (r.raisedLogY > 0) {
        // Diamonds mark points only (not bars, bands or reference lines): say which.
        const qsizetype marked = belowFloorSeries(m_state).points.size();
        const QString how = marked == 0 ? QString()
                            : marked == r.raisedLogY
                                ? tr(", marked with hollow diamonds")
                                : tr(", the %1 marked with hollow diamonds")
                                      .arg(countOf(marked, tr("point"), tr("points")));
        parts << tr("Values below %1 (zero up to round-off; %2) are drawn at %1, the floor of the "
                    "log axis%3; the CSV has the exact values.")
                     .arg(logTickLabel(kLogFloor), countOf(r.raisedLogY, tr("value"), tr("values")),
                          how);
    }
    if (r.droppedLogX > 0)
        parts << tr("Points with x ≤ 0 (%1) are not shown on the log x axis.")
                     .arg(countOf(r.droppedLogX, tr("point"), tr("points")));
    return parts.join(u' ');
}

void PlotWidget::updateNote() {
    const QString n = fullNote();
    m_noteLabel->setText(n);
    m_noteLabel->setVisible(!n.isEmpty());
}

void PlotWidget::rebuild() {
    m_chart->removeAllSeries();
    const auto axes = m_chart->axes();
    for (auto* a : axes) {
        m_chart->removeAxis(a);
        delete a;
    }
    m_xTicks = xTicksThatFit(m_view->width(), kTickLabelPt * m_screenScale);
    m_handles = populate(m_chart, m_state, isDarkPalette(palette()), false, &m_shown, nullptr,
                         m_screenScale, m_view->width());
    if (const auto axes = m_chart->axes(); !axes.isEmpty())
        m_axisTitleFont = axes.first()->titleFont();
    fitAxisTitles();
    placeTitle();
    m_signature = signatureOf(m_state);
    updateNote();
    updateLegend();
}

void PlotWidget::refreshData() {
    const QList<PlotSeries> shownSeries = displayedSeries(m_state);
    if (m_handles.size() != shownSeries.size()) {
        rebuild();
        return;
    }
    Ranges r = computeRanges(m_state);
    const auto hx = m_chart->axes(Qt::Horizontal);
    const auto vy = m_chart->axes(Qt::Vertical);
    auto setAxis = [this, &r](QAbstractAxis* a, double lo, double hi) {
        const bool horizontal = a->orientation() == Qt::Horizontal;
        if (auto* ca = qobject_cast<QCategoryAxis*>(a)) { // a log axis or categories
            if (horizontal && !m_state.logX && !m_state.xCategories.isEmpty())
                setCategoryTicks(ca, lo, hi, m_state.xCategories);
            else setLogTicks(ca, lo, hi, horizontal);
        } else if (auto* va = qobject_cast<QValueAxis*>(a)) {
            setLinearTicks(va, lo, hi,
                           m_state.manualRange.has_value() || (horizontal && r.xTicksInside),
                           horizontal ? m_xTicks : 11, horizontal && barsAtWholeX(m_state));
        }
        return true;
    };
    auto setYAxis = [&](QAbstractAxis* a, double lo, double hi) {
        if (m_state.logY || m_state.yCategories.isEmpty()) return setAxis(a, lo, hi);
        auto* ca = qobject_cast<QCategoryAxis*>(a);
        if (!ca) return false;
        setCategoryTicks(ca, lo, hi, m_state.yCategories);
        return true;
    };
    if ((!hx.isEmpty() && !setAxis(hx.first(), r.x0, r.x1)) ||
        (!vy.isEmpty() && !setYAxis(vy.first(), r.y0, r.y1))) {
        rebuild();
        return;
    }
    if (!hx.isEmpty() && !m_state.logX)
        if (auto* va = qobject_cast<QValueAxis*>(hx.first())) {
            r.x0 = va->min();
            r.x1 = va->max();
        }
    if (!vy.isEmpty() && !m_state.logY)
        if (auto* va = qobject_cast<QValueAxis*>(vy.first())) {
            r.y0 = va->min();
            r.y1 = va->max();
        }
    m_shown = r;
    for (int i = 0; i < m_handles.size(); ++i) {
        const auto& s = shownSeries[i];
        const QList<QPointF> pts = filtered(s, m_state, r);
        if (s.style == PlotSeries::Style::Bars) {
            auto* area = static_cast<QAreaSeries*>(m_handles[i]);
            QList<QPointF> u, l;
            barOutline(pts, toAxis(r.y0, m_state.logY), u, l);
            area->upperSeries()->replace(u);
            area->lowerSeries()->replace(l);
        } else if (s.style == PlotSeries::Style::Band) {
            auto* area = static_cast<QAreaSeries*>(m_handles[i]);
            area->upperSeries()->replace(pts);
            area->lowerSeries()->replace(filtered(bandLower(s), m_state, r));
        } else {
            setGrown(static_cast<QXYSeries*>(m_handles[i]), pts);
        }
    }
    updateNote();
    updateLegend();
}

void PlotWidget::updateLegend() { m_legend->setEntries(legendEntries()); }

QList<plotmath::LegendEntry> PlotWidget::legendEntries() const {
    return plotmath::legendEntries(m_state, m_shown);
}

void PlotWidget::setSmoothing(double weight) {
    weight = std::clamp(weight, 0.0, 0.999);
    if (m_state.smoothing == weight) return;
    m_state.smoothing = weight;
    rebuild();
}

void PlotWidget::setSeriesHidden(const QString& name, bool hidden) {
    if (hidden == m_state.hidden.contains(name)) return;
    if (hidden) m_state.hidden.insert(name);
    else m_state.hidden.remove(name);
    rebuild();
}

QRectF PlotWidget::plotAreaInViewport() const {
    const QRectF area = m_chart->plotArea();
    return m_view->mapFromScene(m_chart->mapToScene(area)).boundingRect();
}

QPointF PlotWidget::fractionAt(const QPointF& pos) const {
    const QRectF a = plotAreaInViewport();
    if (a.width() <= 0 || a.height() <= 0) return {0.5, 0.5};
    return {(pos.x() - a.left()) / a.width(), (a.bottom() - pos.y()) / a.height()};
}

void PlotWidget::zoomAt(const QPointF& f, double factor) {
    if (!hasData()) return;
    double x0 = m_shown.x0, x1 = m_shown.x1, y0 = m_shown.y0, y1 = m_shown.y1;
    const double ax = valueAtFraction(f.x(), x0, x1, m_state.logX),
                 ay = valueAtFraction(f.y(), y0, y1, m_state.logY);
    const bool okX = zoomRange(x0, x1, ax, factor, m_state.logX);
    const bool okY = zoomRange(y0, y1, ay, factor, m_state.logY);
    if (!okX && !okY) return;
    setManualRange(QRectF(QPointF(x0, y0), QPointF(x1, y1)));
}

void PlotWidget::editAxes() {
    AxisDialog dlg(m_state.title, currentRange(), m_state.logX, m_state.logY, this);
    if (dlg.exec() == QDialog::Accepted) setManualRange(dlg.range());
}

bool PlotWidget::eventFilter(QObject* watched, QEvent* event) {
    if (watched == m_view->viewport() && hasData()) {
        switch (event->type()) {
        case QEvent::Wheel: {
            const auto* we = static_cast<QWheelEvent*>(event);
            if (!plotAreaInViewport().contains(we->position())) break;
            const double steps = we->angleDelta().y() / 120.0;
            if (steps == 0) break;
            zoomAt(fractionAt(we->position()), std::pow(0.8, steps));
            return true;
        }
        case QEvent::MouseButtonDblClick:
            if (static_cast<QMouseEvent*>(event)->button() == Qt::LeftButton) {
                setManualRange(std::nullopt);
                return true;
            }
            break;
        case QEvent::MouseButtonPress: {
            const auto* me = static_cast<QMouseEvent*>(event);
            if (!plotAreaInViewport().contains(me->position())) break;
            const bool pan =
                me->button() == Qt::MiddleButton ||
                (me->button() == Qt::LeftButton && me->modifiers().testFlag(Qt::ShiftModifier));
            if (!pan && me->button() != Qt::LeftButton) break;
            m_drag = pan ? Drag::Pan : Drag::Zoom;
            m_pressPos = me->position().toPoint();
            m_pressRanges = m_shown;
            if (m_drag == Drag::Zoom) m_rubberBand->setGeometry(QRect(m_pressPos, QSize()));
            else m_view->viewport()->setCursor(Qt::ClosedHandCursor);
            return true;
        }
        case QEvent::MouseMove: {
            if (m_drag == Drag::None) break;
            const auto* me = static_cast<QMouseEvent*>(event);
            if (m_drag == Drag::Zoom) {
                m_rubberBand->setGeometry(QRect(m_pressPos, me->position().toPoint()).normalized());
                m_rubberBand->show();
            } else {
                const QPointF a = fractionAt(m_pressPos), b = fractionAt(me->position());
                const Ranges& r = m_pressRanges;
                double x0 = r.x0, x1 = r.x1, y0 = r.y0, y1 = r.y1;
                panRange(x0, x1, valueAtFraction(a.x(), r.x0, r.x1, m_state.logX),
                         valueAtFraction(b.x(), r.x0, r.x1, m_state.logX), m_state.logX);
                panRange(y0, y1, valueAtFraction(a.y(), r.y0, r.y1, m_state.logY),
                         valueAtFraction(b.y(), r.y0, r.y1, m_state.logY), m_state.logY);
                setManualRange(QRectF(QPointF(x0, y0), QPointF(x1, y1)));
            }
            return true;
        }
        case QEvent::MouseButtonRelease: {
            if (m_drag == Drag::None) break;
            const auto* me = static_cast<QMouseEvent*>(event);
            const Drag was = m_drag;
            m_drag = Drag::None;
            m_view->viewport()->unsetCursor();
            m_rubberBand->hide();
            if (was == Drag::Zoom) {
                const QRect box = QRect(m_pressPos, me->position().toPoint()).normalized();
                if (box.width() < 6 || box.height() < 6) return true; // a click, not a box
                const QPointF a = fractionAt(box.bottomLeft()), b = fractionAt(box.topRight());
                const Ranges& r = m_shown;
                const double x0 = valueAtFraction(std::clamp(a.x(), 0.0, 1.0), r.x0, r.x1,
                                                  m_state.logX),
                             x1 = valueAtFraction(std::clamp(b.x(), 0.0, 1.0), r.x0, r.x1,
                                                  m_state.logX),
                             y0 = valueAtFraction(std::clamp(a.y(), 0.0, 1.0), r.y0, r.y1,
                                                  m_state.logY),
                             y1 = valueAtFraction(std::clamp(b.y(), 0.0, 1.0), r.y0, r.y1,
                                                  m_state.logY);
                if (x1 > x0 && y1 > y0) setManualRange(QRectF(QPointF(x0, y0), QPointF(x1, y1)));
            }
            return true;
        }
        default: break;
        }
    }
    if (watched == m_view->viewport() && event->type() == QEvent::MouseMove &&
        !m_handles.isEmpty()) {
        const auto* me = static_cast<QMouseEvent*>(event);
        const QPointF chartPos =
            m_chart->mapFromScene(m_view->mapToScene(me->position().toPoint()));
        if (!m_chart->plotArea().contains(chartPos)) {
            setHoverText({});
            return false;
        }
        const QPointF va = m_chart->mapToValue(chartPos, m_handles.first());
        const QPointF v(fromAxis(va.x(), m_state.logX), fromAxis(va.y(), m_state.logY));
        QString text = QStringLiteral("x = %1, y = %2")
                           .arg(QString::number(v.x(), 'g', 4), QString::number(v.y(), 'g', 4));
        double best = 400; // px^2
        QString nearest;
        const Ranges r = m_shown;
        const QList<PlotSeries> shownSeries = displayedSeries(m_state);
        for (int i = 0; i < shownSeries.size() && i < m_handles.size(); ++i) {
            const auto& s = shownSeries[i];
            if (s.style == PlotSeries::Style::HLine) {
                if (s.points.isEmpty()) continue;
                if (!usable(QPointF(1, s.points.first().y()), false, m_state.logY)) continue;
                const QPointF p = m_chart->mapToPosition(
                    QPointF(va.x(),
                            toAxis(shownY(s.points.first().y(), m_state.logY), m_state.logY)),
                    m_handles[i]);
                const double d2 = std::pow(p.y() - chartPos.y(), 2);
                if (d2 < best) {
                    best = d2;
                    nearest = QStringLiteral("%1: %2").arg(
                        s.name, QString::number(s.points.first().y(), 'g', 6));
                }
                continue;
            }
            for (const auto& q : filtered(s, m_state, r)) {
                const QPointF p = m_chart->mapToPosition(q, m_handles[i]);
                const double d2 =
                    std::pow(p.x() - chartPos.x(), 2) + std::pow(p.y() - chartPos.y(), 2);
                if (d2 < best) {
                    best = d2;
                    nearest = QStringLiteral("%1: (%2, %3)")
                                  .arg(s.name.isEmpty() ? tr("point") : s.name,
                                       QString::number(fromAxis(q.x(), m_state.logX), 'g', 6),
                                       QString::number(fromAxis(q.y(), m_state.logY), 'g', 6));
                }
            }
        }
        if (!nearest.isEmpty()) text += QStringLiteral("   ·   ") + nearest;
        setHoverText(text);
        if (!nearest.isEmpty()) QToolTip::showText(me->globalPosition().toPoint(), nearest, m_view);
    } else if (watched == m_view->viewport() && event->type() == QEvent::Leave) {
        setHoverText({});
    }
    return QWidget::eventFilter(watched, event);
}

void PlotWidget::fitAxisTitles() {
    const QRectF area = m_chart->plotArea();
    if (m_fittingTitles || !(area.width() > 0) || !(area.height() > 0)) return;
    m_fittingTitles = true;
    QStringList whole;
    for (const Qt::Orientation o : {Qt::Horizontal, Qt::Vertical}) {
        const auto axes = m_chart->axes(o);
        if (axes.isEmpty()) continue;
        QAbstractAxis* a = axes.first();
        const bool x = o == Qt::Horizontal;
        const QString& title = x ? m_state.xTitle : m_state.yTitle;
        const FittedTitle f = fitTitle(title, x ? m_state.xTitleText : m_state.yTitleText,
                                       m_axisTitleFont, (x ? area.width() : area.height()) - 4);
        if (a->titleFont() != f.font) a->setTitleFont(f.font);
        if (a->titleText() != f.html) a->setTitleText(f.html);
        if (f.elided) whole << title;
    }
    m_elidedAxisTitles = whole;
    updateViewTip();
    m_fittingTitles = false;
}

QString PlotWidget::viewHelp() {
    return tr("Wheel: zoom · drag: zoom to a box · Shift+drag or middle drag: pan · "
              "double-click: fit to the data");
}

void PlotWidget::resizeEvent(QResizeEvent* e) {
    QWidget::resizeEvent(e);
    // The x axis's ticks are as many as fit: more or fewer when the width changed that.
    if (xTicksThatFit(m_view->width(), kTickLabelPt * m_screenScale) != m_xTicks) rebuild();
    placeTitle();
    // The legend takes at most a quarter of the plot's height (two rows at least); the chart
    // keeps the rest.
    m_legend->setMaxHeight(std::max(2 * fontMetrics().height() + 8, height() / 4));
}

void PlotWidget::deriveFonts() {
    QFont titleFont = font();
    titleFont.setBold(true);
    m_titleLabel->setFont(titleFont);
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.9); // legend and note leave the chart its height
    m_legend->setFont(small);
    m_noteLabel->setFont(small);
}

void PlotWidget::setScreenScale(double scale) {
    if (!(scale >= 1.0 && scale <= 4.0))
        throw std::invalid_argument("PlotWidget::setScreenScale: scale must be in [1, 4]");
    if (scale == m_screenScale) return;
    m_screenScale = scale;
    rebuild();
}

void PlotWidget::changeEvent(QEvent* e) {
    if (e->type() == QEvent::PaletteChange) rebuild();
    if (e->type() == QEvent::FontChange) {
        deriveFonts();
        placeTitle();
        updateLegend();
    }
    QWidget::changeEvent(e);
}

QString PlotWidget::exportTo(const QString& path, ExportFormat format, const QSize& pixelSize,
                             int dpi, const ExportMetadata& meta) const {
    return exportFigure(*this, path, format, pixelSize, dpi, meta);
}

void PlotWidget::paintFigure(QPainter& painter, const QRectF& rect) const {
    paintStyled(painter, rect, nullptr);
}

void PlotWidget::paintStyled(QPainter& painter, const QRectF& rect, const PaperStyle* paper) const {
    // A paper figure carries no UI captions: its notes belong in the paper's caption.
    const QString note = paper ? QString() : fullNote();
    QFont noteFont = QApplication::font();
    noteFont.setPointSizeF(9);
    const QFontMetricsF fm(noteFont);
    const double noteH = note.isEmpty() ? 0
                                        : fm.boundingRect(QRectF(0, 0, rect.width() - 16, 1000),
                                                          Qt::TextWordWrap, note)
                                                  .height() +
                                              8;
    QGraphicsScene scene;
    auto* chart = new QChart;
    scene.addItem(chart);
    Ranges shown;
    populate(chart, m_state, false, true, &shown, paper, 1.0, rect.width());
    if (!paper && !m_state.title.isEmpty()) {
        // A small figure's title in a smaller font before it is shortened (as on screen).
        const FittedTitle fit = fitTitle(m_state.title, TitleText::Literal, chart->titleFont(),
                                         rect.width() - kChartSideMargins);
        chart->setTitleFont(fit.font);
        chart->setTitle(fit.html);
    }
    QList<LegendEntry> entries = plotmath::legendEntries(m_state, shown);
    if (paper) // no rich text in the legend: λ_min as λₘᵢₙ
        for (LegendEntry& e : entries) e.name = unicodeSubscripts(e.name);
    QFont legendFont = QApplication::font();
    legendFont.setPointSizeF(paper ? paper->fontPt : 9);
    const double legendInset = paper ? 4 : 12;
    const LegendLayout legend = layoutLegend(entries, legendFont, rect.width() - 2 * legendInset);
    const double legendH = entries.isEmpty() ? 0 : legend.height + 4;
    const QRectF chartRect(0, 0, rect.width(), rect.height() - noteH - legendH);
    chart->setGeometry(chartRect);
    if (chart->layout()) chart->layout()->activate();
    QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
    painter.save();
    painter.fillRect(rect, Qt::white);
    scene.render(&painter, QRectF(rect.topLeft(), chartRect.size()), chartRect);
    if (!entries.isEmpty())
        paintLegend(painter, entries, legend, legendFont,
                    QPointF(rect.left() + legendInset, rect.top() + chartRect.height()), Qt::black);
    if (!note.isEmpty()) {
        painter.setFont(noteFont);
        painter.setPen(colors::kNoteText);
        painter.drawText(QRectF(rect.left() + 8, rect.top() + chartRect.height() + legendH + 2,
                                rect.width() - 16, noteH),
                         Qt::TextWordWrap, note);
    }
    painter.restore();
}

PaperFigure::PaperFigure(const PlotWidget& plot, const PaperStyle& style)
    : m_plot(plot), m_style(style) {}

void PaperFigure::paintFigure(QPainter& painter, const QRectF& rect) const {
    m_plot.paintStyled(painter, rect, &m_style);
}

QSize PaperFigure::pixelSize(int dpi) const {
    return QSize(static_cast<int>(std::lround(m_style.widthInches * dpi)),
                 static_cast<int>(std::lround(m_style.heightInches * dpi)));
}

QString PlotWidget::csv() const {
    // Core's one CSV writer: 17 digits, empty cells for NaN, names quoted only when needed.
    CsvTable t({QStringLiteral("series"), QStringLiteral("x"), QStringLiteral("y")});
    for (const auto& s : m_state.series) {
        if (s.style == PlotSeries::Style::HLine) {
            if (!s.points.isEmpty())
                t.addRow(
                    {CsvTable::text(s.name), QString(), CsvTable::number(s.points.first().y())});
            continue;
        }
        const QString upper =
            s.style == PlotSeries::Style::Band ? QStringLiteral(" (upper)") : QString();
        for (const auto& p : s.points)
            t.addRow(
                {CsvTable::text(s.name + upper), CsvTable::number(p.x()), CsvTable::number(p.y())});
        for (const auto& p : s.lower)
            t.addRow({CsvTable::text(s.name + QStringLiteral(" (lower)")), CsvTable::number(p.x()),
                      CsvTable::number(p.y())});
    }
    return QString::fromUtf8(t.bytes());
}

bool PlotWidget::hasData() const {
    for (const auto& s : m_state.series)
        if (!s.points.isEmpty()) return true;
    return false;
}

} // namespace mhla::ui
