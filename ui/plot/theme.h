#pragma once
// The app's colours by name and its dark palette: every widget and plot takes its colours
// from here (the Okabe-Ito hues are colour-blind safe), so one fact has one home.
#include <QColor>
#include <QPalette>
#include <QString>

namespace mhla::ui {

namespace colors {
// Okabe-Ito (colour-blind safe).
inline const QColor kBlue{0, 114, 178};
inline const QColor kOrange{230, 159, 0};
inline const QColor kBluishGreen{0, 158, 115};
inline const QColor kReddishPurple{204, 121, 167};
inline const QColor kSkyBlue{86, 180, 233};
inline const QColor kVermillion{213, 94, 0};
inline const QColor kYellow{240, 228, 66};
inline const QColor kBlack{0, 0, 0};

// Roles.
inline const QColor kError = kVermillion; ///< invalid fields, failed states, clamped values
inline const QColor kGood = kBluishGreen; ///< certified
inline const QColor kExactReference{100, 100, 100}; ///< the exact solver's reference lines
inline const QColor kTau = kOrange;          ///< the certificate threshold tau (not grid grey)
inline const QColor kNoteText{60, 60, 60};   ///< notes under exported figures
inline const QColor kMissing{128, 128, 128}; ///< NaN cells
inline const QColor kNeutral{247, 247, 247}; ///< zero of the diverging map
inline const QColor kOnDark{230, 230, 230};  ///< black data drawn on the dark theme
inline const QColor kTrueState = kBlack;     ///< the automaton's true state line
inline const QColor kTeacher = kSkyBlue;     ///< the automaton's teacher line

/// "#rrggbb" for style sheets.
inline QString css(const QColor& c) { return c.name(QColor::HexRgb); }
} // namespace colors

/// The dark theme's palette (Fusion style).
QPalette darkPalette();

} // namespace mhla::ui
