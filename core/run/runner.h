#pragma once
// The experiment runner: config in, result value out (MATH.md §4-§7). Thread-agnostic: the
// GUI calls it on a worker thread, the command line on the main thread.
#include "core/run/exact.h"
#include "core/run/metrics.h"
#include "core/run/result.h"
#include <QJsonObject>
#include <optional>
#include <utility>
#include <vector>

namespace mhla {

/// Runs an experiment. Throws ConfigError for invalid input, Cancelled when cancelled.
[[nodiscard]] ExperimentResult runExperiment(const ExperimentConfig& cfg,
                                             const RunContext& ctx = {});

} // namespace mhla
