#pragma once
// Optimisers, learning-rate schedules and gradient clipping for the trainers (MATH.md §8).
#include "core/base/types.h"
#include "core/experiment/config.h"

namespace mhla::training {

/// Learning rate of step `step` (0-based) out of `total` steps. Both schedules start with a
/// linear warm-up over the first W = floor(warmup * total) steps: lr = base * (step+1) / W.
/// After it, Constant keeps `base`; Cosine decays as base * (1 + cos(pi * (step - W) /
/// (total - W))) / 2, reaching 0 at step == total.
[[nodiscard]] double scheduledRate(ScheduleKind kind, double base, double warmup, long long step,
                                   long long total);

/// Scales `grad` to global L2 norm `maxNorm` when it is larger (maxNorm <= 0: off).
/// Returns the norm before clipping.
double clipGradient(Vec& grad, double maxNorm);

/// SGD with (heavy-ball) momentum, buf = momentum * buf + g, theta -= lr * buf, or Adam,
/// m = b1 m + (1-b1) g, v = b2 v + (1-b2) g^2, theta -= lr * mhat / (sqrt(vhat) + eps) with
/// mhat = m / (1 - b1^t), vhat = v / (1 - b2^t) (both as in PyTorch). Allocation-free steps.
class Optimizer {
public:
    static constexpr double kBeta1 = 0.9, kBeta2 = 0.999, kEps = 1e-8;

    Optimizer(OptimizerKind kind, Index parameters, double momentum = 0.9);
    void step(Vec& theta, const Vec& grad, double lr);
    long long steps() const { return m_t; }
    OptimizerKind kind() const { return m_kind; }

private:
    OptimizerKind m_kind;
    double m_momentum;
    Vec m_m, m_v;
    long long m_t = 0;
    double m_b1t = 1, m_b2t = 1; // beta^t
};

} // namespace mhla::training
