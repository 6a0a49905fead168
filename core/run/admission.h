#pragma once
// Admission: whether this machine can run a parsed experiment (memory now; MATH.md §4's O(D^2)
// and the trainers' data and parameters). Parsing never asks this, so a results folder or a
// session written on a bigger machine always opens; solve, sweep, figures and the GUI's Run
// admit a run before starting it (runExperiment() admits too, as the last guard).
#include "core/experiment/config.h"
#include <vector>

namespace mhla {

/// Bytes the run of `cfg` needs at its peak: the exact solve's moments and cached rows, and for
/// trainers their data, parameters, optimizer state and history.
[[nodiscard]] double estimateRunBytes(const ExperimentConfig& cfg);
/// What keeps this machine from running `cfg` (empty when it can), each with the key to change.
/// `ramBytes` < 0 asks the machine (physicalMemoryBytes()).
[[nodiscard]] std::vector<ConfigIssue> admissionIssues(const ExperimentConfig& cfg,
                                                       double ramBytes = -1);
/// Throws ConfigError with the first admission issue.
void admit(const ExperimentConfig& cfg);

} // namespace mhla
