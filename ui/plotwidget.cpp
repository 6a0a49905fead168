#include "ui/plotwidget.h"
#include "ui/axisdialog.h"
#include "ui/theme.h"
#include <QApplication>
#include <QAreaSeries>
#include <QChart>
#include <QChartView>
#include <QGraphicsLayout>
#include <QGraphicsScene>
#include <QHBoxLayout>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QMouseEvent>
#include <QScatterSeries>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>
#include <QValueAxis>
#include <algorithm>
#include <cmath>
#include <limits>

namespace mhla::ui {

namespace {

using namespace plotmath;

/// Every axis label in full: never "…" (Qt elides labels that do not fit by default).
void keepLabelsWhole(QAbstractAxis* a) { a->setTruncateLabels(false); }

QLogValueAxis* makeLogAxis(double lo, double hi) {
    auto* a = new QLogValueAxis;
    const int k = decadesPerTick(lo, hi);
    a->setBase(std::pow(10.0, k));
    a->setLabelFormat(QStringLiteral("%g"));
    a->setMinorTickCount(k == 1 ? 8 : k - 1);
    a->setRange(lo, hi);
    keepLabelsWhole(a);
    return a;
}

/// Ticks of a linear axis at nice round positions. Fixed ticks over a range widened to the
/// nicest step (never Qt's dynamic ticks, whose label loop does not end when the interval does
/// not advance the value); manual ranges are shown as they are.
void setLinearTicks(QValueAxis* a, double lo, double hi, bool manual) {
    int count = 2;
    double step = hi - lo;
    if (!manual) {
        step = niceFixedRange(lo, hi, &count);
    } else {
        count = 6;
        step = (hi - lo) / 5;
    }
    a->setTickType(QValueAxis::TicksFixed);
    a->setRange(lo, hi);
    a->setTickCount(std::clamp(count, 2, 11));
    a->setLabelFormat(tickFormat(lo, hi, step));
    keepLabelsWhole(a);
}

QList<QPointF> filtered(const PlotSeries& s, const PlotState& st, const Ranges& r) {
    QList<QPointF> out;
    if (s.style == PlotSeries::Style::HLine) {
        if (!s.points.isEmpty() && usable(QPointF(1, s.points.first().y()), false, st.logY)) {
            const double y = shownY(s.points.first().y(), st.logY);
            out << QPointF(r.x0, y) << QPointF(r.x1, y);
        }
        return out;
    }
    out.reserve(s.points.size());
    for (const auto& p : s.points)
        if (usable(p, st.logX, st.logY)) out << QPointF(p.x(), shownY(p.y(), st.logY));
    return out;
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
    for (const auto& s : st.series)
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
QList<QAbstractSeries*> populate(QChart* chart, const PlotState& st, bool dark, bool forExport) {
    chart->setTheme(dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);
    chart->setBackgroundRoundness(0);
    chart->setMargins(QMargins(4, 4, 4, 4));
    chart->setAnimationOptions(QChart::NoAnimation);
    QFont tf = chart->titleFont();
    tf.setBold(true);
    tf.setPointSizeF(forExport ? 12 : 11);
    chart->setTitleFont(tf);
    chart->setTitle(st.title);
    chart->legend()->setAlignment(Qt::AlignBottom);
    chart->legend()->setShowToolTips(true);

    const Ranges r0 = computeRanges(st);
    QAbstractAxis* ax;
    QAbstractAxis* ay;
    auto linear = [&st](double lo, double hi) {
        auto* a = new QValueAxis;
        setLinearTicks(a, lo, hi, st.manualRange.has_value());
        return a;
    };
    ax = st.logX ? static_cast<QAbstractAxis*>(makeLogAxis(r0.x0, r0.x1)) : linear(r0.x0, r0.x1);
    ay = st.logY ? static_cast<QAbstractAxis*>(makeLogAxis(r0.y0, r0.y1)) : linear(r0.y0, r0.y1);
    // The axes may have rounded the range to nice numbers: reference lines span what is shown.
    Ranges r = r0;
    if (auto* va = qobject_cast<QValueAxis*>(ax)) {
        r.x0 = va->min();
        r.x1 = va->max();
    }
    if (auto* va = qobject_cast<QValueAxis*>(ay)) {
        r.y0 = va->min();
        r.y1 = va->max();
    }
    ax->setTitleText(st.xTitle);
    ay->setTitleText(st.yTitle);
    chart->addAxis(ax, Qt::AlignBottom);
    chart->addAxis(ay, Qt::AlignLeft);

    QList<QAbstractSeries*> handles;
    for (const auto& s : st.series) {
        const QList<QPointF> pts = filtered(s, st, r);
        QAbstractSeries* h = nullptr;
        // Black (the teacher's dots) would vanish on the dark background.
        const QColor color = dark && s.color.lightness() < 50 ? colors::kOnDark : s.color;
        QPen pen(color, s.width);
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
            sc->setMarkerSize(s.style == PlotSeries::Style::Triangles ? 11 : 7);
            sc->setColor(color);
            sc->setBorderColor(color.darker(130));
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
            barOutline(pts, r.y0, u, l);
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
        const auto markers = chart->legend()->markers(h);
        for (auto* m : markers) m->setVisible(s.inLegend && !s.name.isEmpty());
        handles << h;
    }
    int legendEntries = 0;
    for (const auto& s : st.series) legendEntries += (s.inLegend && !s.name.isEmpty()) ? 1 : 0;
    chart->legend()->setVisible(legendEntries > 0);
    // A bottom legend is one row: with many entries a column on the right keeps labels whole.
    chart->legend()->setAlignment(legendEntries > 4 ? Qt::AlignRight : Qt::AlignBottom);
    return handles;
}

QString num(double v) { return exact(v); }

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
    m_autoButton = mk(tr("Fit"), tr("Autoscale: fit the axes to the data"), false);
    auto* axesButton = mk(tr("Axes…"), tr("Set the axis ranges by hand"), false);
    m_hover = new QLabel(this);
    m_hover->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_hover->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred); // never widens the window
    m_hover->setObjectName(figureName + QStringLiteral("Hover"));
    bar->addSpacing(8);
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
    m_noteLabel = new QLabel(this);
    m_noteLabel->setObjectName(figureName + QStringLiteral("Note"));
    m_noteLabel->setWordWrap(true);
    m_noteLabel->setVisible(false);
    lay->addWidget(m_noteLabel);

