#pragma once
// The learners a run can use: the polynomial-time algorithm and the gradient-trained
// baselines, behind one interface so that runExperiment() does not branch on solver kinds.
// Adding a solver kind = its choice in the key table (core/experiment/config.cpp), a Learner
// subclass and one line in learnerFor().
#include "core/base/types.h"
#include "core/run/result.h"
#include "core/tasks/tasks.h"

namespace mhla {

class Learner {
public:
    virtual ~Learner() = default;
    /// Learns from the task's training stream and fills r: P (empty for models without folded
    /// coefficients), certificate, heads, metrics, history, warnings and timings of its phases.
    /// Progress is reported from 0 to `fractionEnd` of the whole run. Throws Cancelled.
    virtual void learn(const Task& task, const ExperimentConfig& cfg, const RunContext& ctx,
                       double fractionEnd, ExperimentResult& r) const = 0;
};

/// The learner of a solver kind.
[[nodiscard]] const Learner& learnerFor(SolverKind kind);

} // namespace mhla
