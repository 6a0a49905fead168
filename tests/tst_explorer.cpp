// The identifiability explorer as a run reports it (result.json "identifiability"): which runs
// explore, and what it finds on the associative memory with Gaussian and orthonormal keys.
#include "core/records/resultio.h"
#include "core/run/explorer.h"
#include "core/run/metrics.h"
#include "core/run/runner.h"
#include "smallconfigs.h"
#include <QJsonArray>
#include <QTest>
#include <cmath>

using namespace mhla;

namespace {
ExperimentConfig small(double p) { return test::smallAutomatonConfig(p); }
} // namespace

class TestExplorer : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // The progress contract (core/base/types.h): the whole run's fraction never goes back and
    // ends at 1, and only the accumulation reports the certificate trace (the explorer's own
    // checkpoints are not a live lambda_min). Before the explorer had a slice of the run, `solve
    // --progress` printed 90% -> 0% -> 50% -> 1.6% -> 100%.
    void progressNeverGoesBack_data() {
        QTest::addColumn<double>("p");
        QTest::newRow("certified (p = 0)") << 0.0;
        QTest::newRow("not certified (p = 1): every explorer step runs") << 1.0;
    }
    void progressNeverGoesBack() {
        QFETCH(double, p);
        std::vector<ProgressEvent> events;
        RunContext ctx;
        ctx.progress = [&events](const ProgressEvent& e) { events.push_back(e); };
        const ExperimentResult r = runExperiment(small(p), ctx);
        QVERIFY(r.identifiability.has_value());
        QVERIFY(events.size() > 3);
        bool explored = false;
        for (size_t i = 0; i < events.size(); ++i) {
            const ProgressEvent& e = events[i];
            QVERIFY2(e.fraction >= 0.0 && e.fraction <= 1.0, e.phase.c_str());
            if (i > 0)
                QVERIFY2(
                    e.fraction >= events[i - 1].fraction,
                    qPrintable(
                        QString::fromStdString(events[i - 1].phase + " -> " + e.phase) +
                        QStringLiteral(": %1 -> %2").arg(events[i - 1].fraction).arg(e.fraction)));
            if (std::isfinite(e.lambdaMinSoFar))
                QCOMPARE(QString::fromStdString(e.phase), QStringLiteral("generate+accumulate"));
            explored = explored || e.phase.rfind("min_heads", 0) == 0;
        }
        QVERIFY(explored); // the explorer's events reach the run's progress
        QCOMPARE(events.back().fraction, 1.0);
    }

    void certifiedAssociativeMemory() {
        const ExperimentResult r = runExperiment(small(0.0));
        QVERIFY(r.certificate.certified);
        QVERIFY(r.identifiability.has_value());
        const IdentifiabilityReport& x = *r.identifiability;
        QVERIFY(x.minHeads.has_value());
        QCOMPARE(x.minHeads->minHeads, 1);   // one head: V* = [0|I], Q* = [[I,0],[0,0]]
        QVERIFY(x.minHeads->unfoldRank > 1); // while unfold(P) has a larger rank
        QCOMPARE(x.certificateSamples.certificateSamples, r.featureDim); // exactly D = 40
        QVERIFY(!x.nullRelations.has_value());
        QVERIFY(x.probes.empty());
        QVERIFY(!x.nullPath.has_value()); // certified: nothing is free
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
    // The slider of the explorer: P(t) = P + t ||P*|| e_1 v^T along a null relation v keeps the
    // training loss at round-off while the OOD error grows; at t = 0 it is the fit itself.
    void nullPathKeepsTheFitAndChangesTheFunction() {
        const ExperimentConfig cfg = small(1.0);
        const ExperimentResult r = runExperiment(cfg);
        QVERIFY(!r.certificate.certified);
        const IdentifiabilityReport& x = *r.identifiability;
        QVERIFY(x.nullRelations.has_value() && !x.nullRelations->relations.empty());
        QCOMPARE(x.fitP.rows(), r.P.rows());
        const auto task = makeTask(cfg.task);
        const Vec v = x.nullRelations->relations.front().vector;
        const NullPath path = nullPath(*task, cfg, x.fitP, v, 0);
        // The run carries the same path (the explorer's default direction), computed in core.
        QVERIFY(x.nullPath.has_value());
        QCOMPARE(x.nullPath->oodQuad, path.oodQuad);
        QCOMPARE(x.nullPath->atZero.oodRelMse, r.metrics.oodRelMse);
        // t = 0 is the run's own fit, bit for bit (same samples, same summation order).
        const Metrics zero = nullPathMetrics(path, 0.0);
        QCOMPARE(zero.trainMse, r.metrics.trainMse);
        QCOMPARE(zero.oodRelMse, r.metrics.oodRelMse);
        QCOMPARE(zero.distanceP, r.metrics.distanceP);
        // Round-off: the training loss of an exact fit is ~1e-31 (the labels are O(1)).
        QVERIFY2(r.metrics.trainMse < 1e-24, qPrintable(QString::number(r.metrics.trainMse)));
        double prevOod = zero.oodRelMse;
        for (double t : {0.25, 0.5, 1.0, 2.0}) {
            for (double s : {t, -t}) {
                const Metrics m = nullPathMetrics(path, s);
                QVERIFY2(m.trainMse < 1e-24, qPrintable(QString::number(m.trainMse)));
                // |distance to P*|: the step has norm |t| ||P*||, and P is close to P* here.
                QVERIFY(std::abs(m.distancePRel - std::abs(s)) < 0.5 * std::abs(s) + 0.1);
            }
            const Metrics m = nullPathMetrics(path, t);
            QVERIFY2(m.oodRelMse > prevOod, qPrintable(QString::number(m.oodRelMse)));
            prevOod = m.oodRelMse;
        }
        QVERIFY(nullPathMetrics(path, 1.0).oodRelMse > 1e-2);
        // The quadratic is an identity: it matches a direct evaluation of P(t) to 1e-9 relative.
        for (double t : {0.7, -1.3}) {
            const Metrics q = nullPathMetrics(path, t);
            const Metrics e = evaluateFolded(*task, nullPathP(path, t), cfg);
            QVERIFY(std::abs(q.oodRelMse - e.oodRelMse) <= 1e-9 * e.oodRelMse);
            QVERIFY(std::abs(q.valMse - e.valMse) <= 1e-9 * e.valMse + 1e-24);
            QVERIFY(std::abs(q.trainMse - e.trainMse) <= 1e-24);
            QVERIFY(std::abs(q.distanceP - e.distanceP) <= 1e-12 * e.distanceP);
        }
        // The teacher's own heads in canonical form: one head (the associative memory).
        QCOMPARE(x.teacherMinimalHeads.count(), 1);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 nullPath(*task, cfg, x.fitP, Vec::Zero(v.size()), 0));
    }
    // Issue 11 §2: in distribution the fit and the null witness execute the automaton as well as
    // the teacher; only out of distribution (other codes) does the freedom show.
    void automatonExecutionOutOfDistribution() {
        ExperimentConfig cfg;
        cfg.task.kind = TaskKind::Automaton;
        cfg.task.states = 2;
        cfg.task.alphabet = 2;
        cfg.task.embedding = Embedding::OneHot;
        cfg.task.wordLength = 12;
        cfg.task.samples = 1024;
        cfg.eval.valSamples = cfg.eval.oodSamples = 256;
        cfg.eval.words = 100;
        cfg.eval.identifiability = ExploreMode::Full;
        const ExperimentResult r = runExperiment(cfg);
        QVERIFY(!r.certificate.certified);
        const IdentifiabilityReport& x = *r.identifiability;
        QCOMPARE(static_cast<int>(x.oodExecution.size()), 3);
        const OodExecution& in = x.oodExecution[0];
        QCOMPARE(QString::fromStdString(in.variant), QStringLiteral("in_distribution"));
        QCOMPARE(in.fit.stepAccuracy, 1.0);
        QCOMPARE(in.witness.stepAccuracy, 1.0);
        QCOMPARE(in.fit.teacherStepAccuracy, 1.0);
        // The run's own execution is the in-distribution fit (same words, same seed).
        QCOMPARE(in.fit.stepAccuracy, r.execution->stepAccuracy);
        const OodExecution& codes = x.oodExecution[1];
        QCOMPARE(QString::fromStdString(codes.variant), QStringLiteral("embedding_orthogonal"));
        QCOMPARE(codes.fit.teacherStepAccuracy,
                 1.0); // the teacher is exact on any orthonormal codes
        QVERIFY(codes.fit.stepAccuracy < 0.95);
        QVERIFY(codes.witness.stepAccuracy < 0.95);
        QCOMPARE(codes.fit.words, 100);
        const QJsonArray j = toJson(x).value(QStringLiteral("ood_execution")).toArray();
        QCOMPARE(j.size(), 3);
        QCOMPARE(j[1].toObject().value(QStringLiteral("witness_step_accuracy")).toDouble(),
                 codes.witness.stepAccuracy);
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
