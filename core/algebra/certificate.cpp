#include "core/algebra/certificate.h"
#include "core/algebra/cholesky.h"
#include "core/base/parallel.h"
#include "core/base/rng.h"
#include <Spectra/SymEigsShiftSolver.h>
#include <Spectra/SymEigsSolver.h>
#include <algorithm>
#include <cmath>
#include <future>
#include <limits>
#include <optional>

namespace mhla {

namespace {

Certificate fromSpectrum(const Vec& ascending, double tolRel, bool keep) {
    Certificate c;
    c.lambdaMin = ascending(0);
    c.lambdaMax = ascending(ascending.size() - 1);
    c.tolerance = tolRel * std::max(c.lambdaMax, 0.0);
    c.nullDim = static_cast<int>((ascending.array() <= c.tolerance).count());
    c.certified = c.lambdaMax > 0 && c.lambdaMin > c.tolerance;
    c.condition =
        c.lambdaMin > 0 ? c.lambdaMax / c.lambdaMin : std::numeric_limits<double>::infinity();
    c.method = "dense";
    if (keep) c.spectrum = ascending;
    return c;
}

/// y = Lambda x, checking the cancel token before every product (one product is O(D^2):
/// about 10 ms at D = 7200), so the Lanczos iterations stop within one product.
class CancellableProd {
public:
    using Scalar = double;
    CancellableProd(const Mat& L, const RunContext& ctx) : m_L(L), m_ctx(ctx) {}
    Index rows() const { return m_L.rows(); }
    Index cols() const { return m_L.cols(); }
    void perform_op(const Scalar* xIn, Scalar* yOut) const {
        m_ctx.checkCancel();
        Eigen::Map<const Vec> x(xIn, rows());
        Eigen::Map<Vec> y(yOut, rows());
        y.noalias() = m_L.selfadjointView<Eigen::Lower>() * x;
    }

private:
    const Mat& m_L;
    const RunContext& m_ctx;
};

/// y = Lambda^{-1} x through a Cholesky factor: the shift-invert operator of Spectra at
/// sigma = 0, which turns the smallest eigenvalue into the best-separated largest one.
/// Checks the cancel token before every solve (two triangular solves, O(D^2)).
class CholeskyInverseOp {
public:
    using Scalar = double;
    CholeskyInverseOp(const Eigen::LLT<Mat>& llt, const RunContext& ctx) : m_llt(llt), m_ctx(ctx) {}
    Index rows() const { return m_llt.rows(); }
    Index cols() const { return m_llt.cols(); }
    void set_shift(const Scalar& sigma) {
        if (sigma != 0.0) throw std::logic_error("CholeskyInverseOp supports sigma = 0 only");
    }
    void perform_op(const Scalar* xIn, Scalar* yOut) const {
        m_ctx.checkCancel();
        Eigen::Map<const Vec> x(xIn, rows());
        Eigen::Map<Vec> y(yOut, rows());
        y = m_llt.solve(x);
    }

private:
    const Eigen::LLT<Mat>& m_llt;
    const RunContext& m_ctx;
};

/// lambda_max by Lanczos on Lambda itself (matrix-vector products only).
std::optional<double> lanczosLargest(const Mat& L, const RunContext& ctx) {
    const Index ncv = std::min<Index>(L.rows(), 24);
    CancellableProd prod(L, ctx);
    Spectra::SymEigsSolver<CancellableProd> top(prod, 1, ncv);
    top.init();
    top.compute(Spectra::SortRule::LargestAlge, 1000, 1e-12);
    if (top.info() != Spectra::CompInfo::Successful) return std::nullopt;
    return top.eigenvalues()(0);
}

/// lambda_min by shift-invert Lanczos, given a successful Cholesky factor of Lambda.
std::optional<double> lanczosSmallest(const Eigen::LLT<Mat>& llt, const RunContext& ctx) {
    const Index ncv = std::min<Index>(llt.rows(), 24);
    CholeskyInverseOp inv(llt, ctx);
    Spectra::SymEigsShiftSolver<CholeskyInverseOp> bottom(inv, 1, ncv, 0.0);
    bottom.init();
    bottom.compute(Spectra::SortRule::LargestMagn, 1000, 1e-12);
    if (bottom.info() != Spectra::CompInfo::Successful) return std::nullopt;
    return bottom.eigenvalues()(0);
}

/// The eigenpairs of Lambda with eigenvalue <= tau, by block inverse iteration on
/// Lambda + delta I (positive definite for delta > 0 when Lambda is positive semi-definite up to
/// round-off): each step solves with the Cholesky factor for a block of m vectors at once
/// (triangular solves with many right-hand sides run at matrix-product speed, where
/// one-vector Lanczos steps are bound by memory), then orthonormalises and rotates the block
/// into Ritz vectors (Rayleigh-Ritz with Lambda). A null space is a tight cluster of the
/// inverse, separated from the rest by a factor ~ lambda_{k+1} / delta, so a few steps
/// converge it. The block grows (16, 32, ... kMaxIterativeNullDim + 1) until a Ritz value above
/// tau shows that no eigenvalue <= tau is missed (Ritz values bound the eigenvalues from
/// above, in order). nullopt when a factorisation fails, the residuals do not converge, or the
/// null space is larger than kMaxIterativeNullDim. Returns (ascending Ritz values, their
/// vectors); the block's first k vectors span the null space.
std::optional<std::pair<Vec, Mat>>
inverseIterationNullSpace(const std::shared_ptr<const Mat>& lambda, double lambdaMax, double tau,
                          const RunContext& ctx) {
    const Index D = lambda->rows();
    const double delta = std::max(tau, 1e-10 * lambdaMax);
    if (!(delta > 0)) return std::nullopt;
    auto llt = runAbandonable(ctx, [lambda, delta, threads = ctx.threads] {
        Mat shifted = *lambda;
        shifted.diagonal().array() += delta;
        return choleskyFactor(shifted, threads);
    });
    ctx.checkCancel();
    if (llt->info() != Eigen::Success) return std::nullopt;
    const auto Lsym = lambda->selfadjointView<Eigen::Lower>();
    // Solves and products in slices of 16 columns: one slice is ~2 D^2 x 16 flops (about
    // 50 ms at D = 7200), so the cancel token is polled often enough.
    constexpr Index kSlice = 16;
    auto sliced = [&](const Mat& X, auto&& op) {
        Mat Y(X.rows(), X.cols());
        for (Index j = 0; j < X.cols(); j += kSlice) {
            ctx.checkCancel();
            const Index w = std::min(kSlice, X.cols() - j);
            Y.middleCols(j, w) = op(X.middleCols(j, w));
        }
        return Y;
    };
    Rng rng(0x6e756c6c, 0, static_cast<std::uint64_t>(D)); // fixed start: same result every run
    for (Index m = 16; m <= kMaxIterativeNullDim + 1 && m < D; m *= 2) {
        Mat X = rng.normalMatrix(D, m);
        Vec theta;
        Mat ritz;
        bool converged = false;
        for (int step = 0; step < 8 && !converged; ++step) {
            const Mat Y = sliced(X, [&](const auto& block) { return Mat(llt->solve(block)); });
            Eigen::HouseholderQR<Mat> qr(Y);
            const Mat Q = qr.householderQ() * Mat::Identity(D, m);
            const Mat LQ = sliced(Q, [&](const auto& block) { return Mat(Lsym * block); });
            Eigen::SelfAdjointEigenSolver<Mat> small(Q.transpose() * LQ);
            theta = small.eigenvalues();
            ritz = Q * small.eigenvectors();
            // Converged when every Ritz pair at or below tau has a residual below
            // 1e-12 lambda_max (a Ritz value that small is round-off on the null space).
            const Mat R = LQ * small.eigenvectors() - ritz * theta.asDiagonal();
            // At least two steps: after them a block inside a larger null space has all its
            // Ritz values at round-off, so it cannot pass for a block that reached past it.
            converged = step >= 1;
            for (Index i = 0; i < m && theta(i) <= tau; ++i)
                if (R.col(i).norm() > 1e-12 * lambdaMax) converged = false;
            X = ritz;
        }
        if (!converged) return std::nullopt;
        if (theta(m - 1) > tau) return std::make_pair(theta, ritz);
    }
    return std::nullopt;
}

/// The tridiagonal reduction of Lambda / max|Lambda_ij|, abandonable.
std::shared_ptr<const DenseReduction> reduce(const std::shared_ptr<const Mat>& L,
                                             const RunContext& ctx) {
    return runAbandonable(ctx, [L] {
        const double maxAbs = L->size() > 0 ? L->cwiseAbs().maxCoeff() : 0.0;
        const double scale = maxAbs > 0 ? maxAbs : 1.0;
        const Mat scaled = *L / scale;
        auto r = std::make_shared<DenseReduction>(
            DenseReduction{Eigen::Tridiagonalization<Mat>(scaled), scale});
        return std::shared_ptr<const DenseReduction>(std::move(r));
    });
}

/// Ascending eigenvalues of the reduced matrix (QL/QR on the tridiagonal, O(D^2)), abandonable.
Vec reducedEigenvalues(const std::shared_ptr<const DenseReduction>& r, const RunContext& ctx) {
    return runAbandonable(ctx, [r] {
        Eigen::SelfAdjointEigenSolver<Mat> es;
        es.computeFromTridiagonal(r->tridiagonal.diagonal(), r->tridiagonal.subDiagonal(),
                                  Eigen::EigenvaluesOnly);
        return Vec(es.eigenvalues() * r->scale);
    });
}

/// Ascending eigenvalues of Lambda (no eigenvectors), abandonable; the reduction is kept.
Vec denseEigenvalues(const std::shared_ptr<const Mat>& L, const RunContext& ctx,
                     std::shared_ptr<const DenseReduction>* keep = nullptr) {
    auto r = reduce(L, ctx);
    ctx.checkCancel();
    Vec ev = reducedEigenvalues(r, ctx);
    if (keep) *keep = std::move(r);
    return ev;
}

} // namespace

CertifyPath chooseCertifyPath(Index D, const CertifyOptions& opt, const std::string& method) {
    if (method == "dense") return CertifyPath::Dense;
    if (method == "lanczos") return CertifyPath::Lanczos;
    return D > opt.denseCrossover && !opt.fullSpectrum ? CertifyPath::Lanczos : CertifyPath::Dense;
}

Certificate certify(const std::shared_ptr<const Mat>& lambda, const CertifyOptions& opt,
                    const std::string& method, const RunContext& ctx,
                    CertifyByproducts* byproducts) {
    const Mat& L = *lambda;
    if (chooseCertifyPath(L.rows(), opt, method) == CertifyPath::Lanczos) {
        // lambda_max needs only products with Lambda: with a second thread it runs while the
        // Cholesky factor is computed (bandwidth-bound products beside a compute-bound
        // factorisation). The same arithmetic either way, so the same numbers for any thread
        // count. If the factorisation throws (cancelled), the future's destructor waits for the
        // products, which poll the same token and stop within one product. When the OS refuses
        // a thread (ulimit -u), both policies let std::async defer the products to get().
        std::future<std::optional<double>> largest;
        if (resolveThreads(ctx.threads) > 1)
            largest = std::async(std::launch::async | std::launch::deferred,
                                 [&L, &ctx] { return lanczosLargest(L, ctx); });
        auto llt = runAbandonable(
            ctx, [lambda, threads = ctx.threads] { return choleskyFactor(*lambda, threads); });
        ctx.checkCancel();
        std::optional<double> top;
        bool topDone = largest.valid();
        if (topDone) top = largest.get();
        auto lambdaMax = [&]() -> std::optional<double> {
            if (!topDone) {
                top = lanczosLargest(L, ctx);
                topDone = true;
            }
            return top;
        };
        if (llt->info() == Eigen::Success) {
            const std::optional<double> lmax = lambdaMax();
            const std::optional<double> lmin =
                lmax ? lanczosSmallest(*llt, ctx) : std::optional<double>{};
            if (lmin && lmax) {
                Certificate c;
                c.lambdaMin = *lmin;
                c.lambdaMax = *lmax;
                c.tolerance = opt.toleranceRel * std::max(c.lambdaMax, 0.0);
                c.certified = c.lambdaMax > 0 && c.lambdaMin > c.tolerance;
                if (c.certified) {
                    c.nullDim = 0;
                    c.condition = c.lambdaMax / c.lambdaMin;
                    c.method = "lanczos";
                    if (byproducts) byproducts->cholesky = std::move(llt);
                    return c;
                }
            }
        }
        // Not certified: a small null space of a large Lambda by block inverse iteration (see
        // CertifyOptions::nullSpaceCrossover).
        if (L.rows() > opt.nullSpaceCrossover && !opt.fullSpectrum) {
            const std::optional<double> lmax = lambdaMax();
            if (lmax && *lmax > 0) {
                const double tau = opt.toleranceRel * *lmax;
                if (auto ns = inverseIterationNullSpace(lambda, *lmax, tau, ctx)) {
                    const Vec& values = ns->first;
                    Certificate c;
                    c.lambdaMin = values(0);
                    c.lambdaMax = *lmax;
                    c.tolerance = tau;
                    c.nullDim = static_cast<int>((values.array() <= tau).count());
                    c.certified = false;
                    c.condition = c.lambdaMin > 0 ? c.lambdaMax / c.lambdaMin
                                                  : std::numeric_limits<double>::infinity();
                    c.method = "lanczos";
                    if (byproducts)
                        byproducts->nullBasis =
                            std::make_shared<const Mat>(ns->second.leftCols(c.nullDim));
                    return c;
                }
            }
        }
        // Not positive definite, Lanczos failed, or lambda_min <= tau: the null dimension
        // needs every eigenvalue.
    }
    ctx.checkCancel();
    return fromSpectrum(
        denseEigenvalues(lambda, ctx, byproducts ? &byproducts->reduction : nullptr),
        opt.toleranceRel, opt.fullSpectrum);
}

EigenPairs eigenPairs(const std::shared_ptr<const DenseReduction>& r, const RunContext& ctx) {
    // What SelfAdjointEigenSolver::compute(ComputeEigenvectors) does after its reduction: form Q
    // (~4/3 D^3), then let the implicit QR iterations on T rotate it into the eigenvectors (the
    // bulk of the ~9 D^3). Eigen 3.4's own routine is called so that the result is the same.
    return runAbandonable(ctx, [r] {
        EigenPairs p;
        const Index n = r->tridiagonal.matrixQ().rows();
        p.vectors = Mat::Identity(n, n);
        if (n > 1) p.vectors = r->tridiagonal.matrixQ();
        p.values = r->tridiagonal.diagonal();
        Vec sub = r->tridiagonal.subDiagonal();
        constexpr Index kMaxIterations = 30; // Eigen's m_maxIterations
        const Eigen::ComputationInfo info = Eigen::internal::computeFromTridiagonal_impl(
            p.values, sub, kMaxIterations, true, p.vectors);
        if (info != Eigen::Success)
            throw std::runtime_error("eigendecomposition of Lambda did not converge");
        p.values *= r->scale;
        return p;
    });
}

Certificate certify(const Mat& L, const CertifyOptions& opt, const std::string& method,
                    const RunContext& ctx) {
    return certify(shareMatrix(L, ctx), opt, method, ctx, nullptr);
}

double smallestEigenvalue(const Mat& L, const RunContext& ctx) {
    const std::shared_ptr<const Mat> lambda = shareMatrix(L, ctx);
    // Above the dense crossover, as certify() does: a Cholesky factor (D^3/3) and shift-invert
    // Lanczos instead of every eigenvalue (~4/3 D^3; at D = 288 the trace's 12 checkpoints took
    // a third of a d = 8 solve). A matrix that does not factor (fewer samples than features so
    // far) gets the dense path.
    if (L.rows() > CertifyOptions{}.denseCrossover) {
        const auto llt = runAbandonable(
            ctx, [lambda, threads = ctx.threads] { return choleskyFactor(*lambda, threads); });
        ctx.checkCancel();
        if (llt->info() == Eigen::Success)
            if (const std::optional<double> lmin = lanczosSmallest(*llt, ctx)) return *lmin;
    }
    return denseEigenvalues(lambda, ctx)(0);
}

} // namespace mhla
