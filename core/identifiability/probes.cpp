#include "core/identifiability/probes.h"
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

ProbeResult probeAlternativeFit(const Mat& lambda, const Mat& P, int d, int H,
                                const ProbeOptions& opt, const RunContext& ctx) {
    return probeAlternativeFitInNullSpace(nullBasisOf(lambda, opt.toleranceRel), P, d, H, opt,
                                          lambda, ctx);
}

namespace {

const std::string kNoneFoundCaveat =
    "\"none found\" is evidence, not proof: the search is non-convex and an alternative with at most H "
    "heads may exist that no start reached";

/// An orthonormal (Euclidean) basis of the column span of `basis` (D rows; rank-revealing QR).
Mat orthonormalColumns(const Mat& basis, Index D) {
    if (basis.cols() == 0) return Mat();
    Eigen::ColPivHouseholderQR<Mat> qr(basis);
    qr.setThreshold(1e-12);
    return (qr.householderQ() * Mat::Identity(D, basis.cols())).leftCols(qr.rank());
}

/// A basis Bw of the same span that is orthonormal in the feature weights w:
/// Bw^T diag(w) Bw = I (Bw = B Rw^{-1}, Rw from the QR of diag(sqrt w) B).
Mat weightOrthonormal(const Mat& B, int d) {
    const Index k = B.cols();
    const Vec sw = featureWeights(d).cwiseSqrt();
    Eigen::HouseholderQR<Mat> wqr(sw.asDiagonal() * B);
    const Mat Rw = wqr.matrixQR().topRows(k).triangularView<Eigen::Upper>();
    return Rw.transpose().triangularView<Eigen::Lower>().solve(B.transpose()).transpose();
}

/// A found alternative: its distance and residual, P', its canonical heads and the training
/// loss change relative to P's (zero up to rounding when the offset is in the null space).
void recordFound(ProbeResult& out, const Mat& P, const Mat& Palt, const Mat& Wr, int d, int H,
                 double dist, double residual, const Mat& lambda) {
    out.found = true;
    out.distanceRel = dist;
    out.fitResidualRel = residual;
    out.alternativeP = Palt;
    out.alternativeHeads = canonicalHeadsOfW(Wr, d, H, nullptr);
    if (lambda.size() > 0) {
        const Mat N = Palt - P;
        const double base = (P * lambda * P.transpose()).trace();
        out.lossChangeRel = (N * lambda * N.transpose()).trace() / base;
    }
}

} // namespace

// Long on purpose (~105 lines): the set-up (the bases B and Bw, G, the fit set) and the
// multi-start loop share a dozen matrices that the closures `coefficients`, `fits`, `pushAway`
// and `pinned` capture. Split, they would travel as one struct of references with no second
// user; as it is, one start reads top to bottom: start, alternating projections, polish, check.
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
    const Mat B = orthonormalColumns(nullBasis, D);
    out.nullDim = static_cast<int>(B.cols());
    if (out.nullDim == 0 || pNorm == 0 || H < 1) {
        out.note =
            out.nullDim == 0
                ? "Lambda is certified (no null space): P is the only least-squares fit; none exists (exact)"
                : "nothing to search";
        return out;
    }
    const Index k = B.cols();
    const Mat Bw = weightOrthonormal(B, d);            // B Rw^{-1}
    const Mat G = featureWeights(d).asDiagonal() * Bw; // D x k
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
        Rng rng(opt.seed, Stream::ProbeStart, static_cast<std::uint64_t>(s));
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
            recordFound(out, P, Palt, Wr, d, H, dist, residual, lambda);
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
        out.note =
            "none found from " + std::to_string(out.startsTried) + " starts; " + kNoneFoundCaveat;
    }
    return out;
}

QJsonObject toJson(const ProbeResult& r) {
    QJsonObject o{{q("heads"), r.heads},
                  {q("null_dim"), r.nullDim},
                  {q("found"), r.found},
                  {q("distance_rel"), jsonNumber(r.distanceRel)},
                  {q("fit_residual_rel"), jsonNumber(r.fitResidualRel)},
                  {q("loss_change_rel"), jsonNumber(r.lossChangeRel)},
                  {q("best_residual_rel"), jsonNumber(r.bestResidualRel)},
                  {q("starts_tried"), r.startsTried},
                  {q("min_distance_rel"), jsonNumber(r.minDistanceRel)},
                  {q("note"), QString::fromStdString(r.note)}};
    if (r.found) o.insert(q("alternative_heads"), headsJson(r.alternativeHeads));
    return o;
}

} // namespace mhla
