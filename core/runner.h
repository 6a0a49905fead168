#pragma once
// The experiment runner: config in, result value out (MATH.md §4-§7). Thread-agnostic: the
// GUI calls it on a worker thread, the command line on the main thread.
#include "core/certificate.h"
#include "core/config.h"
#include "core/model.h"
#include "core/tasks.h"
#include <QJsonObject>
#include <optional>
#include <utility>
#include <vector>

namespace mhla {

struct Metrics {
    double trainMse = 0, valMse = 0, oodRelMse = 0;
    double distanceP = 0, distancePRel = 0;
};

struct ExperimentResult {
    ExperimentConfig config;
    int d = 0, tokens = 0, dOut = 0;
    long long featureDim = 0;
    long long samples = 0;

    Certificate certificate;      ///< certificate of Lambda of the training data
    std::string solveMethod;      ///< "cholesky", "min-norm", "ridge", or the trainer's name
    Mat P;                        ///< learned folded coefficients (d_out x D); empty if undefined
    Mat teacherP;                 ///< P*
    HeadDecomposition heads;      ///< canonical learned heads (SVD of unfold(P))
    HeadDecomposition teacherHeads; ///< canonical teacher heads
    Metrics metrics;
    std::optional<Metrics> untruncatedMetrics; ///< poly with heads > 0: metrics before truncation
    std::optional<ExecutionResult> execution;  ///< automaton only
    /// Not certified (poly): metrics of another least-squares solution, P + |P*|_F e_1 v^T with
    /// Lambda v = 0. It fits the training data as well as P and differs out of distribution:
    /// the failure of identifiability made concrete.
    std::optional<Metrics> nullWitness;

    /// lambda_min of Lambda over the first k samples (the certificate appearing).
    std::vector<std::pair<long long, double>> lambdaTrace;
    /// Training baselines: one point per logged step.
    std::vector<HistoryPoint> history;
    std::optional<Metrics> exactMetrics; ///< trainers: metrics of the exact solver on the same data
    std::string stopReason;            ///< trainers: "epochs", "target_loss", "diverged"
    std::vector<std::string> warnings; ///< things the user must know about these numbers
    std::vector<std::pair<std::string, double>> timingsMs; ///< per phase, then "total"
};

/// Runs an experiment. Throws ConfigError for invalid input, Cancelled when cancelled.
ExperimentResult runExperiment(const ExperimentConfig& cfg, const RunContext& ctx = {});

/// The result as the JSON object printed by `mhla-lab solve` (config embedded).
QJsonObject resultToJson(const ExperimentResult& r);

/// Runs of one experiment over several seeds: the task seed and the solver seed of run k are
/// the configured ones plus k. Throws ConfigError if a seed would leave [0, 2^53].
std::vector<ExperimentConfig> seedVariants(const ExperimentConfig& cfg, int count);
/// Mean, sample standard deviation, min and max over runs of every scalar metric (and the
/// fraction of certified runs), for mean ± band summaries.
QJsonObject seedSummaryJson(const std::vector<ExperimentResult>& runs);
/// One CSV row per run: seeds, certificate and metrics.
QString seedsCsv(const std::vector<ExperimentResult>& runs);

/// CSV text of the spectrum ("index,eigenvalue") and of the heads (long format).
QString spectrumCsv(const ExperimentResult& r);
QString headsCsv(const ExperimentResult& r);
QString historyCsv(const ExperimentResult& r);

/// The exact-solver part of a run on the given task (used by trainers for their reference).
struct ExactRun {
    PolySolution solution;
    std::vector<std::pair<long long, double>> lambdaTrace;
};

} // namespace mhla

namespace mhla {
/// Metrics of a folded model P on a task (streaming, deterministic for any thread count):
/// train_mse on the first N training samples, val_mse, ood_rel_mse and the distances to P*.
Metrics evaluateFolded(const Task& task, const Mat& P, const ExperimentConfig& cfg,
                       const RunContext& ctx = {});
/// Fills rows of U (vech S), Qz (z_q) and Y (labels) with samples [first, first + count) of a
/// stream: the input of MomentAccumulator::addBlock. Deterministic for any thread count.
void fillSampleBlock(const Task& task, Stream stream, long long first, long long count, Mat& U,
                     Mat& Qz, Mat& Y, int threads);
/// ood_rel_mse of any model given as a function of the prompt, on the task's generic prompts.
double oodRelMse(const Task& task, const std::function<Vec(const Mat&)>& model, long long count,
                 const RunContext& ctx = {});
} // namespace mhla
