#pragma once
// How much label noise blurs what was identified: the least-squares error predicted from Lambda
// and the residual, and the out-of-distribution error it implies (MATH.md §3, §6).
//
// Conventions of the identifiability room (core/identifiability/): pure functions of value types
// (Eigen matrices, the Task, small option structs), thread-agnostic, deterministic for a given
// seed; each iterative loop polls ctx.checkCancel() (throws Cancelled); progress events name the
// function in `phase` ("min_heads: ...", "probe", "certificate_samples") with a fraction local to
// the call; results are structs with a toJson() whose field names are documented next to each
// member as `json: name`, non-finite numbers written as JSON null; inputs of the wrong shape
// throw std::invalid_argument.
#include "core/base/types.h"
#include <QJsonObject>
#include <limits>
#include <string>

namespace mhla {

/// Lambda_ood = E psi psi^T for generic prompts (MATH.md §6: i.i.d. N(0, variance) entries, d x n),
/// in closed form by Isserlis' theorem: with S = S' + z z^T, S' = sum of the n - 1 context tokens
/// (E S'_ab = k delta_ab, E S'_ab S'_a'b' = k^2 delta_ab delta_a'b' + k(delta_aa' delta_bb' +
/// delta_ab' delta_ba'), k = n - 1) and z the query,
///   E S_ab S_a'b' z_c z_c' = v^3 [E S'S' delta_cc' + k delta_ab E4(a'b'cc') + k delta_a'b'
///   E4(abcc') + E6(aba'b'cc')]
/// with E4, E6 the Gaussian moments (sums over pairings). For d = 1: (n + 2)(n + 4) v^3.
[[nodiscard]] Mat genericFeatureMoment(int d, int n, double variance = 1.0);

/// Exact E ||(P - Pref) psi||^2 / E ||Pref psi||^2 over prompts with second moment oodMoment:
/// tr(dP M dP^T) / tr(Pref M Pref^T). With genericFeatureMoment this is the expectation that
/// ood_rel_mse estimates by Monte-Carlo.
[[nodiscard]] double expectedOodRelMse(const Mat& P, const Mat& Pref, const Mat& oodMoment);

struct NoiseInputs {
    long long samples = 0; ///< N of the training set
    /// mean over samples and outputs of (P psi - y)^2 of the least-squares fit (train_mse); NaN =
    /// unknown
    double trainMse = std::numeric_limits<double>::quiet_NaN();
    double configuredNoise =
        0;          ///< sigma from the configuration (used when N <= D or train_mse unknown)
    Mat referenceP; ///< P* when known, else the fit: defines ||P|| and E||P psi||^2
    Mat oodMoment;  ///< Lambda_ood (genericFeatureMoment); empty = no OOD prediction
    double measuredDistanceP2 = std::numeric_limits<double>::quiet_NaN(); ///< optional, echoed
    double measuredOodRelMse = std::numeric_limits<double>::quiet_NaN();  ///< optional, echoed
};

struct NoiseOptions {
    double toleranceRel =
        1e-10; ///< eigenvalues <= tau are left out of Lambda^{-1} (then not certified)
    double warnRel =
        1e-2; ///< warn when certified and predicted_ood_rel_mse (or distance_p_rel^2) exceeds this
};

struct NoiseAnalysis {
    double sigma2 = 0; ///< json: sigma2, per-output noise variance used
    std::string
        sigmaSource; ///< json: sigma_source, "residual" (train_mse N / (N - D)) or "configured"
    bool certified = false;         ///< json: certified
    int nullDim = 0;                ///< json: null_dim
    double traceLambdaInv = 0;      ///< json: trace_lambda_inv, tr(Lambda^+)
    double predictedDistanceP2 = 0; ///< json: predicted_distance_p2, sigma^2 d_out tr(Lambda^+) / N
    double predictedDistancePRel =
        0; ///< json: predicted_distance_p_rel, sqrt(predicted_distance_p2) / ||Pref||_F
    double traceLambdaInvOod =
        std::numeric_limits<double>::quiet_NaN(); ///< json: trace_lambda_inv_ood, tr(Lambda^+
                                                  ///< Lambda_ood)
    double predictedOodExcess =
        std::numeric_limits<double>::quiet_NaN(); ///< json: predicted_ood_excess, sigma^2 d_out
                                                  ///< tr(Lambda^+ Lambda_ood) / N
    double oodSignal = std::numeric_limits<double>::quiet_NaN(); ///< json: ood_signal, tr(Pref
                                                                 ///< Lambda_ood Pref^T) = E||f*||^2
    double predictedOodRelMse =
        std::numeric_limits<double>::quiet_NaN(); ///< json: predicted_ood_rel_mse
    double measuredDistanceP2 =
        std::numeric_limits<double>::quiet_NaN(); ///< json: measured_distance_p2
    double measuredOodRelMse =
        std::numeric_limits<double>::quiet_NaN(); ///< json: measured_ood_rel_mse
    std::string warning;                          ///< json: warning (omitted when empty)
    std::string note;                             ///< json: note
};

/// The statistical side of identifiability. For y = P* psi + sigma eps and P = C Lambda^{-1}:
///   P - P* = (sigma / N) sum_s eps_s psi_s^T Lambda^{-1}, so conditionally on the prompts
///   E ||P - P*||_F^2 = sigma^2 d_out tr(Lambda^{-1}) / N                      (exact)
///   E_Z ||(P - P*) psi(Z)||^2 = tr(dP Lambda_ood dP^T), whose noise expectation is
///       sigma^2 d_out tr(Lambda^{-1} Lambda_ood) / N,
/// and the predicted ood_rel_mse divides that by E ||P* psi||^2 = tr(P* Lambda_ood P*^T).
/// sigma^2 is estimated as RSS / (d_out (N - D)) = train_mse N / (N - D) when N > D (unbiased),
/// else the configured noise^2. When Lambda is not certified the pseudo-inverse is used: the
/// prediction then covers the identified directions only (the null directions add a bias the
/// data cannot see), and `note` says so. A certified run whose predicted error exceeds warnRel
/// gets a `warning`: the certificate says the fit is unique, not that it is accurate.
[[nodiscard]] NoiseAnalysis noiseAnalysis(const Mat& lambda, const NoiseInputs& in,
                                          const NoiseOptions& opt = {}, const RunContext& ctx = {});

[[nodiscard]] QJsonObject toJson(const NoiseAnalysis& r);

} // namespace mhla
