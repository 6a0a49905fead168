#include "core/run/training/trainer.h"
#include "core/algebra/model.h"
#include "core/base/parallel.h"
#include "core/run/metrics.h"
#include "core/run/training/mhlamodel.h"
#include "core/run/training/multilayermodel.h"
#include "core/run/training/softmaxmodel.h"
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>
#include <thread>

namespace mhla::training {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// A relative error whose reference is non-zero is NaN only when the model's outputs overflowed
/// (inf - inf): report that as +inf, never as "undefined".
double overflowAsInfinity(double relErr) {
    return std::isnan(relErr) ? std::numeric_limits<double>::infinity() : relErr;
}
/// Appends p to a bounded history: past kMaxHistoryPoints, keep the first point and every
/// second one after it (the newest always stays), so a run of any length keeps at most
/// kMaxHistoryPoints points.
void appendBounded(std::vector<HistoryPoint>& history, const HistoryPoint& p) {
    history.push_back(p);
    if (history.size() <= kMaxHistoryPoints) return;
    std::vector<HistoryPoint> thinned;
    thinned.reserve(history.size() / 2 + 2);
    for (size_t i = 0; i < history.size(); i += 2) thinned.push_back(history[i]);
    if (thinned.back().step != history.back().step) thinned.push_back(history.back());
    history = std::move(thinned);
}

/// The epoch's order of the training samples: a Fisher-Yates shuffle of 0..N-1 drawn from the
/// (seed, TrainShuffle, epoch) stream, the same for any thread count.
void shuffle(std::vector<long long>& perm, long long seed, int epoch) {
    const long long N = static_cast<long long>(perm.size());
    std::iota(perm.begin(), perm.end(), 0LL);
    Rng rng(static_cast<std::uint64_t>(seed), Stream::TrainShuffle,
            static_cast<std::uint64_t>(epoch));
    for (long long i = N - 1; i > 0; --i)
        std::swap(perm[static_cast<size_t>(i)], perm[rng.below(static_cast<std::uint64_t>(i) + 1)]);
}

} // namespace

/// TrainableModel::mse() with the same blocks (same bits), checking the cancel token before
/// every block of 256 samples: a full-batch evaluation stops within one block.
static double cancellableMse(const TrainableModel& model, const TrainingData& data,
                             const RunContext& ctx, int dOut) {
    const long long N = data.size();
    if (N == 0) return 0;
    const double sum = blockedSum(N, 256, ctx.threads, [&](long long begin, long long end) {
        ctx.checkCancel();
        auto ws = model.makeWorkspace();
        std::vector<long long> idx(static_cast<size_t>(end - begin));
        std::iota(idx.begin(), idx.end(), begin);
        return model.sumSquaredError(data, idx.data(), static_cast<int>(idx.size()), nullptr, *ws);
    });
    return sum / (static_cast<double>(N) * dOut);
}

