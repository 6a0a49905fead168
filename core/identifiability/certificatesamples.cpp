#include "core/identifiability/certificatesamples.h"
#include "core/algebra/certificate.h"
#include "core/algebra/features.h"
#include "core/algebra/model.h"
#include "core/base/parallel.h"
#include "core/base/rng.h"
#include "core/base/text.h"
#include "core/identifiability/lowrank.h"
#include "core/identifiability/reportjson.h"
#include "core/identifiability/representatives.h"
#include "core/tasks/samplerows.h"
#include "core/tasks/tasks.h"
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

/// The last three doubling checkpoints, the first at structuralFrom samples or more, share a
/// positive null dimension: more data does not shrink the null space.
bool nullDimStalled(const std::vector<SampleCheckpoint>& doubling, long long structuralFrom) {
    const size_t c = doubling.size();
    return c >= 3 && doubling[c - 3].samples >= structuralFrom && doubling[c - 3].nullDim > 0 &&
           doubling[c - 3].nullDim == doubling[c - 2].nullDim &&
           doubling[c - 2].nullDim == doubling[c - 1].nullDim;
}

/// The one-line outcome: certified from N, structural, fewer samples than features, or the
/// budget spent.
std::string samplesNote(const CertificateSamplesResult& r) {
    if (r.certificateSamples > 0)
        return "certified from N = " + std::to_string(r.certificateSamples) +
               " samples (D = " + std::to_string(r.featureDim) + ")";
    else if (r.structural)
        return "structural: the null dimension stayed " + std::to_string(r.structuralNullDim) +
               " while N doubled twice; the task's distribution ties features together and more data "
               "will not certify (see the null relations)";
    else if (r.budget < r.featureDim)
        return "not certified: " + std::to_string(r.budget) +
               " samples are fewer than the D = " + std::to_string(r.featureDim) +
               " features, so the second moment cannot have full rank";
    else return "not certified within the budget of " + std::to_string(r.budget) + " samples";
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
        if (doubled && nullDimStalled(doubling, structuralFrom)) {
            out.structural = true;
            out.structuralNullDim = cp.nullDim;
            break;
        }
    }
    std::sort(
        out.checkpoints.begin(), out.checkpoints.end(),
        [](const SampleCheckpoint& a, const SampleCheckpoint& b) { return a.samples < b.samples; });
    out.note = samplesNote(out);
    return out;
}

QJsonObject toJson(const CertificateSamplesResult& r) {
    QJsonArray cps;
    for (const SampleCheckpoint& c : r.checkpoints)
        cps.append(QJsonObject{{q("samples"), static_cast<qint64>(c.samples)},
                               {q("lambda_min"), jsonNumber(c.lambdaMin)},
                               {q("lambda_max"), jsonNumber(c.lambdaMax)},
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

} // namespace mhla
