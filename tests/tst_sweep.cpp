// The sweep grammar and planner (core/sweep/sweep.h): VALUES, product and zip, strict parsing of
// a sweep file, per-point validation, band quantiles. The `mhla-lab sweep` command is
// tst_cli_sweep; the paper's claims on small seeds are tst_paperclaims.
#include "core/experiment/config.h"
#include "core/sweep/sweep.h"
#include "smallconfigs.h"
#include "testutil.h"
#include <QJsonDocument>
#include <QTest>
#include <cmath>

using namespace mhla;

namespace {

using mhla::test::s;

QJsonObject json(const char* text) { return QJsonDocument::fromJson(QByteArray(text)).object(); }

using mhla::test::kSmallSweep;

} // namespace

class TestSweep : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // ---- grammar
    void values_data() {
        QTest::addColumn<QString>("spec");
        QTest::addColumn<QList<double>>("expected");
        QTest::newRow("range") << s("0:1:0.25") << QList<double>{0, 0.25, 0.5, 0.75, 1};
        QTest::newRow("range tenths round") << s("0:0.3:0.1") << QList<double>{0, 0.1, 0.2, 0.3};
        QTest::newRow("range stops before b") << s("1:2:0.4") << QList<double>{1, 1.4, 1.8};
        QTest::newRow("range down") << s("8:2:-3") << QList<double>{8, 5, 2};
        QTest::newRow("range single") << s("3:3:1") << QList<double>{3};
        QTest::newRow("logspace") << s("logspace(-2,0,3)") << QList<double>{0.01, 0.1, 1};
        QTest::newRow("logspace spaces")
            << s("logspace( 0 , 3 , 4 )") << QList<double>{1, 10, 100, 1000};
        QTest::newRow("logspace one") << s("logspace(2,5,1)") << QList<double>{100};
    }
    void values() {
        QFETCH(QString, spec);
        QFETCH(QList<double>, expected);
        const QJsonArray a = parseSweepValues(s("task.orthogonal_prob"), QJsonValue(spec), s("x"));
        QCOMPARE(a.size(), expected.size());
        for (qsizetype i = 0; i < a.size(); ++i)
            QCOMPARE(a[i].toDouble(), expected[i]); // exact after rounding
    }
    void valuesRefused_data() {
        QTest::addColumn<QString>("spec");
        QTest::newRow("wrong direction") << s("0:1:-0.5");
        QTest::newRow("zero step") << s("0:1:0");
        QTest::newRow("not a number") << s("0:x:1");
        QTest::newRow("two parts") << s("0:1");
        QTest::newRow("logspace two args") << s("logspace(1,2)");
        QTest::newRow("logspace n 0") << s("logspace(1,2,0)");
        QTest::newRow("logspace n real") << s("logspace(1,2,2.5)");
        QTest::newRow("too many") << s("0:1:1e-9");
        QTest::newRow("word") << s("abc");
    }
    void valuesRefused() {
        QFETCH(QString, spec);
        try {
            (void)parseSweepValues(s("task.samples"), QJsonValue(spec),
                                   s("sweep.grid.task.samples"));
            QFAIL("accepted");
        } catch (const ConfigError& e) {
            QCOMPARE(e.key(), s("sweep.grid.task.samples"));
            QVERIFY2(QString::fromUtf8(e.what()).startsWith(s("sweep.grid.task.samples: ")),
                     e.what());
        }
    }
    void fileRefused_data() {
        QTest::addColumn<QString>("sweep");
        QTest::addColumn<QString>("key");
        QTest::newRow("unknown member")
            << s(R"({"grid": {"task.samples": [1]}, "sede": 2})") << s("sweep.sede");
        QTest::newRow("unknown key")
            << s(R"({"grid": {"task.sample": [1]}})") << s("sweep.grid.task.sample");
        QTest::newRow("empty grid") << s(R"({"grid": {}})") << s("sweep.grid");
        QTest::newRow("mode") << s(R"({"grid": {"task.samples": [1]}, "mode": "cross"})")
                              << s("sweep.mode");
        QTest::newRow("seeds 0") << s(R"({"grid": {"task.samples": [1]}, "seeds": 0})")
                                 << s("sweep.seeds");
        QTest::newRow("seeds real")
            << s(R"({"grid": {"task.samples": [1]}, "seeds": 1.5})") << s("sweep.seeds");
        QTest::newRow("empty list")
            << s(R"({"grid": {"task.samples": []}})") << s("sweep.grid.task.samples");
        QTest::newRow("nested list")
            << s(R"({"grid": {"task.samples": [[1]]}})") << s("sweep.grid.task.samples");
        QTest::newRow("not an object") << s(R"([1])") << s("sweep");
    }
    void fileRefused() {
        QFETCH(QString, sweep);
        QFETCH(QString, key);
        const QJsonObject file =
            QJsonDocument::fromJson((s(R"({"sweep": )") + sweep + s("}")).toUtf8()).object();
        QVERIFY(!file.isEmpty());
        try {
            (void)parseSweep(file);
            QFAIL("accepted");
        } catch (const ConfigError& e) {
            QVERIFY2(e.key() == key, qPrintable(e.key()));
        }
    }
    void fileParsed() {
        const SweepFile f = parseSweep(json(kSmallSweep));
        QVERIFY(f.hasSweep);
        QVERIFY(!f.base.contains(s("sweep")));
        QVERIFY(f.base.contains(s("task")));
        QCOMPARE(f.spec.seeds, 2);
        QCOMPARE(f.spec.axes.size(), size_t(1));
        QCOMPARE(f.spec.axes[0].values, (QJsonArray{0, 0.5, 1}));
        // The presets' short form.
        const SweepFile legacy =
            parseSweep(json(R"({"sweep": {"key": "solver.heads", "values": [1, 2]}})"));
        QCOMPARE(legacy.spec.axes[0].key, s("solver.heads"));
        // No sweep: one point, the base.
        const SweepFile none = parseSweep(json(R"({"task": {"samples": 10}})"));
        QVERIFY(!none.hasSweep);
        QCOMPARE(sweepPoints(none.spec).size(), size_t(1));
    }
    void gridAssignment() {
        QCOMPARE(parseGridAssignment(s("solver.heads=1,2,4,8")).values, (QJsonArray{1, 2, 4, 8}));
        QCOMPARE(parseGridAssignment(s("solver.optimizer=sgd,adam")).values,
                 (QJsonArray{s("sgd"), s("adam")}));
        QCOMPARE(parseGridAssignment(s("solver.lr=logspace(-3,-1,3)")).values,
                 (QJsonArray{0.001, 0.01, 0.1}));
        QCOMPARE(parseGridAssignment(s("task.orthogonal_prob=0:1:0.5")).values,
                 (QJsonArray{0, 0.5, 1}));
        QCOMPARE(parseGridAssignment(s("solver.heads=[1, 3]")).values, (QJsonArray{1, 3}));
        QVERIFY_THROWS_EXCEPTION(ConfigError, parseGridAssignment(s("solver.head=1,2")));
        QVERIFY_THROWS_EXCEPTION(ConfigError, parseGridAssignment(s("solver.heads")));
    }
    void productAndZip() {
        SweepSpec spec;
        spec.setAxis({s("task.samples"), QJsonArray{10, 20, 30}});
        spec.setAxis({s("solver.heads"), QJsonArray{1, 2}});
        // Axes in key order: solver.heads, task.samples; the last varies fastest.
        auto pts = sweepPoints(spec);
        QCOMPARE(pts.size(), size_t(6));
        QCOMPARE(pts[0].label(), s("solver.heads=1, task.samples=10"));
        QCOMPARE(pts[1].label(), s("solver.heads=1, task.samples=20"));
        QCOMPARE(pts[3].label(), s("solver.heads=2, task.samples=10"));
        QCOMPARE(pts[5].slug(), s("heads=2_samples=30"));
        QCOMPARE(pts[5].overrides(), (QStringList{s("solver.heads=2"), s("task.samples=30")}));
        spec.mode = SweepSpec::Mode::Zip;
        QVERIFY_THROWS_EXCEPTION(ConfigError, sweepPoints(spec)); // lengths 2 and 3
        spec.setAxis({s("solver.heads"), QJsonArray{1, 2, 3}});
        pts = sweepPoints(spec);
        QCOMPARE(pts.size(), size_t(3));
        QCOMPARE(pts[2].label(), s("solver.heads=3, task.samples=30"));
    }
    void planValidatesEveryPoint() {
        SweepFile f = parseSweep(json(R"({"task": {"kind": "associative_memory", "samples": 100},
                                          "sweep": {"grid": {"task.pairs": [2, 40]}, "seeds": 3}})"));
        try {
            (void)planSweep(f.base, f.spec);
            QFAIL("accepted pairs 40");
        } catch (const ConfigError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).startsWith(s("sweep point 1 (task.pairs=40): ")),
                     e.what());
            QCOMPARE(e.key(), s("task.pairs"));
        }
        // A key the task does not read is refused at the point, too.
        f = parseSweep(json(R"({"sweep": {"grid": {"task.d": [2, 3]}}})"));
        QVERIFY_THROWS_EXCEPTION(ConfigError, (void)planSweep(f.base, f.spec));
        // Runs: index = point * seeds + k; seeds as seedVariants; folders named by index, slug,
        // seed.
        f = parseSweep(json(kSmallSweep));
        const SweepPlan plan = planSweep(f.base, f.spec, {s("task.seed=5")});
        QCOMPARE(plan.runs.size(), size_t(6));
        QCOMPARE(plan.runs[3].point, 1);
        QCOMPARE(plan.runs[3].seed, 1);
        QCOMPARE(plan.runs[3].config.task.seed, 6LL);
        QCOMPARE(plan.runs[3].config.task.orthogonalProb, 0.5);
        QCOMPARE(plan.runs[3].folder, s("0003-orthogonal_prob=0.5-s6"));
        // sweep.json is an experiment file that plans the same sweep.
        const SweepFile again = parseSweep(QJsonDocument::fromJson(plan.sweepJson()).object());
        QCOMPARE(planSweep(again.base, again.spec).sweepJson(), plan.sweepJson());
    }
    void quantiles() {
        const std::vector<double> v{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
        QCOMPARE(sortedQuantile(v, 0.5), 6.0);
        QCOMPARE(sortedQuantile(v, 0.1), 2.0);
        QCOMPARE(sortedQuantile(v, 0.9), 10.0);
        QCOMPARE(sortedQuantile({1.0, 2.0}, 0.5), 1.5);
    }
};

QTEST_GUILESS_MAIN(TestSweep)
#include "tst_sweep.moc"
