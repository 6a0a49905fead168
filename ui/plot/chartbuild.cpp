#include "ui/plot/chartbuild.h"
#include "ui/plot/theme.h"
#include <QApplication>
#include <QAreaSeries>
#include <QCategoryAxis>
#include <QChart>
#include <QFontMetricsF>
#include <QLegend>
#include <QLineSeries>
#include <QPalette>
#include <QScatterSeries>
#include <QValueAxis>
#include <algorithm>
#include <cmath>
#include <utility>

namespace mhla::ui::chartbuild {

using namespace plotmath;

namespace {

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

/// Every axis label in full: never "…" (Qt elides labels that do not fit by default).
void keepLabelsWhole(QAbstractAxis* a) { a->setTruncateLabels(false); }

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

/// The lower edge of a band as a series of its own (so that it is filtered like any other).
PlotSeries bandLower(const PlotSeries& band) {
    PlotSeries lo = band;
    lo.style = PlotSeries::Style::Line;
    lo.points = band.lower;
    return lo;
}

/// The chart's theme, margins, title font and title (on screen the title is in the plot's
/// tool row; a paper's caption says what it shows).
void styleChart(QChart* chart, const PlotState& st, const ChartLook& look, double sizeScale) {
    chart->setTheme(look.dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);
    chart->setBackgroundRoundness(0);
    // Room on the right for the last x tick label (the x axis ends at the data).
    chart->setMargins(look.paper ? QMargins(0, 2, 10, 0) : QMargins(4, 4, 14, 4));
    chart->setAnimationOptions(QChart::NoAnimation);
    QFont tf = chart->titleFont();
    tf.setBold(true);
    tf.setPointSizeF(look.forExport ? 12 : kScreenTitlePt * sizeScale);
    chart->setTitleFont(tf);
    chart->setTitle(look.forExport && !look.paper ? axisTitleHtml(st.title, st.titleText)
                                                  : QString());
    chart->legend()->setAlignment(Qt::AlignBottom);
    chart->legend()->setShowToolTips(true);
}

/// One axis over [lo, hi]: log, categories (`names` not empty) or linear with nice ticks.
QAbstractAxis* makeAxis(const PlotState& st, double lo, double hi, bool horizontal, bool log,
                        const QStringList& names, bool ticksInside, int maxTicks, bool whole) {
    if (log) return makeLogAxis(lo, hi, horizontal);
    if (!names.isEmpty()) {
        auto* ca = new QCategoryAxis;
        setCategoryTicks(ca, lo, hi, names);
        keepLabelsWhole(ca);
        return ca;
    }
    auto* a = new QValueAxis;
    setLinearTicks(a, lo, hi, st.manualRange.has_value() || ticksInside, maxTicks, whole);
    return a;
}

/// New ticks for an axis built by makeAxis() for a state of the same signature; false when
/// the axis is of another kind than `st` needs.
bool retick(QAbstractAxis* a, const PlotState& st, double lo, double hi, int xTicks,
            bool ticksInside) {
    const bool horizontal = a->orientation() == Qt::Horizontal;
    const QStringList& names = horizontal ? st.xCategories : st.yCategories;
    const bool log = horizontal ? st.logX : st.logY;
    if (auto* ca = qobject_cast<QCategoryAxis*>(a)) { // a log axis or categories
        if (!log && !names.isEmpty()) setCategoryTicks(ca, lo, hi, names);
        else if (log) setLogTicks(ca, lo, hi, horizontal);
        else return false;
        return true;
    }
    auto* va = qobject_cast<QValueAxis*>(a);
    if (!va || log || !names.isEmpty()) return false;
    setLinearTicks(va, lo, hi, st.manualRange.has_value() || (horizontal && ticksInside),
                   horizontal ? xTicks : 11, horizontal && (st.wholeX || barsAtWholeX(st)));
    return true;
}

/// The axes may have rounded the range to nice numbers: reference lines span what is shown.
Ranges roundedByAxes(Ranges r, const QAbstractAxis* ax, const QAbstractAxis* ay,
                     const PlotState& st) {
    if (!st.logX)
        if (const auto* va = qobject_cast<const QValueAxis*>(ax)) {
            r.x0 = va->min();
            r.x1 = va->max();
        }
    if (!st.logY)
        if (const auto* va = qobject_cast<const QValueAxis*>(ay)) {
            r.y0 = va->min();
            r.y1 = va->max();
        }
    return r;
}

/// Axis fonts: a paper's size in black before the axes join the chart; on screen, after they
/// joined it (the theme has set its fonts then), scaled by `sizeScale`.
void paperAxisFonts(QAbstractAxis* a, const PaperStyle& paper) {
    QFont f = a->labelsFont();
    f.setPointSizeF(paper.fontPt);
    a->setLabelsFont(f);
    f.setBold(false);
    a->setTitleFont(f);
    a->setLabelsColor(Qt::black);
    a->setTitleBrush(Qt::black);
}

void scaleAxisFonts(QAbstractAxis* a, double sizeScale) {
    QFont f = a->labelsFont();
    f.setPointSizeF(f.pointSizeF() * sizeScale);
    a->setLabelsFont(f);
    f = a->titleFont();
    f.setPointSizeF(f.pointSizeF() * sizeScale);
    a->setTitleFont(f);
}

/// An area between two line series it owns (bands and bars).
QAreaSeries* areaBetween(const QList<QPointF>& upper, const QList<QPointF>& lower) {
    auto* up = new QLineSeries;
    auto* lo = new QLineSeries;
    up->replace(upper);
    lo->replace(lower);
    auto* area = new QAreaSeries(up, lo);
    up->setParent(area);
    lo->setParent(area);
    return area;
}

/// Qt's marker of a PlotSeries::mark (the legend and the run list draw markPath()).
QScatterSeries::MarkerShape markerShapeOf(int mark) {
    switch (markShape(mark)) {
    case MarkShape::Square: return QScatterSeries::MarkerShapeRectangle;
    case MarkShape::Triangle: return QScatterSeries::MarkerShapeTriangle;
    case MarkShape::Star: return QScatterSeries::MarkerShapeStar;
    case MarkShape::Pentagon: return QScatterSeries::MarkerShapePentagon;
    }
    return QScatterSeries::MarkerShapeCircle;
}

/// The chart series of one plot series, its points `pts` already in axis coordinates.
/// `lineScale`, `markerScale`: line widths and marker sizes this many times their usual size;
/// `dark`: drawn on a dark background.
QAbstractSeries* makeSeries(const PlotSeries& s, const QList<QPointF>& pts, const PlotState& st,
                            const Ranges& r, const QColor& color, double lineScale,
                            double markerScale, bool dark) {
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
        return ls;
    }
    case PlotSeries::Style::Markers:
    case PlotSeries::Style::Triangles: {
        auto* sc = new QScatterSeries;
        const bool triangles = s.style == PlotSeries::Style::Triangles;
        if (s.style == PlotSeries::Style::Markers && s.mark > 0) {
            sc->setMarkerShape(markerShapeOf(s.mark));
            sc->setMarkerSize(10 * markerScale);
        } else {
            sc->setMarkerShape(triangles ? QScatterSeries::MarkerShapeTriangle
                                         : QScatterSeries::MarkerShapeCircle);
            sc->setMarkerSize((triangles ? (s.markerSize > 0 ? s.markerSize : 11) : 7) *
                              markerScale);
        }
        sc->setColor(color);
        sc->setBorderColor(color.darker(130));
        sc->replace(pts);
        return sc;
    }
    case PlotSeries::Style::Floor: {
        auto* sc = new QScatterSeries;
        sc->setMarkerShape(QScatterSeries::MarkerShapeRotatedRectangle);
        sc->setMarkerSize(10 * markerScale);
        sc->setColor(dark ? QColor(Qt::black) : QColor(Qt::white)); // hollow
        sc->setBorderColor(color);
        sc->setPen(QPen(color, 1.5 * lineScale));
        sc->replace(pts);
        return sc;
    }
    case PlotSeries::Style::Band: {
        QAreaSeries* area = areaBetween(pts, filtered(bandLower(s), st, r));
        QColor fill = color;
        fill.setAlpha(55);
        area->setColor(fill);
        area->setBorderColor(fill);
        return area;
    }
    case PlotSeries::Style::Bars: {
        QList<QPointF> u, l;
        barOutline(pts, toAxis(r.y0, st.logY), u, l);
        QAreaSeries* area = areaBetween(u, l);
        area->setColor(color);
        area->setBorderColor(color.darker(140));
        return area;
    }
    }
    return nullptr;
}

} // namespace

