#pragma once
// What the sweep's source files share (not part of its interface): a file-level error that
// names the member it is about.
#include "core/base/text.h"
#include "core/experiment/config.h"

namespace mhla::sweepdetail {

[[noreturn]] inline void fail(const QString& msg, const QString& key) {
    throw ConfigError(msg.toStdString(), key);
}

} // namespace mhla::sweepdetail
