#include "ui/plotwidget.h"
#include <QApplication>
#include <QAreaSeries>
#include <QChart>
#include <QChartView>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QGraphicsLayout>
#include <QGraphicsScene>
#include <QHBoxLayout>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLineEdit>
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

struct Ranges {
    double x0 = 0, x1 = 1, y0 = 0, y1 = 1;
    int droppedLogX = 0, droppedLogY = 0, raisedLogY = 0;
};

// Qt Charts' log axes break down for ranges far below 1e-20 (they vanish), so positive values
// below this floor (zero up to round-off) are drawn at the floor and counted in the note.
constexpr double kLogFloor = 1e-20;

double shownY(double y, bool logY) { return logY && y > 0 && y < kLogFloor ? kLogFloor : y; }

bool usable(const QPointF& p, bool logX, bool logY) {
    if (!std::isfinite(p.x()) || !std::isfinite(p.y())) return false;
    if (logX && p.x() <= 0) return false;
    if (logY && p.y() <= 0) return false;
    return true;
}

void expandLinear(double& lo, double& hi) {
    if (!(hi > lo)) {
        const double c = lo, w = std::max(std::abs(c) * 0.1, 1e-12);
        lo = c - w;
        hi = c + w;
        return;
    }
    const double pad = 0.05 * (hi - lo);
    const bool nonNeg = lo >= 0;
    lo -= pad;
    hi += pad;
    if (nonNeg && lo < 0) lo = 0;
}

/// Decades per major tick so that a log axis has at most ~8 labelled ticks.
int decadesPerTick(double lo, double hi) {
    const double decades = std::log10(hi / lo);
    return std::max(1, static_cast<int>(std::ceil(decades / 8.0 - 1e-9)));
}

void expandLog(double& lo, double& hi) {
    lo = std::pow(10.0, std::floor(std::log10(lo) + 1e-9));
    hi = std::pow(10.0, std::ceil(std::log10(hi) - 1e-9));
    if (!(hi > lo * 99)) {
        lo /= 10;
        hi *= 10;
    }
    const int k = decadesPerTick(lo, hi);
    if (k > 1) {
        lo = std::pow(10.0, k * std::floor(std::log10(lo) / k + 1e-9));
        hi = std::pow(10.0, k * std::ceil(std::log10(hi) / k - 1e-9));
    }
    // A hair of slack so that ticks exactly at the ends survive rounding.
    lo *= 1 - 1e-9;
    hi *= 1 + 1e-9;
}

QLogValueAxis* makeLogAxis(double lo, double hi) {
    auto* a = new QLogValueAxis;
    const int k = decadesPerTick(lo, hi);
    a->setBase(std::pow(10.0, k));
    a->setLabelFormat(QStringLiteral("%g"));
    a->setMinorTickCount(k == 1 ? 8 : k - 1);
    a->setRange(lo, hi);
    return a;
}

