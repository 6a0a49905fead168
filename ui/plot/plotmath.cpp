#include "ui/plot/plotmath.h"

#include "core/base/text.h"

#include <QFontMetricsF>
#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace mhla::ui {

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

namespace plotmath {

double shownY(double y, bool logY) { return logY && y > 0 && y < kLogFloor ? kLogFloor : y; }

bool usable(const QPointF& p, bool logX, bool logY) {
    if (!std::isfinite(p.x()) || !std::isfinite(p.y())) return false;
    if (logX && p.x() <= 0) return false;
    if (logY && p.y() <= 0) return false;
    return true;
}

void padLinear(double& lo, double& hi) {
    // A span at round-off level (0.3 and 0.30000000000000004) is one value: a range narrower
    // than the doubles can tell apart would have ticks that do not advance.
    if (!(hi - lo > 1e-9 * std::max(std::abs(lo), std::abs(hi)))) {
        lo = hi = 0.5 * (lo + hi);
        const double c = lo, w = std::max(std::abs(c) * 0.1, 1e-12);
        lo = c - w;
        hi = c + w;
        if (c >= 0 && lo < 0) lo = 0;
        return;
    }
    const double pad = 0.05 * (hi - lo);
    const bool nonNeg = lo >= 0;
    lo -= pad;
    hi += pad;
    if (nonNeg && lo < 0) lo = 0;
}

int decadesPerTick(double lo, double hi) {
    const double decades = std::log10(hi / lo);
    if (!std::isfinite(decades)) return 1;
    return std::max(1, static_cast<int>(std::ceil(decades / 8.0 - 1e-9)));
}

void padLog(double& lo, double& hi, double margin) {
    double e0 = std::log10(lo), e1 = std::log10(hi);
    if (!(e1 - e0 > 1e-9 * std::max({1.0, std::abs(e0), std::abs(e1)}))) {
        // One value: a decade around it (its 1, 2, 5 ticks are readable).
        e0 -= 0.5;
        e1 += 0.5;
    } else {
        const double m = margin * (e1 - e0);
        e0 -= m;
        e1 += m;
    }
    lo = std::pow(10.0, e0);
    hi = std::pow(10.0, e1);
}

namespace {
double niceStep(double span, int maxTicks, bool wholeSteps = false) {
    const double raw = span / std::max(1, maxTicks - 1);
    if (wholeSteps && raw <= 1) return 1;
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
        if (wholeSteps && mag < 10 && m == 2.5) continue; // 2.5 is not a whole step
        if (m * mag >= raw * (1 - 1e-9)) return m * mag;
    }
    return 10 * mag;
}
} // namespace

Ticks niceTicks(double lo, double hi, int maxTicks, bool wholeSteps) {
    Ticks t;
    if (!std::isfinite(lo) || !std::isfinite(hi) || !(hi > lo)) {
        t.first = std::isfinite(lo) ? lo : 0;
        t.step = 1;
        t.count = std::isfinite(lo) ? 1 : 0;
        return t;
    }
    t.step = niceStep(hi - lo, maxTicks, wholeSteps);
    if (!(t.step > 1e-12 * std::max(std::abs(lo), std::abs(hi)))) { // ticks that would not advance
        t.first = lo;
        t.count = 1;
        return t;
    }
    t.first = std::ceil(lo / t.step - 1e-9) * t.step;
    if (std::abs(t.first) < t.step * 1e-9) t.first = 0; // no "-0"
    t.count = static_cast<int>(std::floor((hi - t.first) / t.step + 1e-9)) + 1;
    // Fewer than two ticks (a narrow range): halve the step once more.
    if (t.count < 2 && !(wholeSteps && t.step <= 1)) {
        t.step /= 2;
        t.first = std::ceil(lo / t.step - 1e-9) * t.step;
        t.count = static_cast<int>(std::floor((hi - t.first) / t.step + 1e-9)) + 1;
    }
    return t;
}

void niceRange(double& lo, double& hi, int maxTicks) {
    if (!(hi > lo)) return;
    const double step = niceStep(hi - lo, maxTicks);
    lo = std::floor(lo / step + 1e-9) * step;
    hi = std::ceil(hi / step - 1e-9) * step;
}

