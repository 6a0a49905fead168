#pragma once
// The identifiability explorer (issue 11): how many heads a folded solution really needs, whether
// another fit with few heads hides in the null space of Lambda, which exact relations among the
// cubic features leave it free, how many samples the certificate takes, and how much label noise
// blurs what was identified. MATH.md §2-§5.
//
// Progress: ctx.report() receives events whose `phase` names the function ("min_heads: ...",
// "probe", "certificate_samples"); their `fraction` is approximate and local to the call.
//
// Every function is a pure function of value types (Eigen matrices, the Task, small option
// structs), thread-agnostic, deterministic for a given seed, polls ctx.checkCancel() inside each
// iterative loop (throws Cancelled) and returns a result struct with a toJson() whose field names
// are documented next to each struct member as `json: name`. Non-finite numbers are written as
// JSON null. Inputs of the wrong shape throw std::invalid_argument.
#include "core/algebra/model.h"
#include "core/base/types.h"
#include <QJsonObject>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace mhla {

class Task;

// ---- The geometry of fold (MATH.md §2)
// -----------------------------------------------------------
//
// Write W ((d_out d) x d^2, rows (i,a), columns (b,c)) as the d x d blocks M^{ic}_{ab} =
// W_{(i,a),(b,c)}, one per (i, c). fold(W)_{i,(a,b),c} = M_ab + M_ba (a < b), M_aa (a = b), so
//   ker(fold) = { W : every M^{ic} is antisymmetric },
// and its orthogonal complement (Frobenius) is the symmetric blocks, where fold is injective with
// inverse unfold. Hence unfold(fold(W)) = sym(W) (each block replaced by (M + M^T)/2), and the
// Euclidean projection onto the affine set of representatives {W : fold(W) = P} is
//   proj(W) = W - sym(W) + unfold(P)    (keep the antisymmetric part, replace the symmetric one).

/// The component of W in ker(fold): each block M^{ic} replaced by (M - M^T)/2.
Mat foldKernelPart(const Mat& W, int d);
/// Euclidean projection of W onto {W' : fold(W') = P}: W - sym(W) + unfold(P).
Mat projectOntoRepresentatives(const Mat& W, const Mat& P, int d);
/// The top r heads of W in canonical SVD form: W = sum_k s_k u_k v_k^T, head k is
/// V_k = reshape(sqrt(s_k) u_k), Q_k = reshape(sqrt(s_k) v_k), the sign fixed so that the
/// largest-|entry| of V_k is positive (as headsFromP). Heads are unique only up to an invertible
/// mixing; this form makes two representatives of one function comparable entry by entry.
Heads canonicalHeadsOfW(const Mat& W, int d, int r, Vec* singularValues = nullptr);

// ---- 1. How many heads does P need?
// ---------------------------------------------------------------

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
MinHeadsResult minHeads(const Mat& P, int d, const MinHeadsOptions& opt = {},
                        const RunContext& ctx = {});

/// The number of heads a generic P (d_out x D) needs: the smallest r for which the map
/// (U, V) -> fold(U V^T) (U: (d_out d) x r, V: d^2 x r) has a Jacobian of full row rank d_out D
/// at a random point. For smaller r the image has dimension < d_out D, so P drawn from any
/// density needs more heads almost surely; at that r the image has non-empty interior (over the
/// reals some P may still need more). Cost O(d_out D * (r (d_out d + d^2))^2); meant for d <= 6.
int genericMinHeads(int d, int dOut, std::uint64_t seed = 1);

QJsonObject toJson(const MinHeadsResult& r);

// ---- 2. The H-head probe: another least-squares fit with at most H heads?
// -------------------------

struct ProbeOptions {
    int starts = 24; ///< random starts (seeded deterministically)
    double minDistanceRel =
        0.05;                ///< an alternative must satisfy ||P' - P||_F >= minDistanceRel ||P||_F
    double exactTol = 1e-10; ///< ... and fit_residual_rel <= exactTol
    double toleranceRel = 1e-10; ///< null space of Lambda: eigenvalues <= toleranceRel * lambda_max
    int apIterations = 400;      ///< alternating-projection iterations per start
    std::uint64_t seed = 1;
};

