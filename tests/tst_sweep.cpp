// Sweeps (core/sweep/sweep.h, `mhla-lab sweep`): the VALUES grammar, product and zip, strict
// parsing, per-point validation, the option struct; then through the binary: results identical for
// --jobs 1 and 2, resume does nothing the second time, shards merged = unsharded bit for bit,
// another sweep refused; and the direction of each paper claim on small fixed seeds, plus the
// authors' orthogonal sampler (MATH.md §7).
#include "app/sweep.h"
#include "core/experiment/config.h"
#include "core/records/resultio.h"
#include "core/run/runner.h"
#include "core/sweep/sweep.h"
#include "core/tasks/tasks.h"
#include "testutil.h"
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <csignal>

using namespace mhla;

namespace {

using mhla::test::readAll;
using mhla::test::s;

using Proc = mhla::test::Outcome;

/// The binary, with a sweep's time limit (10 minutes).
Proc runBinary(const QStringList& args) { return mhla::test::runBinary(args, 600000); }

QJsonObject json(const char* text) { return QJsonDocument::fromJson(QByteArray(text)).object(); }

/// A small sweep: 3 points x 2 seeds of the associative memory, poly, a few hundred samples.
const char kSmallSweep[] = R"({
  "task": {"kind": "associative_memory", "pairs": 2, "samples": 400},
  "eval": {"val_samples": 200, "ood_samples": 200, "lambda_trace": 0},
  "sweep": {"grid": {"task.orthogonal_prob": "0:1:0.5"}, "seeds": 2}
})";

