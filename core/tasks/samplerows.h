#pragma once
// The rows a task's samples give the polynomial-time algorithm (MATH.md §4): vech(S), z_q and
// the label of each sample, the input of MomentAccumulator::addBlock.
#include "core/base/types.h"
#include "core/tasks/tasks.h"

namespace mhla {

/// Fills rows of U (vech S), Qz (z_q) and Y (labels) with samples [first, first + count) of a
/// stream: the input of MomentAccumulator::addBlock. Deterministic for any thread count.
/// Polls `cancel` per sample and throws Cancelled when it is set.
void fillSampleBlock(const Task& task, Stream stream, long long first, long long count, Mat& U,
                     Mat& Qz, Mat& Y, int threads, const CancelToken* cancel = nullptr);

/// The rows of a set of samples as fillSampleBlock writes them: U (vech S), Qz (z_q), Y.
struct SampleRows {
    Mat U, Qz, Y;
};

} // namespace mhla
