#include "core/certificate.h"
#include <Spectra/MatOp/DenseSymMatProd.h>
#include <Spectra/SymEigsShiftSolver.h>
#include <Spectra/SymEigsSolver.h>
#include <algorithm>
#include <cmath>
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
    c.condition = c.lambdaMin > 0 ? c.lambdaMax / c.lambdaMin : std::numeric_limits<double>::infinity();
    c.method = "dense";
    if (keep) c.spectrum = ascending;
    return c;
}

/// y = Lambda^{-1} x through a Cholesky factor: the shift-invert operator of Spectra at
/// sigma = 0, which turns the smallest eigenvalue into the best-separated largest one.
class CholeskyInverseOp {
public:
    using Scalar = double;
    explicit CholeskyInverseOp(const Eigen::LLT<Mat>& llt) : m_llt(llt) {}
    Index rows() const { return m_llt.rows(); }
    Index cols() const { return m_llt.cols(); }
    void set_shift(const Scalar& sigma) {
        if (sigma != 0.0) throw std::logic_error("CholeskyInverseOp supports sigma = 0 only");
    }
    void perform_op(const Scalar* xIn, Scalar* yOut) const {
        Eigen::Map<const Vec> x(xIn, rows());
        Eigen::Map<Vec> y(yOut, rows());
        y = m_llt.solve(x);
    }

private:
    const Eigen::LLT<Mat>& m_llt;
};

/// lambda_min and lambda_max by Lanczos, given a successful Cholesky factor of Lambda.
std::optional<std::pair<double, double>> lanczosExtremes(const Mat& L, const Eigen::LLT<Mat>& llt) {
    const Index D = L.rows();
    const Index ncv = std::min<Index>(D, 24);
    Spectra::DenseSymMatProd<double> prod(L);
    Spectra::SymEigsSolver<Spectra::DenseSymMatProd<double>> top(prod, 1, ncv);
    top.init();
    top.compute(Spectra::SortRule::LargestAlge, 1000, 1e-12);
    if (top.info() != Spectra::CompInfo::Successful) return std::nullopt;
    CholeskyInverseOp inv(llt);
    Spectra::SymEigsShiftSolver<CholeskyInverseOp> bottom(inv, 1, ncv, 0.0);
    bottom.init();
    bottom.compute(Spectra::SortRule::LargestMagn, 1000, 1e-12);
    if (bottom.info() != Spectra::CompInfo::Successful) return std::nullopt;
    return std::make_pair(bottom.eigenvalues()(0), top.eigenvalues()(0));
}

} // namespace

Certificate certify(const Mat& L, const CertifyOptions& opt, const std::string& method) {
    const bool lanczos = method == "lanczos" || (method == "auto" && L.rows() > opt.denseCrossover && !opt.fullSpectrum);
    if (lanczos) {
        Eigen::LLT<Mat> llt(L);
        if (llt.info() == Eigen::Success) {
            if (const auto ext = lanczosExtremes(L, llt)) {
                Certificate c;
                c.lambdaMin = ext->first;
                c.lambdaMax = ext->second;
                c.tolerance = opt.toleranceRel * std::max(c.lambdaMax, 0.0);
                c.certified = c.lambdaMax > 0 && c.lambdaMin > c.tolerance;
                if (c.certified) {
                    c.nullDim = 0;
                    c.condition = c.lambdaMax / c.lambdaMin;
                    c.method = "lanczos";
                    return c;
                }
            }
        }
    }
    Eigen::SelfAdjointEigenSolver<Mat> es(L, Eigen::EigenvaluesOnly);
    return fromSpectrum(es.eigenvalues(), opt.toleranceRel, opt.fullSpectrum);
}

double smallestEigenvalue(const Mat& L) {
    Eigen::SelfAdjointEigenSolver<Mat> es(L, Eigen::EigenvaluesOnly);
    return es.eigenvalues()(0);
}

PolySolution solveCertified(const Mat& L, const Mat& C, double ridge, const CertifyOptions& opt,
                            const RunContext& ctx) {
    PolySolution out;
    const Index D = L.rows();
    std::optional<Eigen::LLT<Mat>> llt;

    // Large D: one Cholesky factorisation serves the certificate (shift-invert Lanczos) and
    // the solve; the dense eigen-decomposition is needed only when that fails.
    if (D > opt.denseCrossover) {
        llt.emplace(L);
        ctx.checkCancel();
        if (llt->info() == Eigen::Success) {
            if (const auto ext = lanczosExtremes(L, *llt)) {
                Certificate& c = out.certificate;
                c.lambdaMin = ext->first;
                c.lambdaMax = ext->second;
                c.tolerance = opt.toleranceRel * std::max(c.lambdaMax, 0.0);
                c.certified = c.lambdaMax > 0 && c.lambdaMin > c.tolerance;
                c.condition = c.lambdaMin > 0 ? c.lambdaMax / c.lambdaMin
                                              : std::numeric_limits<double>::infinity();
                c.method = "lanczos";
            }
        } else {
            llt.reset();
        }
    }
    ctx.checkCancel();

    std::optional<Eigen::SelfAdjointEigenSolver<Mat>> eig;
    if (out.certificate.method != "lanczos" || !out.certificate.certified) {
        eig.emplace(L, Eigen::ComputeEigenvectors);
        out.certificate = fromSpectrum(eig->eigenvalues(), opt.toleranceRel, opt.fullSpectrum);
    } else if (opt.fullSpectrum) {
        Eigen::SelfAdjointEigenSolver<Mat> values(L, Eigen::EigenvaluesOnly);
        out.certificate = fromSpectrum(values.eigenvalues(), opt.toleranceRel, true);
    }
    ctx.checkCancel();

    if (ridge > 0) {
        Mat Lr = L;
        Lr.diagonal().array() += ridge;
        Eigen::LLT<Mat> f(Lr);
        out.P = f.solve(C.transpose()).transpose();
        out.method = "ridge";
    } else if (out.certificate.certified) {
        if (!llt) llt.emplace(L);
        if (llt->info() == Eigen::Success) {
            out.P = llt->solve(C.transpose()).transpose();
            out.method = "cholesky";
        }
    }
    if (out.P.size() == 0) {
        // Minimum-norm solution: eigenvalues <= tau are treated as zero.
        if (!eig) eig.emplace(L, Eigen::ComputeEigenvectors);
        const Vec& ev = eig->eigenvalues();
        const Mat& V = eig->eigenvectors();
        Vec inv(ev.size());
        for (Index i = 0; i < ev.size(); ++i) inv(i) = ev(i) > out.certificate.tolerance ? 1.0 / ev(i) : 0.0;
        out.P = ((C * V) * inv.asDiagonal()) * V.transpose();
        out.method = out.certificate.certified ? "eigen" : "min-norm";
    }
    if (!out.certificate.certified && eig) out.nullVector = eig->eigenvectors().col(0);
    return out;
}

} // namespace mhla