ExperimentResult run(const QStringList& sets) {
    QJsonObject o;
    for (const QString& a : sets) applyOverride(o, a);
    return runExperiment(experimentFromJson(o));
}

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
            parseSweepValues(s("task.samples"), QJsonValue(spec), s("sweep.grid.task.samples"));
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
            parseSweep(file);
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
    void options() {
        using namespace mhla::cli;
        SweepOptions o;
        QString e = parseSweepOptions({s("--config"), s("f.json"), s("--out"), s("d"), s("--grid"),
                                       s("solver.heads=1,2"), s("--jobs"), s("2"), s("--shard"),
                                       s("1/3"), s("--seeds"), s("4")},
                                      &o);
        QVERIFY2(e.isEmpty(), qPrintable(e));
        QCOMPARE(o.jobs, 2);
        QCOMPARE(o.shard, 1);
        QCOMPARE(o.shards, 3);
        QCOMPARE(o.seeds, 4);
        QCOMPARE(o.grids, QStringList{s("solver.heads=1,2")});
        QVERIFY(parseSweepOptions({s("--out"), s("d"), s("--shard"), s("3/3")}, &o)
                    .contains(s("--shard: \"3/3\"")));
        QVERIFY(
            parseSweepOptions({s("--out"), s("d"), s("--jobs"), s("0")}, &o).contains(s("--jobs")));
        QVERIFY(parseSweepOptions({s("--config"), s("f")}, &o).contains(s("--out: required")));
        QVERIFY(parseSweepOptions({s("--out"), s("d"), s("--job"), s("2")}, &o)
                    .contains(s("did you mean --jobs?")));
        e = parseSweepOptions({s("merge"), s("a"), s("b")}, &o);
        QVERIFY2(e.isEmpty(), qPrintable(e));
        QVERIFY(o.command == SweepOptions::Command::Merge);
        QCOMPARE(o.dirs, (QStringList{s("a"), s("b")}));
        e = parseSweepOptions({s("slurm"), s("--out"), s("d"), s("--shards"), s("4"), s("--time"),
                               s("00:10:00"), s("--partition"), s("debug"), s("--cpus"), s("2"),
                               s("--submit")},
                              &o);
        QVERIFY2(e.isEmpty(), qPrintable(e));
        QVERIFY(o.command == SweepOptions::Command::Slurm && o.submit && o.slurmShards == 4 &&
                o.cpus == 2);
        QVERIFY(parseSweepOptions({s("slurm"), s("--out"), s("d")}, &o)
                    .contains(s("--shards: required")));
        QVERIFY(
            parseSweepOptions(
                {s("slurm"), s("--out"), s("d"), s("--shards"), s("2"), s("--time"), s("soon")}, &o)
                .contains(s("--time")));
    }

    // ---- through the binary
    void jobsResumeShardMerge() {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QString cfg = tmp.filePath(s("sweep.json"));
        {
            QFile f(cfg);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(kSmallSweep);
        }
        const QString a = tmp.filePath(s("a")), b = tmp.filePath(s("b"));
        Proc p = runBinary({s("sweep"), s("--config"), cfg, s("--out"), a, s("--jobs"), s("1")});
        QVERIFY2(p.code == 0, p.err.constData());
        p = runBinary({s("sweep"), s("--config"), cfg, s("--out"), b, s("--jobs"), s("2")});
        QVERIFY2(p.code == 0, p.err.constData());
        const QByteArray runs = readAll(QDir(a).filePath(s("runs.csv")));
        const QByteArray summary = readAll(QDir(a).filePath(s("summary.csv")));
        QCOMPARE(runs.count('\n'), 7); // header + 6 runs
        QVERIFY(summary.contains("lambda_min"));
        QVERIFY(QFile::exists(QDir(a).filePath(s("runs/0005-orthogonal_prob=1-s2/result.json"))));
        QCOMPARE(readAll(QDir(b).filePath(s("runs.csv"))), runs);
        QCOMPARE(readAll(QDir(b).filePath(s("summary.csv"))), summary);

        // Resume: nothing to run, the same tables.
        const QString one = QDir(a).filePath(s("runs/0000-orthogonal_prob=0-s1/result.json"));
        const QByteArray before = readAll(one);
        p = runBinary({s("sweep"), s("--config"), cfg, s("--out"), a, s("--jobs"), s("2")});
        QVERIFY2(p.code == 0, p.err.constData());
        QVERIFY2(p.err.contains("6 already done, 0 to run"), p.err.constData());
        QCOMPARE(readAll(one), before);
        QCOMPARE(readAll(QDir(a).filePath(s("runs.csv"))), runs);
        QCOMPARE(readAll(QDir(a).filePath(s("summary.csv"))), summary);
        // A lost run is redone, and only it.
        QVERIFY(QFile::remove(one));
        p = runBinary({s("sweep"), s("--config"), cfg, s("--out"), a});
        QVERIFY2(p.err.contains("5 already done, 1 to run"), p.err.constData());
        QCOMPARE(readAll(QDir(a).filePath(s("runs.csv"))), runs);

        // Another sweep into the same folder is refused.
        p = runBinary({s("sweep"), s("--config"), cfg, s("--out"), a, s("--seeds"), s("3")});
        QCOMPARE(p.code, 2);
        QVERIFY2(p.err.contains("holds another sweep"), p.err.constData());

        // Shards in separate folders, merged = unsharded, bit for bit.
        const QString s0 = tmp.filePath(s("s0")), s1 = tmp.filePath(s("s1")),
                      m = tmp.filePath(s("m"));
        p = runBinary({s("sweep"), s("--config"), cfg, s("--out"), s0, s("--shard"), s("0/2")});
        QVERIFY2(p.code == 0, p.err.constData());
        QVERIFY(
            !QFile::exists(QDir(s0).filePath(s("runs.csv")))); // shards leave the tables to merge
        p = runBinary({s("sweep"), s("--config"), cfg, s("--out"), s1, s("--shard"), s("1/2"),
                       s("--jobs"), s("2")});
        QVERIFY2(p.code == 0, p.err.constData());
        p = runBinary({s("sweep"), s("merge"), s0}); // one shard alone: incomplete
        QCOMPARE(p.code, 1);
        QVERIFY2(p.err.contains("3 runs missing"), p.err.constData());
        p = runBinary({s("sweep"), s("merge"), s("--out"), m, s0, s1});
        QVERIFY2(p.code == 0, p.err.constData());
        QCOMPARE(readAll(QDir(m).filePath(s("runs.csv"))), runs);
        QCOMPARE(readAll(QDir(m).filePath(s("summary.csv"))), summary);
        // Shards writing into one folder (the Slurm layout), then merge in place.
        const QString shared = tmp.filePath(s("shared"));
        for (const char* sh : {"1/2", "0/2"}) {
            p = runBinary(
                {s("sweep"), s("--config"), cfg, s("--out"), shared, s("--shard"), s(sh)});
            QVERIFY2(p.code == 0, p.err.constData());
        }
        p = runBinary({s("sweep"), s("merge"), shared});
        QVERIFY2(p.code == 0, p.err.constData());
        QCOMPARE(readAll(QDir(shared).filePath(s("runs.csv"))), runs);
        QCOMPARE(readAll(QDir(shared).filePath(s("summary.csv"))), summary);

        // An invalid point fails before anything runs.
        p = runBinary({s("sweep"), s("--config"), cfg, s("--out"), tmp.filePath(s("bad")),
                       s("--grid"), s("task.pairs=2,99")});
        QCOMPARE(p.code, 2);
        QVERIFY2(p.err.contains("sweep point ") && p.err.contains("task.pairs=99"),
                 p.err.constData());
        QVERIFY(!QFile::exists(tmp.filePath(s("bad/runs"))));
    }
    void ctrlCLosesNothing() {
        QTemporaryDir tmp;
        const QString cfg = tmp.filePath(s("sweep.json"));
        {
            QFile f(cfg);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(kSmallSweep);
        }
        const QStringList more{s("--seeds"), s("30"), s("--set"), s("task.samples=2000")};
        const QString ref = tmp.filePath(s("ref")), cut = tmp.filePath(s("cut"));
        Proc p = runBinary(
            QStringList{s("sweep"), s("--config"), cfg, s("--out"), ref, s("--quiet")} + more);
        QVERIFY2(p.code == 0, p.err.constData());
        QProcess proc;
        proc.start(s(MHLA_BINARY), QStringList{s("sweep"), s("--config"), cfg, s("--out"), cut,
                                               s("--jobs"), s("2")} +
                                       more);
        QVERIFY(proc.waitForStarted());
        // Interrupt once the first run is on disk.
        for (int i = 0; i < 400 && proc.state() == QProcess::Running; ++i) {
            if (!QDir(cut + s("/runs")).entryList(QDir::Dirs | QDir::NoDotAndDotDot).isEmpty())
                break;
            QTest::qWait(10);
        }
        ::kill(static_cast<pid_t>(proc.processId()), SIGINT);
        QVERIFY(proc.waitForFinished(60000));
        QVERIFY2(proc.exitCode() == 130 || proc.exitCode() == 0,
                 proc.readAllStandardError().constData());
        p = runBinary(QStringList{s("sweep"), s("--config"), cfg, s("--out"), cut} + more);
        QVERIFY2(p.code == 0, p.err.constData());
        QCOMPARE(readAll(cut + s("/runs.csv")), readAll(ref + s("/runs.csv")));
        QCOMPARE(readAll(cut + s("/summary.csv")), readAll(ref + s("/summary.csv")));
    }
    void slurmScripts() {
        QTemporaryDir tmp;
        const QString cfg = tmp.filePath(s("sweep.json"));
        {
            QFile f(cfg);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(kSmallSweep);
        }
        const QString dir = tmp.filePath(s("job"));
        const Proc p = runBinary({s("sweep"), s("slurm"), s("--config"), cfg, s("--out"), dir,
                                  s("--shards"), s("3"), s("--partition"), s("debug"), s("--time"),
                                  s("00:05:00"), s("--cpus"), s("2")});
        QVERIFY2(p.code == 0, p.err.constData());
        const QByteArray sweep = readAll(QDir(dir).filePath(s("sweep.sbatch")));
        // Every #SBATCH value is quoted (issue 26; tests/tst_slurm.cpp checks the quoting).
        QVERIFY(sweep.contains("#SBATCH --array=\"0-2\"\n"));
        QVERIFY(sweep.contains("#SBATCH --partition=\"debug\"\n"));
        QVERIFY(sweep.contains("#SBATCH --time=\"00:05:00\"\n"));
        QVERIFY(sweep.contains("#SBATCH --cpus-per-task=\"2\"\n"));
        QVERIFY(sweep.contains("--shard \"$SLURM_ARRAY_TASK_ID/3\" --jobs 2"));
        QVERIFY(readAll(QDir(dir).filePath(s("merge.sbatch"))).contains(" sweep merge "));
        QVERIFY(QFile::exists(QDir(dir).filePath(s("sweep.json"))));
    }

    // ---- the paper's claims, direction only, small fixed seeds
    void lambdaMinFallsWithP() {
        double prev = INFINITY;
        for (const char* p : {"0", "0.5", "0.9", "1"}) {
            const ExperimentResult r =
                run({s("task.samples=2000"), s("task.orthogonal_prob=") + s(p),
                     s("eval.val_samples=100"), s("eval.ood_samples=100")});
            QVERIFY2(r.certificate.lambdaMin < prev, p);
            prev = r.certificate.lambdaMin;
        }
        QVERIFY(prev < 1e-10); // p = 1: not certified
    }
    void certifiedMeansOodZero() {
        const ExperimentResult r = run({s("task.samples=2000"), s("task.orthogonal_prob=0.5")});
        QVERIFY(r.certificate.certified);
        QVERIFY2(r.metrics.oodRelMse < 1e-20, qPrintable(QString::number(r.metrics.oodRelMse)));
    }
    void valMseFallsWithHeads() {
        double prev = INFINITY;
        for (const char* h : {"1", "2", "4"}) {
            const ExperimentResult r =
                run({s("task.kind=random_mhla"), s("task.d=3"), s("task.tokens=8"),
                     s("task.d_out=3"), s("task.teacher_heads=4"), s("task.samples=1024"),
                     s("solver.kind=mhla"), s("solver.heads=") + s(h), s("solver.optimizer=sgd"),
                     s("solver.lr=0.05"), s("solver.epochs=20"), s("solver.compare_exact=false"),
                     s("eval.val_samples=512"), s("eval.ood_samples=100")});
            QVERIFY2(r.metrics.valMse < prev, h);
            prev = r.metrics.valMse;
        }
    }
    void oneHotAutomatonNeverCertifies() {
        for (const char* seed : {"1", "2", "3"}) {
            const ExperimentResult r =
                run({s("task.kind=automaton"), s("task.embedding=onehot"), s("task.samples=3000"),
                     s("task.seed=") + s(seed), s("eval.words=20")});
            QVERIFY(!r.certificate.certified);
        }
    }
    // Issue 10.5: a trainer's final ood_rel_mse and its last history point. The history
    // estimates OOD on the first min(eval.ood_samples, 512) generic prompts (cheap enough for
    // every logged epoch); the final number on all eval.ood_samples. With ood_samples <= 512
    // they are the same number up to summation order; above, the history point is the
    // 512-prompt estimate of the same final model.
    void historyOodVersusFinal() {
        auto trained = [](const char* ood) {
            return run({s("task.kind=random_mhla"), s("task.d=3"), s("task.tokens=8"),
                        s("task.d_out=3"), s("task.teacher_heads=2"), s("task.samples=256"),
                        s("solver.kind=mhla"), s("solver.heads=2"), s("solver.optimizer=sgd"),
                        s("solver.lr=0.05"), s("solver.epochs=3"), s("solver.compare_exact=false"),
                        s("eval.val_samples=100"), s("eval.ood_samples=") + s(ood)});
        };
        const ExperimentResult small = trained("512"), large = trained("1024");
        const double last512 = small.history.back().oodRelMse;
        QVERIFY2(std::abs(small.metrics.oodRelMse - last512) <= 1e-12 * last512,
                 qPrintable(QString::asprintf("%.17g vs %.17g", small.metrics.oodRelMse, last512)));
        // Same training (OOD prompts never touch it), same 512-prompt history estimate ...
        QCOMPARE(large.history.back().oodRelMse, last512);
        // ... while the final number averages 1024 prompts.
        QVERIFY(large.metrics.oodRelMse != last512);
    }
    void multilayerOodWarns() {
        const ExperimentResult r =
            run({s("task.kind=random_mhla"), s("task.samples=256"), s("solver.kind=multilayer"),
                 s("solver.heads=1"), s("solver.epochs=2"), s("solver.compare_exact=false"),
                 s("eval.val_samples=64"), s("eval.ood_samples=64")});
        bool found = false;
        for (const std::string& w : r.warnings)
            found |= w.find("ood_rel_mse is not comparable") != std::string::npos;
        QVERIFY(found);
    }

    // ---- the authors' orthogonal sampler (MATH.md §7)
    void orthogonalSampler_data() {
        QTest::addColumn<QString>("sampler");
        QTest::addColumn<int>("nullDim");
        QTest::addColumn<double>("distanceRel");
        QTest::addColumn<double>("tolerance");
        QTest::newRow("haar") << s("haar") << 4 << 0.0 << 1e-8;
        QTest::newRow("qr_unsigned") << s("qr_unsigned") << 12 << 0.69 << 0.02;
    }
    void orthogonalSampler() {
        QFETCH(QString, sampler);
        QFETCH(int, nullDim);
        QFETCH(double, distanceRel);
        QFETCH(double, tolerance);
        const ExperimentResult r = run({s("task.orthogonal_prob=1"), s("task.samples=4000"),
                                        s("task.orthogonal_sampler=") + sampler,
                                        s("eval.val_samples=100"), s("eval.ood_samples=100")});
        QCOMPARE(r.certificate.nullDim, nullDim);
        QVERIFY2(std::abs(r.metrics.distancePRel - distanceRel) < tolerance,
                 qPrintable(QString::number(r.metrics.distancePRel)));
    }
    void qrUnsignedIsAReflection() {
        // det Q = -1 for every m = 2 prompt: K's determinant, read off the prompt.
        ExperimentConfig cfg;
        cfg.task.orthogonalProb = 1;
        cfg.task.orthogonalSampler = OrthogonalSampler::QrUnsigned;
        const auto task = makeTask(cfg.task);
        for (long long i = 0; i < 50; ++i) {
            const Mat Z = task->sample(Stream::Train, i).Z;
            QVERIFY(std::abs(Z.topLeftCorner(2, 2).determinant() + 1) < 1e-12);
            QVERIFY(std::abs(Z.block(2, 0, 2, 2).determinant() + 1) < 1e-12);
        }
    }
};

QTEST_GUILESS_MAIN(TestSweep)
#include "tst_sweep.moc"
