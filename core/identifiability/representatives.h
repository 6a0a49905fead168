#pragma once
// The geometry of fold (MATH.md §2): the representatives W of one folded P, unfold(P) + ker(fold),
// and the canonical heads of a W, shared by min heads, the probes and the explorer.
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

namespace mhla {

// Write W ((d_out d) x d^2, rows (i,a), columns (b,c)) as the d x d blocks M^{ic}_{ab} =
// W_{(i,a),(b,c)}, one per (i, c). fold(W)_{i,(a,b),c} = M_ab + M_ba (a < b), M_aa (a = b), so
//   ker(fold) = { W : every M^{ic} is antisymmetric },
// and its orthogonal complement (Frobenius) is the symmetric blocks, where fold is injective with
// inverse unfold. Hence unfold(fold(W)) = sym(W) (each block replaced by (M + M^T)/2), and the
// Euclidean projection onto the affine set of representatives {W : fold(W) = P} is
//   proj(W) = W - sym(W) + unfold(P)    (keep the antisymmetric part, replace the symmetric one).

/// The component of W in ker(fold): each block M^{ic} replaced by (M - M^T)/2.
[[nodiscard]] Mat foldKernelPart(const Mat& W, int d);
/// Euclidean projection of W onto {W' : fold(W') = P}: W - sym(W) + unfold(P).
[[nodiscard]] Mat projectOntoRepresentatives(const Mat& W, const Mat& P, int d);
/// The top r heads of W in canonical SVD form: W = sum_k s_k u_k v_k^T, head k is
/// V_k = reshape(sqrt(s_k) u_k), Q_k = reshape(sqrt(s_k) v_k), the sign fixed so that the
/// largest-|entry| of V_k is positive (as headsFromP). Heads are unique only up to an invertible
/// mixing; this form makes two representatives of one function comparable entry by entry.
[[nodiscard]] Heads canonicalHeadsOfW(const Mat& W, int d, int r, Vec* singularValues = nullptr);

} // namespace mhla