TrainerBytes trainerPeakBytes(const ExperimentConfig& cfg, int threads) {
    // A heap block's header and alignment padding plus the Mat object in its vector (Eigen
    // aligns to 64 bytes with AVX-512).
    constexpr double kBlock = 96;
    const auto& s = cfg.solver;
    const int d = cfg.promptDim(), n = cfg.tokenCount(), dOut = cfg.outputDim();
    const int H = std::max(1, s.heads), L = s.kind == SolverKind::Multilayer ? s.layers : 1;
    const double N = static_cast<double>(cfg.task.samples),
                 V = static_cast<double>(cfg.eval.valSamples);
    const double prompt = 8.0 * d * n + kBlock;
    const bool mhla = s.kind == SolverKind::Mhla;
    TrainerBytes b;
    // makeDataset (prompts and labels), prepareTrainingData (S and z_q per sample for mhla).
    b.data = (N + V) * (prompt + 8.0 * dOut + (mhla ? 8.0 * (1.0 * d * d + d) : 0.0));

    double params = 0;
    const double dd = d, Hd = static_cast<double>(H) * d;
    switch (s.kind) {
    case SolverKind::Mhla: params = Hd * (dOut + dd); break;
    case SolverKind::Multilayer: params = L * 2.0 * Hd * dd + dOut * dd; break;
    case SolverKind::Softmax: {
        const double Hdh = static_cast<double>(H) * (d % H == 0 ? d / H : d);
        params = 4 * Hdh * dd + 4 * dd * dd + 7 * dd + dOut * dd;
        break;
    }
    case SolverKind::Poly: return {};
    }
    const long long batch = std::min<long long>(std::max(1, s.batch), cfg.task.samples);
    const double chunks = static_cast<double>((std::max(1LL, batch) + TrainableModel::kChunk - 1) /
                                              TrainableModel::kChunk);
    const Index chunkSamples = std::min<Index>(batch, TrainableModel::kChunk);
    // theta, MinibatchStep's gradient, the optimiser's moments (Adam: two), the snapshot of the
    // last finite point, and one gradient per chunk of a minibatch.
    const double vectors = 3.0 + (s.optimizer == OptimizerKind::Adam ? 2.0 : 1.0) + chunks;
    // The evaluation (cancellableMse): blocks of 256 samples, one per worker at a time.
    const long long evalBlock = std::min<long long>(256, std::max(1LL, cfg.task.samples));
    const double workers =
        std::min<double>(resolveThreads(threads), std::ceil(N / static_cast<double>(evalBlock)));
    double stepWs = 0, evalWs = 0;
    switch (s.kind) {
    case SolverKind::Mhla:
        stepWs = MhlaModel::workspaceBytes(d, dOut, H, chunkSamples, true);
        evalWs = MhlaModel::workspaceBytes(d, dOut, H, evalBlock, false);
        break;
    case SolverKind::Multilayer:
        stepWs = evalWs = MultilayerModel::workspaceBytes(d, dOut, H, L, n);
        break;
    case SolverKind::Softmax: stepWs = evalWs = SoftmaxModel::workspaceBytes(d, dOut, H, n); break;
    case SolverKind::Poly: break;
    }
    // A history point folds the heads (mhla): H small matrices and P.
    const double headsBytes = mhla ? H * (8.0 * (dOut * dd + dd * dd) + 2 * kBlock) +
                                         8.0 * dOut * static_cast<double>(featureDim(d))
                                   : 0.0;
    b.model = 8.0 * params * vectors + chunks * (stepWs + kBlock) +
              std::max(workers * evalWs, headsBytes);
    const double K =
        static_cast<double>(std::min(cfg.eval.oodSamples, Trainer::kHistoryOodPrompts));
    b.other = K * (prompt + 8.0 * dOut + kBlock) + 8.0 * N +
              static_cast<double>(kMaxHistoryPoints) * sizeof(HistoryPoint) * 1.5;
    return b;
}

double relativeDistance(const Mat& A, const Mat& B) {
    if (B.size() == 0 || A.rows() != B.rows() || A.cols() != B.cols()) return kNaN;
    const double nb = B.norm();
    return nb > 0 ? (A - B).norm() / nb : kNaN;
}

MinibatchStep::MinibatchStep(TrainableModel& model, const SolverConfig& solver, int threads,
                             const RunContext* ctx)
    : m_model(model), m_opt(solver.optimizer, model.parameterCount(), solver.momentum),
      m_clip(solver.clip), m_threads(threads), m_ctx(ctx),
      m_grad(Vec::Zero(model.parameterCount())) {}

double MinibatchStep::operator()(const TrainingData& data, const long long* idx, int count,
                                 double lr) {
    const double loss = m_model.lossAndGradient(data, idx, count, &m_grad, m_threads, m_ctx);
    if (!std::isfinite(loss)) return loss;
    m_gradNorm = clipGradient(m_grad, m_clip);
    if (!std::isfinite(m_gradNorm)) return std::numeric_limits<double>::infinity();
    m_opt.step(m_model.mutableParameters(), m_grad, lr);
    return loss;
}

Trainer::Trainer(const ExperimentConfig& cfg, const Task& task, const Dataset& train,
                 const Dataset& val, const Mat& exactP, const RunContext& ctx)
    : m_cfg(cfg), m_task(task), m_exactP(exactP), m_ctx(ctx),
      m_model(makeModel(cfg.solver, task.d(), task.dOut())) {
    const long long N = static_cast<long long>(train.Z.size());
    if (N < 1) throw std::invalid_argument("trainer: empty training set");
    if (cfg.solver.batch < 1 || cfg.solver.epochs < 0 || cfg.solver.logEvery < 1)
        throw std::invalid_argument("trainer: batch and log_every must be >= 1, epochs >= 0");
    m_batch = static_cast<int>(std::min<long long>(cfg.solver.batch, N));
    m_stepsPerEpoch = (N + m_batch - 1) / m_batch;
    const bool moments = m_model->usesMoments();
    m_trainData = prepareTrainingData(train, moments, ctx.threads);
    m_valData = prepareTrainingData(val, moments, ctx.threads);

    const long long K = std::min(cfg.eval.oodSamples, kHistoryOodPrompts);
    m_oodPrompts.resize(static_cast<size_t>(std::max(0LL, K)));
    m_oodTeacher.resize(m_oodPrompts.size());
    parallelFor(static_cast<long long>(m_oodPrompts.size()), ctx.threads, [&](long long i) {
        m_oodPrompts[static_cast<size_t>(i)] = task.genericPrompt(i);
        m_oodTeacher[static_cast<size_t>(i)] =
            mhlaOutput(task.teacher(), m_oodPrompts[static_cast<size_t>(i)]);
    });
    for (const auto& y : m_oodTeacher) m_oodTeacherSq += y.squaredNorm();
}

