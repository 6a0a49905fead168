#include "core/run/learner.h"
#include "core/base/stopwatch.h"
#include "core/run/exact.h"
#include "core/run/explorer.h"
#include "core/run/metrics.h"
#include "core/run/progressplan.h"
#include "core/run/training/training.h"
#include <cmath>
#include <limits>

namespace mhla {

namespace {

/// The polynomial-time algorithm (MATH.md §4): exact least squares on the cubic features,
/// certificate, heads by SVD, and a null witness when not certified.
class PolyLearner final : public Learner {
public:
    void learn(const Task& task, const ExperimentConfig& cfg, const RunContext& ctx,
               double fractionEnd, ExperimentResult& r) const override {
        ExactOutput exact = runExact(task, cfg, ctx, fractionEnd);
        r.timingsMs.emplace_back("generate_accumulate", exact.accumulateMs);
        r.timingsMs.emplace_back("certificate_solve", exact.solveMs);
        r.certificate = exact.solution.certificate;
        r.lambdaTrace = std::move(exact.trace);
        if (exact.solution.nullVector.size() > 0 && task.hasTeacher()) {
            Mat witness = exact.solution.P;
            witness.row(0) += r.teacherP.norm() * exact.solution.nullVector.transpose();
            r.nullWitness = evaluateFolded(task, witness, cfg, ctx, exact.trainRows.get());
        }
        r.solveMethod = exact.solution.method;
        r.P = std::move(exact.solution.P);
        // The explorer (explorer.h) on the least-squares fit P, before any truncation.
        auto explore = [&](const Mat& fitP, const Metrics& fit) {
            if (!explores(cfg, r.featureDim) || !exact.lambda) return;
            ctx.report(ProgressEvent{"explore", progress::kExploreStart * fractionEnd});
            const auto t2 = Clock::now();
            r.identifiability =
                exploreIdentifiability(task, cfg, *exact.lambda, fitP, fit, r,
                                       ctx.slice(progress::kExploreStart * fractionEnd, fractionEnd,
                                                 /*keepTrace=*/false));
            if (r.identifiability->noise && !r.identifiability->noise->warning.empty())
                r.warnings.push_back(r.identifiability->noise->warning);
            r.timingsMs.emplace_back("explore", msSince(t2));
        };
        if (!task.hasTargets()) {
            // Prompts without targets: certified or not, there is no fit, no heads and no
            // error to measure (absent from the records, not zero).
            constexpr double kAbsent = std::numeric_limits<double>::quiet_NaN();
            r.metrics = Metrics{kAbsent, kAbsent, kAbsent, kAbsent, kAbsent};
            r.warnings.push_back(
                "no targets (task.targets is empty): the prompts are certified, nothing is "
                "fitted; set task.targets to fit a model");
            explore(r.P, r.metrics); // what the prompts alone say: certificate samples, null
                                     // relations
            return;
        }

        const auto t0 = Clock::now();
        r.heads = headsFromP(r.P, r.d, cfg.solver.heads, cfg.solver.rankTolerance, ctx);
        r.timingsMs.emplace_back("heads", msSince(t0));
        ctx.report(ProgressEvent{"evaluate", progress::kEvaluateAt * fractionEnd});
        const auto t1 = Clock::now();
        const Mat fitP = r.P; // the least-squares fit, before any truncation
        if (cfg.solver.heads > 0) {
            r.untruncatedMetrics = evaluateFolded(task, r.P, cfg, ctx, exact.trainRows.get());
            r.P = foldHeads(r.heads.heads, r.d, r.dOut);
        }
        r.metrics = evaluateFolded(task, r.P, cfg, ctx, exact.trainRows.get());
        r.timingsMs.emplace_back("evaluate", msSince(t1));

        explore(fitP, r.untruncatedMetrics ? *r.untruncatedMetrics : r.metrics);
    }
};

/// The gradient-trained baselines (MATH.md §8), optionally with the exact solver on the same
/// data as a reference.
class TrainerLearner final : public Learner {
public:
    void learn(const Task& task, const ExperimentConfig& cfg, const RunContext& ctx,
               double fractionEnd, ExperimentResult& r) const override {
        Mat exactP;
        const double start =
            cfg.solver.compareExact ? progress::kTrainerExactEnd * fractionEnd : 0.0;
        if (cfg.solver.compareExact) {
            ExactOutput exact = runExact(task, cfg, ctx, start);
            r.timingsMs.emplace_back("generate_accumulate", exact.accumulateMs);
            r.timingsMs.emplace_back("certificate_solve", exact.solveMs);
            r.certificate = exact.solution.certificate;
            r.lambdaTrace = std::move(exact.trace);
            r.exactMetrics =
                evaluateFolded(task, exact.solution.P, cfg, ctx, exact.trainRows.get());
            exactP = std::move(exact.solution.P);
        }
        const auto t0 = Clock::now();
        ctx.report(ProgressEvent{"generate", start});
        const Dataset train = makeDataset(task, Stream::Train, cfg.task.samples, ctx);
        const Dataset val = makeDataset(task, Stream::Validation, cfg.eval.valSamples, ctx);
        trainBaseline(cfg, task, train, val, exactP, r,
                      ctx.slice(start, progress::kTrainEnd * fractionEnd));
        if (r.stopReason == "diverged") {
            const int epoch = r.history.empty() ? 0 : r.history.back().epoch;
            r.warnings.push_back("training diverged (the loss became NaN or infinite); the model "
                                 "and its metrics are those of epoch " +
                                 std::to_string(epoch) +
                                 ", the last finite point. Lower solver.lr or set solver.clip.");
        }
        if (cfg.solver.kind == SolverKind::Multilayer || cfg.solver.kind == SolverKind::Softmax)
            r.warnings.push_back(
                "ood_rel_mse is not comparable across model families for " +
                toString(cfg.solver.kind).toStdString() +
                ": it is measured on generic N(0,1) prompts, far off the training scale, where a "
                "stacked model's output grows with the input's norm to a high power (values of "
                "1e9 and beyond) and a softmax block saturates (values near 1); compare val_mse "
                "instead");
        if (!std::isfinite(r.metrics.oodRelMse))
            r.warnings.push_back("the model's output overflows on generic N(0,1) prompts: "
                                 "ood_rel_mse is infinite (printed as null)");
        r.timingsMs.emplace_back("train", msSince(t0));
    }
};

} // namespace

const Learner& learnerFor(SolverKind kind) {
    static const PolyLearner poly;
    static const TrainerLearner trainer;
    switch (kind) {
    case SolverKind::Poly: return poly;
    case SolverKind::Mhla:
    case SolverKind::Multilayer:
    case SolverKind::Softmax: return trainer;
    }
    return poly;
}

} // namespace mhla
