#include "ui/colormap.h"
#include "ui/theme.h"
#include <algorithm>
#include <array>
#include <cmath>

namespace mhla::ui {

namespace {
struct Rgb {
    double r, g, b;
};
// RdBu (ColorBrewer, 11 classes), from most negative (blue) to most positive (red).
constexpr std::array<Rgb, 11> kRdBu{{
    {5, 48, 97},
    {33, 102, 172},
    {67, 147, 195},
    {146, 197, 222},
    {209, 229, 240},
    {247, 247, 247},
    {253, 219, 199},
    {244, 165, 130},
    {214, 96, 77},
    {178, 24, 43},
    {103, 0, 31},
}};
} // namespace

QColor divergingColor(double value, double maxAbs) {
    if (std::isnan(value)) return colors::kMissing;
    if (!(maxAbs > 0) || !std::isfinite(maxAbs)) return colors::kNeutral;
    const double t = std::clamp(value / maxAbs, -1.0, 1.0); // [-1, 1]
    const double pos = (t + 1.0) * 0.5 * static_cast<double>(kRdBu.size() - 1);
    const int i = std::min(static_cast<int>(std::floor(pos)), static_cast<int>(kRdBu.size()) - 2);
    const double f = pos - i;
    const Rgb& a = kRdBu[static_cast<size_t>(i)];
    const Rgb& b = kRdBu[static_cast<size_t>(i + 1)];
    auto mix = [f](double x, double y) { return static_cast<int>(std::lround(x + (y - x) * f)); };
    return QColor(mix(a.r, b.r), mix(a.g, b.g), mix(a.b, b.b));
}

const QList<QColor>& okabeIto() {
    static const QList<QColor> palette{
        colors::kBlue,    colors::kOrange,     colors::kBluishGreen, colors::kReddishPurple,
        colors::kSkyBlue, colors::kVermillion, colors::kYellow,      colors::kBlack,
    };
    return palette;
}

QColor runColor(int i) {
    const auto& c = okabeIto();
    const int n = static_cast<int>(c.size());
    return c[((i % n) + n) % n];
}

double symmetricScale(std::initializer_list<double> maxAbsValues) {
    double s = 0;
    for (double v : maxAbsValues)
        if (std::isfinite(v)) s = std::max(s, std::abs(v));
    return s;
}

} // namespace mhla::ui