Trainer::~Trainer() = default;

MhlaModel* Trainer::mhlaModel() { return dynamic_cast<MhlaModel*>(m_model.get()); }

double Trainer::historyOod() const {
    const long long K = static_cast<long long>(m_oodPrompts.size());
    if (K == 0 || m_oodTeacherSq <= 0) return kNaN;
    const double sum = blockedSum(K, 64, m_ctx.threads, [&](long long begin, long long end) {
        m_ctx.checkCancel();
        auto ws = m_model->makeWorkspace();
        Vec y;
        double s = 0;
        for (long long i = begin; i < end; ++i) {
            m_model->predict(m_oodPrompts[static_cast<size_t>(i)], y, *ws);
            s += (y - m_oodTeacher[static_cast<size_t>(i)]).squaredNorm();
        }
        return s;
    });
    return overflowAsInfinity(sum / m_oodTeacherSq);
}

HistoryPoint Trainer::evaluate(int epoch, double lr, double trainMse) const {
    HistoryPoint p;
    p.epoch = epoch;
    p.step = m_steps;
    p.lr = lr;
    p.trainMse = trainMse;
    p.valMse =
        m_valData.size() > 0 ? cancellableMse(*m_model, m_valData, m_ctx, m_task.dOut()) : kNaN;
    p.oodRelMse = historyOod();
    if (const auto* mh = dynamic_cast<const MhlaModel*>(m_model.get())) {
        const Mat P = foldHeads(mh->heads(), m_task.d(), m_task.dOut());
        p.distanceP = (P - m_task.teacherP()).norm();
        p.distancePRel = relativeDistance(P, m_task.teacherP());
        if (m_exactP.size() > 0) p.distanceExactRel = relativeDistance(P, m_exactP);
    }
    return p;
}