int xTicksThatFit(double widthPx, double pt) {
    QFont f = QApplication::font();
    f.setPointSizeF(pt);
    return plotmath::ticksThatFit(widthPx,
                                  QFontMetricsF(f).horizontalAdvance(QStringLiteral("0000")));
}

double toAxis(double v, bool log) { return log ? std::log10(v) : v; }
double fromAxis(double a, bool log) { return log ? std::pow(10.0, a) : a; }

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

QStringList signatureOf(const PlotState& st) {
    QStringList sig;
    sig << QStringLiteral("logx=%1 logy=%2").arg(st.logX).arg(st.logY);
    for (const auto& s : displayedSeries(st))
        sig << s.name + u'|' + QString::number(static_cast<int>(s.style)) + u'|' + s.color.name() +
                   u'|' + QString::number(s.width) + u'|' + QString::number(s.inLegend) + u'|' +
                   QString::number(s.mark) + u'|' + QString::number(s.markerSize);
    return sig;
}

bool isDarkPalette(const QPalette& pal) { return pal.color(QPalette::Window).lightness() < 128; }

QList<QAbstractSeries*> populate(QChart* chart, const PlotState& st, const ChartLook& look,
                                 Ranges* shown) {
    const double sizeScale = look.paper || look.forExport ? 1.0 : look.screenScale;
    const int xTicks =
        xTicksThatFit(look.widthPx, look.paper ? look.paper->fontPt : kTickLabelPt * sizeScale);
    styleChart(chart, st, look, sizeScale);

    const Ranges r0 = computeRanges(st);
    QAbstractAxis* ax = makeAxis(st, r0.x0, r0.x1, true, st.logX, st.xCategories, r0.xTicksInside,
                                 xTicks, st.wholeX || barsAtWholeX(st));
    QAbstractAxis* ay =
        makeAxis(st, r0.y0, r0.y1, false, st.logY, st.yCategories, false, 11, false);
    const Ranges r = roundedByAxes(r0, ax, ay, st);
    // Axis titles are rich text: key names are escaped, typeset names get subscripts.
    ax->setTitleText(axisTitleHtml(st.xTitle, st.xTitleText));
    ay->setTitleText(axisTitleHtml(st.yTitle, st.yTitleText));
    if (look.paper)
        for (QAbstractAxis* a : {ax, ay}) paperAxisFonts(a, *look.paper);
    chart->addAxis(ax, Qt::AlignBottom);
    chart->addAxis(ay, Qt::AlignLeft);
    if (sizeScale != 1.0)
        for (QAbstractAxis* a : {ax, ay}) scaleAxisFonts(a, sizeScale);

    if (shown) *shown = r;
    QList<QAbstractSeries*> handles;
    const double lineScale = look.paper ? look.paper->lineScale : sizeScale;
    const double markerScale = look.paper ? 0.7 : sizeScale;
    for (const auto& s : displayedSeries(st)) {
        // Black (the teacher's dots) would vanish on the dark background.
        const QColor color = look.dark && s.color.lightness() < 50 ? colors::kOnDark : s.color;
        QAbstractSeries* h =
            makeSeries(s, filtered(s, st, r), st, r, color, lineScale, markerScale, look.dark);
        h->setName(s.name);
        chart->addSeries(h);
        h->attachAxis(ax);
        h->attachAxis(ay);
        handles << h;
    }
    // Our own legend (ui/plot/plotlegend) is drawn under the chart: it wraps instead of cutting
    // names.
    chart->legend()->setVisible(false);
    return handles;
}

