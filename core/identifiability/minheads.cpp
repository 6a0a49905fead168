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
#include <utility>
#include <vector>

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

namespace {

/// A fit of rank r: its product W and its relative error ‖fold(W) − P‖ / ‖P‖.
struct Refit {
    double err = std::numeric_limits<double>::infinity();
    Mat W;
};

/// The search of minHeads(), step by step (see minheads.h): the relaxation, refits from several
/// starts at one rank, the bisection, the continuation below the smallest exact fit, and the
/// teacher's representative. Every step appends its attempts to `out`.
class MinHeadsSearch {
public:
    MinHeadsSearch(const Mat& P, int d, const MinHeadsOptions& opt, const RunContext& ctx,
                   MinHeadsResult& out)
        : m_P(P), m_d(d), m_dOut(static_cast<int>(P.rows())), m_opt(opt), m_ctx(ctx), m_out(out),
          m_m(static_cast<Index>(m_dOut) * d), m_n(static_cast<Index>(d) * d), m_W0(unfoldP(P, d)),
          m_pNorm(P.norm()),
          m_wNorm(m_W0.norm()), m_reps{[d](const Mat& X) { return symPart(X, d); }, m_W0} {}

    const Mat& W0() const { return m_W0; }
    double sigma1() const { return m_sigma1; }
    void setSigma1(double s) { m_sigma1 = s; }

    /// 1. Nuclear-norm minimisation by Douglas-Rachford; returns the relaxed representative.
    Mat relax() {
        m_ctx.report(ProgressEvent{"min_heads: relaxation", 0.0});
        const double t = 0.1 * m_sigma1;
        Mat Z = m_W0, X = m_W0;
        int svtRank = 0;
        for (int it = 0; it < m_opt.relaxationIterations; ++it) {
            if ((it & 15) == 0) m_ctx.checkCancel();
            X = m_reps.project(Z);
            const Mat Y = shrinkSingularValues(2.0 * X - Z, t, &svtRank);
            const Mat step = Y - X;
            Z += step;
            m_out.relaxationIterations = it + 1;
            if (step.norm() <= m_opt.relaxationTol * m_wNorm) {
                m_out.relaxationConverged = true;
                break;
            }
        }
        X = m_reps.project(Z);
        m_out.nuclearNorm = svdOf(X).s.sum();
        m_out.nuclearRank = std::max(1, svtRank);
        return X;
    }

    /// Levenberg-Marquardt from factors f; a start that ends close to P but above the tolerance
    /// (the valley of a fit that converges slowly) is refined further before it is judged.
    Refit polish(Factors f, int outer, int stall) const {
        levenbergMarquardt(m_reps, f, m_sigma1, m_wNorm, outer, m_ctx, stall);
        Refit fit{0.0, f.product()};
        fit.err = errorOf(fit.W);
        if (fit.err > tol() && fit.err < kRefineBelow) {
            levenbergMarquardt(m_reps, f, m_sigma1, m_wNorm, kRefineOuter, m_ctx, kRefineStall);
            fit.W = f.product();
            fit.err = errorOf(fit.W);
        }
        return fit;
    }

    /// 2. The best fit at rank r from several starts: the relaxed X, W0, and W0 plus random
    /// kernel elements of three sizes; stops at the first exact fit.
    Refit refit(int r, const Mat& X) {
        const auto attempt = [&](int s) {
            m_ctx.checkCancel();
            Mat start;
            if (s == 0) start = X;
            else if (s == 1) start = m_W0;
            else {
                Rng rng(m_opt.seed, Stream::MinHeadsStart,
                        static_cast<std::uint64_t>(r) * 1000 + static_cast<std::uint64_t>(s));
                const double scale =
                    std::array<double, 3>{0.5, 1.0, 2.0}[static_cast<size_t>(s % 3)];
                start = m_W0 + randomKernelElement(m_m, m_n, m_d, scale * m_wNorm, rng);
            }
            const Mat Xa = alternatingProjections(m_reps, start, r, 200, m_wNorm, {}, m_ctx);
            return polish(truncatedFactors(Xa, r), 60, 8);
        };
        auto [best, tried] = firstExactOrBest(std::max(2, m_opt.starts), attempt);
        m_out.attempts.push_back(RankAttempt{r, tried, best.err, best.err <= tol(), "starts"});
        m_ctx.report(ProgressEvent{"min_heads: refit rank " + std::to_string(r), 0.5});
        return std::move(best);
    }

