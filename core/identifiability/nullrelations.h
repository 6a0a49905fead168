#pragma once
// What exactly is left free: the null eigenvectors of Lambda as exact relations among the named
// cubic features ψ_{(a,b),c} (MATH.md §2-§3).
//
// Conventions of the identifiability room (core/identifiability/): pure functions of value types
// (Eigen matrices, the Task, small option structs), thread-agnostic, deterministic for a given
// seed; each iterative loop polls ctx.checkCancel() (throws Cancelled); progress events name the
// function in `phase` ("min_heads: ...", "probe", "certificate_samples") with a fraction local to
// the call; results are structs with a toJson() whose field names are documented next to each
// member as `json: name`, non-finite numbers written as JSON null; inputs of the wrong shape
// throw std::invalid_argument.
#include "core/base/types.h"
#include <QJsonObject>
#include <string>
#include <vector>

namespace mhla {

/// Feature index k = pairIndex(a,b,d) * d + c of features.h, decoded (0-based, a <= b).
struct FeatureTriple {
    int a = 0, b = 0, c = 0;
};
[[nodiscard]] FeatureTriple featureTriple(long long index, int d);
/// "S₁₂·z₃" (1-based, Unicode subscripts when a, b, c + 1 are single digits), else "S_{10,11}·z_3".
[[nodiscard]] std::string featureName(long long index, int d);
/// ASCII form: "S_12*z_3" when single digits, else "S_{10,11}*z_{3}".
[[nodiscard]] std::string featureNameAscii(long long index, int d);

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
[[nodiscard]] NullRelationsResult nullRelations(const Mat& lambda, int d,
                                                const NullRelationsOptions& opt = {});
/// The same from a given null basis (D x k).
[[nodiscard]] NullRelationsResult nullRelationsFromBasis(const Mat& basis, const Mat& lambda, int d,
                                                         const NullRelationsOptions& opt = {});

[[nodiscard]] QJsonObject toJson(const NullRelationsResult& r);

} // namespace mhla
