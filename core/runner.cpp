#include "core/runner.h"
#include "core/features.h"
#include "core/parallel.h"
#include "core/training/training.h"
#include <QJsonArray>
#include <QStringList>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

namespace mhla {

namespace {

using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}
QString q(const char* s) { return QString::fromUtf8(s); }

/// Sample counts at which lambda_min is recorded (geometric from D/2 to N).
std::vector<long long> traceCheckpoints(long long D, long long N, int count) {
    std::vector<long long> out;
    if (count <= 0 || D > 600) return out;
    const double lo = std::max(1.0, static_cast<double>(D) / 2.0), hi = static_cast<double>(N);
    for (int i = 0; i < count; ++i) {
        const double t = count == 1 ? 1.0 : static_cast<double>(i) / (count - 1);
        const long long k = std::llround(lo * std::pow(hi / lo, t));
        if (k >= 1 && k <= N && (out.empty() || k > out.back())) out.push_back(k);
    }
    if (out.empty() || out.back() != N) out.push_back(N);
    return out;
}

/// Sum over fixed chunks of `count` items of f(i), reduced in chunk order (deterministic).
template <typename F> double chunkedSum(long long count, const RunContext& ctx, F&& f) {
    constexpr long long chunk = 512;
    const long long chunks = (count + chunk - 1) / chunk;
    std::vector<double> partial(static_cast<size_t>(chunks), 0.0);
    parallelFor(chunks, ctx.threads, [&](long long c) {
        ctx.checkCancel();
        double s = 0;
        const long long end = std::min(count, (c + 1) * chunk);
        for (long long i = c * chunk; i < end; ++i) s += f(i);
        partial[static_cast<size_t>(c)] = s;
    });
    double total = 0;
    for (double p : partial) total += p;
    return total;
}

struct ExactOutput {
    PolySolution solution;
    std::vector<std::pair<long long, double>> trace;
    double accumulateMs = 0, solveMs = 0;
};

/// Streams the training samples in blocks into Lambda and C, then certifies and solves.
ExactOutput runExact(const Task& task, const ExperimentConfig& cfg, const RunContext& ctx,
                     double fractionEnd) {
    ExactOutput out;
    const int d = task.d(), dOut = task.dOut();
    const long long N = cfg.task.samples;
    const long long D = featureDim(d);
    MomentAccumulator acc(d, dOut);
    const long long B = kAccumulationBlock;
    const std::vector<long long> checkpoints = traceCheckpoints(D, N, cfg.eval.lambdaTrace);
    size_t nextCheckpoint = 0;

    const auto t0 = Clock::now();
    Mat U, Qz, Y;
    long long seen = 0;
    while (seen < N) {
        ctx.checkCancel();
        long long end = std::min(N, seen + B);
        if (nextCheckpoint < checkpoints.size()) end = std::min(end, checkpoints[nextCheckpoint]);
        const long long b = end - seen;
        fillSampleBlock(task, Stream::Train, seen, b, U, Qz, Y, ctx.threads);
        acc.addBlock(U, Qz, Y, ctx.threads);
        seen = end;
        ProgressEvent ev{"generate+accumulate", fractionEnd * 0.8 * static_cast<double>(seen) / N, seen};
        if (nextCheckpoint < checkpoints.size() && seen == checkpoints[nextCheckpoint]) {
            const double lmin = smallestEigenvalue(acc.lambda(), ctx);
            out.trace.emplace_back(seen, lmin);
            ev.lambdaMinSoFar = lmin;
            ++nextCheckpoint;
        }
        ctx.report(ev);
    }
    out.accumulateMs = msSince(t0);

    const auto t1 = Clock::now();
    ctx.report(ProgressEvent{"certificate+solve", fractionEnd * 0.8, seen});
    CertifyOptions opt;
    opt.toleranceRel = cfg.solver.tolerance;
    opt.fullSpectrum = cfg.eval.spectrum == SpectrumMode::Full ||
                       (cfg.eval.spectrum == SpectrumMode::Auto && D <= 1024);
    out.solution = solveCertified(std::make_shared<const Mat>(acc.lambda()), acc.crossMoment(),
                                  cfg.solver.ridge, opt, ctx);
    out.solveMs = msSince(t1);
    return out;
}

} // namespace

