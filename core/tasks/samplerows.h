#pragma once
// The rows a task's samples give the polynomial-time algorithm (MATH.md §4): vech(S), z_q and
// the label of each sample, the input of MomentAccumulator::addBlock.
#include "core/base/types.h"
#include "core/tasks/tasks.h"
#include <vector>

namespace mhla {

/// Fills rows of U (vech S), Qz (z_q) and Y (labels) with samples [first, first + count) of a
/// stream: the input of MomentAccumulator::addBlock. Deterministic for any thread count.
/// Polls `cancel` per sample and throws Cancelled when it is set.
void fillSampleBlock(const Task& task, Stream stream, long long first, long long count, Mat& U,
                     Mat& Qz, Mat& Y, int threads, const CancelToken* cancel = nullptr);

/// The rows of samples [first, first + U.rows()) as fillSampleBlock writes them: U (vech S),
/// Qz (z_q), Y.
struct SampleBlock {
    long long first = 0;
    Mat U, Qz, Y;
};

/// The rows of samples 0, 1, ... kept as the blocks they were drawn in (the accumulator reads
/// each block where it was drawn: keeping it costs no copy).
struct SampleRows {
    std::vector<SampleBlock> blocks; ///< consecutive, in order of first
    /// Number of samples held.
    [[nodiscard]] long long size() const {
        return blocks.empty() ? 0 : blocks.back().first + blocks.back().U.rows();
    }
    /// The block that holds sample i (0 <= i < size()).
    [[nodiscard]] const SampleBlock& blockOf(long long i) const;
};

} // namespace mhla
