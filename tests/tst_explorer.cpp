// The identifiability explorer as a run reports it (result.json "identifiability"): which runs
// explore, and what it finds on the associative memory with Gaussian and orthonormal keys.
#include "core/explorer.h"
#include "core/resultio.h"
#include "core/runner.h"
#include <QTest>

using namespace mhla;

namespace {
ExperimentConfig small(double p) {
    ExperimentConfig cfg;
    cfg.task.orthogonalProb = p;
    cfg.task.samples = 4096;
    cfg.eval.valSamples = cfg.eval.oodSamples = 512;
    return cfg;
}
} // namespace

class TestExplorer : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void certifiedAssociativeMemory() {
        const ExperimentResult r = runExperiment(small(0.0));
        QVERIFY(r.certificate.certified);
        QVERIFY(r.identifiability.has_value());
        const IdentifiabilityReport& x = *r.identifiability;
        QCOMPARE(x.minHeads.minHeads, 1);   // one head: V* = [0|I], Q* = [[I,0],[0,0]]
        QVERIFY(x.minHeads.unfoldRank > 1); // while unfold(P) has a larger rank
        QCOMPARE(x.certificateSamples.certificateSamples, r.featureDim); // exactly D = 40
        QVERIFY(!x.nullRelations.has_value());
        QVERIFY(x.probes.empty());
        const QJsonObject j = resultToJson(r).value(QStringLiteral("identifiability")).toObject();
        QCOMPARE(j.value(QStringLiteral("min_heads"))
                     .toObject()
                     .value(QStringLiteral("min_heads"))
                     .toInt(),
                 1);
    }
    void orthonormalKeysLeaveFourRelationsFree() {
        const ExperimentResult r = runExperiment(small(1.0));
        QVERIFY(!r.certificate.certified);
        const IdentifiabilityReport& x = *r.identifiability;
        QVERIFY(x.certificateSamples.structural);
        QCOMPARE(x.certificateSamples.structuralNullDim, 4);
        QVERIFY(x.nullRelations.has_value());
        QCOMPARE(x.nullRelations->nullDim, 4);
        QCOMPARE(static_cast<int>(x.nullRelations->relations.size()), 4);
        QCOMPARE(x.nullRelations->rationalCount, 4);
        QCOMPARE(static_cast<int>(x.probes.size()), 3);
        // H = 2: another exact fit exists, and it is wrong out of distribution.
        const ProbeReport& two = x.probes[1];
        QCOMPARE(two.probe.heads, 2);
        QVERIFY(two.probe.found);
        QVERIFY(two.oodRelMse > 1e-4);
        QVERIFY(two.probe.fitResidualRel <= 1e-10);
    }
    void whichRunsExplore() {
        ExperimentConfig cfg = small(0.0);
        cfg.eval.identifiability = ExploreMode::None;
        QVERIFY(!runExperiment(cfg).identifiability.has_value());
        QVERIFY(explores(small(0.0), 40));
        QVERIFY(!explores(small(0.0), kExploreAutoMaxD + 1));
        ExperimentConfig full = small(0.0);
        full.eval.identifiability = ExploreMode::Full;
        QVERIFY(explores(full, kExploreAutoMaxD + 1));
        ExperimentConfig trainer = small(0.0);
        trainer.solver.kind = SolverKind::Mhla;
        trainer.solver.heads = 1;
        QVERIFY(!explores(trainer, 40));
    }
};

QTEST_APPLESS_MAIN(TestExplorer)
#include "tst_explorer.moc"
