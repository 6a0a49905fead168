#pragma once
// Text helpers the core and the GUI share: UTF-8 literals as QStrings, and numbers typeset as a
// paper prints them.
#include <QString>

namespace mhla {

/// A UTF-8 string literal as a QString: the core's messages are written as UTF-8 source text
/// (λ, ≤, →), and QStringLiteral cannot be built from a runtime char pointer.
[[nodiscard]] inline QString q(const char* s) { return QString::fromUtf8(s); }

/// 10 to the power e with a superscript exponent: 10⁻²⁰, 10⁶.
[[nodiscard]] QString powerOfTen(int e);
/// A number as QString::number writes it, typeset as a paper prints it: "1e-10" -> "10⁻¹⁰",
/// "2.5e-08" -> "2.5×10⁻⁸", "1e+20" -> "10²⁰"; text without an exponent is returned as it is.
[[nodiscard]] QString typesetNumber(const QString& text);

} // namespace mhla