void fillSampleBlock(const Task& task, Stream stream, long long first, long long count, Mat& U,
                     Mat& Qz, Mat& Y, int threads) {
    const int d = task.d(), P = pairCount(d);
    U.resize(count, P);
    Qz.resize(count, d);
    Y.resize(count, task.dOut());
    parallelFor(count, threads, [&](long long i) {
        const Sample s = task.sample(stream, first + i);
        Vec u(P);
        promptVech(s.Z, u.data());
        U.row(i) = u.transpose();
        Qz.row(i) = s.Z.col(s.Z.cols() - 1).transpose();
        Y.row(i) = s.y.transpose();
    });
}

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
    m.trainMse = chunkedSum(cfg.task.samples, ctx, residual(Stream::Train)) / (cfg.task.samples * outDim);
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

ExperimentResult runExperiment(const ExperimentConfig& cfg, const RunContext& ctx) {
    validate(cfg);
    const auto tStart = Clock::now();
    ExperimentResult r;
    r.config = cfg;
    const auto task = makeTask(cfg.task);
    r.d = task->d();
    r.tokens = task->tokens();
    r.dOut = task->dOut();
    r.featureDim = featureDim(r.d);
    r.samples = cfg.task.samples;
    r.teacherP = task->teacherP();

    const bool poly = cfg.solver.kind == SolverKind::Poly;
    if (poly || cfg.solver.compareExact) {
        ExactOutput exact = runExact(*task, cfg, ctx, poly ? 1.0 : 0.3);
        r.timingsMs.emplace_back("generate_accumulate", exact.accumulateMs);
        r.timingsMs.emplace_back("certificate_solve", exact.solveMs);
        r.certificate = exact.solution.certificate;
        r.lambdaTrace = std::move(exact.trace);
        if (poly && exact.solution.nullVector.size() > 0) {
            Mat witness = exact.solution.P;
            witness.row(0) += r.teacherP.norm() * exact.solution.nullVector.transpose();
            r.nullWitness = evaluateFolded(*task, witness, cfg, ctx);
        }
        if (poly) {
            r.solveMethod = exact.solution.method;
            r.P = std::move(exact.solution.P);
        } else {
            r.exactMetrics = evaluateFolded(*task, exact.solution.P, cfg, ctx);
            r.P = std::move(exact.solution.P); // replaced by the trainer (empty if it has no P)
        }
    }

    if (poly) {
        const auto t0 = Clock::now();
        r.heads = headsFromP(r.P, r.d, cfg.solver.heads, cfg.solver.rankTolerance, ctx);
        r.timingsMs.emplace_back("heads", msSince(t0));
        ctx.report(ProgressEvent{"evaluate", 0.85});
        const auto t1 = Clock::now();
        if (cfg.solver.heads > 0) {
            r.untruncatedMetrics = evaluateFolded(*task, r.P, cfg, ctx);
            r.P = foldHeads(r.heads.heads, r.d, r.dOut);
        }
        r.metrics = evaluateFolded(*task, r.P, cfg, ctx);
        r.timingsMs.emplace_back("evaluate", msSince(t1));
    } else {
        const auto t0 = Clock::now();
        const Mat exactP = r.P;
        r.P.resize(0, 0);
        // The exact reference took [0, 0.3) of the run's progress (when it ran); training the rest.
        const double start = cfg.solver.compareExact ? 0.3 : 0.0;
        ctx.report(ProgressEvent{"generate", start});
        const Dataset train = makeDataset(*task, Stream::Train, cfg.task.samples, ctx);
        const Dataset val = makeDataset(*task, Stream::Validation, cfg.eval.valSamples, ctx);
        RunContext trainCtx = ctx;
        if (ctx.progress)
            trainCtx.progress = [&ctx, start](const ProgressEvent& e) {
                ProgressEvent scaled = e;
                scaled.fraction = start + (0.95 - start) * e.fraction;
                ctx.report(scaled);
            };
        trainBaseline(cfg, *task, train, val, exactP, r, trainCtx);
        if (r.stopReason == "diverged") {
            const int epoch = r.history.empty() ? 0 : r.history.back().epoch;
            r.warnings.push_back("training diverged (the loss became NaN or infinite); the model "
                                 "and its metrics are those of epoch " + std::to_string(epoch) +
                                 ", the last finite point. Lower solver.lr or set solver.clip.");
        }
        if (!std::isfinite(r.metrics.oodRelMse))
            r.warnings.push_back("the model's output overflows on generic N(0,1) prompts: "
                                 "ood_rel_mse is infinite (printed as null)");
        r.timingsMs.emplace_back("train", msSince(t0));
    }

    r.teacherHeads = headsFromP(r.teacherP, r.d, 0, cfg.solver.rankTolerance, ctx);
    if (cfg.task.kind == TaskKind::Automaton && r.P.size() > 0) {
        ctx.report(ProgressEvent{"execute", 0.95});
        const auto t0 = Clock::now();
        r.execution = executeWords(static_cast<const AutomatonTask&>(*task), r.P, cfg.eval.words,
                                   cfg.task.seed, ctx);
        r.timingsMs.emplace_back("execute", msSince(t0));
    }
    r.timingsMs.emplace_back("total", msSince(tStart));
    ctx.report(ProgressEvent{"done", 1.0});
    return r;
}

