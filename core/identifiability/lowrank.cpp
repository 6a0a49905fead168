#include "core/identifiability/lowrank.h"
#include "core/algebra/features.h"
#include "core/algebra/model.h"
#include "core/identifiability/representatives.h"
#include <Eigen/Eigenvalues>
#include <Eigen/QR>
#include <Eigen/SVD>
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace mhla::lowrank {

/// sym(W): each block M^{ic}_{ab} = W_{(i,a),(b,c)} replaced by (M + M^T)/2; equals
/// unfold(fold(W)). Block by block, as strided d x d maps (the same sums as entry by entry, so
/// the same bits; twice as fast at d = 8, where Levenberg-Marquardt calls it in every step).
Mat symPart(const Mat& W, int d) {
    const Index dOut = W.rows() / d;
    Mat S(W.rows(), W.cols());
    const Eigen::OuterStride<> stride(static_cast<Index>(d) * W.rows());
    for (Index i = 0; i < dOut; ++i)
        for (int c = 0; c < d; ++c) {
            const Index at = i * d + static_cast<Index>(c) * W.rows(); // entry (i d, c)
            const Eigen::Map<const Mat, 0, Eigen::OuterStride<>> M(W.data() + at, d, d, stride);
            Eigen::Map<Mat, 0, Eigen::OuterStride<>>(S.data() + at, d, d, stride) =
                0.5 * (M + M.transpose());
        }
    return S;
}

void requireShape(bool ok, const char* what) {
    if (!ok) throw std::invalid_argument(std::string("identifiability: ") + what);
}

/// Feature weights w of the isometry P <-> unfold(P): ||unfold(P)||_F^2 = sum_k w_k ||P_{:,k}||^2,
/// w = 1 on diagonal pairs (a = b), 1/2 off the diagonal.
Vec featureWeights(int d) {
    Vec w(featureDim(d));
    for (int a = 0; a < d; ++a)
        for (int b = a; b < d; ++b)
            for (int c = 0; c < d; ++c)
                w(static_cast<Index>(pairIndex(a, b, d)) * d + c) = a == b ? 1.0 : 0.5;
    return w;
}

/// Thin SVD.
Svd svdOf(const Mat& X) {
    Eigen::BDCSVD<Mat> svd(X, Eigen::ComputeThinU | Eigen::ComputeThinV);
    return {svd.matrixU(), svd.singularValues(), svd.matrixV()};
}

Mat shrinkSingularValues(const Mat& A, double t, int* rank) {
    if (!(t > 0)) throw std::invalid_argument("shrinkSingularValues: t must be > 0");
    const bool wide = A.rows() <= A.cols();
    const Mat G = wide ? Mat(A * A.transpose()) : Mat(A.transpose() * A);
    const Eigen::SelfAdjointEigenSolver<Mat> es(G);
    const Vec& ev = es.eigenvalues(); // ascending
    Index k = 0;
    while (k < ev.size() && std::sqrt(std::max(ev(ev.size() - 1 - k), 0.0)) > t) ++k;
    if (rank) *rank = static_cast<int>(k);
    const Mat Q = es.eigenvectors().rightCols(k);
    Vec keep(k);
    for (Index j = 0; j < k; ++j) keep(j) = 1.0 - t / std::sqrt(ev(ev.size() - k + j));
    const Mat QK = Q * keep.asDiagonal();
    return wide ? Mat(QK * (Q.transpose() * A)) : Mat((A * Q) * QK.transpose());
}

/// Balanced factors of the best rank-r approximation of X: U = U_r sqrt(S), V = V_r sqrt(S).
Factors truncatedFactors(const Mat& X, int r) {
    const Svd s = svdOf(X);
    r = std::min<int>(r, static_cast<int>(s.s.size()));
    const Vec root = s.s.head(r).cwiseSqrt();
    return {s.U.leftCols(r) * root.asDiagonal(), s.V.leftCols(r) * root.asDiagonal()};
}

Mat truncateRank(const Mat& X, int r, Mat* rightBasis) {
    const Svd s = svdOf(X);
    r = std::min<int>(r, static_cast<int>(s.s.size()));
    if (rightBasis) *rightBasis = s.V.leftCols(r);
    return s.U.leftCols(r) * s.s.head(r).asDiagonal() * s.V.leftCols(r).transpose();
}

/// Re-balances U V^T (same product): thin QR of both factors and an SVD of the r x r core.
void rebalance(Factors& f) {
    const Index r = f.U.cols();
    Eigen::HouseholderQR<Mat> qu(f.U), qv(f.V);
    const Mat Qu = qu.householderQ() * Mat::Identity(f.U.rows(), r);
    const Mat Qv = qv.householderQ() * Mat::Identity(f.V.rows(), r);
    const Mat Ru = qu.matrixQR().topRows(r).triangularView<Eigen::Upper>();
    const Mat Rv = qv.matrixQR().topRows(r).triangularView<Eigen::Upper>();
    const Svd core = svdOf(Ru * Rv.transpose());
    const Vec root = core.s.cwiseSqrt();
    f.U = Qu * core.U * root.asDiagonal();
    f.V = Qv * core.V * root.asDiagonal();
}

/// Levenberg-Marquardt on F(U, V) = perp(U V^T) - target. J(dU, dV) = perp(dU V^T + U dV^T);
/// J^T R = (R V, R^T U) for R in the range of perp. The damped normal equations are solved
/// matrix-free by conjugate gradients. `scale` sets the damping (sigma_1 of the target), `norm`
/// the size of the target (stops at the round-off of ||F||: 4 eps sqrt(entries) norm, at least
/// 1e-15 norm). Returns ||F||_F at the end.
double levenbergMarquardt(const AffineSet& set, Factors& f, double scale, double norm, int maxOuter,
                          const RunContext& ctx, int stallLimit, int* steps) {
    Mat F = set.residual(f.product());
    // Stops at the residual's round-off, ~eps ||target|| sqrt(entries): below it ||F|| is noise
    // of ~1% from step to step, whose random drops kept resetting the stall count, so an exact
    // fit ran all its outer steps with full CG solves (24 ms of a 230 ms d = 8 run, for a fit
    // already at 5e-15 relative).
    const double roundOff =
        4 * std::numeric_limits<double>::epsilon() * std::sqrt(static_cast<double>(F.size()));
    const double stopAbs = std::max(1e-15, roundOff) * norm;
    double fn = F.norm();
    double mu = 1e-3 * scale;
    const double muMax = 1e12 * scale;
    int stalled = 0;
    if (steps) *steps = 0;
    for (int outer = 0; outer < maxOuter && fn > stopAbs && mu < muMax; ++outer) {
        ctx.checkCancel();
        if (steps) ++*steps;
        const Mat gU = -(F * f.V), gV = -(F.transpose() * f.U);
        // CG on (J^T J + mu I) x = g.
        Mat xU = Mat::Zero(gU.rows(), gU.cols()), xV = Mat::Zero(gV.rows(), gV.cols());
        Mat rU = gU, rV = gV, pU = rU, pV = rV;
        double rr = rU.squaredNorm() + rV.squaredNorm();
        const double rr0 = rr;
        // Inexact Newton: solve only as accurately as the residual warrants (forcing term
        // eta = min(0.1, ||F|| / ||target||)), which keeps quadratic convergence near a zero.
        const double eta = std::clamp(fn / norm, 1e-12, 0.1);
        const int cgMax = std::min<int>(500, static_cast<int>(2 * (gU.size() + gV.size())));
        for (int it = 0; it < cgMax && rr > eta * eta * rr0; ++it) {
            if ((it & 31) == 0) ctx.checkCancel();
            const Mat Jp = set.perp(pU * f.V.transpose() + f.U * pV.transpose());
            const Mat ApU = Jp * f.V + mu * pU, ApV = Jp.transpose() * f.U + mu * pV;
            const double pAp = (pU.array() * ApU.array()).sum() + (pV.array() * ApV.array()).sum();
            if (!(pAp > 0)) break;
            const double alpha = rr / pAp;
            xU += alpha * pU;
            xV += alpha * pV;
            rU -= alpha * ApU;
            rV -= alpha * ApV;
            const double rrNew = rU.squaredNorm() + rV.squaredNorm();
            pU = rU + (rrNew / rr) * pU;
            pV = rV + (rrNew / rr) * pV;
            rr = rrNew;
        }
        Factors trial{f.U + xU, f.V + xV};
        const Mat Ft = set.residual(trial.product());
        const double ftn = Ft.norm();
        if (ftn < fn) {
            stalled = ftn > 0.999 * fn ? stalled + 1 : 0;
            f = std::move(trial);
            rebalance(f);
            F = set.residual(f.product());
            fn = F.norm();
            mu = std::max(mu / 3.0, 1e-15 * scale);
            if (stalled >= stallLimit) break; // converging to a non-zero minimum: no exact fit here
        } else {
            mu *= 4.0;
        }
    }
    return fn;
}

/// Factors of the canonical SVD heads of W with head `drop` left out (the top `keep` + 1 heads,
/// one removed): a start for rank `keep` continued from an exact fit with one head more.
Factors factorsWithoutHead(const Svd& s, int keep, int drop) {
    Factors f{Mat(s.U.rows(), keep), Mat(s.V.rows(), keep)};
    for (int k = 0, j = 0; k <= keep; ++k) {
        if (k == drop) continue;
        const double root = std::sqrt(s.s(k));
        f.U.col(j) = root * s.U.col(k);
        f.V.col(j) = root * s.V.col(k);
        ++j;
    }
    return f;
}

Mat truncateRankGram(const Mat& X, int r, Mat& V) {
    if (X.rows() < X.cols()) {
        const Eigen::SelfAdjointEigenSolver<Mat> es(X * X.transpose());
        const Mat U = es.eigenvectors().rightCols(r);
        const Mat B = U.transpose() * X; // r x n
        V = Eigen::HouseholderQR<Mat>(B.transpose()).householderQ() * Mat::Identity(X.cols(), r);
        return U * B;
    }
    const Eigen::SelfAdjointEigenSolver<Mat> es(X.transpose() * X);
    V = es.eigenvectors().rightCols(r);
    return (X * V) * V.transpose();
}

/// Alternating projections between rank-r matrices and the set. `push` (optional) is applied
/// after each projection onto the set. Returns the last point on the set.
Mat alternatingProjections(const AffineSet& set, Mat X, int r, int iterations, double scale,
                           const std::function<void(Mat&)>& push, const RunContext& ctx) {
    double prevGap = std::numeric_limits<double>::infinity();
    int slow = 0;
    // The rank-r truncation by one step of subspace iteration per iteration, warm-started from
    // the previous right singular subspace (an exact truncation first, and every 16th iteration,
    // through the Gram matrix): the iterates change little from one step to the next, so the
    // subspace is accurate, at O(m n r) instead of a full SVD (a third of the explorer's time at
    // d = 8).
    Mat V;
    for (int it = 0; it < iterations; ++it) {
        if ((it & 7) == 0) ctx.checkCancel();
        Mat Y;
        if (r >= std::min(X.rows(), X.cols())) {
            Y = X;
        } else if ((it & 15) == 0) {
            Y = truncateRankGram(X, r, V);
        } else {
            const Mat Q =
                Eigen::HouseholderQR<Mat>(X * V).householderQ() * Mat::Identity(X.rows(), r);
            const Mat B = Q.transpose() * X; // r x n
            V = Eigen::HouseholderQR<Mat>(B.transpose()).householderQ() *
                Mat::Identity(X.cols(), r);
            Y = Q * B;
        }
        const Mat R = set.residual(Y);
        const double gap = R.norm();
        X = Y - R;
        if (push) push(X);
        if (gap <= 1e-9 * scale) break;
        slow = gap > 0.995 * prevGap ? slow + 1 : 0;
        if (slow >= 25) break; // stagnating: hand over to Levenberg-Marquardt
        prevGap = gap;
    }
    return X;
}

/// A random element of ker(fold) with Frobenius norm `norm`.
Mat randomKernelElement(Index rows, Index cols, int d, double norm, Rng& rng) {
    Mat K = foldKernelPart(rng.normalMatrix(rows, cols), d);
    const double n = K.norm();
    return n > 0 ? Mat(K * (norm / n)) : K;
}

/// Null eigenvectors of Lambda (eigenvalues <= toleranceRel * lambda_max).
Mat nullBasisOf(const Mat& lambda, double toleranceRel, double* tau, double* lambdaMax) {
    Eigen::SelfAdjointEigenSolver<Mat> es(lambda);
    const Vec& ev = es.eigenvalues();
    const double lmax = ev.size() ? std::max(ev(ev.size() - 1), 0.0) : 0.0;
    const double t = toleranceRel * lmax;
    if (tau) *tau = t;
    if (lambdaMax) *lambdaMax = lmax;
    Index k = 0;
    while (k < ev.size() && ev(k) <= t) ++k;
    return es.eigenvectors().leftCols(k);
}

} // namespace mhla::lowrank