Ranges computeRanges(const PlotState& st) {
    Ranges r;
    double x0 = std::numeric_limits<double>::infinity(), x1 = -x0, y0 = x0, y1 = -x0;
    for (const auto& s : st.series) {
        const QList<QPointF> all = s.style == PlotSeries::Style::Band ? s.points + s.lower : s.points;
        for (const auto& p : all) {
            const bool isH = s.style == PlotSeries::Style::HLine;
            if (!std::isfinite(p.y())) continue;
            if (st.logY && p.y() <= 0) {
                ++r.droppedLogY;
                continue;
            }
            if (!isH) {
                if (!std::isfinite(p.x())) continue;
                if (st.logX && p.x() <= 0) {
                    ++r.droppedLogX;
                    continue;
                }
                x0 = std::min(x0, p.x());
                x1 = std::max(x1, p.x());
            }
            if (st.logY && p.y() < kLogFloor) ++r.raisedLogY;
            y0 = std::min(y0, shownY(p.y(), st.logY));
            y1 = std::max(y1, shownY(p.y(), st.logY));
        }
    }
    if (!std::isfinite(x0)) {
        x0 = st.logX ? 1 : 0;
        x1 = st.logX ? 10 : 1;
    }
    if (!std::isfinite(y0)) {
        y0 = st.logY ? 1e-3 : 0;
        y1 = st.logY ? 1 : 1;
    }
    for (const auto& s : st.series)
        if (s.style == PlotSeries::Style::Bars) {
            x0 = std::min(x0, x0 - 0.5);
            x1 = std::max(x1, x1 + 0.5);
            if (!st.logY) y0 = std::min(y0, 0.0);
            break;
        }
    if (st.logX) expandLog(x0, x1);
    else expandLinear(x0, x1);
    if (st.logY) expandLog(y0, y1);
    else expandLinear(y0, y1);
    if (st.manualRange) {
        const QRectF& m = *st.manualRange;
        if (m.left() < m.right() && (!st.logX || m.left() > 0)) {
            x0 = m.left();
            x1 = m.right();
        }
        if (m.top() < m.bottom() && (!st.logY || m.top() > 0)) {
            y0 = m.top();
            y1 = m.bottom();
        }
    }
    r.x0 = x0;
    r.x1 = x1;
    r.y0 = y0;
    r.y1 = y1;
    return r;
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
void barOutline(const QList<QPointF>& pts, double base, QList<QPointF>& upper, QList<QPointF>& lower) {
    upper.clear();
    lower.clear();
    const double w = 0.38;
    for (const auto& p : pts) {
        upper << QPointF(p.x() - w, base) << QPointF(p.x() - w, p.y()) << QPointF(p.x() + w, p.y())
              << QPointF(p.x() + w, base);
    }
    if (!upper.isEmpty()) lower << QPointF(upper.first().x(), base) << QPointF(upper.last().x(), base);
}

QStringList signatureOf(const PlotState& st) {
    QStringList sig;
    sig << QStringLiteral("logx=%1 logy=%2").arg(st.logX).arg(st.logY);
    for (const auto& s : st.series)
        sig << s.name + u'|' + QString::number(static_cast<int>(s.style)) + u'|' + s.color.name() + u'|' +
                   QString::number(s.width) + u'|' + QString::number(s.inLegend);
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
        a->setRange(lo, hi);
        a->setLabelFormat(QStringLiteral("%.4g"));
        a->setTickCount(6);
        if (!st.manualRange) a->applyNiceNumbers();
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
        QPen pen(s.color, s.width);
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
            sc->setMarkerShape(s.style == PlotSeries::Style::Triangles ? QScatterSeries::MarkerShapeTriangle
                                                                       : QScatterSeries::MarkerShapeCircle);
            sc->setMarkerSize(s.style == PlotSeries::Style::Triangles ? 11 : 7);
            sc->setColor(s.color);
            sc->setBorderColor(s.color.darker(130));
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
            QColor fill = s.color;
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
            area->setColor(s.color);
            area->setBorderColor(s.color.darker(140));
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

QString num(double v) { return QString::number(v, 'g', 10); }

} // namespace

PlotSeries PlotSeries::hline(const QString& name, double y, const QColor& c, bool inLegend) {
    PlotSeries s;
    s.name = name;
    s.points = {QPointF(0, y)};
    s.color = c;
    s.style = Style::HLine;
    s.inLegend = inLegend;
    s.width = 1.5;
    return s;
}

PlotWidget::PlotWidget(const QString& figureName, QWidget* parent) : QWidget(parent), m_name(figureName) {
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
    m_autoButton = mk(tr("Autoscale"), tr("Fit the axes to the data"), false);
    auto* axesButton = mk(tr("Axes…"), tr("Set the axis ranges by hand"), false);
    m_hover = new QLabel(this);
    m_hover->setObjectName(figureName + QStringLiteral("Hover"));
    m_hover->setTextInteractionFlags(Qt::TextSelectableByMouse);
    bar->addSpacing(8);
    bar->addWidget(m_hover, 1);
    auto* exportButton = mk(tr("Export…"), tr("Export this figure as SVG, PDF, PNG and CSV"), false);
    lay->addLayout(bar);

    m_chart = new QChart;
    m_view = new QChartView(m_chart, this);
    m_view->setRenderHint(QPainter::Antialiasing);
    m_view->setMinimumSize(260, 200);
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
        parts << tr("%n value(s) ≤ 0 cannot be shown on the log y axis (switch log y off to see them).", nullptr,
                    r.droppedLogY);
    if (r.raisedLogY > 0)
        parts << tr("%n value(s) below %1 (zero up to round-off) are drawn at %1, the floor of the log axis; the CSV has "
                    "the exact values.", nullptr, r.raisedLogY)
                     .arg(QStringLiteral("1e-20"));
    if (r.droppedLogX > 0) parts << tr("%n point(s) with x ≤ 0 are not shown on the log x axis.", nullptr, r.droppedLogX);
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
            va->setRange(lo, hi);
            if (!m_state.manualRange) va->applyNiceNumbers();
        }
        return true;
    };
    if ((!hx.isEmpty() && !setAxis(hx.first(), r.x0, r.x1)) || (!vy.isEmpty() && !setAxis(vy.first(), r.y0, r.y1))) {
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
    QDialog dlg(this);
    dlg.setWindowTitle(tr("Axis ranges — %1").arg(m_state.title));
    auto* form = new QFormLayout(&dlg);
    const QRectF cur = currentRange();
    auto* x0 = new QLineEdit(num(cur.left()), &dlg);
    auto* x1 = new QLineEdit(num(cur.right()), &dlg);
    auto* y0 = new QLineEdit(num(cur.top()), &dlg);
    auto* y1 = new QLineEdit(num(cur.bottom()), &dlg);
    form->addRow(tr("x min"), x0);
    form->addRow(tr("x max"), x1);
    form->addRow(tr("y min"), y0);
    form->addRow(tr("y max"), y1);
    auto* err = new QLabel(&dlg);
    err->setStyleSheet(QStringLiteral("color: #c0392b"));
    form->addRow(err);
    auto* bb = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dlg);
    form->addRow(bb);
    connect(bb, &QDialogButtonBox::rejected, &dlg, &QDialog::reject);
    connect(bb, &QDialogButtonBox::accepted, &dlg, [&] {
        bool ok[4];
        const double a = x0->text().toDouble(&ok[0]), b = x1->text().toDouble(&ok[1]);
        const double c = y0->text().toDouble(&ok[2]), d = y1->text().toDouble(&ok[3]);
        if (!(ok[0] && ok[1] && ok[2] && ok[3])) return err->setText(tr("Every limit must be a number."));
        if (!(a < b) || !(c < d)) return err->setText(tr("Each minimum must be below its maximum."));
        if ((m_state.logX && a <= 0) || (m_state.logY && c <= 0))
            return err->setText(tr("A log axis needs positive limits."));
        dlg.accept();
    });
    if (dlg.exec() == QDialog::Accepted)
        setManualRange(QRectF(QPointF(x0->text().toDouble(), y0->text().toDouble()),
                              QPointF(x1->text().toDouble(), y1->text().toDouble())));
}

