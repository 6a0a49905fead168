#pragma once
// A UTF-8 string literal as a QString: the core's messages are written as UTF-8 source text
// (λ, ≤, →), and QStringLiteral cannot be built from a runtime char pointer.
#include <QString>

namespace mhla {

[[nodiscard]] inline QString q(const char* s) { return QString::fromUtf8(s); }

} // namespace mhla
