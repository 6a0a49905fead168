#include "ui/plotmath.h"
#include <algorithm>
#include <cmath>
#include <limits>

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

void padLog(double& lo, double& hi) {
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

namespace {
double niceStep(double span, int maxTicks) {
    const double raw = span / std::max(1, maxTicks - 1);
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
        if (m * mag >= raw * (1 - 1e-9)) return m * mag;
    return 10 * mag;
}
} // namespace

Ticks niceTicks(double lo, double hi, int maxTicks) {
    Ticks t;
    if (!std::isfinite(lo) || !std::isfinite(hi) || !(hi > lo)) {
        t.first = std::isfinite(lo) ? lo : 0;
        t.step = 1;
        t.count = std::isfinite(lo) ? 1 : 0;
        return t;
    }
    t.step = niceStep(hi - lo, maxTicks);
    if (!(t.step > 1e-12 * std::max(std::abs(lo), std::abs(hi)))) { // ticks that would not advance
        t.first = lo;
        t.count = 1;
        return t;
    }
    t.first = std::ceil(lo / t.step - 1e-9) * t.step;
    if (std::abs(t.first) < t.step * 1e-9) t.first = 0; // no "-0"
    t.count = static_cast<int>(std::floor((hi - t.first) / t.step + 1e-9)) + 1;
    // Fewer than two ticks (a narrow range): halve the step once more.
    if (t.count < 2) {
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

double niceFixedRange(double& lo, double& hi, int* count) {
    *count = 2;
    if (!std::isfinite(lo) || !std::isfinite(hi) ||
        !(hi - lo > 1e-12 * std::max(std::abs(lo), std::abs(hi))))
        return hi - lo;
    double bestLo = lo, bestHi = hi, bestStep = hi - lo,
           bestSpan = std::numeric_limits<double>::infinity();
    int bestCount = 2;
    for (int k = 4; k <= 11; ++k) {
        const double step = niceStep(hi - lo, k);
        const double a = std::floor(lo / step + 1e-9) * step,
                     b = std::ceil(hi / step - 1e-9) * step;
        const int n = static_cast<int>(std::lround((b - a) / step)) + 1;
        if (n < 3 || n > 11) continue;
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
    return QStringLiteral("1e%1%2")
        .arg(e < 0 ? QStringLiteral("-") : QStringLiteral("+"))
        .arg(std::abs(e), 2, 10, QLatin1Char('0'));
}

Ranges computeRanges(const PlotState& st) {
    Ranges r;
    double x0 = std::numeric_limits<double>::infinity(), x1 = -x0, y0 = x0, y1 = -x0;
    for (const auto& s : st.series) {
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
    if (st.logX) padLog(x0, x1);
    else if (!bars) padLinear(x0, x1);
    if (st.logY) padLog(y0, y1);
    else padLinear(y0, y1);
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

QString exact(double v) { return QString::number(v, 'g', 17); }

} // namespace plotmath
} // namespace mhla::ui