struct ProbeResult {
    int heads = 0;          ///< json: heads, H
    int nullDim = 0;        ///< json: null_dim, dimension of the null space searched
    bool found = false;     ///< json: found
    double distanceRel = 0; ///< json: distance_rel, ||P' - P||_F / ||P||_F (0 when none found)
    double fitResidualRel =
        0; ///< json: fit_residual_rel, ||(P' - P)(I - B B^T)||_F / ||P||_F (B: null basis)
    /// json: loss_change_rel, tr(N Lambda N^T) / tr(P Lambda P^T) with N = P' - P: the increase of
    /// the training loss (exact for a least-squares P); null when Lambda was not given.
    double lossChangeRel = std::numeric_limits<double>::quiet_NaN();
    /// json: best_residual_rel, when none found: the smallest fit residual reached by a start that
    /// kept distance_rel >= min_distance_rel (how close the search came).
    double bestResidualRel = std::numeric_limits<double>::quiet_NaN();
    int startsTried = 0;       ///< json: starts_tried
    double minDistanceRel = 0; ///< json: min_distance_rel
    Mat alternativeP; ///< P' (d_out x D), empty when none found; its OOD error is the caller's
    Heads alternativeHeads; ///< json: alternative_heads, canonical heads of P' (at most H)
    std::string note;       ///< json: note, says that "none found" is evidence, not proof
};

/// Searches for another least-squares fit P' = P + N, the rows of N in the null space of Lambda
/// (so the training loss is unchanged), whose function needs at most H heads (a representative
/// of rank <= H), at distance ||N||_F >= minDistanceRel ||P||_F.
///
/// Method: from each start (P plus a random null-space offset of random size, plus a random
/// ker(fold) part), alternating projections between the rank-<=H matrices and the affine set
/// {W : fold(W) - P has rows in the null space}, pushed away from P: after every projection the
/// null-space offset is scaled up to at least 2 minDistanceRel ||P||. Then Levenberg-Marquardt
/// polishes the rank-H factors on the same set with the offset's component along its final
/// direction held fixed (so the polish cannot slide back to P). P' = fold(U V^T) has a rank-<=H
/// representative exactly; found when its fit residual is <= exactTol.
///
/// "Found" is a certificate (P' is returned and can be checked). "None found" is evidence, not
/// proof: the search is non-convex and a fit with <= H heads may exist that no start reached.
/// With a certified Lambda (empty null space) there is nothing to search: found = false,
/// distance 0, and that answer is exact.
ProbeResult probeAlternativeFit(const Mat& lambda, const Mat& P, int d, int H,
                                const ProbeOptions& opt = {}, const RunContext& ctx = {});
/// The same from a null-space basis (D x k, any basis: it is orthonormalised). lambda may be
/// empty (then loss_change_rel is null).
ProbeResult probeAlternativeFitInNullSpace(const Mat& nullBasis, const Mat& P, int d, int H,
                                           const ProbeOptions& opt = {}, const Mat& lambda = {},
                                           const RunContext& ctx = {});

QJsonObject toJson(const ProbeResult& r);

// ---- 3. What exactly is left free: the null relations
// ----------------------------------------------

/// Feature index k = pairIndex(a,b,d) * d + c of features.h, decoded (0-based, a <= b).
struct FeatureTriple {
    int a = 0, b = 0, c = 0;
};
FeatureTriple featureTriple(long long index, int d);
/// "S₁₂·z₃" (1-based, Unicode subscripts when a, b, c + 1 are single digits), else "S_{10,11}·z_3".
std::string featureName(long long index, int d);
/// ASCII form: "S_12*z_3" when single digits, else "S_{10,11}*z_{3}".
std::string featureNameAscii(long long index, int d);

struct NullRelationTerm {
    long long feature = 0;   ///< json: feature, index into psi
    int a = 0, b = 0, c = 0; ///< json: a, b, c (1-based in JSON)
    double coefficient = 0;  ///< json: coefficient (integers when the relation is rational)
};

struct NullRelation {
    std::vector<NullRelationTerm> terms; ///< json: terms, by feature index
    Vec vector;                          ///< the relation v (length D, coefficients as in terms)
    bool rational =
        false; ///< json: rational, coefficients snapped to p/q (q <= 12) and scaled to integers
    long long pivot = 0;   ///< json: pivot, the feature this relation solves for (RREF pivot)
    double residual = 0;   ///< json: residual, ||Lambda v|| / (lambda_max ||v||)
    std::string text;      ///< json: text, "S₁₁·z₁ + S₂₂·z₁ − S₃₃·z₁ = 0"
    std::string textAscii; ///< json: text_ascii
};

struct NullRelationsOptions {
    double toleranceRel = 1e-10; ///< null space: eigenvalues <= toleranceRel * lambda_max; snapped
                                 ///< v accepted if ||Lambda v|| <= tau ||v||
    double pivotTol = 1e-6;      ///< RREF pivots must exceed this times the largest entry
    double snapTol = 1e-8;       ///< an entry snaps to p/q when |x - p/q| <= snapTol max(1, |x|)
    int maxDenominator = 12;
};

