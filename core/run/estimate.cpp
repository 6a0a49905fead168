#include "core/run/estimate.h"
#include "core/algebra/certificate.h"
#include "core/algebra/cholesky.h"
#include "core/algebra/features.h"
#include "core/algebra/model.h"
#include "core/base/parallel.h"
#include "core/base/types.h"
#include "core/run/admission.h"
#include "core/run/explorer.h"
#include <algorithm>
#include <cmath>
#include <cstdio>

namespace mhla {

namespace {

// Rates of the reference machine (2 cores shared by several users, Eigen 3.4, -O3 -march=native,
// one thread), calibrated with tests/tst_estimate.cpp, which prints estimate / measured per
// configuration. Measured 2026-11-30: with the machine loaded (load 5-9) the run times are 2-5x
// those of the idle machine; these rates sit between the two, so the estimate is within a factor
// ~3 either way (idle: estimate / measured 1.9-3.0; loaded: 0.5-1.5). Recalibrated the same day
// after the accumulation kernel and the faster sampling (the old rates overestimated by up to
// 8.4x): accumulation 5 -> 20 GFLOP/s, per-sample work 1 -> 4 GFLOP/s and 2 -> 0.3 us a prompt,
// and the explorer's phase added; idle ratios now 1.4-3.5. Flop counts are those of the
// algorithms (multiply + add = 2).
//
//   accumulation  N * D^2 / 2 flops (the d(d+1)/2 triangular P x P blocks) + sample generation
constexpr double kAccumulateFlopsPerSec = 20.0e9;
//   dense eigenvalues only: ~ 4/3 D^3 (tridiagonalisation) at this rate
constexpr double kEigenvaluesFlopsPerSec = 3.0e9;
//   dense eigendecomposition with eigenvectors: ~ 9 D^3
constexpr double kEigenvectorsFlopsPerSec = 4.0e9;
//   Cholesky D^3 / 3: Eigen's on one core below kParallelCholeskyMinDim, the blocked one on
//   every core above (measured 2026-12-07 on the idle 2-core Zen 1: 20-28 GFLOP/s at
//   D = 2176-7200, 2.0-2.5x Eigen's 10-11; d = 32's certificate+solve took 64.5 s, estimated
//   100 s at this rate)
constexpr double kCholeskyFlopsPerSec = 8.0e9;
constexpr double kBlockedCholeskyFlopsPerSec = 16.0e9;
double choleskySeconds(double D) {
    return D * D * D / 3 /
           (D >= static_cast<double>(kParallelCholeskyMinDim) ? kBlockedCholeskyFlopsPerSec
                                                              : kCholeskyFlopsPerSec);
}
//   Lanczos: ~ kLanczosProducts products with Lambda and as many pairs of triangular solves,
//   2 D^2 flops each, memory bound
constexpr double kLanczosProducts = 100;
constexpr double kMatVecFlopsPerSec = 2.0e9;
//   SVD of unfold(P), (d_out d) x d^2: ~ 20 m n^2 ... use 12 n^3 for the square case
constexpr double kSvdFlopsPerSec = 2.0e9;
//   the explorer's fewest-heads search: SVDs of unfold(P) per run (measured 40-80 at d = 4-8)
constexpr double kExploreSvds = 60;
//   per-sample work (prompt generation, feature map, P psi): small matrix code, slow
constexpr double kSampleFlopsPerSec = 4.0e9;
constexpr double kSampleOverheadSec = 0.3e-6; ///< allocations and RNG per generated prompt
//   trainers: forward + backward ~ 2 * workPerSample flops per sample (workPerSample = 3 params
//   [* tokens for the token-wise models]); evaluation ~ 1/3 of that
constexpr double kTrainFlopsPerSec = 1.2e9;

double cube(double x) { return x * x * x; }

/// Flops to generate one prompt of the task and its label (S = Z Z^T and the teacher).
double promptFlops(const ExperimentConfig& cfg) {
    const double d = cfg.promptDim(), n = cfg.tokenCount(), dOut = cfg.outputDim();
    const double H = cfg.task.kind == TaskKind::RandomMhla ? cfg.task.teacherHeads : 1.0;
    return 2 * d * d * n + H * 2 * (dOut * d + d * d + d * d) + d * n;
}

double sampleSeconds(double flops, double count) {
    return count * (flops / kSampleFlopsPerSec + kSampleOverheadSec);
}

struct TrainerShape {
    double params = 0;
    double workPerSample = 0; ///< as TrainableModel::workPerSample()
};

TrainerShape trainerShape(const ExperimentConfig& cfg) {
    TrainerShape t;
    const double d = cfg.promptDim(), n = cfg.tokenCount(), dOut = cfg.outputDim();
    const double H = std::max(1, cfg.solver.heads);
    switch (cfg.solver.kind) {
    case SolverKind::Mhla:
        t.params = dOut * H * d + H * d * d;
        t.workPerSample = 3 * t.params;
        break;
    case SolverKind::Multilayer:
        t.params = cfg.solver.layers * 2.0 * H * d * d + dOut * d;
        t.workPerSample = 3 * t.params * n;
        break;
    case SolverKind::Softmax: {
        const double dh = static_cast<int>(d) % static_cast<int>(H) == 0 ? d / H : d;
        const double Hdh = H * dh;
        t.params = 4 * Hdh * d + 4 * d + 4 * d * d + 3 * d + dOut * d;
        t.workPerSample = 3 * (3 * Hdh * d * n + 2 * Hdh * n + t.params);
        break;
    }
    case SolverKind::Poly: break;
    }
    return t;
}

} // namespace

namespace {

/// The phases of the exact solver (accumulation, trace, certificate and solve, evaluation,
/// heads, explorer) and the extra time if the certificate fails.
void addExactPhases(const ExperimentConfig& cfg, RunEstimate& e) {
    const int dInt = cfg.promptDim();
    const double d = dInt, dOut = cfg.outputDim();
    const double D = static_cast<double>(featureDim(dInt));
    const double N = static_cast<double>(cfg.task.samples);
    const double val = static_cast<double>(cfg.eval.valSamples);
    const double ood = static_cast<double>(cfg.eval.oodSamples);
    const double gen = promptFlops(cfg);
    const bool poly = cfg.solver.kind == SolverKind::Poly;
    e.phases.emplace_back("accumulate",
                          N * D * D / 2 / kAccumulateFlopsPerSec + sampleSeconds(gen, N));
    // lambda_min trace, only for small D: at each checkpoint dense eigenvalues, or above the
    // dense crossover a Cholesky factor and shift-invert Lanczos (smallestEigenvalue()).
    if (cfg.eval.lambdaTrace > 0 && D <= kLambdaTraceMaxFeatureDim) {
        const double each =
            D > static_cast<double>(CertifyOptions{}.denseCrossover)
                ? choleskySeconds(D) + kLanczosProducts * 4 * D * D / kMatVecFlopsPerSec / 2
                : 4.0 / 3.0 * cube(D) / kEigenvaluesFlopsPerSec;
        e.phases.emplace_back("lambda_trace", (cfg.eval.lambdaTrace + 1) * each);
    }
    CertifyOptions opt;
    opt.fullSpectrum = computesFullSpectrum(cfg.eval.spectrum, static_cast<long long>(D));
    double solve = choleskySeconds(D) + 2 * dOut * D * D / kMatVecFlopsPerSec;
    if (cfg.solver.ridge > 0 || chooseCertifyPath(static_cast<Index>(D), opt) == CertifyPath::Dense)
        solve += 4.0 / 3.0 * cube(D) / kEigenvaluesFlopsPerSec;
    else solve += kLanczosProducts * 4 * D * D / kMatVecFlopsPerSec;
    e.phases.emplace_back("certificate+solve", solve);
    const double denseExtra = 9 * cube(D) / kEigenvectorsFlopsPerSec;
    if (!opt.fullSpectrum && cfg.solver.ridge <= 0 && D > opt.nullSpaceCrossover) {
        // Two more Cholesky factorisations (Lambda + delta I, Lambda + N N^T) and a few
        // steps of block inverse iteration for the null space.
        e.extraIfNotCertified =
            2 * choleskySeconds(D) + 8 * kLanczosProducts * 4 * D * D / kMatVecFlopsPerSec;
        e.extraIfLargeNullSpace = denseExtra;
    } else e.extraIfNotCertified = denseExtra;
    // Metrics of the exact solution: the runner evaluates P on N + val + OOD prompts (the
    // OOD ones twice: model and teacher).
    const double evalFlops = gen + D + 2 * dOut * D;
    const double evalOnce =
        sampleSeconds(evalFlops, N + val) + sampleSeconds(evalFlops + gen, 2 * ood);
    double evaluations = 1;
    if (poly && cfg.solver.heads > 0) evaluations += 1; // untruncated and truncated
    if (!poly) evaluations = 1;                         // the exact reference
    e.phases.emplace_back("evaluate", evaluations * evalOnce);
    const double W = dOut * d, Wc = d * d;
    const double svd = 12 * std::min(W, Wc) * std::min(W, Wc) * std::max(W, Wc) / kSvdFlopsPerSec;
    e.phases.emplace_back("heads", svd);
    // The identifiability explorer (small D only): the fewest heads (a proximal iteration,
    // one SVD of unfold(P) a step, measured ~60 steps) and the certificate's sample curve (a
    // dense lambda_min at each of ~12 sizes, as the trace).
    if (poly && explores(cfg, static_cast<long long>(D))) {
        e.phases.emplace_back("explore", kExploreSvds * svd +
                                             13 * 4.0 / 3.0 * cube(D) / kEigenvaluesFlopsPerSec);
        // Not certified, it also evaluates the minimum-norm path once more and probes three
        // alternative fits (each with its OOD error).
        e.extraIfNotCertified += evalOnce + 3 * sampleSeconds(2 * gen, 2 * ood);
    }
    // N < D: Lambda (a sum of N rank-one terms) has rank <= N, so lambda_min = 0 and the
    // null space has at least D - N dimensions. The failure path is then the estimate.
    if (N < D) {
        e.certificateFailureCertain = true;
        const bool large = e.extraIfLargeNullSpace > 0 && D - N > kMaxIterativeNullDim;
        e.phases.emplace_back("not certified (N < D)",
                              large ? e.extraIfLargeNullSpace : e.extraIfNotCertified);
        e.extraIfNotCertified = e.extraIfLargeNullSpace = 0;
    }
}

/// A trainer's time: the data sets, the minibatches, the history points and the final OOD error.
double trainSeconds(const ExperimentConfig& cfg) {
    const double N = static_cast<double>(cfg.task.samples);
    const double val = static_cast<double>(cfg.eval.valSamples);
    const double ood = static_cast<double>(cfg.eval.oodSamples);
    const double gen = promptFlops(cfg);
    const TrainerShape t = trainerShape(cfg);
    const double epochs = cfg.solver.epochs;
    const double logged = std::floor(epochs / std::max(1, cfg.solver.logEvery)) + 2;
    const double stepWork = 2 * t.workPerSample; // forward + backward + optimiser
    const double evalWork = t.workPerSample / 3 * 2;
    const double kHistoryOod = std::min(ood, 512.0);
    double train = sampleSeconds(gen, N + val);                               // data sets
    train += epochs * N * stepWork / kTrainFlopsPerSec;                       // minibatches
    train += logged * (N + val + kHistoryOod) * evalWork / kTrainFlopsPerSec; // history points
    train += sampleSeconds(gen + evalWork, 2 * ood);                          // final OOD error
    return train;
}

} // namespace

RunEstimate estimateRun(const ExperimentConfig& cfg, int threads) {
    RunEstimate e;
    const int dInt = cfg.promptDim();
    const double dOut = cfg.outputDim();
    const double D = static_cast<double>(featureDim(dInt));
    const double gen = promptFlops(cfg);
    const bool poly = cfg.solver.kind == SolverKind::Poly;
    if (poly || cfg.solver.compareExact) addExactPhases(cfg, e);
    if (!poly) e.phases.emplace_back("train", trainSeconds(cfg));
    if (cfg.task.kind == TaskKind::Automaton) {
        const double L = cfg.task.wordLength, words = cfg.eval.words;
        // Two table prompts per step (model and teacher), the feature map and P psi.
        e.phases.emplace_back("execute", sampleSeconds(2 * gen + D + 2 * dOut * D, words * L));
    }

    for (const auto& [name, s] : e.phases) e.seconds += s;
    e.bytes = estimateRunBytes(cfg, threads);
    return e;
}

BatchEstimate estimateBatch(const std::vector<const ExperimentConfig*>& runs, int jobs) {
    BatchEstimate b;
    b.runs = runs.size();
    b.jobs = std::max(1, std::min<int>(jobs, static_cast<int>(std::max<size_t>(1, runs.size()))));
    const int cores = resolveThreads(0);
    const int threadsPerRun = std::max(1, cores / b.jobs);
    double longest = -1, largest = -1;
    for (size_t i = 0; i < runs.size(); ++i) {
        const RunEstimate e = estimateRun(*runs[i], threadsPerRun);
        b.cpuSeconds += e.seconds;
        if (e.seconds > longest) {
            longest = e.seconds;
            b.longest = i;
            b.longestRun = e;
        }
        if (e.bytes > largest) {
            largest = e.bytes;
            b.largest = i;
        }
    }
    b.seconds = b.cpuSeconds / std::max(1, std::min(b.jobs, cores));
    b.bytes = std::max(0.0, largest) * b.jobs;
    return b;
}

std::string BatchEstimate::describe() const {
    if (runs == 1) return longestRun.describe();
    return std::to_string(runs) + " runs, about " + formatDuration(seconds) + " on " +
           std::to_string(jobs) + (jobs == 1 ? " job" : " jobs") + " and " + formatBytes(bytes) +
           " (the longest run: " + longestRun.describe() + ")";
}

std::string longRunRefusal(const BatchEstimate& e, const std::string& what) {
    if (e.seconds <= kLongRunSeconds) return {};
    return what + " is estimated at " + formatDuration(e.seconds) + " (more than " +
           formatDuration(kLongRunSeconds) +
           "); pass --yes to run it anyway, or choose smaller sizes";
}

std::string formatDuration(double s) {
    char buf[64];
    if (!std::isfinite(s)) return "forever";
    // Rounded once to the unit shown, so 59.7 s reads "1 min 00 s", never "60 s" or "0 min 60 s".
    if (std::llround(s * 1e3) < 1000) {
        std::snprintf(buf, sizeof buf, "%lld ms", std::llround(s * 1e3));
    } else if (std::llround(s) < 60) {
        std::snprintf(buf, sizeof buf, "%lld s", std::llround(s));
    } else if (std::llround(s) < 3600) {
        const long long t = std::llround(s);
        std::snprintf(buf, sizeof buf, "%lld min %02lld s", t / 60, t % 60);
    } else if (std::llround(s / 60) < 24 * 60) {
        const long long m = std::llround(s / 60);
        std::snprintf(buf, sizeof buf, "%lld h %02lld min", m / 60, m % 60);
    } else {
        std::snprintf(buf, sizeof buf, "%.1f days", s / 86400);
    }
    return buf;
}

std::string formatBytes(double b) {
    char buf[64];
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    int u = 0;
    while (b >= 1024 && u < 5) {
        b /= 1024;
        ++u;
    }
    std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", b, units[u]);
    return buf;
}

std::string RunEstimate::describe() const {
    std::string s = "about " + formatDuration(seconds) + " and " + formatBytes(bytes) + " (";
    bool first = true;
    for (const auto& [name, sec] : phases) {
        if (sec < 0.05 * seconds && phases.size() > 1) continue;
        if (!first) s += ", ";
        s += name + " " + formatDuration(sec);
        first = false;
    }
    s += ")";
    if (certificateFailureCertain)
        s += "; the certificate cannot hold with fewer samples than features (N < D), so this "
             "includes its failure path";
    if (extraIfNotCertified > 0.5) {
        s += "; " + formatDuration(extraIfNotCertified) + " more if the certificate fails";
        if (extraIfLargeNullSpace > extraIfNotCertified)
            s += " (up to " + formatDuration(extraIfLargeNullSpace) +
                 " if its null space has over " + std::to_string(kMaxIterativeNullDim) +
                 " dimensions)";
    }
    return s;
}

} // namespace mhla
