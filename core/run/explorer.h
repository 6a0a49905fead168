#pragma once
// The identifiability explorer of a poly run (issue 11): how many heads the function needs,
// what the data leave free, how many samples the certificate needs, and how much noise blurs
// what was identified. Each answer comes from core/identifiability/ (one file per question); this
// file decides what to compute for a run and collects it for result.json, the CLI and the GUI.
#include "core/run/result.h"
#include "core/tasks/tasks.h"
#include <QJsonObject>

namespace mhla {

/// Whether a run explores: eval.identifiability = full, or auto and D <= kExploreAutoMaxD.
constexpr long long kExploreAutoMaxD = 300;
[[nodiscard]] bool explores(const ExperimentConfig& cfg, long long featureDim);

/// Computes the report for a poly run: P is the least-squares fit (before any truncation to
/// solver.heads), fit its metrics, lambda the second moment; r gives the certificate and P*.
/// Polls ctx's cancel token throughout.
[[nodiscard]] IdentifiabilityReport
exploreIdentifiability(const Task& task, const ExperimentConfig& cfg, const Mat& lambda,
                       const Mat& P, const Metrics& fit, const ExperimentResult& r,
                       const RunContext& ctx = {});

/// {"min_heads": ..., "certificate_samples": ..., "null_relations": ..., "probes": [...],
///  "noise": ...}: the blocks' own JSON (core/identifiability/).
[[nodiscard]] QJsonObject toJson(const IdentifiabilityReport& report);

// ---- Moving along a null direction (issue 11 §2)
// ------------------------------------------------
//
// P(t) = P + t ||P*||_F u v^T with u = e_output and v a unit vector with Lambda v = 0: every P(t)
// fits the training data as well as P (the training loss stays at round-off for an exact fit),
// while the function changes off the training distribution. Each metric is a quadratic in t,
//   mse(t) = (1/M) sum ||r + t n||^2 = mse(0) + 2 t (1/M) sum r.n + t^2 (1/M) sum ||n||^2,
// with r = P psi - y and n = ||P*|| u (v.psi), so one pass over the same samples as
// evaluateFolded gives the whole path; the distance to P* is computed directly.

/// The path through P along v (normalised here; length D) in output row `output` (0-based).
/// Polls ctx's cancel token. Throws std::invalid_argument on a wrong shape or a zero v.
[[nodiscard]] NullPath nullPath(const Task& task, const ExperimentConfig& cfg, const Mat& P,
                                const Vec& v, int output, const RunContext& ctx = {});
/// Execution accuracy of P and of `witness` on words over fresh DFAs (executeWords, `words`
/// words, seed): in distribution, with the other codes (one-hot -> orthogonal, orthogonal and
/// Gaussian -> one-hot) and with words 4 times longer. The listing order is already a fresh
/// permutation per word in distribution. Deterministic; polls ctx.
[[nodiscard]] std::vector<OodExecution> automatonOodExecution(const AutomatonTask& task,
                                                              const Mat& P, const Mat& witness,
                                                              int words, long long seed,
                                                              const RunContext& ctx = {});
/// P(t) = P + t step.
[[nodiscard]] Mat nullPathP(const NullPath& path, double t);
/// The metrics of P(t) (atZero itself at t = 0); the losses are clamped at 0 from below.
[[nodiscard]] Metrics nullPathMetrics(const NullPath& path, double t);

} // namespace mhla
