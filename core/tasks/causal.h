#pragma once
// The causal all-positions setup of MATH.md §1 (the paper's Sec 4.1): position t of a prompt
// sees S_t = sum_{s<=t} z_s z_s^T and the query z_t, and is a training target of its own.
#include "core/tasks/tasks.h"
#include <memory>

namespace mhla {

/// psi_t for every position of a prompt Z (d x n): column t-1 is psi(S_t, z_t), built from the
/// running sum S_t (O(n d^3), no prefix copies). Equals featureVector(Z.leftCols(t)).
[[nodiscard]] Mat causalFeatures(const Mat& Z);

/// The causal version of a task: sample `index` of a stream is position t = index mod T + 1 of
/// the base task's prompt index / T (T = tokens per prompt), as the prefix Z[:, 1..t] with the
/// label f*(Z[:, 1..t]) (+ noise where the base task has noise). Every model that reads the
/// query's output (the exact solver through psi(prefix) = psi_t, MHLA, the causal multilayer
/// stack, the softmax block whose query attends to every earlier token) then regresses every
/// position of every prompt: the all-positions objective. T consecutive indices share a prompt.
[[nodiscard]] std::unique_ptr<Task> makeCausalTask(std::unique_ptr<Task> base,
                                                   const TaskConfig& cfg);

} // namespace mhla
