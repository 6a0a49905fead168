#pragma once
// Inside core/experiment only: the key table's builder and lookups shared by its files
// (keytable.cpp, keyinfo.cpp, config.cpp). Everyone else reads experimentKeys() and
// findExperimentKey() from config.h.
#include "core/experiment/config.h"
#include <QString>
#include <vector>

namespace mhla::detail {

/// 2^53: above it a double no longer holds every integer.
inline constexpr double kMaxExactInt = 9007199254740992.0;
/// Every key of an experiment file, in file order (called once, by experimentKeys()).
[[nodiscard]] std::vector<KeyInfo> buildKeys();
/// The key `key` of `section`, or null.
[[nodiscard]] const KeyInfo* findKey(const QString& section, const QString& key);
/// The keys of `section`, comma separated (for "unknown key" messages).
[[nodiscard]] QString knownKeys(const QString& section);

} // namespace mhla::detail
