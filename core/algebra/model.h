#pragma once
// Multi-head linear attention (MATH.md §1-2 and §4.3): the model, its folded coefficients P,
// the unfolded W and the canonical heads from the SVD of unfold(P).
#include "core/base/types.h"
#include <vector>

namespace mhla {

/// An MHLA with H heads: V_h is d_out x d, Q_h is d x d.
struct Heads {
    std::vector<Mat> V;
    std::vector<Mat> Q;
    int count() const { return static_cast<int>(V.size()); }
};

/// Number of symmetric pairs (a <= b) of [d]: d(d+1)/2.
[[nodiscard]] inline int pairCount(int d) { return d * (d + 1) / 2; }
/// Folded cubic feature dimension D = d * d(d+1)/2.
inline long long featureDim(int d) { return static_cast<long long>(d) * pairCount(d); }
/// Row-major index of the pair (a,b), a <= b.
[[nodiscard]] inline int pairIndex(int a, int b, int d) {
    return a * d - a * (a - 1) / 2 + (b - a);
}

/// S(Z) = Z Z^T.
[[nodiscard]] Mat promptMoment(const Mat& Z);
/// S(Z) = Z Z^T into S[0, d*d) (column-major, both triangles), without allocating. Each entry
/// is the plain sum over tokens in token order, so S is exactly symmetric.
void promptMomentInto(const Mat& Z, double* S);
/// vech of a symmetric d x d matrix S (column-major): its upper triangle row by row, the pair
/// order of pairIndex.
void momentVech(const double* S, Index d, double* out);
/// f(Z) = sum_h V_h S(Z) Q_h z_q, the output at the query token (last column of Z).
[[nodiscard]] Vec mhlaOutput(const Heads& heads, const Mat& Z);
/// f(Z) into `out` (resized to d_out if needed): the same numbers as mhlaOutput, with no heap
/// allocation once `out` has its size (the scratch is per thread). The hot path of sampling.
/// With `vech`, also vech(S(Z)) into it (resized to d(d+1)/2), the numbers promptVech writes:
/// samplers hand it on so that the features need not form S again.
void mhlaOutputInto(const Heads& heads, const Mat& Z, Vec& out,
                    std::vector<double>* vech = nullptr);
/// Causal all-positions output: column t is sum_h V_h S_t Q_h z_t with S_t = sum_{s<=t} z_s z_s^T.
[[nodiscard]] Mat mhlaOutputCausal(const Heads& heads, const Mat& Z);

/// Folded coefficients P (d_out x D) of a set of heads, so that f(Z) = P psi(Z).
[[nodiscard]] Mat foldHeads(const Heads& heads, int d, int dOut);
/// fold(W) for W of size (d_out*d) x d^2.
[[nodiscard]] Mat foldW(const Mat& W, int d, int dOut);
/// The symmetric representative W = unfold(P), (d_out*d) x d^2.
[[nodiscard]] Mat unfoldP(const Mat& P, int d);
/// Unfolded coefficients sum_h vec(V_h) vec(Q_h)^T (row-major vec).
[[nodiscard]] Mat headsToW(const Heads& heads, int d, int dOut);

/// How many singular values (in descending order) exceed relTol times the largest: the numerical
/// rank the head decomposition keeps, and the one unfold_rank and min_heads count. 0 when the
/// largest is 0 (or there are none).
[[nodiscard]] int numericalRank(const Vec& singularValues, double relTol);

/// Canonical heads of a folded solution: SVD of unfold(P), sorted by singular value.
struct HeadDecomposition {
    Heads heads;        ///< canonical heads (all numerical-rank heads, or the top `maxHeads`)
    Vec singularValues; ///< every singular value of unfold(P), descending
    int rank = 0;       ///< number of singular values > rankTol * sigma_1
};
/// Heads from the SVD of unfold(P). maxHeads = 0 keeps every head of the numerical rank.
/// Each head's sign is fixed so that the largest-magnitude entry of its V is positive, which
/// makes heads of two models comparable entry by entry.
/// The SVD is cancellable through ctx (see runAbandonable() in core/base/abandonable.h).
[[nodiscard]] HeadDecomposition headsFromP(const Mat& P, int d, int maxHeads = 0,
                                           double rankTol = 1e-8, const RunContext& ctx = {});

/// Appends the head of one singular pair of a W ((d_out d) x d^2), u and v already scaled by
/// sqrt(sigma): V = reshape_{d_out x d}(u), Q = reshape_{d x d}(v), the sign fixed so that the
/// largest-|entry| of V is positive. The one canonical form of headsFromP and canonicalHeadsOfW.
void appendCanonicalHead(Heads& heads, Vec u, Vec v, int d);

} // namespace mhla