struct NullRelationsResult {
    int nullDim = 0;                     ///< json: null_dim
    double tolerance = 0;                ///< json: tolerance, tau
    int rationalCount = 0;               ///< json: rational_count
    std::vector<NullRelation> relations; ///< json: relations
};

/// A sparse, readable basis of the null space of Lambda: reduced row echelon form of the null
/// basis (columns left to right = feature order, partial pivoting), each row normalised to 1 at
/// its pivot; entries snapped to the nearest p/q (q <= maxDenominator) and scaled to coprime
/// integers only when the snapped vector still satisfies ||Lambda v|| <= tau ||v|| (tau as in
/// the certificate); otherwise the row is kept in floating point (rational = false). Each
/// relation v says sum_k v_k psi_k(Z) = 0 on every training prompt (to round-off).
NullRelationsResult nullRelations(const Mat& lambda, int d, const NullRelationsOptions& opt = {});
/// The same from a given null basis (D x k).
NullRelationsResult nullRelationsFromBasis(const Mat& basis, const Mat& lambda, int d,
                                           const NullRelationsOptions& opt = {});

QJsonObject toJson(const NullRelationsResult& r);

// ---- 4. How many samples until the certificate holds?
// ---------------------------------------------

struct CertificateSamplesOptions {
    double toleranceRel = 1e-10; ///< tau = toleranceRel * lambda_max, as the certificate
    /// budget; 0 = 64 D. Checkpoints at D, 2D, 4D, ... up to it, and at the budget itself.
    long long maxSamples = 0;
    /// The structural test starts at checkpoints N >= structuralFromFactor * D (0 = 4).
    int structuralFromFactor = 0;
};

struct SampleCheckpoint {
    long long samples = 0;  ///< json: samples
    double lambdaMin = 0;   ///< json: lambda_min
    double lambdaMax = 0;   ///< json: lambda_max
    int nullDim = 0;        ///< json: null_dim
    bool certified = false; ///< json: certified
};

struct CertificateSamplesResult {
    long long featureDim = 0; ///< json: feature_dim, D
    long long certificateSamples =
        -1; ///< json: certificate_samples, smallest certified N (null if none within budget)
    bool structural = false;   ///< json: structural
    int structuralNullDim = 0; ///< json: structural_null_dim
    long long budget = 0;      ///< json: budget
    long long samplesAccumulated =
        0; ///< json: samples_accumulated, work done (bisection re-accumulates)
    std::vector<SampleCheckpoint> checkpoints; ///< json: checkpoints, sorted by samples
    std::string note;                          ///< json: note
};

/// The smallest N for which Lambda_N of the first N training samples (Stream::Train, the prefix
/// the runner uses) is certified: lambda_min > tau.
///
/// Method: for N < D, Lambda_N has rank <= N < D, so N >= D. Prefix moments are accumulated once
/// along the doubling checkpoints D, 2D, 4D, ... <= budget, keeping a copy of the accumulator at
/// the last uncertified checkpoint; the first certified interval (N_lo, N_hi] is bisected by
/// continuing from that copy (the copy moves forward at each uncertified midpoint, so each
/// sample of the interval is accumulated at most twice). Bisection assumes that certification,
/// once reached, persists (the raw sum N Lambda_N only grows in the PSD order; the ratio to
/// lambda_max can in principle dip, which is not searched for).
///
/// Structural case: when three consecutive checkpoints N, 2N, 4N (with N >= 4 D by default)
/// have the same non-zero null dimension, the null space is attributed to the task's
/// distribution (exact relations among the features, see nullRelations): structural = true and
/// the search stops. This is a heuristic: a rare event that would eventually fill a direction
/// looks structural until it occurs.
CertificateSamplesResult certificateSamples(const Task& task,
                                            const CertificateSamplesOptions& opt = {},
                                            const RunContext& ctx = {});

QJsonObject toJson(const CertificateSamplesResult& r);

// ---- 5. How much does noise blur what was identified?
// ---------------------------------------------

/// Lambda_ood = E psi psi^T for generic prompts (MATH.md §6: i.i.d. N(0, variance) entries, d x n),
/// in closed form by Isserlis' theorem: with S = S' + z z^T, S' = sum of the n - 1 context tokens
/// (E S'_ab = k delta_ab, E S'_ab S'_a'b' = k^2 delta_ab delta_a'b' + k(delta_aa' delta_bb' +
/// delta_ab' delta_ba'), k = n - 1) and z the query,
///   E S_ab S_a'b' z_c z_c' = v^3 [E S'S' delta_cc' + k delta_ab E4(a'b'cc') + k delta_a'b'
///   E4(abcc') + E6(aba'b'cc')]
/// with E4, E6 the Gaussian moments (sums over pairings). For d = 1: (n + 2)(n + 4) v^3.
Mat genericFeatureMoment(int d, int n, double variance = 1.0);

