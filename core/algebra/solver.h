#pragma once
// The exact solver (MATH.md §4): P Lambda = C on a certified (or not) second moment.
#include "core/algebra/certificate.h"
#include <memory>
#include <string>

namespace mhla {

/// The solution of P Lambda = C.
struct PolySolution {
    Certificate certificate;
    Mat P;              ///< d_out x D
    std::string method; ///< "cholesky", "min-norm", "ridge" ("eigen": certified, Cholesky failed)
    /// When not certified: a unit eigenvector of Lambda with eigenvalue <= tau (a direction
    /// the training data never sees), else empty.
    Vec nullVector;
};

/// Certifies Lambda with certify() (which alone decides dense vs Lanczos) and solves
/// P Lambda = C: C (Lambda + ridge I)^{-1} when ridge > 0; else by Cholesky when certified (the
/// factor of the Lanczos path is reused); else the minimum-norm solution (eigenvalues <= tau
/// dropped): from the null basis of the iterative path when certify() found one (large D, small
/// null space: one Cholesky factorisation of Lambda + N N^T), otherwise from one dense
/// eigendecomposition with eigenvectors; either also gives the null vector. No decomposition is
/// computed twice and no Lanczos result is thrown away.
/// Cancellable within ~10 ms in every phase (see runAbandonable()); throws Cancelled.
[[nodiscard]] PolySolution solveCertified(const std::shared_ptr<const Mat>& lambda, const Mat& C,
                                          double ridge, const CertifyOptions& opt,
                                          const RunContext& ctx = {});
/// The same on a matrix the caller keeps (copied only when ctx can cancel).
[[nodiscard]] PolySolution solveCertified(const Mat& lambda, const Mat& C, double ridge,
                                          const CertifyOptions& opt, const RunContext& ctx = {});

} // namespace mhla