namespace {

QJsonValue number(double v) {
    return std::isfinite(v) ? QJsonValue(v) : QJsonValue(QJsonValue::Null);
}

QJsonObject metricsJson(const Metrics& m) {
    return QJsonObject{{q("train_mse"), number(m.trainMse)},
                       {q("val_mse"), number(m.valMse)},
                       {q("ood_rel_mse"), number(m.oodRelMse)},
                       {q("distance_p"), number(m.distanceP)},
                       {q("distance_p_rel"), number(m.distancePRel)}};
}

QJsonArray vectorJson(const Vec& v) {
    QJsonArray a;
    for (Index i = 0; i < v.size(); ++i) a.append(number(v(i)));
    return a;
}

} // namespace

QJsonObject resultToJson(const ExperimentResult& r) {
    QJsonObject o;
    o.insert(q("mhla_lab_version"), q(MHLA_VERSION));
    o.insert(q("task"), toString(r.config.task.kind));
    o.insert(q("solver"), toString(r.config.solver.kind));
    o.insert(q("d"), r.d);
    o.insert(q("tokens"), r.tokens);
    o.insert(q("d_out"), r.dOut);
    o.insert(q("feature_dim"), static_cast<qint64>(r.featureDim));
    o.insert(q("samples"), static_cast<qint64>(r.samples));
    const Certificate& c = r.certificate;
    const bool haveCert = !c.method.empty();
    o.insert(q("lambda_min"), haveCert ? number(c.lambdaMin) : QJsonValue());
    o.insert(q("lambda_max"), haveCert ? number(c.lambdaMax) : QJsonValue());
    o.insert(q("condition_number"), haveCert ? number(c.condition) : QJsonValue());
    o.insert(q("null_dim"), haveCert ? QJsonValue(c.nullDim) : QJsonValue());
    o.insert(q("certified"), haveCert ? QJsonValue(c.certified) : QJsonValue());
    o.insert(q("tolerance"), haveCert ? number(c.tolerance) : QJsonValue());
    o.insert(q("certificate_method"), QString::fromStdString(c.method));
    o.insert(q("solve_method"), QString::fromStdString(r.solveMethod));
    const QJsonObject m = metricsJson(r.metrics);
    for (auto it = m.begin(); it != m.end(); ++it) o.insert(it.key(), it.value());
    o.insert(q("heads"), r.heads.heads.count());
    o.insert(q("rank"), r.heads.rank);
    o.insert(q("teacher_rank"), r.teacherHeads.rank);
    o.insert(q("singular_values"), vectorJson(r.heads.singularValues));
    if (r.untruncatedMetrics) o.insert(q("untruncated"), metricsJson(*r.untruncatedMetrics));
    if (r.exactMetrics) o.insert(q("exact"), metricsJson(*r.exactMetrics));
    if (r.nullWitness) o.insert(q("null_witness"), metricsJson(*r.nullWitness));
    if (r.execution) {
        const ExecutionResult& e = *r.execution;
        o.insert(q("execution"), QJsonObject{{q("step_accuracy"), e.stepAccuracy},
                                             {q("word_accuracy"), e.wordAccuracy},
                                             {q("teacher_step_accuracy"), e.teacherStepAccuracy},
                                             {q("teacher_word_accuracy"), e.teacherWordAccuracy},
                                             {q("words"), e.words},
                                             {q("word_length"), e.wordLength}});
    }
    QJsonArray trace;
    for (const auto& [n, l] : r.lambdaTrace) trace.append(QJsonArray{static_cast<qint64>(n), number(l)});
    o.insert(q("lambda_trace"), trace);
    if (r.config.solver.kind != SolverKind::Poly) {
        o.insert(q("stop_reason"), QString::fromStdString(r.stopReason));
        QJsonArray hist;
        for (const HistoryPoint& p : r.history)
            hist.append(QJsonObject{{q("epoch"), p.epoch},
                                    {q("step"), static_cast<qint64>(p.step)},
                                    {q("lr"), number(p.lr)},
                                    {q("train_mse"), number(p.trainMse)},
                                    {q("val_mse"), number(p.valMse)},
                                    {q("ood_rel_mse"), number(p.oodRelMse)},
                                    {q("distance_p"), number(p.distanceP)},
                                    {q("distance_p_rel"), number(p.distancePRel)},
                                    {q("distance_exact_rel"), number(p.distanceExactRel)}});
        o.insert(q("history"), hist);
    }
    if (!r.warnings.empty()) {
        QJsonArray w;
        for (const std::string& text : r.warnings) w.append(QString::fromStdString(text));
        o.insert(q("warnings"), w);
    }
    QJsonObject timings;
    for (const auto& [name, ms] : r.timingsMs) timings.insert(QString::fromStdString(name), ms);
    o.insert(q("timings_ms"), timings);
    o.insert(q("config"), experimentToJson(r.config));
    return o;
}

