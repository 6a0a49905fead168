#include "core/run/exact.h"
#include "core/algebra/features.h"
#include "core/base/parallel.h"
#include "core/base/stopwatch.h"
#include "core/run/progressplan.h"
#include <algorithm>
#include <cmath>

namespace mhla {

/// Sample counts at which lambda_min is recorded (geometric from D/2 to N).
std::vector<long long> traceCheckpoints(long long D, long long N, int count) {
    std::vector<long long> out;
    if (count <= 0 || D > kLambdaTraceMaxFeatureDim) return out;
    const double lo = std::max(1.0, static_cast<double>(D) / 2.0), hi = static_cast<double>(N);
    for (int i = 0; i < count; ++i) {
        const double t = count == 1 ? 1.0 : static_cast<double>(i) / (count - 1);
        const long long k = std::llround(lo * std::pow(hi / lo, t));
        if (k >= 1 && k <= N && (out.empty() || k > out.back())) out.push_back(k);
    }
    if (out.empty() || out.back() != N) out.push_back(N);
    return out;
}

/// Streams the training samples in blocks into Lambda and C, then certifies and solves.
ExactOutput runExact(const Task& task, const ExperimentConfig& cfg, const RunContext& ctx,
                     double fractionEnd) {
    ExactOutput out;
    const int d = task.d(), dOut = task.dOut();
    const long long N = cfg.task.samples;
    const long long D = featureDim(d);
    MomentAccumulator acc(d, dOut);
    const long long B = kAccumulationBlock;
    const std::vector<long long> checkpoints = traceCheckpoints(D, N, cfg.eval.lambdaTrace);
    size_t nextCheckpoint = 0;

    const auto t0 = Clock::now();
    // The training rows are kept (when they fit) as the blocks they are drawn in; else one
    // block's storage is reused.
    SampleBlock scratch;
    std::shared_ptr<SampleRows> rows;
    if (trainRowCacheBytes(d, dOut, N) > 0) {
        rows = std::make_shared<SampleRows>();
        rows->blocks.reserve(static_cast<size_t>((N + B - 1) / B + checkpoints.size()));
    }
    long long seen = 0;
    while (seen < N) {
        ctx.checkCancel();
        long long end = std::min(N, seen + B);
        if (nextCheckpoint < checkpoints.size()) end = std::min(end, checkpoints[nextCheckpoint]);
        SampleBlock& block = rows ? rows->blocks.emplace_back() : scratch;
        block.first = seen;
        fillSampleBlock(task, Stream::Train, seen, end - seen, block.U, block.Qz, block.Y,
                        ctx.threads, ctx.cancel);
        acc.addBlock(block.U, block.Qz, block.Y, ctx.threads, ctx.cancel);
        seen = end;
        ProgressEvent ev{"generate+accumulate",
                         fractionEnd * progress::kAccumulateEnd * static_cast<double>(seen) / N,
                         seen};
        // The checkpoint at N is the certificate's own lambda_min (added after certify()
        // below): computing it here would repeat that factorisation and Lanczos run.
        if (nextCheckpoint < checkpoints.size() && seen == checkpoints[nextCheckpoint] &&
            seen < N) {
            const double lmin = smallestEigenvalue(acc.lambda(), ctx);
            out.trace.emplace_back(seen, lmin);
            ev.lambdaMinSoFar = lmin;
            ++nextCheckpoint;
        }
        ctx.report(ev);
    }
    out.accumulateMs = msSince(t0);
    out.trainRows = std::move(rows);

    const auto t1 = Clock::now();
    ctx.report(ProgressEvent{"certificate+solve", fractionEnd * progress::kAccumulateEnd, seen});
    CertifyOptions opt;
    opt.toleranceRel = cfg.solver.tolerance;
    opt.fullSpectrum = computesFullSpectrum(cfg.eval.spectrum, D);
    out.lambda = std::make_shared<const Mat>(acc.lambda());
    if (!task.hasTargets()) {
        // No targets (a dataset of prompts alone): the certificate, nothing to solve for.
        out.solution.certificate = certify(out.lambda, opt, "auto", ctx);
        out.solution.method = "none";
    } else {
        out.solution = solveCertified(out.lambda, acc.crossMoment(), cfg.solver.ridge, opt, ctx);
    }
    if (!checkpoints.empty() && checkpoints.back() == N)
        out.trace.emplace_back(N, out.solution.certificate.lambdaMin);
    out.solveMs = msSince(t1);
    return out;
}

} // namespace mhla
