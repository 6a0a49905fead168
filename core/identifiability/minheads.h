#pragma once
// How many heads does P need (MATH.md §2, §5): min_heads by a convex relaxation, refits at
// each rank, continuation and the teacher's own rank; the generic count by a dimension count.
//
// Conventions of the identifiability room (core/identifiability/): pure functions of value types
// (Eigen matrices, the Task, small option structs), thread-agnostic, deterministic for a given
// seed; each iterative loop polls ctx.checkCancel() (throws Cancelled); progress events name the
// function in `phase` ("min_heads: ...", "probe", "certificate_samples") with a fraction local to
// the call; results are structs with a toJson() whose field names are documented next to each
// member as `json: name`, non-finite numbers written as JSON null; inputs of the wrong shape
// throw std::invalid_argument.
#include "core/algebra/model.h"
#include "core/base/types.h"
#include <QJsonObject>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace mhla {

struct MinHeadsOptions {
    double exactTol =
        1e-10; ///< a rank-r refit "reproduces P" when ||fold(W_r) - P||_F / ||P||_F <= exactTol
    double rankTol = 1e-8; ///< numerical rank of unfold(P), relative to sigma_1
    double relaxationTol =
        1e-9; ///< Douglas-Rachford stops when ||Y - X||_F <= relaxationTol ||unfold(P)||_F
    int relaxationIterations = 4000;
    int starts = 6; ///< refit starts per tested rank (2 deterministic + random ones)
    /// Continuation below the smallest exact fit (rank r + 1): its r + 1 heads dropped in turn,
    /// plus this many random factor starts, per lower rank; -1 turns the continuation off.
    int continuationStarts = 8;
    std::uint64_t seed = 1; ///< random refit starts
    int genericHeadsMaxRows =
        1000; ///< compute generic_heads only when d_out * D <= this (cost O((d_out D)^3))
    /// A representative the caller knows (the teacher's W = headsToW(teacher) on a synthetic
    /// task; empty: none). After the search it is refitted at its own numerical rank; when that
    /// refit reproduces P to exact_tol and has fewer heads than the search found, it is the
    /// smallest exact fit (phase "teacher") and the continuation goes on below it. Data without
    /// a teacher has none: there min_heads is what the search finds.
    Mat teacherW;
};

/// One tested rank of the search: the best refit over `starts` starts.
struct RankAttempt {
    int rank = 0;   ///< json: rank
    int starts = 0; ///< json: starts
    double bestErrorRel =
        0;              ///< json: best_error_rel, min over starts of ||fold(W_r) - P||_F / ||P||_F
    bool exact = false; ///< json: exact, best_error_rel <= exact_tol
    /// json: phase, "starts" (the search's refit from the relaxation, unfold(P) and random
    /// representatives), "continuation" (from the exact fit one rank up, one head dropped,
    /// and from random factors) or "teacher" (from MinHeadsOptions::teacherW)
    std::string phase = "starts";
};

struct MinHeadsResult {
    int minHeads = 0; ///< json: min_heads, the smallest rank whose refit reproduced P
    /// json: search_min_heads, what the search found without the teacher's heads (equal to
    /// min_heads when no teacherW was given or it did not lower the count)
    int searchMinHeads = 0;
    int unfoldRank =
        0; ///< json: unfold_rank, numerical rank of the symmetric representative unfold(P)
    int maxHeads = 0; ///< json: max_heads, min(d_out d, d^2)
    /// json: generic_heads, the heads a generic P of this size needs (genericMinHeads), -1 if not
    /// computed.
    int genericHeads = -1;
    int nuclearRank = 0;              ///< json: nuclear_rank, rank of the nuclear-norm minimiser
    double nuclearNorm = 0;           ///< json: nuclear_norm, ||W_nuc||_* (<= ||unfold(P)||_*)
    int relaxationIterations = 0;     ///< json: relaxation_iterations
    bool relaxationConverged = false; ///< json: relaxation_converged
    bool relaxationMinimal = false;   ///< json: relaxation_minimal, nuclear_rank == min_heads
    double refitErrorRel =
        0; ///< json: refit_error_rel, ||fold(W_r) - P||_F / ||P||_F at r = min_heads
    bool exact =
        false; ///< json: exact, refit_error_rel <= exact_tol (false only if even max_heads failed)
    double exactTol = 0; ///< json: exact_tol, the tolerance the refits were held to
    // What is proven and what is evidence. json: min_heads_proven_upper_bound, min_heads when
    // exact (a refit with that many heads reproduces P to exact_tol, so the fewest heads is at
    // most min_heads), else null. json: min_heads_proven_minimal, true only when exact and
    // min_heads <= 1 (zero heads cannot fit P != 0); otherwise that fewer heads fail is evidence
    // (the failed lower ranks: lower_rank_best_error_rel, lower_rank_starts, attempts).
    /// json: lower_rank_best_error_rel, the best refit error at min_heads - 1 (null when
    /// min_heads <= 1: zero heads cannot fit P != 0). Evidence, not proof, that fewer heads fail.
    double lowerRankBestErrorRel = std::numeric_limits<double>::quiet_NaN();
    int lowerRankStarts = 0;           ///< json: lower_rank_starts
    std::vector<RankAttempt> attempts; ///< json: attempts, every rank tested, in order
    Heads heads;            ///< json: heads, [{"V": rows, "Q": rows}], canonical SVD form of W_r
    Vec headSingularValues; ///< json: head_singular_values, the r singular values of W_r
    Mat W;                  ///< the minimal representative W_r (not in JSON)
    std::string note;       ///< json: note
};

