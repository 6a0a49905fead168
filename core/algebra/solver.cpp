#include "core/algebra/solver.h"
#include "core/algebra/cholesky.h"
#include <optional>

namespace mhla {

PolySolution solveCertified(const std::shared_ptr<const Mat>& lambda, const Mat& C, double ridge,
                            const CertifyOptions& opt, const RunContext& ctx) {
    PolySolution out;
    const Index D = lambda->rows();
    CertifyByproducts by;
    out.certificate = certify(lambda, opt, "auto", ctx, &by);
    ctx.checkCancel();

    // The eigenvectors: computed at most once, only when the minimum-norm solution or the null
    // vector needs them, from the tridiagonal reduction of the certificate when it has one
    // (the Lanczos path reduces Lambda only when it does not certify).
    std::optional<EigenPairs> eig;
    auto eigen = [&]() -> const EigenPairs& {
        if (!eig) {
            if (!by.reduction) {
                CertifyOptions dense = opt;
                (void)certify(lambda, dense, "dense", ctx, &by); // for its byproducts
            }
            eig = eigenPairs(by.reduction, ctx);
        }
        ctx.checkCancel();
        return *eig;
    };

    if (ridge > 0) {
        auto f = runAbandonable(ctx, [lambda, ridge, threads = ctx.threads] {
            Mat Lr = *lambda;
            Lr.diagonal().array() += ridge;
            return choleskyFactor(Lr, threads);
        });
        ctx.checkCancel();
        out.P = f->solve(C.transpose()).transpose();
        out.method = "ridge";
    } else if (out.certificate.certified) {
        std::shared_ptr<const Eigen::LLT<Mat>> llt = by.cholesky;
        if (!llt)
            llt = runAbandonable(
                ctx, [lambda, threads = ctx.threads] { return choleskyFactor(*lambda, threads); });
        ctx.checkCancel();
        if (llt->info() == Eigen::Success) {
            out.P = llt->solve(C.transpose()).transpose();
            out.method = "cholesky";
        }
    }
    if (out.P.size() == 0 && by.nullBasis) {
        // Minimum-norm solution from the null basis N of the iterative path: with Pi = N N^T,
        // C (I - Pi) (Lambda + Pi)^{-1} drops exactly the eigenvalues <= tau (Lambda + Pi has
        // Lambda's eigenvectors, with 1 + lambda on the null space), and Lambda + Pi is
        // positive definite: one Cholesky factorisation instead of every eigenvector.
        const std::shared_ptr<const Mat> N = by.nullBasis;
        auto f = runAbandonable(ctx, [lambda, N, threads = ctx.threads] {
            Mat shifted = *lambda;
            shifted.noalias() += *N * N->transpose();
            return choleskyFactor(shifted, threads);
        });
        ctx.checkCancel();
        if (f->info() == Eigen::Success) {
            const Mat projected = C - (C * *N) * N->transpose();
            out.P = f->solve(projected.transpose()).transpose();
            out.method = "min-norm";
        }
    }
    if (out.P.size() == 0) {
        // Minimum-norm solution: eigenvalues <= tau are treated as zero.
        const EigenPairs& es = eigen();
        const Vec& ev = es.values;
        const Mat& V = es.vectors;
        Vec inv(D);
        for (Index i = 0; i < D; ++i)
            inv(i) = ev(i) > out.certificate.tolerance ? 1.0 / ev(i) : 0.0;
        out.P = ((C * V) * inv.asDiagonal()) * V.transpose();
        out.method = out.certificate.certified ? "eigen" : "min-norm";
    }
    if (!out.certificate.certified)
        out.nullVector = by.nullBasis && by.nullBasis->cols() > 0 ? Vec(by.nullBasis->col(0))
                                                                  : Vec(eigen().vectors.col(0));
    return out;
}

PolySolution solveCertified(const Mat& lambda, const Mat& C, double ridge,
                            const CertifyOptions& opt, const RunContext& ctx) {
    return solveCertified(shareMatrix(lambda, ctx), C, ridge, opt, ctx);
}

} // namespace mhla
