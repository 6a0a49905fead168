#pragma once
// Admission: whether this machine can run a parsed experiment (memory now; MATH.md §4's O(D^2)
// and the trainers' data, parameters, optimiser state and workspaces). Parsing never asks this,
// so a results folder or a session written on a bigger machine always opens; solve, sweep,
// figures and the GUI's Run admit a run before starting it (runExperiment() admits too, as the
// last guard). This is the one memory model: the run-time estimate (core/run/estimate.h) and the
// sweep's total (jobs x the largest run) take their bytes from here.
#include "core/experiment/config.h"
#include <vector>

namespace mhla {

/// Bytes every run holds beyond what its sizes model (stacks, allocator arenas, small blocks).
inline constexpr double kRunOverheadBytes = 8.0 * 1024 * 1024;
/// Bytes a run of `cfg` needs at its peak, by what they scale with (each names the key that
/// changes it), with `threads` workers (0: all cores; the trainers' evaluation holds one
/// workspace per worker).
struct RunBytes {
    double exact = 0; ///< the exact solve's moments, factor and cached rows (task.d, ...)
    double data = 0;  ///< a trainer's data sets (task.samples, eval.val_samples)
    double model = 0; ///< a trainer's parameters, optimiser state, workspaces (solver.heads)
    double other = 0; ///< history, generic prompts, execution words
    /// The peak: the exact solve runs (and frees its moments) before a trainer starts.
    double peak() const;
};
[[nodiscard]] RunBytes runBytes(const ExperimentConfig& cfg, int threads = 0);
/// runBytes(cfg, threads).peak().
[[nodiscard]] double estimateRunBytes(const ExperimentConfig& cfg, int threads = 0);
/// What keeps this machine from running `cfg` (empty when it can), each with the key to change:
/// the key of the largest part of the estimate. `ramBytes` < 0 asks the machine
/// (physicalMemoryBytes()); `copies` runs at once (a sweep's --jobs) need copies x the bytes.
[[nodiscard]] std::vector<ConfigIssue>
admissionIssues(const ExperimentConfig& cfg, double ramBytes = -1, int threads = 0, int copies = 1);
/// Throws ConfigError with the first admission issue.
void admit(const ExperimentConfig& cfg, int threads = 0);

} // namespace mhla