void Trainer::waitWhilePaused(double fraction) const {
    TrainingControl* c = m_ctx.control;
    if (!c || !c->paused.load()) return;
    // Tell the caller once that the run is holding, so that it can show every point so far.
    ProgressEvent e;
    e.phase = "paused";
    e.fraction = fraction;
    m_ctx.report(e);
    while (c->paused.load()) {
        int left = c->stepEpochs.load();
        if (left > 0 && c->stepEpochs.compare_exchange_strong(left, left - 1)) return; // one epoch
        m_ctx.checkCancel();
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
}

void Trainer::run(ExperimentResult& out) {
    const auto& s = m_cfg.solver;
    const long long N = m_trainData.size();
    const long long total = totalSteps();
    MinibatchStep step(*m_model, s, m_ctx.threads, &m_ctx);
    std::vector<long long> perm(static_cast<size_t>(N));

    out.history.clear();
    // Divergence is judged on the training loss only: validation and generic prompts may
    // legitimately overflow (deep linear-attention stacks are high-degree polynomials).
    auto isFinitePoint = [](const HistoryPoint& p) { return std::isfinite(p.trainMse); };
    auto log = [&](const HistoryPoint& p) {
        appendBounded(out.history, p);
        ProgressEvent e;
        e.phase = "train";
        e.fraction = total > 0 ? static_cast<double>(m_steps) / static_cast<double>(total) : 1.0;
        e.point = &out.history.back();
        m_ctx.report(e);
    };

    double lr = total > 0 ? scheduledRate(s.schedule, s.lr, s.warmup, 0, total) : s.lr;
    HistoryPoint first =
        evaluate(0, lr, cancellableMse(*m_model, m_trainData, m_ctx, m_task.dOut()));
    Vec snapshot = m_model->parameters();
    bool diverged = !isFinitePoint(first);
    if (!diverged) log(first);
    std::string reason = "epochs";
    if (!diverged && s.targetLoss > 0 && first.trainMse <= s.targetLoss) reason = "target_loss";

    for (int epoch = 1; epoch <= s.epochs && !diverged && reason == "epochs"; ++epoch) {
        waitWhilePaused(total > 0 ? static_cast<double>(m_steps) / static_cast<double>(total)
                                  : 1.0);
        shuffle(perm, s.seed, epoch);
        for (long long b = 0; b < m_stepsPerEpoch; ++b) {
            m_ctx.checkCancel();
            lr = scheduledRate(s.schedule, s.lr, s.warmup, m_steps, total);
            if (m_ctx.control) lr *= m_ctx.control->lrScale.load(std::memory_order_relaxed);
            const long long begin = b * m_batch;
            const int count = static_cast<int>(std::min<long long>(m_batch, N - begin));
            const double loss = step(m_trainData, perm.data() + begin, count, lr);
            if (!std::isfinite(loss)) {
                diverged = true;
                break;
            }
            ++m_steps;
        }
        if (diverged) break;
        const bool logNow = epoch % s.logEvery == 0 || epoch == s.epochs;
        if (!logNow && s.targetLoss <= 0) continue;
        const double trainMse = cancellableMse(*m_model, m_trainData, m_ctx, m_task.dOut());
        if (!std::isfinite(trainMse)) {
            diverged = true;
            break;
        }
        const bool reached = s.targetLoss > 0 && trainMse <= s.targetLoss;
        if (!logNow && !reached) continue;
        const HistoryPoint p = evaluate(epoch, lr, trainMse);
        if (!isFinitePoint(p)) {
            diverged = true;
            break;
        }
        snapshot = m_model->parameters();
        log(p);
        if (reached) reason = "target_loss";
    }
    if (diverged) {
        reason = "diverged";
        m_model->setParameters(snapshot);
    }

    out.stopReason = reason;
    out.solveMethod = m_model->name();
    finalMetrics(out);
}

/// The final model's metrics (train and validation from the last history point, OOD on
/// eval.ood_samples fresh prompts) and, for an MHLA model, its folded P and heads.
void Trainer::finalMetrics(ExperimentResult& out) const {
    const auto& s = m_cfg.solver;
    Metrics m;
    if (!out.history.empty()) {
        m.trainMse = out.history.back().trainMse;
        m.valMse = out.history.back().valMse;
    } else { // the initial model is already non-finite: nothing finite to report
        m.trainMse = m.valMse = std::numeric_limits<double>::infinity();
    }
    const TrainableModel& model = *m_model;
    m.oodRelMse = oodRelMse(
        m_task, [&model](const Mat& Z) { return model.predict(Z); }, m_cfg.eval.oodSamples, m_ctx);
    if (m_oodTeacherSq > 0) m.oodRelMse = overflowAsInfinity(m.oodRelMse);
    if (const auto* mh = dynamic_cast<const MhlaModel*>(m_model.get())) {
        out.P = foldHeads(mh->heads(), m_task.d(), m_task.dOut());
        out.heads = headsFromP(out.P, m_task.d(), 0, s.rankTolerance, m_ctx);
        m.distanceP = (out.P - m_task.teacherP()).norm();
        m.distancePRel = relativeDistance(out.P, m_task.teacherP());
    } else {
        out.P = Mat();
        out.heads = HeadDecomposition{};
        m.distanceP = m.distancePRel = kNaN;
    }
    out.metrics = m;
}

} // namespace mhla::training

namespace mhla {

Dataset makeDataset(const Task& task, Stream stream, long long count, const RunContext& ctx) {
    Dataset ds;
    if (count <= 0) {
        ds.Y.resize(task.dOut(), 0);
        return ds;
    }
    ds.Z.resize(static_cast<size_t>(count));
    ds.Y.resize(task.dOut(), count);
    constexpr long long block = 64;
    parallelFor((count + block - 1) / block, ctx.threads, [&](long long b) {
        ctx.checkCancel();
        for (long long i = b * block; i < std::min(count, (b + 1) * block); ++i) {
            Sample s = task.sample(stream, i);
            ds.Y.col(i) = s.y;
            ds.Z[static_cast<size_t>(i)] = std::move(s.Z);
        }
    });
    return ds;
}

void trainBaseline(const ExperimentConfig& cfg, const Task& task, const Dataset& train,
                   const Dataset& val, const Mat& exactP, ExperimentResult& out,
                   const RunContext& ctx) {
    training::Trainer trainer(cfg, task, train, val, exactP, ctx);
    trainer.run(out);
}

} // namespace mhla
