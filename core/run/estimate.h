#pragma once
// Time and memory a run will take, before it starts (issue 12: refuse hours-long runs unless
// the user confirms). Built from per-phase operation counts and rates measured on the
// reference machine (see the constants in estimate.cpp and tests/tst_estimate.cpp).
#include "core/experiment/config.h"
#include <string>
#include <utility>
#include <vector>

namespace mhla {

struct RunEstimate {
    double seconds = 0; ///< wall time on one core of the reference machine (threads help little)
    double bytes = 0;   ///< peak memory
    /// Seconds per phase, in run order ("accumulate", "certificate+solve", "evaluate", ...).
    std::vector<std::pair<std::string, double>> phases;
    /// Extra seconds if the certificate fails (a dense eigendecomposition with eigenvectors);
    /// not included in `seconds`.
    double extraIfNotCertified = 0;
    /// Above CertifyOptions::nullSpaceCrossover extraIfNotCertified is the iterative null-space
    /// path (a null space of dimension <= kMaxIterativeNullDim); this is the dense fallback a
    /// larger null space needs (0 when it does not apply).
    double extraIfLargeNullSpace = 0;
    /// N < D makes lambda_min = 0 certain: the failure path (the dense fallback when the null
    /// space is larger than kMaxIterativeNullDim) is then a phase of `seconds`, and the two
    /// extras above are 0.
    bool certificateFailureCertain = false;
    /// "about 2 min 10 s and 1.2 GiB (accumulate 1 min 40 s, certificate+solve 20 s, ...)".
    std::string describe() const;
};

/// Estimates the time and memory of runExperiment(cfg) with `threads` workers (0: all cores;
/// the bytes are estimateRunBytes(), core/run/admission.h). Never throws for a configuration
/// that validate() accepts; cheap (no allocation proportional to the run).
[[nodiscard]] RunEstimate estimateRun(const ExperimentConfig& cfg, int threads = 0);

/// Runs estimated above this need --yes (the GUI asks first): solve, sweep and figures alike.
constexpr double kLongRunSeconds = 600.0;

/// The estimate of several runs executed `jobs` at a time (a sweep; solve --seeds with jobs 1).
struct BatchEstimate {
    size_t runs = 0;
    int jobs = 1;
    double cpuSeconds = 0; ///< the sum of the runs' estimates (each worst case when certain)
    double seconds = 0;    ///< wall time: cpuSeconds over the runs that go at once
    double bytes = 0;      ///< jobs at once x the largest run's peak
    size_t longest = 0;    ///< index of the longest run
    size_t largest = 0;    ///< index of the run with the largest peak memory
    RunEstimate longestRun;
    /// "12 runs, about 3 min 10 s on 2 jobs and 1.2 GiB (the longest: about ...)".
    std::string describe() const;
};
/// Estimates `runs` executed `jobs` at a time on this machine (at most its cores go at once;
/// each run gets cores / jobs threads, as the sweep runner gives them).
[[nodiscard]] BatchEstimate estimateBatch(const std::vector<const ExperimentConfig*>& runs,
                                          int jobs = 1);
/// Why `e` may not start without --yes: "this sweep is estimated at 2 h 10 min (more than
/// 10 min); pass --yes to run it anyway, or choose smaller sizes", or empty.
[[nodiscard]] std::string longRunRefusal(const BatchEstimate& e, const std::string& what);

/// "850 ms", "12 s", "3 min 20 s", "2 h 05 min", "3.2 days".
[[nodiscard]] std::string formatDuration(double seconds);
/// "512 KiB", "1.5 GiB".
[[nodiscard]] std::string formatBytes(double bytes);

} // namespace mhla
