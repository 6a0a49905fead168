#pragma once
// Colour maps and palettes: pure functions, unit-tested (tst_gui_colormap).
#include <QColor>
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
/// WCAG relative luminance and contrast ratio (1 = none, 21 = black on white).
double relativeLuminance(const QColor& c);
double contrastRatio(const QColor& a, const QColor& b);

/// The largest |entry| over a list of values (0 if none are finite): the shared scale of a
/// group of heatmaps so that the same colour means the same number in every panel.
double symmetricScale(std::initializer_list<double> maxAbsValues);

} // namespace mhla::ui
