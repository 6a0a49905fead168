#include "core/metrics.h"
#include "core/features.h"
#include "core/model.h"
#include <limits>

namespace mhla {

double oodRelMse(const Task& task, const std::function<Vec(const Mat&)>& model, long long count,
                 const RunContext& ctx) {
    // Numerator and denominator are both chunked sums: evaluate each prompt once per sum.
    const double num = chunkedSum(count, ctx, [&](long long i) {
        const Mat Z = task.genericPrompt(i);
        return (model(Z) - mhlaOutput(task.teacher(), Z)).squaredNorm();
    });
    const double den = chunkedSum(count, ctx, [&](long long i) {
        return mhlaOutput(task.teacher(), task.genericPrompt(i)).squaredNorm();
    });
    return den > 0 ? num / den : std::numeric_limits<double>::quiet_NaN();
}

Metrics evaluateFolded(const Task& task, const Mat& P, const ExperimentConfig& cfg,
                       const RunContext& ctx) {
    Metrics m;
    const long long D = featureDim(task.d());
    auto residual = [&](Stream stream) {
        return [&, stream](long long i) {
            const Sample s = task.sample(stream, i);
            Vec psi(D);
            featureVectorInto(s.Z, psi.data());
            return (P * psi - s.y).squaredNorm();
        };
    };
    const double outDim = task.dOut();
    m.trainMse =
        chunkedSum(cfg.task.samples, ctx, residual(Stream::Train)) / (cfg.task.samples * outDim);
    m.valMse = chunkedSum(cfg.eval.valSamples, ctx, residual(Stream::Validation)) /
               (cfg.eval.valSamples * outDim);
    m.oodRelMse = oodRelMse(
        task,
        [&](const Mat& Z) {
            Vec psi(D);
            featureVectorInto(Z, psi.data());
            return Vec(P * psi);
        },
        cfg.eval.oodSamples, ctx);
    m.distanceP = (P - task.teacherP()).norm();
    const double ref = task.teacherP().norm();
    m.distancePRel = ref > 0 ? m.distanceP / ref : std::numeric_limits<double>::quiet_NaN();
    return m;
}

} // namespace mhla