    /// Continuation below an exact fit `above` of rank r + 1: each of its r + 1 canonical heads
    /// dropped in turn, then random factor starts, each polished by Levenberg-Marquardt for
    /// longer.
    Refit continueBelow(int r, const Mat& above) {
        const Svd sa = svdOf(above);
        const int drops = std::min(r + 1, static_cast<int>(sa.s.size()));
        const auto attempt = [&](int k) {
            m_ctx.checkCancel();
            Factors f;
            if (k < drops) f = factorsWithoutHead(sa, r, drops - 1 - k); // smallest head first
            else {
                Rng rng(m_opt.seed, Stream::MinHeadsContinue,
                        static_cast<std::uint64_t>(r) * 1000 + static_cast<std::uint64_t>(k));
                const double sd =
                    std::sqrt(m_wNorm / std::sqrt(static_cast<double>(m_m * m_n * r)));
                f = Factors{rng.normalMatrix(m_m, r, sd), rng.normalMatrix(m_n, r, sd)};
            }
            return polish(std::move(f), kContinuationOuter, kRefineStall);
        };
        auto [best, tried] = firstExactOrBest(drops + m_opt.continuationStarts, attempt);
        m_out.attempts.push_back(
            RankAttempt{r, tried, best.err, best.err <= tol(), "continuation"});
        m_ctx.report(ProgressEvent{"min_heads: continuation rank " + std::to_string(r), 0.8});
        return std::move(best);
    }

    /// 3. Bisection. Feasibility is monotone in r; rank 0 fails (P != 0) and unfold_rank
    /// succeeds (unfold(P) itself), so a bisection between a failing `lo` and a succeeding `hi`
    /// ends with hi - 1 = lo tested (evidence) unless lo = 0. Sets m_hi and m_hiFit.
    void bisect(const Mat& X) {
        const int r0 = std::min(m_out.nuclearRank, m_out.maxHeads);
        int lo = 0;
        if (Refit first = refit(r0, X); first.err <= tol()) {
            m_hi = r0;
            m_hiFit = std::move(first);
            if (m_hi > 1) {
                if (Refit below = refit(m_hi - 1, X); below.err <= tol()) {
                    m_hi = m_hi - 1; // the relaxation was not minimal
                    m_hiFit = std::move(below);
                } else {
                    lo = m_hi - 1;
                }
            }
        } else {
            lo = r0;
            m_hi = std::max(m_out.unfoldRank, r0 + 1);
            m_hiFit = refit(m_hi, X);
        }
        while (m_hi - lo > 1) {
            const int mid = lo + (m_hi - lo) / 2;
            Refit mf = refit(mid, X);
            if (mf.err <= tol()) {
                m_hi = mid;
                m_hiFit = std::move(mf);
            } else {
                lo = mid;
            }
        }
    }

    /// 4. Continuation: below the smallest exact fit, each lower rank is searched again from
    /// that fit with one head dropped (and from random factors), until a rank fails.
    void continueDown() {
        while (m_hiFit.err <= tol() && m_hi > 1 && m_opt.continuationStarts >= 0) {
            Refit below = continueBelow(m_hi - 1, m_hiFit.W);
            if (below.err > tol()) break;
            --m_hi;
            m_hiFit = std::move(below);
        }
    }

    /// 5. The teacher's representative, refitted at its own numerical rank.
    void tryTeacher() {
        const Mat& tw = m_opt.teacherW;
        if (tw.rows() != m_m || tw.cols() != m_n) return;
        m_ctx.checkCancel();
        const int rt = numericalRank(svdOf(tw).s, m_opt.rankTol);
        if (rt < 1 || rt >= m_hi) return;
        Refit t = polish(truncatedFactors(tw, rt), kContinuationOuter, kRefineStall);
        m_out.attempts.push_back(RankAttempt{rt, 1, t.err, t.err <= tol(), "teacher"});
        if (t.err > tol()) return;
        m_hi = rt;
        m_hiFit = std::move(t);
        continueDown();
    }

    int hi() const { return m_hi; }
    const Refit& hiFit() const { return m_hiFit; }

private:
    double tol() const { return m_opt.exactTol; }