bool PlotWidget::eventFilter(QObject* watched, QEvent* event) {
    if (watched == m_view->viewport() && event->type() == QEvent::MouseMove && !m_handles.isEmpty()) {
        const auto* me = static_cast<QMouseEvent*>(event);
        const QPointF chartPos = m_chart->mapFromScene(m_view->mapToScene(me->position().toPoint()));
        if (!m_chart->plotArea().contains(chartPos)) {
            m_hover->clear();
            return false;
        }
        const QPointF v = m_chart->mapToValue(chartPos, m_handles.first());
        QString text = QStringLiteral("x = %1, y = %2").arg(QString::number(v.x(), 'g', 4), QString::number(v.y(), 'g', 4));
        double best = 400; // px^2
        QString nearest;
        const Ranges r = computeRanges(m_state);
        for (int i = 0; i < m_state.series.size(); ++i) {
            const auto& s = m_state.series[i];
            if (s.style == PlotSeries::Style::HLine) {
                if (s.points.isEmpty()) continue;
                const QPointF p = m_chart->mapToPosition(QPointF(v.x(), s.points.first().y()), m_handles[i]);
                const double d2 = std::pow(p.y() - chartPos.y(), 2);
                if (d2 < best) {
                    best = d2;
                    nearest = QStringLiteral("%1: %2").arg(s.name, QString::number(s.points.first().y(), 'g', 6));
                }
                continue;
            }
            for (const auto& q : filtered(s, m_state, r)) {
                const QPointF p = m_chart->mapToPosition(q, m_handles[i]);
                const double d2 = std::pow(p.x() - chartPos.x(), 2) + std::pow(p.y() - chartPos.y(), 2);
                if (d2 < best) {
                    best = d2;
                    nearest = QStringLiteral("%1: (%2, %3)")
                                  .arg(s.name.isEmpty() ? tr("point") : s.name, QString::number(q.x(), 'g', 6),
                                       QString::number(q.y(), 'g', 6));
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

QString PlotWidget::exportTo(const QString& path, ExportFormat format, const QSize& pixelSize, int dpi,
                             const ExportMetadata& meta) const {
    return exportFigure(*this, path, format, pixelSize, dpi, meta);
}

void PlotWidget::paintFigure(QPainter& painter, const QRectF& rect) const {
    const QString note = fullNote();
    QFont noteFont = QApplication::font();
    noteFont.setPointSizeF(9);
    const QFontMetricsF fm(noteFont);
    const double noteH = note.isEmpty()
                             ? 0
                             : fm.boundingRect(QRectF(0, 0, rect.width() - 16, 1000), Qt::TextWordWrap, note).height() + 8;
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
        painter.setPen(QColor(60, 60, 60));
        painter.drawText(QRectF(rect.left() + 8, rect.top() + chartRect.height() + 2, rect.width() - 16, noteH),
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
            if (!s.points.isEmpty()) out += quote(s.name) + QStringLiteral(",,") + num(s.points.first().y()) + u'\n';
            continue;
        }
        const QString upper = s.style == PlotSeries::Style::Band ? QStringLiteral(" (upper)") : QString();
        for (const auto& p : s.points) out += quote(s.name + upper) + u',' + num(p.x()) + u',' + num(p.y()) + u'\n';
        for (const auto& p : s.lower)
            out += quote(s.name + QStringLiteral(" (lower)")) + u',' + num(p.x()) + u',' + num(p.y()) + u'\n';
    }
    return out;
}

bool PlotWidget::hasData() const {
    for (const auto& s : m_state.series)
        if (!s.points.isEmpty()) return true;
    return false;
}

} // namespace mhla::ui
