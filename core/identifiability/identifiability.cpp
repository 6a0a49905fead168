#include "core/identifiability/identifiability.h"
#include "core/algebra/certificate.h"
#include "core/algebra/features.h"
#include "core/base/parallel.h"
#include "core/base/rng.h"
#include "core/base/text.h"
#include "core/tasks/samplerows.h"
#include "core/tasks/tasks.h"
#include <QJsonArray>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <functional>
#include <numeric>
#include <optional>
#include <stdexcept>

namespace mhla {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
/// Below this best error at min_heads - 1, the evidence that fewer heads fail is called weak.
constexpr double kWeakEvidence = 1e-6;
/// A refit that ends between the tolerance and this error is refined by a longer
/// Levenberg-Marquardt run (kRefineOuter iterations, giving up after kRefineStall slow steps).
constexpr double kRefineBelow = 1e-6;
constexpr int kRefineOuter = 400;
constexpr int kRefineStall = 40;
/// Levenberg-Marquardt iterations per continuation start.
constexpr int kContinuationOuter = 300;

QJsonValue number(double v) {
    return std::isfinite(v) ? QJsonValue(v) : QJsonValue(QJsonValue::Null);
}

QJsonArray matrixJson(const Mat& M) {
    QJsonArray rows;
    for (Index i = 0; i < M.rows(); ++i) {
        QJsonArray row;
        for (Index j = 0; j < M.cols(); ++j) row.append(number(M(i, j)));
        rows.append(row);
    }
    return rows;
}

QJsonArray vectorJson(const Vec& v) {
    QJsonArray a;
    for (Index i = 0; i < v.size(); ++i) a.append(number(v(i)));
    return a;
}

QJsonArray headsJson(const Heads& h) {
    QJsonArray a;
    for (int k = 0; k < h.count(); ++k)
        a.append(QJsonObject{{q("V"), matrixJson(h.V[static_cast<size_t>(k)])},
                             {q("Q"), matrixJson(h.Q[static_cast<size_t>(k)])}});
    return a;
}

/// sym(W): each block M^{ic}_{ab} = W_{(i,a),(b,c)} replaced by (M + M^T)/2; equals
/// unfold(fold(W)).
Mat symPart(const Mat& W, int d) {
    const Index dOut = W.rows() / d;
    Mat S(W.rows(), W.cols());
    for (Index i = 0; i < dOut; ++i)
        for (int a = 0; a < d; ++a)
            for (int b = 0; b < d; ++b)
                for (int c = 0; c < d; ++c)
                    S(i * d + a, b * d + c) =
                        0.5 * (W(i * d + a, b * d + c) + W(i * d + b, a * d + c));
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
struct Svd {
    Mat U;
    Vec s;
    Mat V;
};
Svd svdOf(const Mat& X) {
    Eigen::BDCSVD<Mat> svd(X, Eigen::ComputeThinU | Eigen::ComputeThinV);
    return {svd.matrixU(), svd.singularValues(), svd.matrixV()};
}

/// An affine set {W : perp(W) = target} with perp the orthogonal projector onto the complement
/// of its direction space. proj(W) = W - perp(W) + target is the Euclidean projection onto it.
struct AffineSet {
    std::function<Mat(const Mat&)> perp;
    Mat target;
    Mat project(const Mat& W) const { return W - perp(W) + target; }
    Mat residual(const Mat& W) const { return perp(W) - target; }
};

/// W = U V^T.
struct Factors {
    Mat U, V;
    Mat product() const { return U * V.transpose(); }
};

/// Balanced factors of the best rank-r approximation of X: U = U_r sqrt(S), V = V_r sqrt(S).
Factors truncatedFactors(const Mat& X, int r) {
    const Svd s = svdOf(X);
    r = std::min<int>(r, static_cast<int>(s.s.size()));
    const Vec root = s.s.head(r).cwiseSqrt();
    return {s.U.leftCols(r) * root.asDiagonal(), s.V.leftCols(r) * root.asDiagonal()};
}

Mat truncateRank(const Mat& X, int r) {
    const Svd s = svdOf(X);
    r = std::min<int>(r, static_cast<int>(s.s.size()));
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
/// the size of the target (stops at ||F|| <= 1e-15 norm). Returns ||F||_F at the end.
double levenbergMarquardt(const AffineSet& set, Factors& f, double scale, double norm, int maxOuter,
                          const RunContext& ctx, int stallLimit = 8) {
    const double stopAbs = 1e-15 * norm;
    Mat F = set.residual(f.product());
    double fn = F.norm();
    double mu = 1e-3 * scale;
    const double muMax = 1e12 * scale;
    int stalled = 0;
    for (int outer = 0; outer < maxOuter && fn > stopAbs && mu < muMax; ++outer) {
        ctx.checkCancel();
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

/// Alternating projections between rank-r matrices and the set. `push` (optional) is applied
/// after each projection onto the set. Returns the last point on the set.
Mat alternatingProjections(const AffineSet& set, Mat X, int r, int iterations, double scale,
                           const std::function<void(Mat&)>& push, const RunContext& ctx) {
    double prevGap = std::numeric_limits<double>::infinity();
    int slow = 0;
    for (int it = 0; it < iterations; ++it) {
        if ((it & 7) == 0) ctx.checkCancel();
        const Mat Y = truncateRank(X, r);
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

Heads headsFromW(const Mat& W, int d, int r, Vec* singularValues) {
    return canonicalHeadsOfW(W, d, r, singularValues);
}

/// A random element of ker(fold) with Frobenius norm `norm`.
Mat randomKernelElement(Index rows, Index cols, int d, double norm, Rng& rng) {
    Mat K = foldKernelPart(rng.normalMatrix(rows, cols), d);
    const double n = K.norm();
    return n > 0 ? Mat(K * (norm / n)) : K;
}

} // namespace

Heads canonicalHeadsOfW(const Mat& W, int d, int r, Vec* singularValues) {
    const Index dOut = W.rows() / d;
    const Svd s = svdOf(W);
    r = std::min<int>(r, static_cast<int>(s.s.size()));
    Heads h;
    if (singularValues) *singularValues = s.s.head(r);
    for (int k = 0; k < r; ++k) {
        const double root = std::sqrt(s.s(k));
        Vec u = s.U.col(k) * root, v = s.V.col(k) * root;
        Index imax = 0;
        u.cwiseAbs().maxCoeff(&imax);
        if (u(imax) < 0) {
            u = -u;
            v = -v;
        }
        Mat V(dOut, d), Q(d, d);
        for (Index i = 0; i < dOut; ++i)
            for (int a = 0; a < d; ++a) V(i, a) = u(i * d + a);
        for (int b = 0; b < d; ++b)
            for (int c = 0; c < d; ++c) Q(b, c) = v(b * d + c);
        h.V.push_back(std::move(V));
        h.Q.push_back(std::move(Q));
    }
    return h;
}

Mat foldKernelPart(const Mat& W, int d) { return W - symPart(W, d); }

Mat projectOntoRepresentatives(const Mat& W, const Mat& P, int d) {
    return W - symPart(W, d) + unfoldP(P, d);
}

// ---- 1. min heads
// -----------------------------------------------------------------------------------

int genericMinHeads(int d, int dOut, std::uint64_t seed) {
    const Index m = static_cast<Index>(dOut) * d, n = static_cast<Index>(d) * d;
    const Index rows = static_cast<Index>(dOut) * featureDim(d);
    const int rMax = static_cast<int>(std::min(m, n));
    // Necessary: r (m + n - r) >= d_out D.
    int r = 1;
    while (r < rMax && static_cast<Index>(r) * (m + n - r) < rows) ++r;
    Rng rng(seed, 0x6E6E);
    for (; r < rMax; ++r) {
        const Mat U = rng.normalMatrix(m, r), V = rng.normalMatrix(n, r);
        Mat J(rows, static_cast<Index>(r) * (m + n));
        Index col = 0;
        auto column = [&](const Mat& dW) {
            const Mat F = foldW(dW, d, dOut);
            J.col(col++) = Eigen::Map<const Vec>(F.data(), F.size());
        };
        for (int h = 0; h < r; ++h)
            for (Index p = 0; p < m; ++p) {
                Mat dW = Mat::Zero(m, n);
                dW.row(p) = V.col(h).transpose();
                column(dW);
            }
        for (int h = 0; h < r; ++h)
            for (Index p = 0; p < n; ++p) {
                Mat dW = Mat::Zero(m, n);
                dW.col(p) = U.col(h);
                column(dW);
            }
        Eigen::ColPivHouseholderQR<Mat> qr(J);
        qr.setThreshold(1e-10);
        if (qr.rank() == rows) return r;
    }
    return rMax;
}

MinHeadsResult minHeads(const Mat& P, int d, const MinHeadsOptions& opt, const RunContext& ctx) {
    requireShape(d >= 1 && P.rows() >= 1 && P.cols() == featureDim(d),
                 "minHeads: P must be d_out x D(d)");
    MinHeadsResult out;
    out.exactTol = opt.exactTol;
    const int dOut = static_cast<int>(P.rows());
    const Index m = static_cast<Index>(dOut) * d, n = static_cast<Index>(d) * d;
    out.maxHeads = static_cast<int>(std::min(m, n));
    const Mat W0 = unfoldP(P, d);
    const double pNorm = P.norm(), wNorm = W0.norm();
    const Svd s0 = svdOf(W0);
    const double sigma1 = s0.s.size() ? s0.s(0) : 0.0;
    out.unfoldRank = numericalRank(s0.s, opt.rankTol);
    if (opt.genericHeadsMaxRows > 0 &&
        static_cast<long long>(dOut) * featureDim(d) <= opt.genericHeadsMaxRows)
        out.genericHeads = genericMinHeads(d, dOut, opt.seed);
    if (pNorm == 0) {
        out.exact = true;
        out.relaxationMinimal = true;
        out.relaxationConverged = true;
        out.W = Mat::Zero(m, n);
        out.note = "P = 0: no heads needed";
        return out;
    }

    AffineSet reps{[d](const Mat& X) { return symPart(X, d); }, W0};

    // 1. Nuclear-norm minimisation by Douglas-Rachford.
    ctx.report(ProgressEvent{"min_heads: relaxation", 0.0});
    const double t = 0.1 * sigma1;
    Mat Z = W0, X = W0;
    int svtRank = 0;
    for (int it = 0; it < opt.relaxationIterations; ++it) {
        if ((it & 15) == 0) ctx.checkCancel();
        X = reps.project(Z);
        const Svd s = svdOf(2.0 * X - Z);
        int k = 0;
        while (k < s.s.size() && s.s(k) > t) ++k;
        svtRank = k;
        const Vec shrunk = (s.s.head(k).array() - t).matrix();
        const Mat Y = s.U.leftCols(k) * shrunk.asDiagonal() * s.V.leftCols(k).transpose();
        const Mat step = Y - X;
        Z += step;
        out.relaxationIterations = it + 1;
        if (step.norm() <= opt.relaxationTol * wNorm) {
            out.relaxationConverged = true;
            break;
        }
    }
    X = reps.project(Z);
    {
        const Svd sx = svdOf(X);
        out.nuclearNorm = sx.s.sum();
    }
    out.nuclearRank = std::max(1, svtRank);

    // 2. Refit at rank r from several starts.
    const double tol = opt.exactTol;
    struct Refit {
        double err = std::numeric_limits<double>::infinity();
        Mat W;
    };
    auto errorOf = [&](const Mat& Wr) { return (foldW(Wr, d, dOut) - P).norm() / pNorm; };
    // Levenberg-Marquardt from factors f; a start that ends close to P but above the tolerance
    // (the valley of a fit that converges slowly) is refined further before it is judged.
    auto polish = [&](Factors f, int outer, int stall) {
        levenbergMarquardt(reps, f, sigma1, wNorm, outer, ctx, stall);
        Refit fit{0.0, f.product()};
        fit.err = errorOf(fit.W);
        if (fit.err > tol && fit.err < kRefineBelow) {
            levenbergMarquardt(reps, f, sigma1, wNorm, kRefineOuter, ctx, kRefineStall);
            fit.W = f.product();
            fit.err = errorOf(fit.W);
        }
        return fit;
    };
    auto refit = [&](int r) {
        Refit best;
        int tried = 0;
        for (int s = 0; s < std::max(2, opt.starts); ++s) {
            ctx.checkCancel();
            Mat start;
            if (s == 0) start = X;
            else if (s == 1) start = W0;
            else {
                Rng rng(opt.seed, 0x4D48,
                        static_cast<std::uint64_t>(r) * 1000 + static_cast<std::uint64_t>(s));
                const double scale =
                    std::array<double, 3>{0.5, 1.0, 2.0}[static_cast<size_t>(s % 3)];
                start = W0 + randomKernelElement(m, n, d, scale * wNorm, rng);
            }
            const Mat Xa = alternatingProjections(reps, start, r, 200, wNorm, {}, ctx);
            Refit fit = polish(truncatedFactors(Xa, r), 60, 8);
            ++tried;
            if (fit.err < best.err) best = std::move(fit);
            if (best.err <= tol) break;
        }
        out.attempts.push_back(RankAttempt{r, tried, best.err, best.err <= tol, "starts"});
        ctx.report(ProgressEvent{"min_heads: refit rank " + std::to_string(r), 0.5});
        return best;
    };
    // Continuation below an exact fit W_above of rank r + 1: each of its r + 1 canonical heads
    // dropped in turn, then random factor starts, each polished by Levenberg-Marquardt for longer.
    auto continueBelow = [&](int r, const Mat& above) {
        Refit best;
        int tried = 0;
        const Svd sa = svdOf(above);
        const int drops = std::min(r + 1, static_cast<int>(sa.s.size()));
        for (int k = 0; k < drops + opt.continuationStarts && best.err > tol; ++k) {
            ctx.checkCancel();
            Factors f;
            if (k < drops) f = factorsWithoutHead(sa, r, drops - 1 - k); // smallest head first
            else {
                Rng rng(opt.seed, 0x4D43,
                        static_cast<std::uint64_t>(r) * 1000 + static_cast<std::uint64_t>(k));
                const double sd = std::sqrt(wNorm / std::sqrt(static_cast<double>(m * n * r)));
                f = Factors{rng.normalMatrix(m, r, sd), rng.normalMatrix(n, r, sd)};
            }
            Refit fit = polish(std::move(f), kContinuationOuter, kRefineStall);
            ++tried;
            if (fit.err < best.err) best = std::move(fit);
        }
        out.attempts.push_back(RankAttempt{r, tried, best.err, best.err <= tol, "continuation"});
        ctx.report(ProgressEvent{"min_heads: continuation rank " + std::to_string(r), 0.8});
        return best;
    };

    // 3. Search. Feasibility is monotone in r; rank 0 fails (P != 0) and unfold_rank succeeds
    // (unfold(P) itself), so a bisection between a failing `lo` and a succeeding `hi` ends with
    // hi - 1 = lo tested (evidence) unless lo = 0.
    const int r0 = std::min(out.nuclearRank, out.maxHeads);
    int lo = 0, hi = 0;
    Refit hiFit;
    if (Refit first = refit(r0); first.err <= opt.exactTol) {
        hi = r0;
        hiFit = std::move(first);
        if (hi > 1) {
            if (Refit below = refit(hi - 1); below.err <= opt.exactTol) {
                hi = hi - 1; // the relaxation was not minimal
                hiFit = std::move(below);
            } else {
                lo = hi - 1;
            }
        }
    } else {
        lo = r0;
        hi = std::max(out.unfoldRank, r0 + 1);
        hiFit = refit(hi);
    }
    while (hi - lo > 1) {
        const int mid = lo + (hi - lo) / 2;
        Refit mf = refit(mid);
        if (mf.err <= opt.exactTol) {
            hi = mid;
            hiFit = std::move(mf);
        } else {
            lo = mid;
        }
    }
    // 4. Continuation: below the smallest exact fit, each lower rank is searched again from that
    // fit with one head dropped (and from random factors), until a rank fails.
    auto continueDown = [&] {
        while (hiFit.err <= tol && hi > 1 && opt.continuationStarts >= 0) {
            Refit below = continueBelow(hi - 1, hiFit.W);
            if (below.err > tol) break;
            --hi;
            hiFit = std::move(below);
        }
    };
    continueDown();
    out.searchMinHeads = hi;
    // 5. The teacher's representative, refitted at its own numerical rank.
    if (opt.teacherW.rows() == m && opt.teacherW.cols() == n) {
        ctx.checkCancel();
        const Svd st = svdOf(opt.teacherW);
        const int rt = numericalRank(st.s, opt.rankTol);
        if (rt >= 1 && rt < hi) {
            Refit t = polish(truncatedFactors(opt.teacherW, rt), kContinuationOuter, kRefineStall);
            out.attempts.push_back(RankAttempt{rt, 1, t.err, t.err <= tol, "teacher"});
            if (t.err <= tol) {
                hi = rt;
                hiFit = std::move(t);
                continueDown();
            }
        }
    }
    out.minHeads = hi;
    out.W = hiFit.W;
    out.refitErrorRel = hiFit.err;
    out.exact = hiFit.err <= tol;
    out.relaxationMinimal = out.minHeads == out.nuclearRank;
    for (const RankAttempt& a : out.attempts)
        if (a.rank == out.minHeads - 1) {
            out.lowerRankBestErrorRel = std::isnan(out.lowerRankBestErrorRel)
                                            ? a.bestErrorRel
                                            : std::min(out.lowerRankBestErrorRel, a.bestErrorRel);
            out.lowerRankStarts += a.starts;
        }
    out.heads = headsFromW(out.W, d, out.minHeads, &out.headSingularValues);
    if (!out.exact)
        out.note =
            "no rank reproduced P to exact_tol (numerical trouble); min_heads is the best rank found";
    else if (out.minHeads <= 1)
        out.note = "one head reproduces P exactly; zero heads cannot (P != 0)";
    else {
        char err[32];
        std::snprintf(err, sizeof err, "%.2g", out.lowerRankBestErrorRel);
        out.note = std::to_string(out.minHeads) +
                   " heads reproduce P exactly (proven by the refit); " +
                   std::to_string(out.minHeads - 1) + " heads failed from " +
                   std::to_string(out.lowerRankStarts) + " starts, best relative error " + err +
                   " (evidence, not proof)";
        if (out.searchMinHeads > out.minHeads)
            out.note += "; the refit from the teacher's heads found " +
                        std::to_string(out.minHeads) + ", the search without them " +
                        std::to_string(out.searchMinHeads);
        if (out.lowerRankBestErrorRel < kWeakEvidence)
            out.note +=
                "; that error is small: P may be a limit of models with fewer heads (fold of the rank-r "
                "matrices is not a closed set) or the search stalled";
    }
    return out;
}

QJsonObject toJson(const MinHeadsResult& r) {
    QJsonArray attempts;
    for (const RankAttempt& a : r.attempts)
        attempts.append(QJsonObject{{q("rank"), a.rank},
                                    {q("starts"), a.starts},
                                    {q("best_error_rel"), number(a.bestErrorRel)},
                                    {q("exact"), a.exact},
                                    {q("phase"), QString::fromStdString(a.phase)}});
    return QJsonObject{{q("min_heads"), r.minHeads},
                       {q("search_min_heads"), r.searchMinHeads},
                       {q("unfold_rank"), r.unfoldRank},
                       {q("max_heads"), r.maxHeads},
                       {q("generic_heads"), r.genericHeads},
                       {q("nuclear_rank"), r.nuclearRank},
                       {q("nuclear_norm"), number(r.nuclearNorm)},
                       {q("relaxation_iterations"), r.relaxationIterations},
                       {q("relaxation_converged"), r.relaxationConverged},
                       {q("relaxation_minimal"), r.relaxationMinimal},
                       {q("refit_error_rel"), number(r.refitErrorRel)},
                       {q("exact"), r.exact},
                       {q("exact_tol"), number(r.exactTol)},
                       {q("min_heads_proven_upper_bound"),
                        r.exact ? QJsonValue(r.minHeads) : QJsonValue(QJsonValue::Null)},
                       {q("min_heads_proven_minimal"), r.exact && r.minHeads <= 1},
                       {q("lower_rank_best_error_rel"), number(r.lowerRankBestErrorRel)},
                       {q("lower_rank_starts"), r.lowerRankStarts},
                       {q("attempts"), attempts},
                       {q("heads"), headsJson(r.heads)},
                       {q("head_singular_values"), vectorJson(r.headSingularValues)},
                       {q("note"), QString::fromStdString(r.note)}};
}

// ---- 2. The H-head probe
// ------------------------------------------------------------------------------

namespace {

/// Null eigenvectors of Lambda (eigenvalues <= toleranceRel * lambda_max).
Mat nullBasisOf(const Mat& lambda, double toleranceRel, double* tau = nullptr,
                double* lambdaMax = nullptr) {
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

} // namespace

ProbeResult probeAlternativeFit(const Mat& lambda, const Mat& P, int d, int H,
                                const ProbeOptions& opt, const RunContext& ctx) {
    return probeAlternativeFitInNullSpace(nullBasisOf(lambda, opt.toleranceRel), P, d, H, opt,
                                          lambda, ctx);
}

ProbeResult probeAlternativeFitInNullSpace(const Mat& nullBasis, const Mat& P, int d, int H,
                                           const ProbeOptions& opt, const Mat& lambda,
                                           const RunContext& ctx) {
    requireShape(d >= 1 && P.rows() >= 1 && P.cols() == featureDim(d),
                 "probe: P must be d_out x D(d)");
    requireShape(nullBasis.cols() == 0 || nullBasis.rows() == P.cols(),
                 "probe: the null basis must have D rows");
    requireShape(lambda.size() == 0 || (lambda.rows() == P.cols() && lambda.cols() == P.cols()),
                 "probe: Lambda must be D x D");
    ProbeResult out;
    out.heads = H;
    out.minDistanceRel = opt.minDistanceRel;
    const int dOut = static_cast<int>(P.rows());
    const Index D = P.cols();
    const Index m = static_cast<Index>(dOut) * d, n = static_cast<Index>(d) * d;
    const double pNorm = P.norm();
    // Orthonormal (Euclidean) basis B of the null space, and a w-orthonormal one Bw (B_w^T diag(w)
    // B_w = I).
    Mat B;
    if (nullBasis.cols() > 0) {
        Eigen::ColPivHouseholderQR<Mat> qr(nullBasis);
        qr.setThreshold(1e-12);
        B = (qr.householderQ() * Mat::Identity(D, nullBasis.cols())).leftCols(qr.rank());
    }
    out.nullDim = static_cast<int>(B.cols());
    const std::string caveat =
        "\"none found\" is evidence, not proof: the search is non-convex and an alternative with at most H "
        "heads may exist that no start reached";
    if (out.nullDim == 0 || pNorm == 0 || H < 1) {
        out.note =
            out.nullDim == 0
                ? "Lambda is certified (no null space): P is the only least-squares fit; none exists (exact)"
                : "nothing to search";
        return out;
    }
    const Index k = B.cols();
    const Vec w = featureWeights(d);
    const Vec sw = w.cwiseSqrt();
    Eigen::HouseholderQR<Mat> wqr(sw.asDiagonal() * B);
    const Mat Rw = wqr.matrixQR().topRows(k).triangularView<Eigen::Upper>();
    const Mat Bw =
        Rw.transpose().triangularView<Eigen::Lower>().solve(B.transpose()).transpose(); // B Rw^{-1}
    const Mat G = w.asDiagonal() * Bw;                                                  // D x k
    const Mat W0 = unfoldP(P, d);
    const double wNorm = W0.norm();
    const Svd s0 = svdOf(W0);
    const double sigma1 = s0.s(0);

    // Offset coefficients A (d_out x k) of a representative: fold(X) = P + A Bw^T + (rest).
    auto coefficients = [&](const Mat& X) -> Mat { return (foldW(X, d, dOut) - P) * G; };
    // The fit set: {X : fold(X) - P in span of the null rows}.
    AffineSet fits{[&](const Mat& X) {
                       const Mat Q = foldW(X, d, dOut);
                       return unfoldP(Q - (Q * G) * Bw.transpose(), d);
                   },
                   Mat()};
    fits.target = fits.perp(W0);
    const double push = 2.0 * opt.minDistanceRel * pNorm;

    double bestFailed = std::numeric_limits<double>::infinity();
    for (int s = 0; s < opt.starts; ++s) {
        ctx.checkCancel();
        ctx.report(ProgressEvent{"probe", static_cast<double>(s) / opt.starts});
        Rng rng(opt.seed, 0x5052, static_cast<std::uint64_t>(s));
        const double rho = std::array<double, 4>{0.25, 0.5, 1.0, 2.0}[static_cast<size_t>(s % 4)];
        const double kScale =
            std::array<double, 3>{0.0, 0.5, 1.0}[static_cast<size_t>((s / 4) % 3)];
        Mat A0 = rng.normalMatrix(dOut, k);
        A0 *= rho * pNorm / A0.norm();
        Mat start = unfoldP(P + A0 * Bw.transpose(), d);
        if (kScale > 0) start += randomKernelElement(m, n, d, kScale * wNorm, rng);
        auto pushAway = [&](Mat& X) {
            const Mat A = coefficients(X);
            const double a = A.norm(); // = ||A Bw^T||_w
            if (a >= push) return;
            Mat dir = a > 1e-14 * pNorm ? Mat(A / a) : Mat(A0 / A0.norm());
            X += unfoldP((push * dir - A) * Bw.transpose(), d);
        };
        const Mat Xa =
            alternatingProjections(fits, start, H, opt.apIterations, wNorm, pushAway, ctx);
        // Polish on the fit set with the offset's component along its direction held fixed.
        const Mat Afin = coefficients(Xa);
        const double aFin = Afin.norm();
        if (!(aFin > 0)) continue;
        const Mat dir = Afin / aFin;
        AffineSet pinned{[&](const Mat& X) {
                             const Mat Q = foldW(X, d, dOut);
                             const Mat C = Q * G;
                             const double along = (C.array() * dir.array()).sum();
                             return unfoldP(Q - (C - along * dir) * Bw.transpose(), d);
                         },
                         Mat()};
        pinned.target = pinned.perp(unfoldP(P + aFin * dir * Bw.transpose(), d));
        Factors f = truncatedFactors(Xa, H);
        levenbergMarquardt(pinned, f, sigma1, wNorm, 60, ctx);
        const Mat Wr = f.product();
        const Mat Palt = foldW(Wr, d, dOut);
        const Mat N = Palt - P;
        const double residual = (N - (N * B) * B.transpose()).norm() / pNorm;
        const double dist = N.norm() / pNorm;
        ++out.startsTried;
        if (dist < opt.minDistanceRel) continue;
        if (residual <= opt.exactTol) {
            out.found = true;
            out.distanceRel = dist;
            out.fitResidualRel = residual;
            out.alternativeP = Palt;
            out.alternativeHeads = headsFromW(Wr, d, H, nullptr);
            if (lambda.size() > 0) {
                const double base = (P * lambda * P.transpose()).trace();
                out.lossChangeRel = (N * lambda * N.transpose()).trace() / base;
            }
            break;
        }
        bestFailed = std::min(bestFailed, residual);
    }
    if (out.found) {
        out.note =
            "found: P' fits the training data as well as P (its offset lies in the null space of Lambda) "
            "and has a representative of rank <= " +
            std::to_string(H) + " (checkable)";
    } else {
        out.bestResidualRel = bestFailed;
        out.note = "none found from " + std::to_string(out.startsTried) + " starts; " + caveat;
    }
    return out;
}

QJsonObject toJson(const ProbeResult& r) {
    QJsonObject o{{q("heads"), r.heads},
                  {q("null_dim"), r.nullDim},
                  {q("found"), r.found},
                  {q("distance_rel"), number(r.distanceRel)},
                  {q("fit_residual_rel"), number(r.fitResidualRel)},
                  {q("loss_change_rel"), number(r.lossChangeRel)},
                  {q("best_residual_rel"), number(r.bestResidualRel)},
                  {q("starts_tried"), r.startsTried},
                  {q("min_distance_rel"), number(r.minDistanceRel)},
                  {q("note"), QString::fromStdString(r.note)}};
    if (r.found) o.insert(q("alternative_heads"), headsJson(r.alternativeHeads));
    return o;
}

// ---- 3. Null relations
// ----------------------------------------------------------------------------

FeatureTriple featureTriple(long long index, int d) {
    FeatureTriple t;
    t.c = static_cast<int>(index % d);
    long long pair = index / d;
    int a = 0;
    while (pair >= d - a) {
        pair -= d - a;
        ++a;
    }
    t.a = a;
    t.b = a + static_cast<int>(pair);
    return t;
}

namespace {
std::string subscript(int v) {
    // U+2080..U+2089: E2 82 80+v.
    std::string s = "\xE2\x82";
    s += static_cast<char>(0x80 + v);
    return s;
}
const char* kDot = "\xC2\xB7";       // U+00B7
const char* kMinus = "\xE2\x88\x92"; // U+2212
} // namespace

std::string featureName(long long index, int d) {
    const FeatureTriple t = featureTriple(index, d);
    const int a = t.a + 1, b = t.b + 1, c = t.c + 1;
    if (a <= 9 && b <= 9 && c <= 9)
        return "S" + subscript(a) + subscript(b) + kDot + "z" + subscript(c);
    const std::string zc = c <= 9 ? "z_" + std::to_string(c) : "z_{" + std::to_string(c) + "}";
    return "S_{" + std::to_string(a) + "," + std::to_string(b) + "}" + kDot + zc;
}

std::string featureNameAscii(long long index, int d) {
    const FeatureTriple t = featureTriple(index, d);
    const int a = t.a + 1, b = t.b + 1, c = t.c + 1;
    if (a <= 9 && b <= 9 && c <= 9)
        return "S_" + std::to_string(a) + std::to_string(b) + "*z_" + std::to_string(c);
    return "S_{" + std::to_string(a) + "," + std::to_string(b) + "}*z_{" + std::to_string(c) + "}";
}

NullRelationsResult nullRelations(const Mat& lambda, int d, const NullRelationsOptions& opt) {
    return nullRelationsFromBasis(nullBasisOf(lambda, opt.toleranceRel), lambda, d, opt);
}

namespace {

std::string formatCoefficient(double c, bool integer) {
    if (integer) return std::to_string(static_cast<long long>(std::llround(c)));
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4g", c);
    return buf;
}

void renderRelation(NullRelation& rel, int d) {
    std::string text, ascii;
    bool first = true;
    for (const NullRelationTerm& t : rel.terms) {
        const double c = t.coefficient;
        const double mag = std::abs(c);
        const bool one = rel.rational ? std::llround(mag) == 1 : std::abs(mag - 1.0) < 1e-12;
        const std::string coef = one ? "" : formatCoefficient(mag, rel.rational);
        if (first) {
            if (c < 0) {
                text += kMinus;
                ascii += "-";
            }
        } else {
            text += c < 0 ? std::string(" ") + kMinus + " " : " + ";
            ascii += c < 0 ? " - " : " + ";
        }
        if (!coef.empty()) {
            text += coef + kDot;
            ascii += coef + "*";
        }
        text += featureName(t.feature, d);
        ascii += featureNameAscii(t.feature, d);
        first = false;
    }
    rel.text = text + " = 0";
    rel.textAscii = ascii + " = 0";
}

} // namespace

NullRelationsResult nullRelationsFromBasis(const Mat& basis, const Mat& lambda, int d,
                                           const NullRelationsOptions& opt) {
    requireShape(basis.cols() == 0 || basis.rows() == featureDim(d),
                 "nullRelations: the basis must have D rows");
    requireShape(lambda.size() == 0 ||
                     (lambda.rows() == featureDim(d) && lambda.cols() == featureDim(d)),
                 "nullRelations: Lambda must be D x D");
    NullRelationsResult out;
    const Index D = basis.rows();
    double lmax = 0;
    if (lambda.size() > 0) {
        Eigen::SelfAdjointEigenSolver<Mat> es(lambda, Eigen::EigenvaluesOnly);
        lmax = std::max(es.eigenvalues().maxCoeff(), 0.0);
    }
    out.tolerance = opt.toleranceRel * lmax;
    // Reduced row echelon form of basis^T with partial pivoting, columns in feature order.
    Mat R = basis.transpose();
    const Index k = R.rows();
    const double scale = R.size() ? R.cwiseAbs().maxCoeff() : 0.0;
    std::vector<Index> pivots;
    Index row = 0;
    for (Index col = 0; col < D && row < k; ++col) {
        Index p = row;
        const double best = R.col(col).segment(row, k - row).cwiseAbs().maxCoeff(&p);
        p += row;
        if (best <= opt.pivotTol * scale) continue;
        R.row(row).swap(R.row(p));
        R.row(row) /= R(row, col);
        for (Index i = 0; i < k; ++i)
            if (i != row) R.row(i) -= R(i, col) * R.row(row);
        pivots.push_back(col);
        ++row;
    }
    out.nullDim = static_cast<int>(row);
    for (Index i = 0; i < row; ++i) {
        NullRelation rel;
        rel.pivot = pivots[static_cast<size_t>(i)];
        Vec v = R.row(i).transpose();
        for (Index j = 0; j < D; ++j)
            if (std::abs(v(j)) <= 1e-12) v(j) = 0.0;
        // Snap to p/q with q <= maxDenominator.
        Vec num(D), den(D);
        bool snapped = true;
        for (Index j = 0; j < D && snapped; ++j) {
            num(j) = 0;
            den(j) = 1;
            if (v(j) == 0.0) continue;
            bool ok = false;
            for (int qd = 1; qd <= opt.maxDenominator && !ok; ++qd) {
                const double p = std::round(v(j) * qd);
                if (std::abs(v(j) - p / qd) <= opt.snapTol * std::max(1.0, std::abs(v(j)))) {
                    num(j) = p;
                    den(j) = qd;
                    ok = true;
                }
            }
            snapped = ok;
        }
        if (snapped) {
            long long l = 1;
            for (Index j = 0; j < D; ++j)
                if (num(j) != 0) l = std::lcm(l, static_cast<long long>(den(j)));
            Vec ints(D);
            long long g = 0;
            for (Index j = 0; j < D; ++j) {
                ints(j) = num(j) * static_cast<double>(l / static_cast<long long>(den(j)));
                g = std::gcd(g, std::llabs(std::llround(ints(j))));
            }
            if (g > 1) ints /= static_cast<double>(g);
            const bool inNull =
                lambda.size() == 0 || (lambda * ints).norm() <= out.tolerance * ints.norm();
            if (inNull) {
                v = ints;
                rel.rational = true;
            }
        }
        rel.vector = v;
        rel.residual =
            lambda.size() > 0 && lmax > 0 ? (lambda * v).norm() / (lmax * v.norm()) : kNaN;
        for (Index j = 0; j < D; ++j) {
            if (v(j) == 0.0) continue;
            const FeatureTriple t = featureTriple(j, d);
            rel.terms.push_back(NullRelationTerm{j, t.a, t.b, t.c, v(j)});
        }
        renderRelation(rel, d);
        if (rel.rational) ++out.rationalCount;
        out.relations.push_back(std::move(rel));
    }
    return out;
}

QJsonObject toJson(const NullRelationsResult& r) {
    QJsonArray rels;
    for (const NullRelation& rel : r.relations) {
        QJsonArray terms;
        for (const NullRelationTerm& t : rel.terms)
            terms.append(QJsonObject{{q("feature"), static_cast<qint64>(t.feature)},
                                     {q("a"), t.a + 1},
                                     {q("b"), t.b + 1},
                                     {q("c"), t.c + 1},
                                     {q("coefficient"), number(t.coefficient)}});
        rels.append(QJsonObject{{q("terms"), terms},
                                {q("rational"), rel.rational},
                                {q("pivot"), static_cast<qint64>(rel.pivot)},
                                {q("residual"), number(rel.residual)},
                                {q("text"), QString::fromStdString(rel.text)},
                                {q("text_ascii"), QString::fromStdString(rel.textAscii)}});
    }
    return QJsonObject{{q("null_dim"), r.nullDim},
                       {q("tolerance"), number(r.tolerance)},
                       {q("rational_count"), r.rationalCount},
                       {q("relations"), rels}};
}

// ---- 4. certificate_samples
// -----------------------------------------------------------------------

namespace {

/// Adds training samples [from, to) to acc in blocks of kAccumulationBlock.
void accumulateRange(const Task& task, MomentAccumulator& acc, long long from, long long to,
                     const RunContext& ctx) {
    Mat U, Qz, Y;
    for (long long first = from; first < to; first += kAccumulationBlock) {
        ctx.checkCancel();
        const long long count = std::min(kAccumulationBlock, to - first);
        fillSampleBlock(task, Stream::Train, first, count, U, Qz, Y, ctx.threads, ctx.cancel);
        acc.addBlock(U, Qz, Y, ctx.threads, ctx.cancel);
    }
}

SampleCheckpoint checkpointOf(const MomentAccumulator& acc, double toleranceRel) {
    CertifyOptions opt;
    opt.toleranceRel = toleranceRel;
    const Certificate c = certify(acc.lambda(), opt, "dense");
    return SampleCheckpoint{acc.count(), c.lambdaMin, c.lambdaMax, c.nullDim, c.certified};
}

} // namespace

CertificateSamplesResult certificateSamples(const Task& task, const CertificateSamplesOptions& opt,
                                            const RunContext& ctx) {
    CertificateSamplesResult out;
    const long long D = featureDim(task.d());
    out.featureDim = D;
    out.budget = opt.maxSamples > 0 ? opt.maxSamples : 64 * D;
    const long long structuralFrom =
        (opt.structuralFromFactor > 0 ? opt.structuralFromFactor : 4) * D;
    MomentAccumulator acc(task.d(), task.dOut());
    std::optional<MomentAccumulator> snapshot; // at the last uncertified checkpoint
    long long lo = 0;
    std::vector<SampleCheckpoint> doubling;
    auto record = [&](const SampleCheckpoint& cp) {
        out.checkpoints.push_back(cp);
        ProgressEvent ev{"certificate_samples",
                         std::min(1.0, static_cast<double>(cp.samples) / out.budget), cp.samples};
        ev.lambdaMinSoFar = cp.lambdaMin;
        ctx.report(ev);
    };
    // N = D, 2D, 4D, ... and, when the budget is not one of them (data on disk: the budget is
    // the file's N), a last checkpoint at the budget itself (the only one when it is below D).
    for (long long N = std::min(D, out.budget); N <= out.budget;
         N = N == out.budget ? N + 1 : std::min(2 * N, out.budget)) {
        const bool doubled = doubling.empty() || N == 2 * doubling.back().samples;
        accumulateRange(task, acc, acc.count(), N, ctx);
        out.samplesAccumulated = N;
        const SampleCheckpoint cp = checkpointOf(acc, opt.toleranceRel);
        record(cp);
        doubling.push_back(cp);
        if (cp.certified) {
            if (!snapshot) {
                out.certificateSamples = N; // N = D: fewer samples cannot have rank D
                break;
            }
            long long hi = N;
            while (hi - lo > 1) {
                const long long mid = lo + (hi - lo) / 2;
                MomentAccumulator probe = *snapshot;
                accumulateRange(task, probe, lo, mid, ctx);
                out.samplesAccumulated += mid - lo;
                const SampleCheckpoint mcp = checkpointOf(probe, opt.toleranceRel);
                record(mcp);
                if (mcp.certified) {
                    hi = mid;
                } else {
                    lo = mid;
                    snapshot = std::move(probe);
                }
            }
            out.certificateSamples = hi;
            break;
        }
        snapshot = acc;
        lo = N;
        const size_t c = doubling.size();
        if (doubled && c >= 3 && doubling[c - 3].samples >= structuralFrom &&
            doubling[c - 3].nullDim > 0 && doubling[c - 3].nullDim == doubling[c - 2].nullDim &&
            doubling[c - 2].nullDim == doubling[c - 1].nullDim) {
            out.structural = true;
            out.structuralNullDim = cp.nullDim;
            break;
        }
    }
    std::sort(
        out.checkpoints.begin(), out.checkpoints.end(),
        [](const SampleCheckpoint& a, const SampleCheckpoint& b) { return a.samples < b.samples; });
    if (out.certificateSamples > 0)
        out.note = "certified from N = " + std::to_string(out.certificateSamples) +
                   " samples (D = " + std::to_string(D) + ")";
    else if (out.structural)
        out.note =
            "structural: the null dimension stayed " + std::to_string(out.structuralNullDim) +
            " while N doubled twice; the task's distribution ties features together and more data "
            "will not certify (see the null relations)";
    else if (out.budget < D)
        out.note = "not certified: " + std::to_string(out.budget) +
                   " samples are fewer than the D = " + std::to_string(D) +
                   " features, so the second moment cannot have full rank";
    else out.note = "not certified within the budget of " + std::to_string(out.budget) + " samples";
    return out;
}

QJsonObject toJson(const CertificateSamplesResult& r) {
    QJsonArray cps;
    for (const SampleCheckpoint& c : r.checkpoints)
        cps.append(QJsonObject{{q("samples"), static_cast<qint64>(c.samples)},
                               {q("lambda_min"), number(c.lambdaMin)},
                               {q("lambda_max"), number(c.lambdaMax)},
                               {q("null_dim"), c.nullDim},
                               {q("certified"), c.certified}});
    return QJsonObject{
        {q("feature_dim"), static_cast<qint64>(r.featureDim)},
        {q("certificate_samples"), r.certificateSamples > 0
                                       ? QJsonValue(static_cast<qint64>(r.certificateSamples))
                                       : QJsonValue(QJsonValue::Null)},
        {q("structural"), r.structural},
        {q("structural_null_dim"), r.structuralNullDim},
        {q("budget"), static_cast<qint64>(r.budget)},
        {q("samples_accumulated"), static_cast<qint64>(r.samplesAccumulated)},
        {q("checkpoints"), cps},
        {q("note"), QString::fromStdString(r.note)}};
}

// ---- 5. Noise
// ---------------------------------------------------------------------------------------

Mat genericFeatureMoment(int d, int n, double variance) {
    const long long D = featureDim(d);
    const double k = n - 1;
    auto dl = [](int x, int y) { return x == y ? 1.0 : 0.0; };
    auto e4 = [&](int a, int b, int c, int e) {
        return dl(a, b) * dl(c, e) + dl(a, c) * dl(b, e) + dl(a, e) * dl(b, c);
    };
    auto e6 = [&](const int(&x)[6]) {
        // Sum over the 15 perfect matchings: pair x0 with x_j, then E4 of the remaining four.
        double s = 0;
        for (int j = 1; j < 6; ++j) {
            int rest[4], r = 0;
            for (int i = 1; i < 6; ++i)
                if (i != j) rest[r++] = x[i];
            s += dl(x[0], x[j]) * e4(rest[0], rest[1], rest[2], rest[3]);
        }
        return s;
    };
    std::vector<FeatureTriple> t(static_cast<size_t>(D));
    for (long long i = 0; i < D; ++i) t[static_cast<size_t>(i)] = featureTriple(i, d);
    Mat M(D, D);
    const double v3 = variance * variance * variance;
    for (long long i = 0; i < D; ++i)
        for (long long j = i; j < D; ++j) {
            const FeatureTriple& x = t[static_cast<size_t>(i)];
            const FeatureTriple& y = t[static_cast<size_t>(j)];
            const double ss = k * k * dl(x.a, x.b) * dl(y.a, y.b) +
                              k * (dl(x.a, y.a) * dl(x.b, y.b) + dl(x.a, y.b) * dl(x.b, y.a));
            const int six[6] = {x.a, x.b, y.a, y.b, x.c, y.c};
            const double val = ss * dl(x.c, y.c) + k * dl(x.a, x.b) * e4(y.a, y.b, x.c, y.c) +
                               k * dl(y.a, y.b) * e4(x.a, x.b, x.c, y.c) + e6(six);
            M(i, j) = M(j, i) = v3 * val;
        }
    return M;
}

double expectedOodRelMse(const Mat& P, const Mat& Pref, const Mat& M) {
    const Mat dP = P - Pref;
    const double den = (Pref * M * Pref.transpose()).trace();
    return den > 0 ? (dP * M * dP.transpose()).trace() / den : kNaN;
}

NoiseAnalysis noiseAnalysis(const Mat& lambda, const NoiseInputs& in, const NoiseOptions& opt,
                            const RunContext& ctx) {
    requireShape(lambda.rows() >= 1 && lambda.rows() == lambda.cols(),
                 "noiseAnalysis: Lambda must be square");
    requireShape(in.referenceP.rows() >= 1 && in.referenceP.cols() == lambda.rows(),
                 "noiseAnalysis: referenceP must be d_out x D");
    requireShape(in.oodMoment.size() == 0 ||
                     (in.oodMoment.rows() == lambda.rows() && in.oodMoment.cols() == lambda.rows()),
                 "noiseAnalysis: oodMoment must be D x D");
    NoiseAnalysis out;
    const Index D = lambda.rows();
    const int dOut = static_cast<int>(in.referenceP.rows());
    const double N = static_cast<double>(in.samples);
    if (in.samples > D && std::isfinite(in.trainMse)) {
        out.sigma2 = in.trainMse * N / (N - static_cast<double>(D));
        out.sigmaSource = "residual";
    } else {
        out.sigma2 = in.configuredNoise * in.configuredNoise;
        out.sigmaSource = "configured";
    }
    ctx.checkCancel();
    Eigen::SelfAdjointEigenSolver<Mat> es(lambda);
    ctx.checkCancel();
    const Vec& ev = es.eigenvalues();
    const double tau = opt.toleranceRel * std::max(ev(ev.size() - 1), 0.0);
    Vec inv(D);
    for (Index i = 0; i < D; ++i) {
        inv(i) = ev(i) > tau ? 1.0 / ev(i) : 0.0;
        if (ev(i) <= tau) ++out.nullDim;
    }
    out.certified = out.nullDim == 0 && ev(ev.size() - 1) > 0;
    out.traceLambdaInv = inv.sum();
    out.predictedDistanceP2 = N > 0 ? out.sigma2 * dOut * out.traceLambdaInv / N : kNaN;
    const double refNorm = in.referenceP.norm();
    out.predictedDistancePRel = refNorm > 0 ? std::sqrt(out.predictedDistanceP2) / refNorm : kNaN;
    if (in.oodMoment.size() > 0) {
        const Mat& V = es.eigenvectors();
        const Vec diag = (V.transpose() * in.oodMoment * V).diagonal();
        out.traceLambdaInvOod = inv.dot(diag);
        out.predictedOodExcess = N > 0 ? out.sigma2 * dOut * out.traceLambdaInvOod / N : kNaN;
        out.oodSignal = (in.referenceP * in.oodMoment * in.referenceP.transpose()).trace();
        out.predictedOodRelMse = out.oodSignal > 0 ? out.predictedOodExcess / out.oodSignal : kNaN;
    }
    out.measuredDistanceP2 = in.measuredDistanceP2;
    out.measuredOodRelMse = in.measuredOodRelMse;
    const double predictedRel = std::isfinite(out.predictedOodRelMse)
                                    ? out.predictedOodRelMse
                                    : out.predictedDistancePRel * out.predictedDistancePRel;
    if (out.certified && std::isfinite(predictedRel) && predictedRel > opt.warnRel) {
        char buf[256];
        std::snprintf(
            buf, sizeof buf,
            "certified, but label noise (sigma^2 = %.3g) predicts a relative error of %.3g: the fit is "
            "unique, not accurate; more samples reduce it",
            out.sigma2, predictedRel);
        out.warning = buf;
    }
    out.note =
        out.certified
            ? "sigma^2 d_out tr(Lambda^-1) / N is the exact noise expectation of ||P - P*||_F^2 given the prompts"
            : "not certified: the prediction uses the pseudo-inverse and covers the identified directions only; "
              "the null directions add a bias the data cannot see";
    return out;
}

QJsonObject toJson(const NoiseAnalysis& r) {
    QJsonObject o{{q("sigma2"), number(r.sigma2)},
                  {q("sigma_source"), QString::fromStdString(r.sigmaSource)},
                  {q("certified"), r.certified},
                  {q("null_dim"), r.nullDim},
                  {q("trace_lambda_inv"), number(r.traceLambdaInv)},
                  {q("predicted_distance_p2"), number(r.predictedDistanceP2)},
                  {q("predicted_distance_p_rel"), number(r.predictedDistancePRel)},
                  {q("trace_lambda_inv_ood"), number(r.traceLambdaInvOod)},
                  {q("predicted_ood_excess"), number(r.predictedOodExcess)},
                  {q("ood_signal"), number(r.oodSignal)},
                  {q("predicted_ood_rel_mse"), number(r.predictedOodRelMse)},
                  {q("measured_distance_p2"), number(r.measuredDistanceP2)},
                  {q("measured_ood_rel_mse"), number(r.measuredOodRelMse)},
                  {q("note"), QString::fromStdString(r.note)}};
    if (!r.warning.empty()) o.insert(q("warning"), QString::fromStdString(r.warning));
    return o;
}

} // namespace mhla