double niceFixedRange(double& lo, double& hi, int* count, int maxTicks, bool wholeSteps) {
    maxTicks = std::clamp(maxTicks, 3, 11);
    *count = 2;
    if (!std::isfinite(lo) || !std::isfinite(hi) ||
        !(hi - lo > 1e-12 * std::max(std::abs(lo), std::abs(hi))))
        return hi - lo;
    double bestLo = lo, bestHi = hi, bestStep = hi - lo,
           bestSpan = std::numeric_limits<double>::infinity();
    int bestCount = 2;
    for (int k = std::min(4, maxTicks); k <= maxTicks; ++k) {
        const double step = niceStep(hi - lo, k, wholeSteps);
        const double a = std::floor(lo / step + 1e-9) * step,
                     b = std::ceil(hi / step - 1e-9) * step;
        const int n = static_cast<int>(std::lround((b - a) / step)) + 1;
        if (n < 3 || n > maxTicks) continue;
        if (b - a < bestSpan * (1 - 1e-9)) {
            bestSpan = b - a;
            bestLo = a;
            bestHi = b;
            bestStep = step;
            bestCount = n;
        }
    }
    lo = bestLo;
    hi = bestHi;
    *count = bestCount;
    return bestStep;
}

int ticksThatFit(double widthPx, double labelPx) {
    if (!(widthPx > 0) || !(labelPx > 0)) return 11;
    // The vertical axis's labels and title take about 2.5 labels' width on the left; each
    // label keeps 0.6 of its width free beside it.
    const double axis = widthPx - 2.5 * labelPx;
    return std::clamp(static_cast<int>(std::floor(axis / (1.6 * labelPx))) + 1, 3, 11);
}

QString tickFormat(double lo, double hi, double step) {
    const double big = std::max(std::abs(lo), std::abs(hi));
    if (!(step > 0) || !std::isfinite(big)) return QStringLiteral("%g");
    if (big >= 1e6 || big < 1e-3) {
        // Scientific: enough digits to tell ticks apart.
        const int digits =
            std::clamp(static_cast<int>(std::ceil(std::log10(big / step) + 1e-9)) + 1, 1, 15);
        return QStringLiteral("%.") + QString::number(digits) + QStringLiteral("g");
    }
    int decimals = 0;
    while (decimals < 15 &&
           std::abs(step * std::pow(10.0, decimals) - std::round(step * std::pow(10.0, decimals))) >
               1e-6 * step * std::pow(10.0, decimals))
        ++decimals;
    return QStringLiteral("%.") + QString::number(decimals) + QStringLiteral("f");
}

QString logTickLabel(double value) {
    if (!(value > 0) || !std::isfinite(value)) return QStringLiteral("%1").arg(value);
    const int e = static_cast<int>(std::lround(std::log10(value)));
    if (e >= -3 && e <= 4) return QString::number(std::pow(10.0, e), 'g', 6);
    return powerOfTen(e); // as a paper typesets it
}

QList<LogTick> logTicks(double lo, double hi, bool wide) {
    QList<LogTick> out;
    if (!(lo > 0) || !(hi > lo) || !std::isfinite(hi)) return out;
    const double e0 = std::log10(lo), e1 = std::log10(hi);
    const int k = decadesPerTick(lo, hi);
    for (int e = static_cast<int>(std::ceil(e0 - 1e-9));
         e <= static_cast<int>(std::floor(e1 + 1e-9)); ++e)
        if (e % k == 0) out << LogTick{static_cast<double>(e), logTickLabel(std::pow(10.0, e))};
    if (out.size() >= 2) return out;
    // Less than two decades in view (a zoom, a sweep over 1..8 heads): round mantissas inside
    // the range, at least four of them when 1, 2, 4, 8 gives more than 1, 2, 5 (1..8: 1, 2, 4,
    // 8, not 1, 2, 5).
    const std::pair<QList<int>, int> sets[] = {
        {{1, 2, 5}, 4}, {{1, 2, 4, 8}, 3}, {{1, 2, 5}, 2}, {{1, 2, 3, 4, 5, 6, 7, 8, 9}, 2}};
    for (const auto& [mantissas, least] : sets) {
        if (!wide && least > 2) continue;
        out.clear();
        for (int e = static_cast<int>(std::floor(e0)) - 1; e <= static_cast<int>(std::ceil(e1));
             ++e)
            for (int m : mantissas) {
                const double v = m * std::pow(10.0, e);
                if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9))
                    out << LogTick{std::log10(v), typesetNumber(QString::number(v, 'g', 3))};
            }
        if (out.size() >= least) return out;
    }
    out = {LogTick{e0, typesetNumber(QString::number(lo, 'g', 4))},
           LogTick{e1, typesetNumber(QString::number(hi, 'g', 4))}};
    if (out[0].label == out[1].label) {
        out[0].label = typesetNumber(QString::number(lo, 'g', 15));
        out[1].label = typesetNumber(QString::number(hi, 'g', 15));
    }
    return out;
}

