#pragma once
// The polynomial-time algorithm's data pass (MATH.md §4): stream the training samples in
// blocks into Lambda and C, record lambda_min at checkpoints, then certify and solve.
#include "core/algebra/certificate.h"
#include "core/algebra/solver.h"
#include "core/base/types.h"
#include "core/experiment/config.h"
#include "core/tasks/samplerows.h"
#include "core/tasks/tasks.h"
#include <memory>
#include <utility>
#include <vector>

namespace mhla {

/// What the exact solver's pass over the training data produces.
struct ExactOutput {
    PolySolution solution;
    std::shared_ptr<const Mat>
        lambda; ///< the second moment Lambda (for the identifiability explorer)
    std::vector<std::pair<long long, double>> trace; ///< [samples seen, lambda_min]
    /// The training samples' rows, kept when they fit in kTrainRowCacheBytes (else null): the
    /// training error is then computed from them instead of drawing every sample again.
    std::shared_ptr<const SampleRows> trainRows;
    double accumulateMs = 0, solveMs = 0;
};

/// Sample counts at which lambda_min is recorded: geometric from D/2 to N, `count` of them
/// (none when count = 0 or D > kLambdaTraceMaxFeatureDim, where each checkpoint is a large
/// eigenproblem).
[[nodiscard]] std::vector<long long> traceCheckpoints(long long D, long long N, int count);

/// Streams the training samples into Lambda and C, then certifies and solves. Progress runs
/// from 0 to fractionEnd of the whole run.
[[nodiscard]] ExactOutput runExact(const Task& task, const ExperimentConfig& cfg,
                                   const RunContext& ctx, double fractionEnd);

} // namespace mhla
