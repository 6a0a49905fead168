#pragma once
// The Cholesky factor Lambda = L L^T of the certificate and the solve (MATH.md §3, §4), on
// every core: Eigen's LLT runs on one core (its GEMM is parallel only under OpenMP), which at
// D = 7200 is seconds of the run. Above kParallelCholeskyMinDim a right-looking blocked
// factorisation does the trailing updates with the accumulation's GEMM kernel
// (core/kernels/gemmkernel.h) over the threads; the result is an Eigen::LLT, so that every
// user (solve, shift-invert Lanczos) is unchanged.
#include "core/base/types.h"
#include <Eigen/Cholesky>
#include <memory>

namespace mhla {

/// D from which the blocked parallel factorisation is used (below it Eigen's LLT is as fast,
/// and small problems keep Eigen's bits).
constexpr Index kParallelCholeskyMinDim = 768;
/// Columns per panel of the blocked factorisation.
constexpr Index kCholeskyPanel = 192;

/// Lambda = L L^T of a symmetric matrix (its lower triangle is read), as Eigen::LLT reports
/// it: info() is Success, or NumericalIssue when a pivot is not positive (Lambda is not
/// positive definite to working precision). The same bits for any thread count: each panel
/// and each block of the trailing update is computed by one call whichever thread runs it.
/// `threads` as RunContext::threads (0: every core). It does not poll a cancel token: callers
/// run it under runAbandonable() (core/base/abandonable.h), as they ran Eigen's LLT.
[[nodiscard]] std::shared_ptr<const Eigen::LLT<Mat>> choleskyFactor(const Mat& lambda,
                                                                    int threads = 0);

} // namespace mhla