namespace {

/// The extent of the shown data (hidden and off-scale series excepted), counting in `r` the
/// values a log axis drops or raises to its floor; infinite ends when nothing is drawable.
void dataExtent(const PlotState& st, Ranges& r, double& x0, double& x1, double& y0, double& y1) {
    x0 = std::numeric_limits<double>::infinity(), x1 = -x0, y0 = x0, y1 = -x0;
    for (const auto& s : st.series) {
        if (st.hidden.contains(s.groupName()) || !s.inRange) continue;
        const QList<QPointF> all =
            s.style == PlotSeries::Style::Band ? s.points + s.lower : s.points;
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
}

/// Whether a shown marker series has a point at an end of [x0, x1].
bool markerAtAnEnd(const PlotState& st, double x0, double x1) {
    for (const auto& s : st.series) {
        if (st.hidden.contains(s.groupName()) || !s.inRange) continue;
        if (s.style != PlotSeries::Style::Markers && s.style != PlotSeries::Style::Triangles &&
            s.style != PlotSeries::Style::LineMarkers && s.style != PlotSeries::Style::Floor)
            continue;
        for (const auto& p : s.points)
            if (p.x() <= x0 || p.x() >= x1) return true;
    }
    return false;
}

/// Markers at an end of a log x axis would be cut in half by the frame: a margin of
/// kMarkerMargin of its decades then (its ticks are labels at the decades, so the axis ends
/// where it is told). A linear axis gets the range its fixed ticks would show (whole nice
/// steps), then the same margin outside it, with the ticks inside (a probability axis stays
/// 0..1 in its ticks, and a marker at 1 is drawn whole) — not the margin alone: its ticks would
/// widen the range to a whole nice step (0..1 became -0.2..1.2).
void widenForMarkers(const PlotState& st, Ranges& r, double& x0, double& x1) {
    constexpr double kMarkerMargin = 0.03;
    if (st.logX && x0 > 0 && x1 > x0) {
        const double span = std::log10(x1 / x0);
        x0 /= std::pow(10.0, kMarkerMargin * span);
        x1 *= std::pow(10.0, kMarkerMargin * span);
    } else if (!st.logX && st.xCategories.isEmpty() && x1 > x0 && !st.manualRange) {
        int count = 2;
        niceFixedRange(x0, x1, &count);
        const double pad = kMarkerMargin * (x1 - x0);
        x0 -= pad;
        x1 += pad;
        r.xTicksInside = true;
    }
}

} // namespace

Ranges computeRanges(const PlotState& st) {
    Ranges r;
    double x0, x1, y0, y1;
    dataExtent(st, r, x0, x1, y0, y1);
    if (!std::isfinite(x0)) {
        x0 = st.logX ? 1 : 0;
        x1 = st.logX ? 10 : 1;
    }
    if (!std::isfinite(y0)) {
        y0 = st.logY ? 1e-3 : 0;
        y1 = 1;
    }
    bool bars = false;
    for (const auto& s : st.series)
        if (s.style == PlotSeries::Style::Bars) bars = true;
    if (bars) {
        x0 -= 0.5;
        x1 += 0.5;
        if (!st.logY) y0 = std::min(y0, 0.0);
    }
    // x is not padded (the axis ends at the data: 0..40 for 40 epochs, not 0..50, on log axes
    // too); only a single value gets a range around it. y gets a small margin (log: in log
    // space).
    if (st.logX) padLog(x0, x1, 0);
    else if (!st.xCategories.isEmpty()) {
        x0 = -0.5;
        x1 = static_cast<double>(st.xCategories.size()) - 0.5;
    } else if (!bars && !(x1 - x0 > 1e-9 * std::max(std::abs(x0), std::abs(x1)))) padLinear(x0, x1);
    if (!bars && markerAtAnEnd(st, x0, x1)) widenForMarkers(st, r, x0, x1);
    if (st.logY) padLog(y0, y1);
    else if (!st.yCategories.isEmpty()) {
        y0 = -0.5;
        y1 = static_cast<double>(st.yCategories.size()) - 0.5;
    } else padLinear(y0, y1);
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

QList<QPointF> emaSmooth(const QList<QPointF>& points, double weight, bool logY) {
    if (!(weight > 0)) return points;
    weight = std::min(weight, 0.999);
    QList<QPointF> out;
    out.reserve(points.size());
    double m = 0;
    int k = 0;
    for (const auto& p : points) {
        if (!std::isfinite(p.y()) || (logY && p.y() <= 0)) continue;
        const double y = logY ? std::log10(p.y()) : p.y();
        m = weight * m + (1 - weight) * y;
        ++k;
        const double s = m / (1 - std::pow(weight, k));
        out << QPointF(p.x(), logY ? std::pow(10.0, s) : s);
    }
    return out;
}

QString belowFloorName() {
    return QStringLiteral("below %1, drawn at %1").arg(logTickLabel(kLogFloor));
}

PlotSeries belowFloorSeries(const PlotState& st) {
    PlotSeries f;
    f.name = belowFloorName();
    f.style = PlotSeries::Style::Floor;
    f.color = QColor(Qt::black);
    if (!st.logY || st.hidden.contains(f.name)) return f;
    for (const auto& s : st.series) {
        if (st.hidden.contains(s.groupName()) || s.style == PlotSeries::Style::Band ||
            s.style == PlotSeries::Style::HLine || s.style == PlotSeries::Style::Bars ||
            s.style == PlotSeries::Style::Floor)
            continue;
        for (const auto& p : s.points)
            if (usable(p, st.logX, st.logY) && p.y() < kLogFloor)
                f.points << QPointF(p.x(), kLogFloor);
    }
    return f;
}

namespace {
/// A line's marks (PlotSeries::mark): at most kMarksPerLine of its points, every stride-th
/// from stride/2 on with a power-of-two stride, so that a growing live curve keeps them where
/// they are until the stride doubles (then every other one stays).
PlotSeries marksAlong(const PlotSeries& line) {
    PlotSeries m;
    m.name = line.name;
    m.group = line.groupName();
    m.color = line.color;
    m.style = PlotSeries::Style::Markers;
    m.mark = line.mark;
    m.inLegend = false;
    m.inRange = line.inRange;
    const qsizetype n = line.points.size();
    qsizetype stride = 1;
    while (stride * kMarksPerLine < n) stride *= 2;
    for (qsizetype i = stride / 2; i < n; i += stride) m.points << line.points[i];
    return m;
}
bool carriesMarks(const PlotSeries& s) {
    return s.mark > 0 &&
           (s.style == PlotSeries::Style::Line || s.style == PlotSeries::Style::LineMarkers);
}
} // namespace

QList<PlotSeries> displayedSeries(const PlotState& st) {
    QList<PlotSeries> out;
    for (const auto& s : st.series) {
        if (st.hidden.contains(s.groupName())) continue;
        if (!s.smoothable || !(st.smoothing > 0)) {
            out << s;
            if (carriesMarks(s)) out << marksAlong(s);
            continue;
        }
        PlotSeries raw = s;
        raw.mark = 0;
        raw.inLegend = false;
        raw.width = 1.0;
        raw.color.setAlphaF(0.28);
        raw.name = s.name + QStringLiteral(" (raw)");
        raw.smoothable = false;
        PlotSeries smooth = s;
        smooth.points = emaSmooth(s.points, st.smoothing, st.logY);
        smooth.smoothable = false;
        out << raw << smooth;
        if (carriesMarks(smooth)) out << marksAlong(smooth);
    }
    if (PlotSeries f = belowFloorSeries(st); !f.points.isEmpty()) out << f;
    return out;
}

QList<LegendEntry> legendEntries(const PlotState& st, const Ranges& r) {
    QList<LegendEntry> out;
    QList<bool> inView;
    auto inside = [&](const PlotSeries& s) {
        auto within = [](double v, double a, double b) { // relative to each end (log axes)
            return v >= a - 1e-9 * std::abs(a) && v <= b + 1e-9 * std::abs(b);
        };
        for (const auto& p : s.points) {
            if (!usable(s.style == PlotSeries::Style::HLine ? QPointF(r.x0, p.y()) : p, st.logX,
                        st.logY))
                continue;
            const double y = shownY(p.y(), st.logY);
            if (s.style == PlotSeries::Style::HLine) {
                if (within(y, r.y0, r.y1)) return true;
                continue;
            }
            if (within(p.x(), r.x0, r.x1) && within(y, r.y0, r.y1)) return true;
        }
        return false;
    };
    for (const auto& s : st.series) {
        if (!s.inLegend || s.name.isEmpty()) continue;
        int at = -1;
        for (int i = 0; i < out.size(); ++i)
            if (out[i].name == s.groupName()) at = i;
        if (at < 0) {
            LegendEntry e;
            e.name = s.groupName(); // the entry is the group (a run), named as such
            e.group = s.groupName();
            e.color = s.color;
            e.style = s.style;
            e.mark = s.mark;
            e.hidden = st.hidden.contains(e.group);
            out << e;
            inView << false;
            at = static_cast<int>(out.size()) - 1;
        }
        // Off scale means: it has points and none is in view (an empty series is not).
        if (s.points.isEmpty() || inside(s)) inView[at] = true;
    }
    for (int i = 0; i < out.size(); ++i) out[i].offScale = !out[i].hidden && !inView[i];
    PlotState unhidden = st; // the entry stays when the user hides it (a click shows it again)
    unhidden.hidden.remove(belowFloorName());
    if (const PlotSeries f = belowFloorSeries(unhidden); !f.points.isEmpty()) {
        LegendEntry e;
        e.name = e.group = f.name;
        e.color = f.color;
        e.style = f.style;
        e.hidden = st.hidden.contains(f.name);
        out << e;
    }
    return out;
}

bool zoomRange(double& lo, double& hi, double anchor, double factor, bool log) {
    if (!(factor > 0) || !std::isfinite(factor)) return false;
    if (log && (!(lo > 0) || !(hi > 0) || !(anchor > 0))) return false;
    const double a = log ? std::log10(lo) : lo, b = log ? std::log10(hi) : hi,
                 c = log ? std::log10(anchor) : anchor;
    const double na = c + (a - c) * factor, nb = c + (b - c) * factor;
    const double nlo = log ? std::pow(10.0, na) : na, nhi = log ? std::pow(10.0, nb) : nb;
    if (!std::isfinite(nlo) || !std::isfinite(nhi) || !(nhi > nlo)) return false;
    // Not narrower than the doubles can tell apart, not wider than a log axis can show.
    if (!(nhi - nlo > 1e-9 * std::max(std::abs(nlo), std::abs(nhi)))) return false;
    if (log && (nlo < 1e-300 || nhi > 1e300)) return false;
    lo = nlo;
    hi = nhi;
    return true;
}

bool panRange(double& lo, double& hi, double from, double to, bool log) {
    if (log && (!(lo > 0) || !(hi > 0) || !(from > 0) || !(to > 0))) return false;
    const double d = log ? std::log10(to) - std::log10(from) : to - from;
    const double a = (log ? std::log10(lo) : lo) - d, b = (log ? std::log10(hi) : hi) - d;
    const double nlo = log ? std::pow(10.0, a) : a, nhi = log ? std::pow(10.0, b) : b;
    if (!std::isfinite(nlo) || !std::isfinite(nhi) || !(nhi > nlo)) return false;
    lo = nlo;
    hi = nhi;
    return true;
}

double valueAtFraction(double f, double lo, double hi, bool log) {
    if (log && lo > 0 && hi > 0) return lo * std::pow(hi / lo, f);
    return lo + f * (hi - lo);
}

namespace {

/// True when plain[i] is a "_" that starts a deliberate subscript: after a one-letter symbol
/// ("λ_min", "σ_r", "x_y") or a sign ("‖P*‖_F"), before a letter or digit. Key and metric
/// names ("task.orthogonal_prob", "distance_p_rel", "certificate_samples") are written as
/// they are: their "_" follows a word or another "_" or ".".
bool subscriptAt(const QString& plain, qsizetype i, qsizetype* end) {
    const qsizetype n = plain.size();
    if (plain[i] != u'_' || i == 0 || i + 1 >= n || !plain[i + 1].isLetterOrNumber()) return false;
    const QChar before = plain[i - 1];
    if (before.isSpace() || before == u'_' || before == u'.') return false;
    if (before.isLetterOrNumber()) {
        // The symbol is one letter: nothing word-like before it.
        if (i >= 2) {
            const QChar b2 = plain[i - 2];
            if (b2.isLetterOrNumber() || b2 == u'_' || b2 == u'.' || b2.isMark()) return false;
        }
    }
    qsizetype j = i + 1;
    while (j < n && plain[j].isLetterOrNumber()) ++j;
    // "p_rel_x", "a_b.c": part of a longer name.
    if (j < n &&
        (plain[j] == u'_' || (plain[j] == u'.' && j + 1 < n && plain[j + 1].isLetterOrNumber())))
        return false;
    *end = j;
    return true;
}

} // namespace

QString typesetSubscripts(const QString& plain) {
    QString out;
    for (qsizetype i = 0; i < plain.size(); ++i) {
        qsizetype j = 0;
        if (subscriptAt(plain, i, &j)) {
            out += QStringLiteral("<sub>") + plain.mid(i + 1, j - i - 1).toHtmlEscaped() +
                   QStringLiteral("</sub>");
            i = j - 1;
            continue;
        }
        out += QString(plain[i]).toHtmlEscaped();
    }
    return out;
}

QList<TextRun> subscriptRuns(const QString& plain) {
    QList<TextRun> out;
    QString normal;
    for (qsizetype i = 0; i < plain.size(); ++i) {
        qsizetype j = 0;
        if (subscriptAt(plain, i, &j)) {
            if (!normal.isEmpty()) out.append({normal, false});
            normal.clear();
            out.append({plain.mid(i + 1, j - i - 1), true});
            i = j - 1;
            continue;
        }
        normal += plain[i];
    }
    if (!normal.isEmpty()) out.append({normal, false});
    return out;
}

QString axisTitleHtml(const QString& title, TitleText kind) {
    return kind == TitleText::Typeset ? typesetSubscripts(title) : title.toHtmlEscaped();
}

FittedTitle fitTitle(const QString& title, TitleText kind, const QFont& font, double room,
                     const QPaintDevice* device) {
    FittedTitle out{axisTitleHtml(title, kind), title, font, false};
    const double pt = font.pointSizeF() > 0 ? font.pointSizeF() : 9;
    const double minPt = std::min(pt, std::max(7.0, 0.75 * pt));
    const auto metrics = [device](const QFont& f) {
        return device ? QFontMetricsF(f, device) : QFontMetricsF(f);
    };
    // The plain text is at least as wide as the typeset one (subscripts are smaller).
    auto width = [&](const QFont& f) { return metrics(f).horizontalAdvance(title); };
    if (title.isEmpty() || !(room > 0) || width(font) <= room) return out;
    out.font.setPointSizeF(std::max(minPt, pt * room / width(font)));
    while (width(out.font) > room && out.font.pointSizeF() > minPt + 1e-9)
        out.font.setPointSizeF(std::max(minPt, out.font.pointSizeF() - 0.25));
    if (width(out.font) <= room) return out;
    out.text = elideAtWords(title, metrics(out.font), room, Qt::ElideRight);
    out.html = axisTitleHtml(out.text, kind); // "λ_min of Λ (…" keeps its subscript
    out.elided = true;
    return out;
}

namespace {
bool isWordBoundary(QChar c) { return c.isSpace() || QStringView(u"·,=/()_.").contains(c); }
} // namespace

QString elideAtWords(const QString& text, const QFontMetricsF& fm, double width,
                     Qt::TextElideMode mode) {
    const QString e = fm.elidedText(text, mode, width);
    const QChar dots(0x2026);
    const qsizetype at = e.indexOf(dots);
    if (e == text || at < 0) return e;
    QString left = e.left(at), right = e.mid(at + 1);
    // The left part ends inside a word when both the kept and the next dropped character are
    // word characters: cut back to the last boundary (kept) if that keeps half of it.
    if (!left.isEmpty() && left.size() < text.size() && !isWordBoundary(left.back()) &&
        !isWordBoundary(text[left.size()])) {
        qsizetype b = left.size() - 1;
        while (b >= 0 && !isWordBoundary(left[b])) --b;
        if (b >= 0 && b + 1 >= left.size() / 2) left = left.left(b + 1);
    }
    // The right part (ElideMiddle) starts inside a word: cut forward past the next boundary.
    const qsizetype start = text.size() - right.size();
    if (!right.isEmpty() && start > 0 && !isWordBoundary(right.front()) &&
        !isWordBoundary(text[start - 1])) {
        qsizetype b = 0;
        while (b < right.size() && !isWordBoundary(right[b])) ++b;
        if (b < right.size() && b < right.size() / 2) right = right.mid(b + 1);
    }
    return left.trimmed().isEmpty() && right.trimmed().isEmpty() ? e : left + dots + right;
}

QString exact(double v) { return QString::number(v, 'g', 17); }

} // namespace plotmath
} // namespace mhla::ui