/// Exact E ||(P - Pref) psi||^2 / E ||Pref psi||^2 over prompts with second moment oodMoment:
/// tr(dP M dP^T) / tr(Pref M Pref^T). With genericFeatureMoment this is the expectation that
/// ood_rel_mse estimates by Monte-Carlo.
double expectedOodRelMse(const Mat& P, const Mat& Pref, const Mat& oodMoment);

struct NoiseInputs {
    long long samples = 0; ///< N of the training set
    /// mean over samples and outputs of (P psi - y)^2 of the least-squares fit (train_mse); NaN =
    /// unknown
    double trainMse = std::numeric_limits<double>::quiet_NaN();
    double configuredNoise =
        0;          ///< sigma from the configuration (used when N <= D or train_mse unknown)
    Mat referenceP; ///< P* when known, else the fit: defines ||P|| and E||P psi||^2
    Mat oodMoment;  ///< Lambda_ood (genericFeatureMoment); empty = no OOD prediction
    double measuredDistanceP2 = std::numeric_limits<double>::quiet_NaN(); ///< optional, echoed
    double measuredOodRelMse = std::numeric_limits<double>::quiet_NaN();  ///< optional, echoed
};

struct NoiseOptions {
    double toleranceRel =
        1e-10; ///< eigenvalues <= tau are left out of Lambda^{-1} (then not certified)
    double warnRel =
        1e-2; ///< warn when certified and predicted_ood_rel_mse (or distance_p_rel^2) exceeds this
};

struct NoiseAnalysis {
    double sigma2 = 0; ///< json: sigma2, per-output noise variance used
    std::string
        sigmaSource; ///< json: sigma_source, "residual" (train_mse N / (N - D)) or "configured"
    bool certified = false;         ///< json: certified
    int nullDim = 0;                ///< json: null_dim
    double traceLambdaInv = 0;      ///< json: trace_lambda_inv, tr(Lambda^+)
    double predictedDistanceP2 = 0; ///< json: predicted_distance_p2, sigma^2 d_out tr(Lambda^+) / N
    double predictedDistancePRel =
        0; ///< json: predicted_distance_p_rel, sqrt(predicted_distance_p2) / ||Pref||_F
    double traceLambdaInvOod =
        std::numeric_limits<double>::quiet_NaN(); ///< json: trace_lambda_inv_ood, tr(Lambda^+
                                                  ///< Lambda_ood)
    double predictedOodExcess =
        std::numeric_limits<double>::quiet_NaN(); ///< json: predicted_ood_excess, sigma^2 d_out
                                                  ///< tr(Lambda^+ Lambda_ood) / N
    double oodSignal = std::numeric_limits<double>::quiet_NaN(); ///< json: ood_signal, tr(Pref
                                                                 ///< Lambda_ood Pref^T) = E||f*||^2
    double predictedOodRelMse =
        std::numeric_limits<double>::quiet_NaN(); ///< json: predicted_ood_rel_mse
    double measuredDistanceP2 =
        std::numeric_limits<double>::quiet_NaN(); ///< json: measured_distance_p2
    double measuredOodRelMse =
        std::numeric_limits<double>::quiet_NaN(); ///< json: measured_ood_rel_mse
    std::string warning;                          ///< json: warning (omitted when empty)
    std::string note;                             ///< json: note
};

/// The statistical side of identifiability. For y = P* psi + sigma eps and P = C Lambda^{-1}:
///   P - P* = (sigma / N) sum_s eps_s psi_s^T Lambda^{-1}, so conditionally on the prompts
///   E ||P - P*||_F^2 = sigma^2 d_out tr(Lambda^{-1}) / N                      (exact)
///   E_Z ||(P - P*) psi(Z)||^2 = tr(dP Lambda_ood dP^T), whose noise expectation is
///       sigma^2 d_out tr(Lambda^{-1} Lambda_ood) / N,
/// and the predicted ood_rel_mse divides that by E ||P* psi||^2 = tr(P* Lambda_ood P*^T).
/// sigma^2 is estimated as RSS / (d_out (N - D)) = train_mse N / (N - D) when N > D (unbiased),
/// else the configured noise^2. When Lambda is not certified the pseudo-inverse is used: the
/// prediction then covers the identified directions only (the null directions add a bias the
/// data cannot see), and `note` says so. A certified run whose predicted error exceeds warnRel
/// gets a `warning`: the certificate says the fit is unique, not that it is accurate.
NoiseAnalysis noiseAnalysis(const Mat& lambda, const NoiseInputs& in, const NoiseOptions& opt = {},
                            const RunContext& ctx = {});

QJsonObject toJson(const NoiseAnalysis& r);

} // namespace mhla
