#pragma once
// How many samples until the certificate holds: λ_min of Lambda_N over prefixes of the training
// stream, N = D, 2D, 4D, ... and a bisection (MATH.md §3).
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
#include <vector>

namespace mhla {

class Task;

struct CertificateSamplesOptions {
    double toleranceRel = 1e-10; ///< tau = toleranceRel * lambda_max, as the certificate
    /// budget; 0 = 64 D. Checkpoints at D, 2D, 4D, ... up to it, and at the budget itself.
    long long maxSamples = 0;
    /// The structural test starts at checkpoints N >= structuralFromFactor * D (0 = 4).
    int structuralFromFactor = 0;
};

struct SampleCheckpoint {
    long long samples = 0;  ///< json: samples
    double lambdaMin = 0;   ///< json: lambda_min
    double lambdaMax = 0;   ///< json: lambda_max
    int nullDim = 0;        ///< json: null_dim
    bool certified = false; ///< json: certified
};

struct CertificateSamplesResult {
    long long featureDim = 0; ///< json: feature_dim, D
    long long certificateSamples =
        -1; ///< json: certificate_samples, smallest certified N (null if none within budget)
    bool structural = false;   ///< json: structural
    int structuralNullDim = 0; ///< json: structural_null_dim
    long long budget = 0;      ///< json: budget
    long long samplesAccumulated =
        0; ///< json: samples_accumulated, work done (bisection re-accumulates)
    std::vector<SampleCheckpoint> checkpoints; ///< json: checkpoints, sorted by samples
    std::string note;                          ///< json: note
};

/// The smallest N for which Lambda_N of the first N training samples (Stream::Train, the prefix
/// the runner uses) is certified: lambda_min > tau.
///
/// Method: for N < D, Lambda_N has rank <= N < D, so N >= D. Prefix moments are accumulated once
/// along the doubling checkpoints D, 2D, 4D, ... <= budget, keeping a copy of the accumulator at
/// the last uncertified checkpoint; the first certified interval (N_lo, N_hi] is bisected by
/// continuing from that copy (the copy moves forward at each uncertified midpoint, so each
/// sample of the interval is accumulated at most twice). Bisection assumes that certification,
/// once reached, persists (the raw sum N Lambda_N only grows in the PSD order; the ratio to
/// lambda_max can in principle dip, which is not searched for).
///
/// Structural case: when three consecutive checkpoints N, 2N, 4N (with N >= 4 D by default)
/// have the same non-zero null dimension, the null space is attributed to the task's
/// distribution (exact relations among the features, see nullRelations): structural = true and
/// the search stops. This is a heuristic: a rare event that would eventually fill a direction
/// looks structural until it occurs.
[[nodiscard]] CertificateSamplesResult certificateSamples(const Task& task,
                                                          const CertificateSamplesOptions& opt = {},
                                                          const RunContext& ctx = {});

[[nodiscard]] QJsonObject toJson(const CertificateSamplesResult& r);

} // namespace mhla
