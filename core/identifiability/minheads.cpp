#include "core/identifiability/minheads.h"
#include "core/algebra/certificate.h"
#include "core/algebra/features.h"
#include "core/algebra/model.h"
#include "core/base/parallel.h"
#include "core/base/rng.h"
#include "core/base/text.h"
#include "core/identifiability/lowrank.h"
#include "core/identifiability/reportjson.h"
#include "core/identifiability/representatives.h"
#include <QJsonArray>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <numeric>
#include <optional>
#include <stdexcept>

namespace mhla {

using namespace lowrank;

namespace {

/// Below this best error at min_heads - 1, the evidence that fewer heads fail is called weak.
constexpr double kWeakEvidence = 1e-6;
/// A refit that ends between the tolerance and this error is refined by a longer
/// Levenberg-Marquardt run (kRefineOuter iterations, giving up after kRefineStall slow steps).
constexpr double kRefineBelow = 1e-6;
constexpr int kRefineOuter = 400;
constexpr int kRefineStall = 40;
/// Levenberg-Marquardt iterations per continuation start.
constexpr int kContinuationOuter = 300;

} // namespace

int genericMinHeads(int d, int dOut, std::uint64_t seed) {
    const Index m = static_cast<Index>(dOut) * d, n = static_cast<Index>(d) * d;
    const Index rows = static_cast<Index>(dOut) * featureDim(d);
    const int rMax = static_cast<int>(std::min(m, n));
    // Necessary: r (m + n - r) >= d_out D.
    int r = 1;
    while (r < rMax && static_cast<Index>(r) * (m + n - r) < rows) ++r;
    Rng rng(seed, Stream::GenericRank);
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
                Rng rng(opt.seed, Stream::MinHeadsStart,
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
                Rng rng(opt.seed, Stream::MinHeadsContinue,
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
    out.heads = canonicalHeadsOfW(out.W, d, out.minHeads, &out.headSingularValues);
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
                                    {q("best_error_rel"), jsonNumber(a.bestErrorRel)},
                                    {q("exact"), a.exact},
                                    {q("phase"), QString::fromStdString(a.phase)}});
    return QJsonObject{{q("min_heads"), r.minHeads},
                       {q("search_min_heads"), r.searchMinHeads},
                       {q("unfold_rank"), r.unfoldRank},
                       {q("max_heads"), r.maxHeads},
                       {q("generic_heads"), r.genericHeads},
                       {q("nuclear_rank"), r.nuclearRank},
                       {q("nuclear_norm"), jsonNumber(r.nuclearNorm)},
                       {q("relaxation_iterations"), r.relaxationIterations},
                       {q("relaxation_converged"), r.relaxationConverged},
                       {q("relaxation_minimal"), r.relaxationMinimal},
                       {q("refit_error_rel"), jsonNumber(r.refitErrorRel)},
                       {q("exact"), r.exact},
                       {q("exact_tol"), jsonNumber(r.exactTol)},
                       {q("min_heads_proven_upper_bound"),
                        r.exact ? QJsonValue(r.minHeads) : QJsonValue(QJsonValue::Null)},
                       {q("min_heads_proven_minimal"), r.exact && r.minHeads <= 1},
                       {q("lower_rank_best_error_rel"), jsonNumber(r.lowerRankBestErrorRel)},
                       {q("lower_rank_starts"), r.lowerRankStarts},
                       {q("attempts"), attempts},
                       {q("heads"), headsJson(r.heads)},
                       {q("head_singular_values"), vectorJson(r.headSingularValues)},
                       {q("note"), QString::fromStdString(r.note)}};
}

} // namespace mhla
