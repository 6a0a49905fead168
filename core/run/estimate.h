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
    /// "about 2 min 10 s and 1.2 GiB (accumulate 1 min 40 s, certificate+solve 20 s, ...)".
    std::string describe() const;
};

/// Estimates the time and memory of runExperiment(cfg). Never throws for a configuration that
/// validate() accepts; cheap (no allocation proportional to the run).
RunEstimate estimateRun(const ExperimentConfig& cfg);

/// "850 ms", "12 s", "3 min 20 s", "2 h 05 min", "3.2 days".
std::string formatDuration(double seconds);
/// "512 KiB", "1.5 GiB".
std::string formatBytes(double bytes);

} // namespace mhla
