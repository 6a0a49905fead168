#include "core/explorer.h"
#include "core/features.h"
#include "core/metrics.h"
#include <QJsonArray>

namespace mhla {

bool explores(const ExperimentConfig& cfg, long long featureDim) {
    if (cfg.solver.kind != SolverKind::Poly) return false;
    switch (cfg.eval.identifiability) {
    case ExploreMode::Full: return true;
    case ExploreMode::None: return false;
    case ExploreMode::Auto: return featureDim <= kExploreAutoMaxD;
    }
    return false;
}

IdentifiabilityReport exploreIdentifiability(const Task& task, const ExperimentConfig& cfg,
                                             const Mat& lambda, const Mat& P, const Metrics& fit,
                                             const ExperimentResult& r, const RunContext& ctx) {
    IdentifiabilityReport out;
    const int d = task.d();
    MinHeadsOptions mh;
    mh.rankTol = cfg.solver.rankTolerance;
    out.minHeads = minHeads(P, d, mh, ctx);

    CertificateSamplesOptions cs;
    cs.toleranceRel = cfg.solver.tolerance;
    out.certificateSamples = certificateSamples(task, cs, ctx);

    if (!r.certificate.certified) {
        NullRelationsOptions nr;
        nr.toleranceRel = cfg.solver.tolerance;
        out.nullRelations = nullRelations(lambda, d, nr);
        ProbeOptions po;
        po.toleranceRel = cfg.solver.tolerance;
        for (int H : {1, 2, 4}) {
            ProbeReport rep;
            rep.probe = probeAlternativeFit(lambda, P, d, H, po, ctx);
            if (rep.probe.found && rep.probe.alternativeP.size() > 0) {
                const Mat alt = rep.probe.alternativeP;
                const long long D = featureDim(d);
                rep.oodRelMse = oodRelMse(
                    task,
                    [&](const Mat& Z) {
                        Vec psi(D);
                        featureVectorInto(Z, psi.data());
                        return Vec(alt * psi);
                    },
                    cfg.eval.oodSamples, ctx);
            }
            out.probes.push_back(std::move(rep));
        }
    }

    NoiseInputs in;
    in.samples = cfg.task.samples;
    in.trainMse = fit.trainMse;
    in.configuredNoise = cfg.task.kind == TaskKind::RandomMhla ? cfg.task.noise : 0.0;
    in.referenceP = r.teacherP;
    in.oodMoment = genericFeatureMoment(d, task.tokens(), 1.0);
    in.measuredDistanceP2 = fit.distanceP * fit.distanceP;
    in.measuredOodRelMse = fit.oodRelMse;
    NoiseOptions no;
    no.toleranceRel = cfg.solver.tolerance;
    out.noise = noiseAnalysis(lambda, in, no, ctx);
    return out;
}

QJsonObject toJson(const IdentifiabilityReport& report) {
    QJsonObject o;
    o.insert(QStringLiteral("min_heads"), toJson(report.minHeads));
    o.insert(QStringLiteral("certificate_samples"), toJson(report.certificateSamples));
    if (report.nullRelations)
        o.insert(QStringLiteral("null_relations"), toJson(*report.nullRelations));
    if (!report.probes.empty()) {
        QJsonArray probes;
        for (const ProbeReport& p : report.probes) {
            QJsonObject j = toJson(p.probe);
            j.insert(QStringLiteral("ood_rel_mse"), std::isfinite(p.oodRelMse)
                                                        ? QJsonValue(p.oodRelMse)
                                                        : QJsonValue(QJsonValue::Null));
            probes.append(j);
        }
        o.insert(QStringLiteral("probes"), probes);
    }
    o.insert(QStringLiteral("noise"), toJson(report.noise));
    return o;
}

} // namespace mhla