std::vector<ExperimentConfig> seedVariants(const ExperimentConfig& cfg, int count) {
    constexpr long long kMaxSeed = 9007199254740992LL; // 2^53: exact in the JSON file
    if (count < 1) throw ConfigError("--seeds: expected an integer >= 1");
    if (cfg.task.seed > kMaxSeed - count || cfg.solver.seed > kMaxSeed - count)
        throw ConfigError("--seeds: task.seed or solver.seed + " + std::to_string(count) +
                          " would exceed 2^53; choose smaller seeds");
    std::vector<ExperimentConfig> out;
    for (int k = 0; k < count; ++k) {
        ExperimentConfig c = cfg;
        c.task.seed += k;
        c.solver.seed += k;
        out.push_back(c);
    }
    return out;
}

namespace {
struct Scalar {
    const char* name;
    std::function<double(const ExperimentResult&)> get;
};
std::vector<Scalar> scalarMetrics() {
    return {
        {"lambda_min", [](const ExperimentResult& r) { return r.certificate.lambdaMin; }},
        {"null_dim", [](const ExperimentResult& r) { return static_cast<double>(r.certificate.nullDim); }},
        {"train_mse", [](const ExperimentResult& r) { return r.metrics.trainMse; }},
        {"val_mse", [](const ExperimentResult& r) { return r.metrics.valMse; }},
        {"ood_rel_mse", [](const ExperimentResult& r) { return r.metrics.oodRelMse; }},
        {"distance_p_rel", [](const ExperimentResult& r) { return r.metrics.distancePRel; }},
        {"step_accuracy", [](const ExperimentResult& r) {
             return r.execution ? r.execution->stepAccuracy : std::numeric_limits<double>::quiet_NaN();
         }},
        {"word_accuracy", [](const ExperimentResult& r) {
             return r.execution ? r.execution->wordAccuracy : std::numeric_limits<double>::quiet_NaN();
         }},
    };
}
} // namespace

