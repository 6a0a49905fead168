#pragma once
// Evaluation of a model on a task (MATH.md §5-§6): training and validation MSE, the
// out-of-distribution error on generic prompts, and the distances to the teacher in folded
// coefficient space. Every sum is a chunked sum reduced in a fixed order, so the numbers are
// identical for any thread count; the trainers use the same routine.
#include "core/parallel.h"
#include "core/result.h"
#include "core/types.h"
#include <algorithm>
#include <functional>
#include <vector>

namespace mhla {

/// Sum of f(i) over i in [0, count): fixed chunks of 512 items summed in order, the chunk sums
/// reduced in chunk order. Deterministic for any thread count; polls the cancel token per chunk.
template <typename F> double chunkedSum(long long count, const RunContext& ctx, F&& f) {
    return blockedSum(count, 512, ctx.threads, [&](long long begin, long long end) {
        ctx.checkCancel();
        double s = 0;
        for (long long i = begin; i < end; ++i) s += f(i);
        return s;
    });
}

/// Metrics of a folded model P on a task (streaming, deterministic for any thread count):
/// train_mse on the first N training samples, val_mse, ood_rel_mse and the distances to P*.
Metrics evaluateFolded(const Task& task, const Mat& P, const ExperimentConfig& cfg,
                       const RunContext& ctx = {});
/// ood_rel_mse of any model given as a function of the prompt, on the task's generic prompts.
double oodRelMse(const Task& task, const std::function<Vec(const Mat&)>& model, long long count,
                 const RunContext& ctx = {});

} // namespace mhla
