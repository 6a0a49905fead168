#pragma once
// The identifiability certificate (MATH.md §3): lambda_min and lambda_max of the second moment
// Lambda, and the one place that decides how they are computed (dense eigenvalues or
// Cholesky + Lanczos). The solve of P Lambda = C is in core/algebra/solver.h.
#include "core/base/abandonable.h"
#include "core/base/types.h"
#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <memory>
#include <string>

namespace mhla {

struct CertifyOptions {
    double toleranceRel = 1e-10;    ///< tau = toleranceRel * lambda_max
    bool fullSpectrum = false;      ///< also return every eigenvalue (forces the dense path)
    long long denseCrossover = 100; ///< D above which Cholesky + Lanczos (Spectra) is tried first
                                    ///< (measured by `mhla-lab bench`)
    /// D above which a Lambda that does not certify has its null space found by block inverse
    /// iteration (Cholesky of Lambda + delta I, then a few triangular solves with a block of
    /// vectors) instead of the dense eigendecomposition (~4/3 D^3 for the eigenvalues, ~9 D^3
    /// with eigenvectors: minutes at D = 7200). Used while the null space is small (see
    /// kMaxIterativeNullDim); a large one (e.g. fewer samples than features) falls back to the
    /// dense path.
    long long nullSpaceCrossover = 2500;
};

/// Largest null dimension the iterative null-space path computes before falling back to the
/// dense eigendecomposition (its block of vectors grows to the next power of two above it).
constexpr int kMaxIterativeNullDim = 256;

/// The certificate of a second-moment matrix.
struct Certificate {
    double lambdaMin = 0, lambdaMax = 0;
    double condition = 0;   ///< lambda_max / lambda_min (inf when lambda_min <= 0)
    double tolerance = 0;   ///< tau
    int nullDim = 0;        ///< number of eigenvalues <= tau
    bool certified = false; ///< lambda_min > tau
    std::string method;     ///< "dense" or "lanczos"
    Vec spectrum;           ///< ascending eigenvalues (empty unless computed)
};

/// How certify() computes the extreme eigenvalues.
enum class CertifyPath {
    Dense,   ///< all eigenvalues of Lambda (Eigen's SelfAdjointEigenSolver, ~4/3 D^3 + O(D^2))
    Lanczos, ///< Cholesky (D^3/3) then Lanczos for lambda_max and shift-invert Lanczos for
             ///< lambda_min; when the result is not certified, above nullSpaceCrossover the
             ///< null space by block inverse iteration on Lambda + delta I; falls back to Dense
             ///< when a factorisation or Lanczos fails, when the null space is larger than
             ///< kMaxIterativeNullDim, or below nullSpaceCrossover (nullDim needs every
             ///< eigenvalue)
};

/// The single rule: method "dense" or "lanczos" forces a path; "auto" takes Lanczos when
/// D > opt.denseCrossover and the full spectrum is not wanted (a full spectrum needs the dense
/// decomposition anyway, so a Lanczos solve first would be thrown away).
[[nodiscard]] CertifyPath chooseCertifyPath(Index D, const CertifyOptions& opt,
                                            const std::string& method = "auto");

/// The tridiagonal form Lambda / scale = Q T Q^T of the dense path (Householder, ~4/3 D^3).
/// The eigenvalues are those of T (times scale); the eigenvectors, when needed, are Q times
/// those of T: the solver reuses the reduction instead of decomposing Lambda again.
struct DenseReduction {
    Eigen::Tridiagonalization<Mat> tridiagonal;
    double scale = 1; ///< max |Lambda_ij| (as Eigen's SelfAdjointEigenSolver scales)
};

/// What certify() computed on the way that the solve can reuse.
struct CertifyByproducts {
    /// Lambda = L L^T, when the Lanczos path factorised Lambda successfully (else null).
    std::shared_ptr<const Eigen::LLT<Mat>> cholesky;
    /// The tridiagonal reduction, when the dense path ran (else null).
    std::shared_ptr<const DenseReduction> reduction;
    /// When the Lanczos null-space path ran: orthonormal eigenvectors (columns) of every
    /// eigenvalue <= tau, in ascending order of eigenvalue (else null).
    std::shared_ptr<const Mat> nullBasis;
};

/// Ascending eigenvalues and the eigenvectors (columns) of Lambda from its reduction; Lambda
/// is not needed again. Abandonable (see runAbandonable() in core/base/abandonable.h).
struct EigenPairs {
    Vec values;
    Mat vectors;
};
[[nodiscard]] EigenPairs eigenPairs(const std::shared_ptr<const DenseReduction>& reduction,
                                    const RunContext& ctx = {});

/// Certificate of Lambda. method: "auto", "dense" or "lanczos" (see chooseCertifyPath()).
/// Cancellable within ~10 ms at any point (see runAbandonable() in core/base/abandonable.h); throws
/// Cancelled.
[[nodiscard]] Certificate certify(const std::shared_ptr<const Mat>& lambda,
                                  const CertifyOptions& opt, const std::string& method,
                                  const RunContext& ctx, CertifyByproducts* byproducts = nullptr);
/// The same on a matrix the caller keeps (copied when ctx can cancel).
[[nodiscard]] Certificate certify(const Mat& lambda, const CertifyOptions& opt,
                                  const std::string& method = "auto", const RunContext& ctx = {});

/// Smallest eigenvalue only (for the lambda_min-vs-samples trace, D <= 600): above
/// CertifyOptions::denseCrossover by Cholesky + shift-invert Lanczos when Lambda factors, else
/// dense. Cancellable like certify().
[[nodiscard]] double smallestEigenvalue(const Mat& lambda, const RunContext& ctx = {});

} // namespace mhla