QJsonObject seedSummaryJson(const std::vector<ExperimentResult>& runs) {
    QJsonObject out;
    for (const Scalar& m : scalarMetrics()) {
        std::vector<double> v;
        for (const auto& r : runs)
            if (const double x = m.get(r); std::isfinite(x)) v.push_back(x);
        if (v.empty()) continue;
        double mean = 0;
        for (double x : v) mean += x;
        mean /= static_cast<double>(v.size());
        double ss = 0;
        for (double x : v) ss += (x - mean) * (x - mean);
        const double sd = v.size() > 1 ? std::sqrt(ss / static_cast<double>(v.size() - 1)) : 0.0;
        out.insert(q(m.name), QJsonObject{{q("mean"), mean},
                                          {q("std"), sd},
                                          {q("min"), *std::min_element(v.begin(), v.end())},
                                          {q("max"), *std::max_element(v.begin(), v.end())},
                                          {q("runs"), static_cast<int>(v.size())}});
    }
    int certified = 0;
    for (const auto& r : runs) certified += r.certificate.certified ? 1 : 0;
    out.insert(q("certified_fraction"), runs.empty() ? 0.0 : static_cast<double>(certified) / runs.size());
    return out;
}

QString seedsCsv(const std::vector<ExperimentResult>& runs) {
    QString s = q("task_seed,solver_seed,certified");
    for (const Scalar& m : scalarMetrics()) s += QLatin1Char(',') + q(m.name);
    s += QLatin1Char('\n');
    for (const auto& r : runs) {
        s += QString::number(r.config.task.seed) + QLatin1Char(',') + QString::number(r.config.solver.seed) +
             QLatin1Char(',') + (r.certificate.certified ? q("true") : q("false"));
        for (const Scalar& m : scalarMetrics()) {
            const double x = m.get(r);
            s += QLatin1Char(',') + (std::isfinite(x) ? QString::number(x, 'g', 17) : QString());
        }
        s += QLatin1Char('\n');
    }
    return s;
}

QString spectrumCsv(const ExperimentResult& r) {
    QString s = q("index,eigenvalue\n");
    const Vec& ev = r.certificate.spectrum;
    for (Index i = 0; i < ev.size(); ++i)
        s += QString::number(i) + QLatin1Char(',') + QString::number(ev(i), 'g', 17) + QLatin1Char('\n');
    return s;
}

QString headsCsv(const ExperimentResult& r) {
    QString s = q("model,head,matrix,row,col,value\n");
    auto dump = [&s](const char* model, const Heads& h) {
        for (int k = 0; k < h.count(); ++k)
            for (const auto& [name, M] : {std::pair<const char*, const Mat*>{"V", &h.V[k]},
                                          std::pair<const char*, const Mat*>{"Q", &h.Q[k]}})
                for (Index i = 0; i < M->rows(); ++i)
                    for (Index j = 0; j < M->cols(); ++j)
                        s += q(model) + QLatin1Char(',') + QString::number(k) + QLatin1Char(',') +
                             q(name) + QLatin1Char(',') + QString::number(i) + QLatin1Char(',') +
                             QString::number(j) + QLatin1Char(',') +
                             QString::number((*M)(i, j), 'g', 17) + QLatin1Char('\n');
    };
    dump("learned", r.heads.heads);
    dump("teacher", r.teacherHeads.heads);
    return s;
}

QString historyCsv(const ExperimentResult& r) {
    QString s = q("epoch,step,lr,train_mse,val_mse,ood_rel_mse,distance_p,distance_p_rel,distance_exact_rel\n");
    auto num = [](double v) { return std::isfinite(v) ? QString::number(v, 'g', 17) : QString(); };
    for (const HistoryPoint& p : r.history)
        s += QStringList{QString::number(p.epoch), QString::number(p.step), num(p.lr), num(p.trainMse),
                         num(p.valMse), num(p.oodRelMse), num(p.distanceP), num(p.distancePRel),
                         num(p.distanceExactRel)}
                 .join(QLatin1Char(',')) +
             QLatin1Char('\n');
    return s;
}

} // namespace mhla
