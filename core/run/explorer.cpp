#include "core/run/explorer.h"
#include "core/algebra/features.h"
#include "core/base/parallel.h"
#include "core/identifiability/reportjson.h"
#include "core/identifiability/representatives.h"
#include "core/run/metrics.h"
#include "core/run/progressplan.h"
#include <QJsonArray>
#include <algorithm>
#include <array>
#include <future>
#include <stdexcept>

namespace mhla {

bool explores(const ExperimentConfig& cfg, long long featureDim) {
    if (cfg.solver.kind != SolverKind::Poly) return false;
    switch (cfg.eval.identifiability) {
    case ExploreMode::Full: return true;
    case ExploreMode::None: return false;
    case ExploreMode::Auto: return featureDim <= kExploreAutoMaxD;
    }
    return false;
}

namespace {

/// A probe for an exact fit other than P with at most H heads; a found one is scored by its
/// OOD error relative to P (closed form) and, with a teacher, to the teacher (sampled).
ProbeReport probeReport(const Task& task, const ExperimentConfig& cfg, const Mat& lambda,
                        const Mat& P, int H, const Mat& oodMoment, const RunContext& ctx) {
    const int d = task.d();
    ProbeOptions po;
    po.toleranceRel = cfg.solver.tolerance;
    ProbeReport rep;
    rep.probe = probeAlternativeFit(lambda, P, d, H, po, ctx);
    if (!rep.probe.found || rep.probe.alternativeP.size() == 0) return rep;
    const Mat alt = rep.probe.alternativeP;
    rep.oodRelToFit = expectedOodRelMse(alt, P, oodMoment);
    if (task.hasTeacher()) {
        const long long D = featureDim(d);
        rep.oodRelMse = oodRelMse(
            task,
            [&](const Mat& Z) {
                Vec psi(D);
                featureVectorInto(Z, psi.data());
                return Vec(alt * psi);
            },
            cfg.eval.oodSamples, ctx);
    }
    return rep;
}

/// The noise analysis of this fit (core/identifiability/noise.h): the predicted effect of label
/// noise beside what the run measured.
NoiseAnalysis noiseReport(const Task& task, const ExperimentConfig& cfg, const Mat& lambda,
                          const Mat& P, const Metrics& fit, const ExperimentResult& r,
                          const RunContext& ctx) {
    NoiseInputs in;
    in.samples = cfg.task.samples;
    in.trainMse = fit.trainMse;
    in.configuredNoise = cfg.task.kind == TaskKind::RandomMhla ? cfg.task.noise : 0.0;
    // Without a teacher the fit defines ||P|| and E||P psi||^2 (NoiseInputs::referenceP).
    in.referenceP = task.hasTeacher() ? r.teacherP : P;
    in.oodMoment = genericFeatureMoment(task.d(), task.tokens(), 1.0);
    in.measuredDistanceP2 = fit.distanceP * fit.distanceP;
    in.measuredOodRelMse = fit.oodRelMse;
    NoiseOptions no;
    no.toleranceRel = cfg.solver.tolerance;
    return noiseAnalysis(lambda, in, no, ctx.slice(progress::kNoiseStart, 1.0));
}

} // namespace

IdentifiabilityReport exploreIdentifiability(const Task& task, const ExperimentConfig& cfg,
                                             const Mat& lambda, const Mat& P, const Metrics& fit,
                                             const ExperimentResult& r, const RunContext& ctx) {
    IdentifiabilityReport out;
    const int d = task.d();
    const bool fitted = task.hasTargets();
    const Heads& t = task.teacher();
    out.fitP = P;
    // The noise analysis (a dense eigendecomposition of Lambda: ~14 ms of a d = 8 run) depends
    // on nothing below: with a second thread it runs beside the min_heads search, whose
    // relaxation is serial. The same arithmetic either way, so the same numbers for any thread
    // count; if the search throws, the future's destructor waits for the analysis, which polls
    // the same cancel token. When the OS refuses a thread (ulimit -u), std::async with both
    // policies defers the analysis to get() (libstdc++ falls back on EAGAIN).
    std::future<NoiseAnalysis> noise;
    if (fitted && resolveThreads(ctx.threads) > 1)
        noise = std::async(std::launch::async | std::launch::deferred,
                           [&] { return noiseReport(task, cfg, lambda, P, fit, r, ctx); });
    if (fitted) {
        MinHeadsOptions mh;
        mh.rankTol = cfg.solver.rankTolerance;
        if (t.count() > 0) mh.teacherW = headsToW(t, d, task.dOut());
        out.minHeads = minHeads(P, d, mh, ctx.slice(0.0, progress::kMinHeadsEnd));
        if (t.count() > 0)
            out.teacherMinimalHeads =
                canonicalHeadsOfW(mh.teacherW, d, t.count(), &out.teacherMinimalSingularValues);
    }

    CertificateSamplesOptions cs;
    cs.toleranceRel = cfg.solver.tolerance;
    // Data on disk has its N prompts and no more: the prefixes of the file's order up to N.
    if (cfg.task.kind == TaskKind::Dataset) cs.maxSamples = cfg.task.samples;
    out.certificateSamples =
        certificateSamples(task, cs, ctx.slice(progress::kMinHeadsEnd, progress::kSamplesEnd));

    // A zero fit (no targets, or targets that are all zero) has no path and no probes: both are
    // about other fits of the same targets, at distances relative to ||P||.
    const bool nonzeroFit = fitted && P.norm() > 0;
    if (!r.certificate.certified) {
        NullRelationsOptions nr;
        nr.toleranceRel = cfg.solver.tolerance;
        out.nullRelations = nullRelations(lambda, d, nr);
        if (nonzeroFit && !out.nullRelations->relations.empty())
            out.nullPath = nullPath(task, cfg, P, out.nullRelations->relations.front().vector, 0,
                                    ctx.slice(progress::kSamplesEnd, progress::kNullPathEnd));
        if (out.nullPath && cfg.task.kind == TaskKind::Automaton)
            out.oodExecution = automatonOodExecution(
                static_cast<const AutomatonTask&>(task), P, nullPathP(*out.nullPath, 1.0),
                cfg.eval.words, cfg.task.seed,
                ctx.slice(progress::kNullPathEnd, progress::kOodExecutionEnd));
        const int probeHeads[] = {1, 2, 4};
        const Mat oodMoment = nonzeroFit ? genericFeatureMoment(d, task.tokens(), 1.0) : Mat();
        for (int i = 0; nonzeroFit && i < 3; ++i) {
            const int H = probeHeads[i];
            const RunContext probeCtx =
                ctx.slice(progress::kOodExecutionEnd + progress::kProbeWidth * i,
                          progress::kOodExecutionEnd + progress::kProbeWidth * (i + 1));
            out.probes.push_back(probeReport(task, cfg, lambda, P, H, oodMoment, probeCtx));
        }
    }

    if (fitted)
        out.noise = noise.valid() ? noise.get() : noiseReport(task, cfg, lambda, P, fit, r, ctx);
    return out;
}

QJsonObject toJson(const IdentifiabilityReport& report) {
    QJsonObject o;
    if (report.minHeads) o.insert(QStringLiteral("min_heads"), toJson(*report.minHeads));
    o.insert(QStringLiteral("certificate_samples"), toJson(report.certificateSamples));
    if (report.nullRelations)
        o.insert(QStringLiteral("null_relations"), toJson(*report.nullRelations));
    if (!report.probes.empty()) {
        QJsonArray probes;
        for (const ProbeReport& p : report.probes) {
            QJsonObject j = toJson(p.probe);
            j.insert(QStringLiteral("ood_rel_mse"), jsonNumber(p.oodRelMse));
            j.insert(QStringLiteral("ood_rel_to_fit"), jsonNumber(p.oodRelToFit));
            probes.append(j);
        }
        o.insert(QStringLiteral("probes"), probes);
    }
    if (!report.oodExecution.empty()) {
        QJsonArray ex;
        for (const OodExecution& e : report.oodExecution)
            ex.append(
                QJsonObject{{QStringLiteral("variant"), QString::fromStdString(e.variant)},
                            {QStringLiteral("description"), QString::fromStdString(e.description)},
                            {QStringLiteral("fit_step_accuracy"), e.fit.stepAccuracy},
                            {QStringLiteral("fit_word_accuracy"), e.fit.wordAccuracy},
                            {QStringLiteral("witness_step_accuracy"), e.witness.stepAccuracy},
                            {QStringLiteral("witness_word_accuracy"), e.witness.wordAccuracy},
                            {QStringLiteral("teacher_step_accuracy"), e.fit.teacherStepAccuracy},
                            {QStringLiteral("teacher_word_accuracy"), e.fit.teacherWordAccuracy},
                            {QStringLiteral("word_length"), e.fit.wordLength}});
        o.insert(QStringLiteral("ood_execution"), ex);
    }
    if (report.noise) o.insert(QStringLiteral("noise"), toJson(*report.noise));
    return o;
}

namespace {} // namespace

NullPath nullPath(const Task& task, const ExperimentConfig& cfg, const Mat& P, const Vec& v,
                  int output, const RunContext& ctx) {
    const long long D = featureDim(task.d());
    if (P.rows() != task.dOut() || P.cols() != D || v.size() != D)
        throw std::invalid_argument("nullPath: P must be d_out x D and v of length D");
    if (output < 0 || output >= task.dOut())
        throw std::invalid_argument("nullPath: output row out of range");
    const double vn = v.norm();
    if (!(vn > 0) || !std::isfinite(vn)) throw std::invalid_argument("nullPath: v is zero");
    NullPath path;
    path.P = P;
    path.againstFit = !task.hasTeacher();
    if (!path.againstFit) path.teacherP = task.teacherP();
    // The step's scale: ||P*||, or without a teacher ||P|| (t = 1 moves as far as the fit is big).
    const double scale = path.againstFit ? P.norm() : task.teacherP().norm();
    if (!(scale > 0))
        throw std::invalid_argument("nullPath: the fit is zero, so no step length is defined");
    path.step = Mat::Zero(P.rows(), P.cols());
    path.step.row(output) = (scale / vn) * v.transpose();
    path.atZero = evaluateFolded(task, P, cfg, ctx);
    if (path.againstFit) path.atZero.oodRelMse = 0; // P(0) is the reference itself

    const Mat& N = path.step;
    auto sampled = [&](Stream stream) {
        return [&, stream](long long i) -> std::array<double, 2> {
            const Sample s = task.sample(stream, i);
            Vec psi(D);
            featureVectorInto(s.Z, psi.data());
            const Vec r = P * psi - s.y;
            const Vec n = N * psi;
            return {r.dot(n), n.squaredNorm()};
        };
    };
    const double outDim = task.dOut();
    const auto train = chunkedSum2(cfg.task.samples, ctx, sampled(Stream::Train));
    path.trainLin = 2 * train[0] / (cfg.task.samples * outDim);
    path.trainQuad = train[1] / (cfg.task.samples * outDim);
    if (task.hasValidation()) {
        const auto val = chunkedSum2(cfg.eval.valSamples, ctx, sampled(Stream::Validation));
        path.valLin = 2 * val[0] / (cfg.eval.valSamples * outDim);
        path.valQuad = val[1] / (cfg.eval.valSamples * outDim);
    }

    const long long count = cfg.eval.oodSamples;
    if (path.againstFit) {
        // Against the fit: r = 0 on every prompt, so only the quadratic term is left, relative
        // to E||P psi||^2 on the same generic prompts.
        const auto ood = chunkedSum2(count, ctx, [&](long long i) -> std::array<double, 2> {
            const Mat Z = task.genericPrompt(i);
            Vec psi(D);
            featureVectorInto(Z, psi.data());
            return {(N * psi).squaredNorm(), (P * psi).squaredNorm()};
        });
        if (ood[1] > 0) path.oodQuad = ood[0] / ood[1];
        return path;
    }
    const auto ood = chunkedSum2(count, ctx, [&](long long i) -> std::array<double, 2> {
        const Mat Z = task.genericPrompt(i);
        Vec psi(D);
        featureVectorInto(Z, psi.data());
        const Vec r = P * psi - mhlaOutput(task.teacher(), Z);
        const Vec n = N * psi;
        return {r.dot(n), n.squaredNorm()};
    });
    // The denominator exactly as oodRelMse sums it.
    const double den = chunkedSum(count, ctx, [&](long long i) {
        return mhlaOutput(task.teacher(), task.genericPrompt(i)).squaredNorm();
    });
    if (den > 0) {
        path.oodLin = 2 * ood[0] / den;
        path.oodQuad = ood[1] / den;
    }
    return path;
}

std::vector<OodExecution> automatonOodExecution(const AutomatonTask& task, const Mat& P,
                                                const Mat& witness, int words, long long seed,
                                                const RunContext& ctx) {
    std::vector<OodExecution> out;
    auto add = [&](std::string variant, std::string description, const TaskConfig& tc) {
        const AutomatonTask t(tc);
        OodExecution e;
        e.variant = std::move(variant);
        e.description = std::move(description);
        e.fit = executeWords(t, P, words, seed, ctx);
        e.witness = executeWords(t, witness, words, seed, ctx);
        out.push_back(std::move(e));
    };
    const TaskConfig& base = task.config();
    add("in_distribution", "the training distribution's codes and word length", base);
    TaskConfig other = base;
    other.embedding =
        base.embedding == Embedding::OneHot ? Embedding::Orthogonal : Embedding::OneHot;
    add(other.embedding == Embedding::OneHot ? "embedding_onehot" : "embedding_orthogonal",
        "the same tables written with other codes", other);
    TaskConfig longer = base;
    longer.wordLength = 4 * base.wordLength;
    add("words_x4", "words four times longer", longer);
    return out;
}

Mat nullPathP(const NullPath& path, double t) {
    return t == 0 ? path.P : Mat(path.P + t * path.step);
}

Metrics nullPathMetrics(const NullPath& path, double t) {
    if (t == 0) return path.atZero;
    Metrics m;
    const Metrics& z = path.atZero;
    m.trainMse = std::max(0.0, z.trainMse + t * (path.trainLin + t * path.trainQuad));
    m.valMse = std::max(0.0, z.valMse + t * (path.valLin + t * path.valQuad));
    m.oodRelMse = std::max(0.0, z.oodRelMse + t * (path.oodLin + t * path.oodQuad));
    if (path.againstFit) { // no P*: no distance to it
        m.distanceP = m.distancePRel = std::numeric_limits<double>::quiet_NaN();
        return m;
    }
    m.distanceP = (nullPathP(path, t) - path.teacherP).norm();
    const double ref = path.teacherP.norm();
    m.distancePRel = ref > 0 ? m.distanceP / ref : std::numeric_limits<double>::quiet_NaN();
    return m;
}

} // namespace mhla
