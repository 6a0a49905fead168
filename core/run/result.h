#pragma once
// The value a run returns: certificate, solution, heads, metrics and everything the GUI, the
// CLI and the writers show. Plain data; filled by runExperiment() (core/run/runner.h).
#include "core/algebra/certificate.h"
#include "core/algebra/model.h"
#include "core/experiment/config.h"
#include "core/identifiability/certificatesamples.h"
#include "core/identifiability/minheads.h"
#include "core/identifiability/noise.h"
#include "core/identifiability/nullrelations.h"
#include "core/identifiability/probes.h"
#include "core/tasks/tasks.h"
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mhla {

/// A task without a teacher or a validation stream (the dataset task) leaves the numbers that
/// need them NaN: absent from result.json and the CSVs (see hasTeacher() in core/tasks/tasks.h).
struct Metrics {
    double trainMse = 0, valMse = 0, oodRelMse = 0;
    double distanceP = 0, distancePRel = 0;
};

/// One H-head probe with the out-of-distribution error of the alternative fit it found.
struct ProbeReport {
    ProbeResult probe;
    /// json: ood_rel_mse, of P' against the teacher on generic prompts (Monte-Carlo, as the
    /// run's own ood_rel_mse); NaN when none found or without a teacher
    double oodRelMse = std::numeric_limits<double>::quiet_NaN();
    /// json: ood_rel_to_fit, E||(P' - P) psi||^2 / E||P psi||^2 over generic prompts, in closed
    /// form (expectedOodRelMse): how differently P' computes off the data than the fit P does,
    /// which needs no teacher; NaN when none found
    double oodRelToFit = std::numeric_limits<double>::quiet_NaN();
};

/// A straight path through the least-squares fits along a null direction (core/run/explorer.h).
struct NullPath {
    Mat P;        ///< the fit at t = 0
    Mat step;     ///< ||P*||_F u v^T (d_out x D); without a teacher ||P||_F u v^T
    Mat teacherP; ///< P* (empty without a teacher)
    /// No teacher (data on disk): oodRelMse(t) is measured against the fit P itself,
    /// E||(P(t) - P) psi||^2 / E||P psi||^2 on generic prompts (0 at t = 0), and the distance to
    /// P* is absent (NaN).
    bool againstFit = false;
    /// evaluateFolded(task, P, cfg): the path's metrics at t = 0, exactly (oodRelMse 0 when
    /// againstFit)
    Metrics atZero;
    double trainLin = 0, trainQuad = 0; ///< trainMse(t) = atZero.trainMse + Lin t + Quad t^2
    double valLin = 0, valQuad = 0;     ///< 0 without a validation set (valMse stays absent)
    double oodLin = 0, oodQuad = 0;     ///< oodRelMse(t), relative to E||f*||^2 as atZero.oodRelMse
};

/// Execution accuracy (automaton) of the fit and of a null witness on one prompt distribution.
struct OodExecution {
    std::string variant;     ///< json: variant, "in_distribution", "embedding_<kind>", "words_x4"
    std::string description; ///< json: description
    ExecutionResult fit;     ///< json: fit_step_accuracy, fit_word_accuracy
    ExecutionResult witness; ///< json: witness_step_accuracy, witness_word_accuracy
};

struct IdentifiabilityReport {
    /// The fewest heads of the fit; absent without targets (nothing was fitted)
    std::optional<MinHeadsResult> minHeads;
    /// On prefixes of the training set (data on disk: of the file's order, up to its N)
    CertificateSamplesResult certificateSamples;
    std::optional<NullRelationsResult> nullRelations; ///< not certified only
    std::vector<ProbeReport> probes;    ///< not certified and fitted only: H = 1, 2, 4
    std::optional<NoiseAnalysis> noise; ///< absent without targets (no residual)
    Mat fitP; ///< the least-squares fit these answers are about (before truncation to solver.heads)
    /// The teacher's own heads in canonical SVD form of W* = sum_h vec(V*_h) vec(Q*_h)^T (not of
    /// the symmetric unfold(P*)): what the minimal heads are compared with.
    Heads teacherMinimalHeads;
    Vec teacherMinimalSingularValues;
    /// Not certified: the path along the first null relation in output row 1 (the explorer's
    /// default direction; other directions are computed on demand with nullPath()).
    std::optional<NullPath> nullPath;
    /// Automaton, not certified: execution accuracy of the fit and of the null witness P(1) of
    /// nullPath (same training loss) in distribution and on out-of-distribution prompts.
    std::vector<OodExecution> oodExecution;
};

struct ExperimentResult {
    ExperimentConfig config;
    int d = 0, tokens = 0, dOut = 0;
    long long featureDim = 0;
    long long samples = 0;

    Certificate certificate;        ///< certificate of Lambda of the training data
    std::string solveMethod;        ///< "cholesky", "min-norm", "ridge", or the trainer's name
    Mat P;                          ///< learned folded coefficients (d_out x D); empty if undefined
    Mat teacherP;                   ///< P*
    HeadDecomposition heads;        ///< canonical learned heads (SVD of unfold(P))
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
    std::string stopReason;              ///< trainers: "epochs", "target_loss", "diverged"
    std::vector<std::string> warnings;   ///< things the user must know about these numbers
    std::vector<std::pair<std::string, double>> timingsMs; ///< per phase, then "total"
    /// Poly runs with eval.identifiability (core/run/explorer.h): min heads, certificate samples,
    /// null relations, H-head probes, noise prediction.
    std::optional<IdentifiabilityReport> identifiability;
};

} // namespace mhla
