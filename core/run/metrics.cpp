#include "core/run/metrics.h"
#include "core/algebra/features.h"
#include "core/algebra/model.h"
#include "core/run/exact.h"
#include "core/tasks/samplerows.h"
#include "core/tasks/tasks.h"
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

namespace {
/// Per-thread buffers of the folded evaluation: after the first prompt on a thread, evaluating
/// a prompt allocates nothing.
struct FoldedScratch {
    Sample s;
    Mat Z;
    Vec psi, fit, ref;
};
FoldedScratch& foldedScratch(long long D) {
    thread_local FoldedScratch w;
    if (w.psi.size() != D) w.psi.resize(D);
    return w;
}
/// ||P psi - target||^2 with Pt = P^T, the fit left in w.fit. Each output is one inlined dot
/// product of a column of Pt (a row of P) with psi: d_out is small, and Eigen's general
/// matrix-vector product (vectorised down P's short columns, and a call each) took 9-11% of the
/// default experiment.
template <typename Target>
double foldedResidual(const Mat& Pt, FoldedScratch& w, const Target& target) {
    if (w.fit.size() != Pt.cols()) w.fit.resize(Pt.cols());
    for (Index i = 0; i < Pt.cols(); ++i) w.fit(i) = Pt.col(i).dot(w.psi);
    return (w.fit - target).squaredNorm();
}
} // namespace

Metrics evaluateFolded(const Task& task, const Mat& P, const ExperimentConfig& cfg,
                       const RunContext& ctx, const SampleRows* trainRows) {
    Metrics m;
    const long long D = featureDim(task.d());
    const Mat Pt = P.transpose();
    auto residual = [&](Stream stream) {
        return [&, stream](long long i) {
            FoldedScratch& w = foldedScratch(D);
            task.sampleInto(stream, i, w.s);
            // vech S, when the task did not form it, goes into the tail of psi (allowed there).
            double* tail = w.psi.data() + (D - pairCount(task.d()));
            featureVectorFromVech(sampleVech(w.s, tail), w.s.Z.col(w.s.Z.cols() - 1).data(),
                                  task.d(), w.psi.data());
            return foldedResidual(Pt, w, w.s.y);
        };
    };
    const double outDim = task.dOut();
    const int d = task.d(), pairs = pairCount(d);
    const bool cached = trainRows && trainRows->size() == cfg.task.samples;
    // psi from a cached row exactly as featureVectorInto forms it (u_p z_{q,c}).
    const auto cachedResidual = [&](long long i) {
        FoldedScratch& w = foldedScratch(D);
        const SampleBlock& b = trainRows->blockOf(i);
        const Index r = i - b.first;
        for (int p = 0; p < pairs; ++p) {
            const double u = b.U(r, p);
            for (int c = 0; c < d; ++c) w.psi(p * d + c) = u * b.Qz(r, c);
        }
        return foldedResidual(Pt, w, b.Y.row(r).transpose());
    };
    m.trainMse = (cached ? chunkedSum(cfg.task.samples, ctx, cachedResidual)
                         : chunkedSum(cfg.task.samples, ctx, residual(Stream::Train))) /
                 (cfg.task.samples * outDim);
    constexpr double kAbsent = std::numeric_limits<double>::quiet_NaN();
    m.valMse = task.hasValidation()
                   ? chunkedSum(cfg.eval.valSamples, ctx, residual(Stream::Validation)) /
                         (cfg.eval.valSamples * outDim)
                   : kAbsent;
    if (!task.hasTeacher()) {
        // No P*: no distance to it and no out-of-distribution error against it.
        m.oodRelMse = m.distanceP = m.distancePRel = kAbsent;
        return m;
    }
    // ood_rel_mse as oodRelMse computes it (the same two chunked sums), each prompt drawn once
    // and without per-prompt allocations.
    const auto ood = chunkedSum2(cfg.eval.oodSamples, ctx, [&](long long i) {
        FoldedScratch& w = foldedScratch(D);
        task.genericPromptInto(i, w.Z);
        mhlaOutputInto(task.teacher(), w.Z, w.ref, &w.s.vech);
        featureVectorFromVech(w.s.vech.data(), w.Z.col(w.Z.cols() - 1).data(), task.d(),
                              w.psi.data());
        return std::array<double, 2>{foldedResidual(Pt, w, w.ref), w.ref.squaredNorm()};
    });
    const double oodNum = ood[0], oodDen = ood[1];
    m.oodRelMse = oodDen > 0 ? oodNum / oodDen : std::numeric_limits<double>::quiet_NaN();
    m.distanceP = (P - task.teacherP()).norm();
    const double ref = task.teacherP().norm();
    m.distancePRel = ref > 0 ? m.distanceP / ref : std::numeric_limits<double>::quiet_NaN();
    return m;
}

} // namespace mhla