    connect(m_logXButton, &QToolButton::toggled, this, &PlotWidget::setLogX);
    connect(m_logYButton, &QToolButton::toggled, this, &PlotWidget::setLogY);
    connect(m_autoButton, &QToolButton::clicked, this, [this] { setManualRange(std::nullopt); });
    connect(axesButton, &QToolButton::clicked, this, &PlotWidget::editAxes);
    connect(exportButton, &QToolButton::clicked, this, &PlotWidget::exportRequested);
    rebuild();
}

PlotWidget::~PlotWidget() = default;

void PlotWidget::setTitle(const QString& t) {
    m_state.title = t;
    m_chart->setTitle(t);
}

void PlotWidget::setAxisTitles(const QString& x, const QString& y) {
    m_state.xTitle = x;
    m_state.yTitle = y;
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
    const Ranges r = computeRanges(m_state);
    return QRectF(QPointF(r.x0, r.y0), QPointF(r.x1, r.y1));
}

void PlotWidget::setNote(const QString& note) {
    m_state.note = note;
    updateNote();
}

QString PlotWidget::note() const { return fullNote(); }

void PlotWidget::clear() { setSeries({}); }

QString PlotWidget::fullNote() const {
    const Ranges r = computeRanges(m_state);
    QStringList parts;
    if (!hasData()) parts << tr("No data yet: run an experiment (Ctrl+R).");
    if (!m_state.note.isEmpty()) parts << m_state.note;
    if (r.droppedLogY > 0)
        parts << tr(
            "%n value(s) ≤ 0 cannot be shown on the log y axis (switch log y off to see them).",
            nullptr, r.droppedLogY);
    if (r.raisedLogY > 0)
        parts
            << tr("%n value(s) below %1 (zero up to round-off) are drawn at %1, the floor of the log axis; the CSV has "
                  "the exact values.",
                  nullptr, r.raisedLogY)
                   .arg(logTickLabel(kLogFloor));
    if (r.droppedLogX > 0)
        parts << tr("%n point(s) with x ≤ 0 are not shown on the log x axis.", nullptr,
                    r.droppedLogX);
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
    m_handles = populate(m_chart, m_state, isDarkPalette(palette()), false);
    m_signature = signatureOf(m_state);
    updateNote();
}

void PlotWidget::refreshData() {
    if (m_handles.size() != m_state.series.size()) {
        rebuild();
        return;
    }
    Ranges r = computeRanges(m_state);
    const auto hx = m_chart->axes(Qt::Horizontal);
    const auto vy = m_chart->axes(Qt::Vertical);
    auto setAxis = [this](QAbstractAxis* a, double lo, double hi) {
        if (auto* la = qobject_cast<QLogValueAxis*>(a)) {
            if (la->base() != std::pow(10.0, decadesPerTick(lo, hi))) return false;
            la->setRange(lo, hi);
        } else if (auto* va = qobject_cast<QValueAxis*>(a)) {
            setLinearTicks(va, lo, hi, m_state.manualRange.has_value());
        }
        return true;
    };
    if ((!hx.isEmpty() && !setAxis(hx.first(), r.x0, r.x1)) ||
        (!vy.isEmpty() && !setAxis(vy.first(), r.y0, r.y1))) {
        rebuild();
        return;
    }
    if (!hx.isEmpty())
        if (auto* va = qobject_cast<QValueAxis*>(hx.first())) {
            r.x0 = va->min();
            r.x1 = va->max();
        }
    if (!vy.isEmpty())
        if (auto* va = qobject_cast<QValueAxis*>(vy.first())) {
            r.y0 = va->min();
            r.y1 = va->max();
        }
    for (int i = 0; i < m_handles.size(); ++i) {
        const auto& s = m_state.series[i];
        const QList<QPointF> pts = filtered(s, m_state, r);
        if (s.style == PlotSeries::Style::Bars) {
            auto* area = static_cast<QAreaSeries*>(m_handles[i]);
            QList<QPointF> u, l;
            barOutline(pts, r.y0, u, l);
            area->upperSeries()->replace(u);
            area->lowerSeries()->replace(l);
        } else if (s.style == PlotSeries::Style::Band) {
            auto* area = static_cast<QAreaSeries*>(m_handles[i]);
            area->upperSeries()->replace(pts);
            area->lowerSeries()->replace(filtered(bandLower(s), m_state, r));
        } else {
            static_cast<QXYSeries*>(m_handles[i])->replace(pts);
        }
    }
    updateNote();
}

void PlotWidget::editAxes() {
    AxisDialog dlg(m_state.title, currentRange(), m_state.logX, m_state.logY, this);
    if (dlg.exec() == QDialog::Accepted) setManualRange(dlg.range());
}

bool PlotWidget::eventFilter(QObject* watched, QEvent* event) {
    if (watched == m_view->viewport() && event->type() == QEvent::MouseMove &&
        !m_handles.isEmpty()) {
        const auto* me = static_cast<QMouseEvent*>(event);
        const QPointF chartPos =
            m_chart->mapFromScene(m_view->mapToScene(me->position().toPoint()));
        if (!m_chart->plotArea().contains(chartPos)) {
            m_hover->clear();
            return false;
        }
        const QPointF v = m_chart->mapToValue(chartPos, m_handles.first());
        QString text = QStringLiteral("x = %1, y = %2")
                           .arg(QString::number(v.x(), 'g', 4), QString::number(v.y(), 'g', 4));
        double best = 400; // px^2
        QString nearest;
        const Ranges r = computeRanges(m_state);
        for (int i = 0; i < m_state.series.size(); ++i) {
            const auto& s = m_state.series[i];
            if (s.style == PlotSeries::Style::HLine) {
                if (s.points.isEmpty()) continue;
                const QPointF p =
                    m_chart->mapToPosition(QPointF(v.x(), s.points.first().y()), m_handles[i]);
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
                    nearest =
                        QStringLiteral("%1: (%2, %3)")
                            .arg(s.name.isEmpty() ? tr("point") : s.name,
                                 QString::number(q.x(), 'g', 6), QString::number(q.y(), 'g', 6));
                }
            }
        }
        if (!nearest.isEmpty()) text += QStringLiteral("   ·   ") + nearest;
        m_hover->setText(text);
        if (!nearest.isEmpty()) QToolTip::showText(me->globalPosition().toPoint(), nearest, m_view);
    } else if (watched == m_view->viewport() && event->type() == QEvent::Leave) {
        m_hover->clear();
    }
    return QWidget::eventFilter(watched, event);
}