    /// Attempts 0 .. count - 1 judged as a loop that stops at the first exact fit judges them:
    /// the best fit (the first exact one, else the smallest error, the earliest on ties) and
    /// the number of attempts that loop makes. With more threads, that many attempts run at a
    /// time (one after the first exact fit is computed and dropped): the attempts are
    /// independent, so the result is the same for any thread count.
    std::pair<Refit, int> firstExactOrBest(int count,
                                           const std::function<Refit(int)>& attempt) const {
        const int threads = resolveThreads(m_ctx.threads);
        Refit best;
        int tried = 0;
        for (int begin = 0; begin < count; begin += threads) {
            const int n = std::min(threads, count - begin);
            std::vector<Refit> fits(static_cast<size_t>(n));
            parallelFor(n, threads, [&](long long i) {
                fits[static_cast<size_t>(i)] = attempt(begin + static_cast<int>(i));
            });
            for (Refit& fit : fits) {
                ++tried;
                if (fit.err < best.err) best = std::move(fit);
                if (best.err <= tol()) return {std::move(best), tried};
            }
        }
        return {std::move(best), tried};
    }
    double errorOf(const Mat& Wr) const { return (foldW(Wr, m_d, m_dOut) - m_P).norm() / m_pNorm; }

    const Mat& m_P;
    const int m_d, m_dOut;
    const MinHeadsOptions& m_opt;
    const RunContext& m_ctx;
    MinHeadsResult& m_out;
    const Index m_m, m_n;
    const Mat m_W0;
    const double m_pNorm, m_wNorm;
    double m_sigma1 = 0;
    AffineSet m_reps;
    int m_hi = 0;
    Refit m_hiFit;
};

/// The result's note: what was proven, what is evidence, and when the evidence is weak.
std::string minHeadsNote(const MinHeadsResult& out) {
    if (!out.exact)
        return "no rank reproduced P to exact_tol (numerical trouble); min_heads is the best rank "
               "found";
    if (out.minHeads <= 1) return "one head reproduces P exactly; zero heads cannot (P != 0)";
    char err[32];
    std::snprintf(err, sizeof err, "%.2g", out.lowerRankBestErrorRel);
    std::string note = std::to_string(out.minHeads) +
                       " heads reproduce P exactly (proven by the refit); " +
                       std::to_string(out.minHeads - 1) +
                       (out.minHeads - 1 == 1 ? " head failed from " : " heads failed from ") +
                       std::to_string(out.lowerRankStarts) + " starts, best relative error " + err +
                       " (evidence, not proof)";
    if (out.searchMinHeads > out.minHeads)
        note += "; the refit from the teacher's heads found " + std::to_string(out.minHeads) +
                ", the search without them " + std::to_string(out.searchMinHeads);
    if (out.lowerRankBestErrorRel < kWeakEvidence)
        note += "; that error is small: P may be a limit of models with fewer heads (fold of the "
                "rank-r matrices is not a closed set) or the search stalled";
    return note;
}

} // namespace

MinHeadsResult minHeads(const Mat& P, int d, const MinHeadsOptions& opt, const RunContext& ctx) {
    requireShape(d >= 1 && P.rows() >= 1 && P.cols() == featureDim(d),
                 "minHeads: P must be d_out x D(d)");
    MinHeadsResult out;
    out.exactTol = opt.exactTol;
    const int dOut = static_cast<int>(P.rows());
    const Index m = static_cast<Index>(dOut) * d, n = static_cast<Index>(d) * d;
    out.maxHeads = static_cast<int>(std::min(m, n));
    MinHeadsSearch search(P, d, opt, ctx, out);
    const Svd s0 = svdOf(search.W0());
    search.setSigma1(s0.s.size() ? s0.s(0) : 0.0);
    out.unfoldRank = numericalRank(s0.s, opt.rankTol);
    if (opt.genericHeadsMaxRows > 0 &&
        static_cast<long long>(dOut) * featureDim(d) <= opt.genericHeadsMaxRows)
        out.genericHeads = genericMinHeads(d, dOut, opt.seed);
    if (P.norm() == 0) {
        out.exact = true;
        out.relaxationMinimal = true;
        out.relaxationConverged = true;
        out.W = Mat::Zero(m, n);
        out.note = "P = 0: no heads needed";
        return out;
    }
    const Mat X = search.relax();
    search.bisect(X);
    search.continueDown();
    out.searchMinHeads = search.hi();
    search.tryTeacher();
    out.minHeads = search.hi();
    out.W = search.hiFit().W;
    out.refitErrorRel = search.hiFit().err;
    out.exact = search.hiFit().err <= opt.exactTol;
    out.relaxationMinimal = out.minHeads == out.nuclearRank;
    for (const RankAttempt& a : out.attempts)
        if (a.rank == out.minHeads - 1) {
            out.lowerRankBestErrorRel = std::isnan(out.lowerRankBestErrorRel)
                                            ? a.bestErrorRel
                                            : std::min(out.lowerRankBestErrorRel, a.bestErrorRel);
            out.lowerRankStarts += a.starts;
        }
    out.heads = canonicalHeadsOfW(out.W, d, out.minHeads, &out.headSingularValues);
    out.note = minHeadsNote(out);
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
