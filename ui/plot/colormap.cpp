#include "ui/plot/colormap.h"
#include "ui/plot/theme.h"
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

const QList<QColor>& runPalette() {
    // Okabe-Ito with its yellow darkened (the pale yellow is faint on white), then eight hues
    // that differ from them, mostly Paul Tol's (no grey: the exact solver's lines are grey).
    static const QList<QColor> palette{
        colors::kBlue,        colors::kOrange,     colors::kBluishGreen, colors::kReddishPurple,
        colors::kSkyBlue,     colors::kVermillion, QColor(160, 145, 0),  colors::kBlack,
        QColor(51, 34, 136),  QColor(17, 119, 51), QColor(136, 34, 85),  QColor(90, 150, 0),
        QColor(68, 170, 153), QColor(220, 60, 60), QColor(170, 68, 153), QColor(140, 81, 10),
    };
    return palette;
}

QColor runColor(int i) {
    const auto& c = runPalette();
    const int n = static_cast<int>(c.size());
    const int k = ((i % n) + n) % n;
    const int cycle = i >= 0 ? i / n : 0;
    if (cycle == 0) return c[k];
    // Later cycles: darker shades of the same hues (greys for black), never an exact repeat.
    if (c[k].value() < 30) return QColor::fromHsv(0, 0, std::min(135, 45 * cycle));
    return c[k].darker(100 + 35 * cycle);
}

double relativeLuminance(const QColor& c) {
    auto lin = [](double v) {
        return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
    };
    return 0.2126 * lin(c.redF()) + 0.7152 * lin(c.greenF()) + 0.0722 * lin(c.blueF());
}

double contrastRatio(const QColor& a, const QColor& b) {
    const double la = relativeLuminance(a), lb = relativeLuminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

double symmetricScale(std::initializer_list<double> maxAbsValues) {
    double s = 0;
    for (double v : maxAbsValues)
        if (std::isfinite(v)) s = std::max(s, std::abs(v));
    return s;
}

} // namespace mhla::ui