void PlotWidget::changeEvent(QEvent* e) {
    if (e->type() == QEvent::PaletteChange) rebuild();
    QWidget::changeEvent(e);
}

QString PlotWidget::exportTo(const QString& path, ExportFormat format, const QSize& pixelSize,
                             int dpi, const ExportMetadata& meta) const {
    return exportFigure(*this, path, format, pixelSize, dpi, meta);
}

void PlotWidget::paintFigure(QPainter& painter, const QRectF& rect) const {
    const QString note = fullNote();
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
    populate(chart, m_state, false, true);
    const QRectF chartRect(0, 0, rect.width(), rect.height() - noteH);
    chart->setGeometry(chartRect);
    if (chart->layout()) chart->layout()->activate();
    QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
    painter.save();
    painter.fillRect(rect, Qt::white);
    scene.render(&painter, QRectF(rect.topLeft(), chartRect.size()), chartRect);
    if (!note.isEmpty()) {
        painter.setFont(noteFont);
        painter.setPen(colors::kNoteText);
        painter.drawText(
            QRectF(rect.left() + 8, rect.top() + chartRect.height() + 2, rect.width() - 16, noteH),
            Qt::TextWordWrap, note);
    }
    painter.restore();
}

QString PlotWidget::csv() const {
    QString out = QStringLiteral("series,x,y\n");
    auto quote = [](QString s) {
        s.replace(u'"', QStringLiteral("\"\""));
        return u'"' + s + u'"';
    };
    for (const auto& s : m_state.series) {
        if (s.style == PlotSeries::Style::HLine) {
            if (!s.points.isEmpty())
                out += quote(s.name) + QStringLiteral(",,") + num(s.points.first().y()) + u'\n';
            continue;
        }
        const QString upper =
            s.style == PlotSeries::Style::Band ? QStringLiteral(" (upper)") : QString();
        for (const auto& p : s.points)
            out += quote(s.name + upper) + u',' + num(p.x()) + u',' + num(p.y()) + u'\n';
        for (const auto& p : s.lower)
            out += quote(s.name + QStringLiteral(" (lower)")) + u',' + num(p.x()) + u',' +
                   num(p.y()) + u'\n';
    }
    return out;
}

bool PlotWidget::hasData() const {
    for (const auto& s : m_state.series)
        if (!s.points.isEmpty()) return true;
    return false;
}

} // namespace mhla::ui
