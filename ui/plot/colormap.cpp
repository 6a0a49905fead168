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

namespace {
double toLinear(double v) { return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); }
double fromLinear(double v) {
    v = std::clamp(v, 0.0, 1.0);
    return v <= 0.0031308 ? 12.92 * v : 1.055 * std::pow(v, 1 / 2.4) - 0.055;
}
} // namespace

const QList<QColor>& screenRunPalette() {
    // Chosen from Okabe-Ito, Paul Tol's and IBM's colour-blind-safe sets as the largest set
    // that meets the bounds of the header (tst_gui_colormap checks them), most distinct first.
    static const QList<QColor> palette{
        QColor(0, 119, 187),  QColor(204, 121, 167), QColor(17, 119, 51),   QColor(153, 153, 51),
        QColor(120, 94, 240), QColor(140, 81, 10),   QColor(100, 143, 255), QColor(170, 68, 153),
    };
    return palette;
}

const QList<QColor>& reservedPlotColors() {
    static const QList<QColor> reserved{
        colors::kTrueState, colors::kExactReference, colors::kMissing, colors::kTau,
        colors::kError,     colors::kGood,           colors::kTeacher,
    };
    return reserved;
}

QHash<int, int> RunColorAssigner::assign(const QList<int>& onScreen) {
    QHash<int, int> kept;
    for (int id : onScreen)
        if (auto it = m_onScreen.constFind(id); it != m_onScreen.constEnd()) kept.insert(id, *it);
    const int n = static_cast<int>(screenRunPalette().size());
    QList<int> uses(n, 0);
    for (int i : std::as_const(kept)) ++uses[i];
    for (int id : onScreen) {
        if (kept.contains(id)) continue;
        int pick = -1;
        if (auto last = m_last.constFind(id); last != m_last.constEnd() && uses[*last] == 0)
            pick = *last;
        else pick = static_cast<int>(std::min_element(uses.begin(), uses.end()) - uses.begin());
        ++uses[pick];
        kept.insert(id, pick);
    }
    m_onScreen = kept;
    for (auto it = kept.constBegin(); it != kept.constEnd(); ++it) m_last.insert(it.key(), *it);
    return kept;
}

void RunColorAssigner::prefer(int id, const QColor& c) {
    const int i = static_cast<int>(screenRunPalette().indexOf(c.toRgb()));
    if (i < 0) return;
    m_last.insert(id, i);
    m_onScreen.remove(id); // the next assign() gives it that colour if it is free
}

void RunColorAssigner::clear() {
    m_onScreen.clear();
    m_last.clear();
}

QColor RunColorAssigner::colorOf(int paletteIndex) {
    const auto& p = screenRunPalette();
    const int n = static_cast<int>(p.size());
    return p[((paletteIndex % n) + n) % n];
}

QColor simulateColorVision(const QColor& c, ColorVision v) {
    // Machado et al. 2009, severity 1.0 (rows: output r, g, b in linear RGB).
    static constexpr double kProtan[3][3] = {{0.152286, 1.052583, -0.204868},
                                             {0.114503, 0.786281, 0.099216},
                                             {-0.003882, -0.048116, 1.051998}};
    static constexpr double kDeutan[3][3] = {{0.367322, 0.860646, -0.227968},
                                             {0.280085, 0.672501, 0.047413},
                                             {-0.011820, 0.042940, 0.968881}};
    static constexpr double kTritan[3][3] = {{1.255528, -0.076749, -0.178779},
                                             {-0.078411, 0.930809, 0.147602},
                                             {0.004733, 0.691367, 0.303900}};
    const auto& m = v == ColorVision::Protanopia     ? kProtan
                    : v == ColorVision::Deuteranopia ? kDeutan
                                                     : kTritan;
    const double in[3] = {toLinear(c.redF()), toLinear(c.greenF()), toLinear(c.blueF())};
    double out[3];
    for (int i = 0; i < 3; ++i) out[i] = m[i][0] * in[0] + m[i][1] * in[1] + m[i][2] * in[2];
    return QColor::fromRgbF(static_cast<float>(fromLinear(out[0])),
                            static_cast<float>(fromLinear(out[1])),
                            static_cast<float>(fromLinear(out[2])));
}

Lab cieLab(const QColor& c) {
    const double r = toLinear(c.redF()), g = toLinear(c.greenF()), b = toLinear(c.blueF());
    // sRGB -> XYZ (D65), normalised by the white point.
    const double x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047;
    const double y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
    const double z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
    auto f = [](double t) {
        constexpr double eps = 216.0 / 24389.0, kappa = 24389.0 / 27.0;
        return t > eps ? std::cbrt(t) : (kappa * t + 16) / 116;
    };
    return {116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))};
}

double deltaE(const QColor& x, const QColor& y) {
    const Lab a = cieLab(x), b = cieLab(y);
    return std::hypot(a.L - b.L, a.a - b.a, a.b - b.b);
}

double relativeLuminance(const QColor& c) {
    return 0.2126 * toLinear(c.redF()) + 0.7152 * toLinear(c.greenF()) +
           0.0722 * toLinear(c.blueF());
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