bool refresh(QChart* chart, const QList<QAbstractSeries*>& handles, const PlotState& st, int xTicks,
             Ranges* shown) {
    const QList<PlotSeries> shownSeries = displayedSeries(st);
    if (handles.size() != shownSeries.size()) return false;
    const Ranges r0 = computeRanges(st);
    const auto hx = chart->axes(Qt::Horizontal);
    const auto vy = chart->axes(Qt::Vertical);
    if (hx.isEmpty() || vy.isEmpty()) return false;
    if (!retick(hx.first(), st, r0.x0, r0.x1, xTicks, r0.xTicksInside) ||
        !retick(vy.first(), st, r0.y0, r0.y1, xTicks, false))
        return false;
    const Ranges r = roundedByAxes(r0, hx.first(), vy.first(), st);
    if (shown) *shown = r;
    for (qsizetype i = 0; i < handles.size(); ++i) {
        const auto& s = shownSeries[i];
        const QList<QPointF> pts = filtered(s, st, r);
        if (s.style == PlotSeries::Style::Bars) {
            auto* area = static_cast<QAreaSeries*>(handles[i]);
            QList<QPointF> u, l;
            barOutline(pts, toAxis(r.y0, st.logY), u, l);
            area->upperSeries()->replace(u);
            area->lowerSeries()->replace(l);
        } else if (s.style == PlotSeries::Style::Band) {
            auto* area = static_cast<QAreaSeries*>(handles[i]);
            area->upperSeries()->replace(pts);
            area->lowerSeries()->replace(filtered(bandLower(s), st, r));
        } else {
            setGrown(static_cast<QXYSeries*>(handles[i]), pts);
        }
    }
    return true;
}

} // namespace mhla::ui::chartbuild