/// The fewest heads that compute P exactly: min rank(W) over the representatives
/// W in unfold(P) + ker(fold) (MATH.md §2, §5).
///
/// Method.
///  1. Convex relaxation: min ||W||_* subject to fold(W) = P by Douglas-Rachford splitting,
///     Z <- Z + svt_t(2 proj(Z) - Z) - proj(Z), with proj as above and svt_t the singular-value
///     soft threshold (t = sigma_1(unfold(P)) / 10). Its numerical rank r_nuc is the first guess.
///  2. Refit at rank r: alternating projections between the rank-r matrices (truncated SVD) and
///     the affine set, then Levenberg-Marquardt on factors W = U V^T (matrix-free normal equations
///     by conjugate gradients), which polishes fold(U V^T) = P to round-off when a rank-r
///     representative exists. Starts: the relaxation's solution, unfold(P), and random
///     representatives unfold(P) + K with K in ker(fold) (seeded).
///  3. Search (feasibility is monotone in r): if r_nuc refits, r_nuc - 1 is tried; if that
///     refits too, the relaxation was not minimal and a bisection on [1, r_nuc - 1] finds the
///     smallest rank that refits. If r_nuc fails, a bisection on (r_nuc, unfold_rank] does
///     (unfold(P) itself has rank unfold_rank). Either way min_heads - 1 is among the ranks tried.
///  4. Continuation: below the smallest exact fit W (rank r + 1), rank r is tried again from W
///     with each of its heads dropped in turn (smallest first) and from `continuationStarts`
///     random factors, with longer Levenberg-Marquardt runs; on success one rank lower, and so on.
///  5. Teacher (optional): MinHeadsOptions::teacherW refitted at its numerical rank; when it
///     reproduces P with fewer heads than steps 3-4 found, the continuation resumes below it.
///     The blind search alone is not complete: for certified random-MHLA fits with H* just
///     below the generic count (d = 4, H* = 6) every start at rank H* can end near 3e-3.
///  A start that ends between exact_tol and 1e-6 is refined by a longer Levenberg-Marquardt run
///  before it is judged (slow convergence is not mistaken for failure).
///
/// Guarantees. `exact` means W_r has rank min_heads and reproduces P to exact_tol: min_heads is
/// a proven upper bound on the true minimum. The lower side is evidence: nuclear-norm
/// minimisation is not guaranteed to find the minimum rank (it does when the minimiser is low
/// rank and the constraint set is "incoherent"; for a generic P it returns a far higher rank
/// than needed), so the function never trusts it alone: it always tries min_heads - 1 from
/// `starts` starts and reports the best error reached (lower_rank_best_error_rel). A rank that
/// fails from every start may still exist (non-convex search); and since fold of the rank-r
/// matrices is not a closed set, P can be a limit of (r-1)-head models without being one (then
/// the best error is small but never reaches round-off; the note says so below 1e-6).
/// `relaxation_minimal` says whether the convex answer was already minimal.
///
/// Note: the minimum for a *generic* P is far below min(d_out d, d^2): a dimension count
/// (genericMinHeads) gives e.g. 4 at d = 3 and 7 at d = 4 (d_out = d), not d^2.
///
/// Cost per iteration: one SVD of a (d_out d) x d^2 matrix.
[[nodiscard]] MinHeadsResult minHeads(const Mat& P, int d, const MinHeadsOptions& opt = {},
                                      const RunContext& ctx = {});

/// The number of heads a generic P (d_out x D) needs: the smallest r for which the map
/// (U, V) -> fold(U V^T) (U: (d_out d) x r, V: d^2 x r) has a Jacobian of full row rank d_out D
/// at a random point. For smaller r the image has dimension < d_out D, so P drawn from any
/// density needs more heads almost surely; at that r the image has non-empty interior (over the
/// reals some P may still need more). Cost O(d_out D * (r (d_out d + d^2))^2); meant for d <= 6.
[[nodiscard]] int genericMinHeads(int d, int dOut, std::uint64_t seed = 1);

[[nodiscard]] QJsonObject toJson(const MinHeadsResult& r);

} // namespace mhla
