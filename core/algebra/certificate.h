#pragma once
// The identifiability certificate (MATH.md §3): lambda_min and lambda_max of the second moment
// Lambda, and the one place that decides how they are computed (dense eigenvalues or
// Cholesky + Lanczos). The solve of P Lambda = C is in core/algebra/solver.h.
#include "core/base/types.h"
#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <type_traits>

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
CertifyPath chooseCertifyPath(Index D, const CertifyOptions& opt,
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
/// is not needed again. Abandonable (see runAbandonable()).
struct EigenPairs {
    Vec values;
    Mat vectors;
};
EigenPairs eigenPairs(const std::shared_ptr<const DenseReduction>& reduction,
                      const RunContext& ctx = {});

/// Certificate of Lambda. method: "auto", "dense" or "lanczos" (see chooseCertifyPath()).
/// Cancellable within ~10 ms at any point (see runAbandonable()); throws Cancelled.
Certificate certify(const std::shared_ptr<const Mat>& lambda, const CertifyOptions& opt,
                    const std::string& method, const RunContext& ctx,
                    CertifyByproducts* byproducts = nullptr);
/// The same on a matrix the caller keeps (copied when ctx can cancel).
Certificate certify(const Mat& lambda, const CertifyOptions& opt,
                    const std::string& method = "auto", const RunContext& ctx = {});

/// Smallest eigenvalue only (dense; for the lambda_min-vs-samples trace, D <= 600).
/// Cancellable like certify().
double smallestEigenvalue(const Mat& lambda, const RunContext& ctx = {});

/// A shared_ptr that does not own m: for handing a caller's matrix to code that runs inline
/// (ctx without a cancel token), where no copy is needed.
inline std::shared_ptr<const Mat> borrowMatrix(const Mat& m) {
    return std::shared_ptr<const Mat>(&m, [](const Mat*) {});
}
/// The matrix as shared input of runAbandonable(): borrowed when nothing can cancel (the work
/// runs inline), else copied so that abandoned work never reads freed memory.
inline std::shared_ptr<const Mat> shareMatrix(const Mat& m, const RunContext& ctx) {
    return ctx.cancel ? std::make_shared<const Mat>(m) : borrowMatrix(m);
}

/// Runs work() so that it can be abandoned: Eigen's dense decompositions (eigen, Cholesky,
/// SVD) cannot poll a token, so when ctx has a cancel token the work runs on a thread of its
/// own while the caller polls the token every 10 ms; on cancellation the caller detaches the
/// thread and throws Cancelled at once. The abandoned computation finishes in the background
/// (using one core and its own inputs, which work must own: capture shared_ptrs or copies,
/// never references to the caller's stack) and its result is dropped. Without a token, or if
/// no thread can be started, work() runs inline. Exceptions of work() are rethrown.
template <typename F>
auto runAbandonable(const RunContext& ctx, F work) -> std::invoke_result_t<F&> {
    using R = std::invoke_result_t<F&>;
    if (!ctx.cancel) return work();
    ctx.checkCancel();
    struct State {
        std::mutex m;
        std::condition_variable cv;
        bool done = false;
        std::optional<R> result;
        std::exception_ptr error;
    };
    auto st = std::make_shared<State>();
    auto body = [st, w = std::move(work)]() mutable {
        std::optional<R> r;
        std::exception_ptr e;
        try {
            r.emplace(w());
        } catch (...) {
            e = std::current_exception();
        }
        std::lock_guard<std::mutex> lock(st->m);
        st->result = std::move(r);
        st->error = e;
        st->done = true;
        st->cv.notify_all();
    };
    std::thread t;
    try {
        t = std::thread(body);
    } catch (const std::system_error&) {
        body(); // the OS refused a thread: run inline (not abandonable, but correct)
    }
    std::unique_lock<std::mutex> lock(st->m);
    while (!st->cv.wait_for(lock, std::chrono::milliseconds(10), [&] { return st->done; })) {
        if (ctx.cancel->isCancelled()) {
            lock.unlock();
            t.detach();
            throw Cancelled();
        }
    }
    lock.unlock();
    if (t.joinable()) t.join();
    if (st->error) std::rethrow_exception(st->error);
    return std::move(*st->result);
}

} // namespace mhla

// The solver used to be declared here; it lives in core/algebra/solver.h now.
#include "core/algebra/solver.h"
