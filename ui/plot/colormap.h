#pragma once
// Colour maps and palettes: pure functions, unit-tested (tst_gui_colormap).
#include <QColor>
#include <QHash>
#include <QList>

namespace mhla::ui {

/// Zero-centred diverging colour map (blue - white - red, after ColorBrewer RdBu): value / maxAbs
/// in [-1, 1] maps to blue (negative) through white (zero) to red (positive). Values outside are
/// clamped; maxAbs <= 0 or a non-finite value gives white (resp. grey for NaN).
QColor divergingColor(double value, double maxAbs);

/// The eight Okabe-Ito colours (colour-blind safe), in the order used for runs. Black is last
/// so that it is used only after the seven hues.
const QList<QColor>& okabeIto();
/// The sixteen run colours: Okabe-Ito (its pale yellow darkened so it reads on white), then
/// eight further hues (mostly Paul Tol's), all at least 60 apart in RGB.
const QList<QColor>& runPalette();
/// The colour of run i: the sixteen of runPalette(), then darker shades of them (no two runs
/// of the first 64 share a colour).
QColor runColor(int i);
/// The colours of runs on screen (RunColorAssigner): eight hues that are far apart for normal
/// vision and for each colour-vision deficiency (deltaE >= kRunColorMinDeltaE, resp.
/// kRunColorMinDeltaECvd under simulateColorVision), far from every colour that means something
/// else in the plots (reservedPlotColors()), and readable on white and on the dark theme.
const QList<QColor>& screenRunPalette();
/// The colours the plots use for other things (black truth lines, grey exact references, the
/// threshold, errors, certified, the automaton's teacher): no run may look like one of them.
const QList<QColor>& reservedPlotColors();
inline constexpr double kRunColorMinDeltaE = 20;   ///< CIE76, normal vision
inline constexpr double kRunColorMinDeltaECvd = 8; ///< CIE76, under each deficiency

/// Gives the runs on screen distinct colours of screenRunPalette(): a run keeps its colour
/// while it stays on screen, a run that leaves gives its colour back, a new one takes the first
/// free colour (its own former one if that is free). Only with more runs on screen than colours
/// do two share one (the least used). A pure value, independent of how many runs ever existed.
class RunColorAssigner {
public:
    /// Assigns colours to `onScreen` (run ids, in list order); returns the palette index of
    /// each (an index into screenRunPalette()).
    [[nodiscard]] QHash<int, int> assign(const QList<int>& onScreen);
    /// The colour this run should have whenever it is free (a session's saved colour), from the
    /// next assign() on; colours not in the palette are ignored.
    void prefer(int id, const QColor& c);
    /// Forgets every run (the list was cleared).
    void clear();
    [[nodiscard]] static QColor colorOf(int paletteIndex);

private:
    QHash<int, int> m_onScreen; ///< id -> palette index of the runs on screen
    QHash<int, int> m_last;     ///< id -> the palette index the run had last
};

/// Colour-vision deficiencies simulated by simulateColorVision().
enum class ColorVision { Protanopia, Deuteranopia, Tritanopia };
/// How `c` looks with the deficiency (Machado, Oliveira and Fernandes 2009, severity 1,
/// applied in linear sRGB).
[[nodiscard]] QColor simulateColorVision(const QColor& c, ColorVision v);
/// CIE L*a*b* (D65) of an sRGB colour, and the CIE76 difference of two colours (Euclidean in
/// L*a*b*; about 2.3 is just noticeable).
struct Lab {
    double L, a, b;
};
[[nodiscard]] Lab cieLab(const QColor& c);
[[nodiscard]] double deltaE(const QColor& x, const QColor& y);

/// WCAG relative luminance and contrast ratio (1 = none, 21 = black on white).
double relativeLuminance(const QColor& c);
double contrastRatio(const QColor& a, const QColor& b);

/// The largest |entry| over a list of values (0 if none are finite): the shared scale of a
/// group of heatmaps so that the same colour means the same number in every panel.
double symmetricScale(std::initializer_list<double> maxAbsValues);

} // namespace mhla::ui
