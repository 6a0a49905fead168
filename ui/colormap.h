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
/// Okabe-Ito colour of run i (cycles).
QColor runColor(int i);

/// The largest |entry| over a list of values (0 if none are finite): the shared scale of a
/// group of heatmaps so that the same colour means the same number in every panel.
double symmetricScale(std::initializer_list<double> maxAbsValues);

} // namespace mhla::ui
