#pragma once
// Gradient-trained baselines (MATH.md §8). Implemented in core/run/training/.
#include "core/run/result.h"
#include "core/tasks/tasks.h"

namespace mhla {

/// The in-memory data set a trainer sees (the same samples the exact solver streams).
struct Dataset {
    std::vector<Mat> Z; ///< prompts, d x n
    Mat Y;              ///< d_out x N labels
};

/// Generates the first N samples of a stream of a task.
[[nodiscard]] Dataset makeDataset(const Task& task, Stream stream, long long count,
                                  const RunContext& ctx = {});

/// Trains the model of cfg.solver.kind (mhla, multilayer, softmax) on `train`. Fills P (mhla
/// only), heads, metrics, history and stopReason of `out`. `exactP` (may be empty) is the
/// exact solver's P on the same data, for distanceExactRel. Throws Cancelled.
void trainBaseline(const ExperimentConfig& cfg, const Task& task, const Dataset& train,
                   const Dataset& val, const Mat& exactP, ExperimentResult& out,
                   const RunContext& ctx);

} // namespace mhla

#include <ostream>
#include <string>
#include <vector>
namespace mhla {
/// One row of the trainers' benchmark.
struct TrainerBenchRow {
    std::string label; ///< "mhla", "multilayer", "softmax"
    int d, heads, layers, tokens, batch;
    double usPerStep; ///< median over the repeats, one thread
};
/// `mhla-lab bench` part for the trainers: minibatch steps per second of each trainer at a
/// few sizes (median of several repeats), printed as aligned text and returned.
[[nodiscard]] std::vector<TrainerBenchRow> benchTrainers(std::ostream& out, int repeats);
} // namespace mhla
