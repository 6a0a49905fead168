#pragma once
// Evaluation of a model on a task (MATH.md §5-§6): training and validation MSE, the
// out-of-distribution error on generic prompts, and the distances to the teacher in folded
// coefficient space. Every sum is a chunked sum reduced in a fixed order, so the numbers are
// identical for any thread count; the trainers use the same routine.
#include "core/base/parallel.h"
#include "core/base/types.h"
#include "core/run/result.h"
#include <algorithm>
#include <array>
#include <functional>
#include <vector>

namespace mhla {

struct SampleRows;

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

/// Two chunked sums in one pass: f(i) returns both terms, and each is summed exactly as
/// chunkedSum sums it (the same blocks of 512, the same order), so the results are those of two
/// separate chunkedSum calls, with each item evaluated once.
template <typename F>
std::array<double, 2> chunkedSum2(long long count, const RunContext& ctx, F&& f) {
    constexpr long long kBlock = 512;
    if (count <= 0) return {0.0, 0.0};
    const long long blocks = (count + kBlock - 1) / kBlock;
    std::vector<std::array<double, 2>> partial(static_cast<size_t>(blocks), {0.0, 0.0});
    parallelFor(blocks, ctx.threads, [&](long long b) {
        ctx.checkCancel();
        std::array<double, 2> s{0.0, 0.0};
        for (long long i = b * kBlock; i < std::min(count, (b + 1) * kBlock); ++i) {
            const std::array<double, 2> x = f(i);
            s[0] += x[0];
            s[1] += x[1];
        }
        partial[static_cast<size_t>(b)] = s;
    });
    std::array<double, 2> total{0.0, 0.0};
    for (const auto& p : partial) {
        total[0] += p[0];
        total[1] += p[1];
    }
    return total;
}

/// Metrics of a folded model P on a task (streaming, deterministic for any thread count):
/// train_mse on the first N training samples, val_mse, ood_rel_mse and the distances to P*.
/// With `trainRows` (the exact solver's cached rows of the N training samples), train_mse is
/// computed from them: the same features and labels, so the same numbers, without redrawing.
[[nodiscard]] Metrics evaluateFolded(const Task& task, const Mat& P, const ExperimentConfig& cfg,
                                     const RunContext& ctx = {},
                                     const SampleRows* trainRows = nullptr);
/// ood_rel_mse of any model given as a function of the prompt, on the task's generic prompts.
[[nodiscard]] double oodRelMse(const Task& task, const std::function<Vec(const Mat&)>& model,
                               long long count, const RunContext& ctx = {});

} // namespace mhla
