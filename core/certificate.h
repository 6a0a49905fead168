#pragma once
// The identifiability certificate (MATH.md §3) and the exact solver (MATH.md §4).
#include "core/types.h"
#include <optional>
#include <string>

namespace mhla {

struct CertifyOptions {
    double toleranceRel = 1e-10;  ///< tau = toleranceRel * lambda_max
    bool fullSpectrum = false;    ///< also return every eigenvalue (dense path)
    long long denseCrossover = 100; ///< D above which LLT + Lanczos (Spectra) is tried first (measured by `mhla-lab bench`)
};

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

/// The solution of P Lambda = C.
struct PolySolution {
    Certificate certificate;
    Mat P;               ///< d_out x D
    std::string method;  ///< "cholesky", "min-norm", "ridge"
    /// When not certified: a unit eigenvector of Lambda with eigenvalue <= tau (a direction
    /// the training data never sees), else empty.
    Vec nullVector;
};

/// Certifies Lambda and solves P Lambda = C: Cholesky when certified, the minimum-norm
/// solution (eigenvalues <= tau dropped) otherwise, C (Lambda + ridge I)^{-1} when ridge > 0.
PolySolution solveCertified(const Mat& lambda, const Mat& C, double ridge,
                            const CertifyOptions& opt, const RunContext& ctx = {});

/// Certificate alone (for traces and benchmarks). method: "auto", "dense" or "lanczos".
Certificate certify(const Mat& lambda, const CertifyOptions& opt, const std::string& method = "auto");

/// Smallest eigenvalue only, cheaply (for the lambda_min-vs-samples trace).
double smallestEigenvalue(const Mat& lambda);

} // namespace mhla
