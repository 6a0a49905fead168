#pragma once
// The training loop behind trainBaseline() (MATH.md §8), exposed so that tests and the bench
// can set initial parameters, cancel, and count steps.
#include "core/run/training/optimizer.h"
#include "core/run/training/trainablemodel.h"

namespace mhla::training {

class MhlaModel;

/// One optimisation step on a minibatch: loss and gradient, finiteness check, global-norm
/// clipping, optimiser update. Allocation-free after the first step.
class MinibatchStep {
public:
    /// With `ctx` (which must outlive the step), every step polls its cancel token per chunk.
    MinibatchStep(TrainableModel& model, const SolverConfig& solver, int threads = 1,
                  const RunContext* ctx = nullptr);
    /// Returns the minibatch loss before the update. If the loss or the gradient is not
    /// finite, the parameters are left unchanged and the (non-finite) loss is returned.
    double operator()(const TrainingData& data, const long long* idx, int count, double lr);
    const Optimizer& optimizer() const { return m_opt; }
    /// Global gradient norm of the last step, before clipping.
    double lastGradientNorm() const { return m_gradNorm; }

private:
    TrainableModel& m_model;
    Optimizer m_opt;
    double m_clip;
    int m_threads;
    const RunContext* m_ctx;
    Vec m_grad;
    double m_gradNorm = 0;
};

/// Trains the model of cfg.solver on `train`. The task and the data sets are referenced and
/// must outlive the Trainer; the configuration and exactP are copied.
///
/// Epoch e (1-based) visits the training set in the order of a Fisher-Yates shuffle drawn from
/// Rng(solver.seed, Stream::TrainShuffle, e), in minibatches of min(batch, N) samples (the last
/// one may be smaller). ctx.checkCancel() runs before every minibatch and, inside one, before
/// every chunk of TrainableModel::kChunk samples (a full-batch epoch stops within a chunk). A
/// history point is logged before training (epoch 0), every logEvery epochs, and at the last epoch;
/// its ood_rel_mse uses the first min(eval.oodSamples, kHistoryOodPrompts) generic prompts. Every
/// number depends on the seeds only, never on ctx.threads.
class Trainer {
public:
    static constexpr long long kHistoryOodPrompts = 512;

    Trainer(const ExperimentConfig& cfg, const Task& task, const Dataset& train, const Dataset& val,
            const Mat& exactP, const RunContext& ctx);
    ~Trainer();

    TrainableModel& model() { return *m_model; }
    /// The model as an MhlaModel (to set heads), or null for the other kinds.
    MhlaModel* mhlaModel();

    /// Trains and fills P (mhla only), heads (mhla only), metrics, history, stopReason and
    /// solveMethod of `out`. On divergence (a non-finite loss) the parameters of the last
    /// logged (finite) point are restored, so every reported metric is that point's and
    /// stopReason is "diverged". Throws Cancelled.
    void run(ExperimentResult& out);

    long long stepsDone() const { return m_steps; }
    long long stepsPerEpoch() const { return m_stepsPerEpoch; }
    long long totalSteps() const { return m_stepsPerEpoch * m_cfg.solver.epochs; }
    int batchSize() const { return m_batch; }

private:
    /// Blocks between epochs while ctx.control is paused (one epoch per step request); reports a
    /// "paused" progress event when it starts holding.
    void waitWhilePaused(double fraction) const;

    HistoryPoint evaluate(int epoch, double lr, double trainMse) const;
    void finalMetrics(ExperimentResult& out) const;
    double historyOod() const;

    ExperimentConfig m_cfg;
    const Task& m_task;
    Mat m_exactP;
    RunContext m_ctx;
    std::unique_ptr<TrainableModel> m_model;
    TrainingData m_trainData, m_valData;
    std::vector<Mat> m_oodPrompts;
    std::vector<Vec> m_oodTeacher;
    double m_oodTeacherSq = 0;
    int m_batch = 1;
    long long m_stepsPerEpoch = 0;
    long long m_steps = 0;
};

/// What a Trainer for `cfg` allocates at its peak, in bytes, with `threads` workers (0: all
/// cores), counted from the sizes the trainer and its model allocate (the models'
/// workspaceBytes): admission's share of a trainer run (core/run/admission.h).
struct TrainerBytes {
    double data = 0;  ///< training and validation sets (prompts, labels, precomputed moments)
    double model = 0; ///< parameters, gradient, optimiser moments, snapshot, per-chunk gradients,
                      ///< the step's and the evaluation's workspaces, a history point's heads
    double other = 0; ///< generic prompts of the history, the history, the shuffle
    double total() const { return data + model + other; }
};
[[nodiscard]] TrainerBytes trainerPeakBytes(const ExperimentConfig& cfg, int threads = 0);

/// Relative distance ||A - B||_F / ||B||_F (NaN if B is empty or zero or sizes differ).
[[nodiscard]] double relativeDistance(const Mat& A, const Mat& B);

} // namespace mhla::training
