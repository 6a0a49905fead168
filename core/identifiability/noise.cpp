#include "core/identifiability/noise.h"
#include "core/algebra/certificate.h"
#include "core/algebra/features.h"
#include "core/algebra/model.h"
#include "core/base/parallel.h"
#include "core/base/rng.h"
#include "core/base/text.h"
#include "core/identifiability/lowrank.h"
#include "core/identifiability/nullrelations.h"
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

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

} // namespace

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
    QJsonObject o{{q("sigma2"), jsonNumber(r.sigma2)},
                  {q("sigma_source"), QString::fromStdString(r.sigmaSource)},
                  {q("certified"), r.certified},
                  {q("null_dim"), r.nullDim},
                  {q("trace_lambda_inv"), jsonNumber(r.traceLambdaInv)},
                  {q("predicted_distance_p2"), jsonNumber(r.predictedDistanceP2)},
                  {q("predicted_distance_p_rel"), jsonNumber(r.predictedDistancePRel)},
                  {q("trace_lambda_inv_ood"), jsonNumber(r.traceLambdaInvOod)},
                  {q("predicted_ood_excess"), jsonNumber(r.predictedOodExcess)},
                  {q("ood_signal"), jsonNumber(r.oodSignal)},
                  {q("predicted_ood_rel_mse"), jsonNumber(r.predictedOodRelMse)},
                  {q("measured_distance_p2"), jsonNumber(r.measuredDistanceP2)},
                  {q("measured_ood_rel_mse"), jsonNumber(r.measuredOodRelMse)},
                  {q("note"), QString::fromStdString(r.note)}};
    if (!r.warning.empty()) o.insert(q("warning"), QString::fromStdString(r.warning));
    return o;
}

} // namespace mhla
