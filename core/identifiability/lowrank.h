#pragma once
// The low-rank machinery the identifiability algorithms share (min heads and the probes): the
// symmetric part of W, thin SVDs, affine sets of representatives, factor pairs W = U V^T,
// Levenberg-Marquardt and alternating projections on them, and the null basis of Lambda.
// Internal to core/identifiability/: nothing outside this room includes it.
#include "core/base/rng.h"
#include "core/base/types.h"
#include <functional>

namespace mhla::lowrank {

/// sym(W): each block M^{ic}_{ab} = W_{(i,a),(b,c)} replaced by (M + M^T)/2; equals
/// unfold(fold(W)).
[[nodiscard]] Mat symPart(const Mat& W, int d);

/// Throws std::invalid_argument("identifiability: " + what) unless ok.
void requireShape(bool ok, const char* what);

/// Feature weights w of the isometry P <-> unfold(P): ||unfold(P)||_F^2 = sum_k w_k ||P_{:,k}||^2,
/// w = 1 on diagonal pairs (a = b), 1/2 off the diagonal.
[[nodiscard]] Vec featureWeights(int d);

/// Thin SVD.
struct Svd {
    Mat U;
    Vec s;
    Mat V;
};
[[nodiscard]] Svd svdOf(const Mat& X);

/// Singular value thresholding: sum over the singular triplets of A with s_k > t of
/// (s_k - t) u_k v_k^T (the proximal map of t ||.||_*), and in `rank` how many there are.
/// Computed from the eigendecomposition of the smaller Gram matrix G (A A^T or A^T A), as
/// U diag(1 - t / s) U^T A (or its transpose): about 5x faster than a full SVD at 32 x 64. The
/// eigenvalues of G carry an absolute error ~ eps s_1^2, so s_k carries one of ~ eps s_1^2 / s_k:
/// for the s_k > t kept that is ~ eps s_1 (s_1 / t), and a triplet near t contributes
/// ~ s_k - t ~ 0 either way. Requires t > 0.
[[nodiscard]] Mat shrinkSingularValues(const Mat& A, double t, int* rank = nullptr);

/// An affine set {W : perp(W) = target} with perp the orthogonal projector onto the complement
/// of its direction space. proj(W) = W - perp(W) + target is the Euclidean projection onto it.
struct AffineSet {
    std::function<Mat(const Mat&)> perp;
    Mat target;
    Mat project(const Mat& W) const { return W - perp(W) + target; }
    Mat residual(const Mat& W) const { return perp(W) - target; }
};

/// W = U V^T.
struct Factors {
    Mat U, V;
    Mat product() const { return U * V.transpose(); }
};

/// Balanced factors of the best rank-r approximation of X: U = U_r sqrt(S), V = V_r sqrt(S).
[[nodiscard]] Factors truncatedFactors(const Mat& X, int r);
/// The best rank-r approximation of X; with `rightBasis`, also its r leading right singular
/// vectors (the warm start of the next truncation in alternating projections).
[[nodiscard]] Mat truncateRank(const Mat& X, int r, Mat* rightBasis = nullptr);
/// The same truncation from the eigenvectors of the smaller Gram matrix (as
/// shrinkSingularValues(), ~5x faster than a full SVD at 64 x 64), with an orthonormal basis V
/// (n x r) of its row space, not ordered: the restarts of alternatingProjections()'
/// warm-started truncation. Requires 0 <= r <= min(rows, cols).
[[nodiscard]] Mat truncateRankGram(const Mat& X, int r, Mat& V);
/// Re-balances U V^T (same product): thin QR of both factors and an SVD of the r x r core.
void rebalance(Factors& f);

/// Levenberg-Marquardt on F(U, V) = perp(U V^T) - target. J(dU, dV) = perp(dU V^T + U dV^T);
/// J^T R = (R V, R^T U) for R in the range of perp. The damped normal equations are solved
/// matrix-free by conjugate gradients. `scale` sets the damping (sigma_1 of the target), `norm`
/// the size of the target (stops at the round-off of ||F||: 4 eps sqrt(entries) norm, at least
/// 1e-15 norm). Returns ||F||_F at the end; `steps` (optional) gets the outer steps taken.
double levenbergMarquardt(const AffineSet& set, Factors& f, double scale, double norm, int maxOuter,
                          const RunContext& ctx, int stallLimit = 8, int* steps = nullptr);

/// Factors of the canonical SVD heads of W with head `drop` left out (the top `keep` + 1 heads,
/// one removed): a start for rank `keep` continued from an exact fit with one head more.
[[nodiscard]] Factors factorsWithoutHead(const Svd& s, int keep, int drop);

/// Alternating projections between rank-r matrices and the set. `push` (optional) is applied
/// after each projection onto the set. Returns the last point on the set.
[[nodiscard]] Mat alternatingProjections(const AffineSet& set, Mat X, int r, int iterations,
                                         double scale, const std::function<void(Mat&)>& push,
                                         const RunContext& ctx);

/// A random element of ker(fold) with Frobenius norm `norm`.
[[nodiscard]] Mat randomKernelElement(Index rows, Index cols, int d, double norm, Rng& rng);

/// Null eigenvectors of Lambda (eigenvalues <= toleranceRel * lambda_max).
[[nodiscard]] Mat nullBasisOf(const Mat& lambda, double toleranceRel, double* tau = nullptr,
                              double* lambdaMax = nullptr);

} // namespace mhla::lowrank
