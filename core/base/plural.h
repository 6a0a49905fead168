#pragma once
// A count with its noun, singular or plural ("1 file", "3 files"), for messages that would
// otherwise say "file(s)".
#include <QString>

namespace mhla {

[[nodiscard]] inline QString countOf(long long n, const QString& singular, const QString& plural) {
    return QString::number(n) + u' ' + (n == 1 ? singular : plural);
}

} // namespace mhla
