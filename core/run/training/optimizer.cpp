#include "core/run/training/optimizer.h"
#include <cmath>
#include <numbers>

namespace mhla::training {

double scheduledRate(ScheduleKind kind, double base, double warmup, long long step,
                     long long total) {
    const long long W = static_cast<long long>(std::floor(warmup * static_cast<double>(total)));
    if (step < W) return base * static_cast<double>(step + 1) / static_cast<double>(W);
    if (kind == ScheduleKind::Constant) return base;
    const double span = static_cast<double>(std::max<long long>(1, total - W));
    const double progress = std::min(1.0, static_cast<double>(step - W) / span);
    return base * 0.5 * (1.0 + std::cos(std::numbers::pi * progress));
}

double clipGradient(Vec& grad, double maxNorm) {
    const double norm = grad.norm();
    if (maxNorm > 0 && norm > maxNorm) grad *= maxNorm / norm;
    return norm;
}

Optimizer::Optimizer(OptimizerKind kind, Index parameters, double momentum)
    : m_kind(kind), m_momentum(momentum), m_m(Vec::Zero(parameters)) {
    if (kind == OptimizerKind::Adam) m_v = Vec::Zero(parameters);
}

void Optimizer::step(Vec& theta, const Vec& grad, double lr) {
    ++m_t;
    if (m_kind == OptimizerKind::Sgd) {
        m_m = m_momentum * m_m + grad;
        theta.noalias() -= lr * m_m;
        return;
    }
    m_b1t *= kBeta1;
    m_b2t *= kBeta2;
    const double c1 = 1.0 / (1.0 - m_b1t);
    const double c2 = 1.0 / (1.0 - m_b2t);
    m_m = kBeta1 * m_m + (1.0 - kBeta1) * grad;
    m_v = kBeta2 * m_v + (1.0 - kBeta2) * grad.cwiseAbs2();
    theta.array() -= lr * (m_m.array() * c1) / ((m_v.array() * c2).sqrt() + kEps);
}

} // namespace mhla::training
