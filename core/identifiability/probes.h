#pragma once
// The H-head probe: is there another least-squares fit, its rows moved within the null space
// of Lambda, that needs at most H heads? (MATH.md §3)
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

namespace mhla {

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
[[nodiscard]] ProbeResult probeAlternativeFit(const Mat& lambda, const Mat& P, int d, int H,
                                              const ProbeOptions& opt = {},
                                              const RunContext& ctx = {});
/// The same from a null-space basis (D x k, any basis: it is orthonormalised). lambda may be
/// empty (then loss_change_rel is null).
[[nodiscard]] ProbeResult probeAlternativeFitInNullSpace(const Mat& nullBasis, const Mat& P, int d,
                                                         int H, const ProbeOptions& opt = {},
                                                         const Mat& lambda = {},
                                                         const RunContext& ctx = {});

[[nodiscard]] QJsonObject toJson(const ProbeResult& r);

} // namespace mhla
