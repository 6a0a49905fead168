// `mhla-lab sweep` (app/sweep.h): the option parser, then through the binary: results identical
// for --jobs 1 and 2, resume does nothing the second time, shards merged = unsharded bit for bit,
// another sweep refused, Ctrl+C loses no finished run, and the Slurm scripts.
#include "app/sweep.h"
#include "core/records/resultio.h"
#include "smallconfigs.h"
#include "testutil.h"
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <csignal>

using namespace mhla;

namespace {

using mhla::test::readAll;
using mhla::test::s;

using Proc = mhla::test::Outcome;

/// The binary, with a sweep's time limit (10 minutes).
Proc runBinary(const QStringList& args) { return mhla::test::runBinary(args, 600000); }

using mhla::test::kSmallSweep;

/// kSmallSweep as sweep.json in `tmp`: its path, or empty when it cannot be written.
QString writeSmallSweep(const QTemporaryDir& tmp) {
    const QString cfg = tmp.filePath(s("sweep.json"));
    QFile f(cfg);
    if (!f.open(QIODevice::WriteOnly) || f.write(kSmallSweep) < 0) return {};
    return cfg;
}

} // namespace

class TestCliSweep : public QObject {
    Q_OBJECT
private Q_SLOTS:
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
        const QString cfg = writeSmallSweep(tmp);
        QVERIFY(!cfg.isEmpty());
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
    void setOfTheSweepItselfIsExplained() {
        // --set changes each point's experiment; the sweep's own keys are --grid and --seeds.
        // It used to fail inside the first point with "unknown key \"sweep\" at the top level".
        QTemporaryDir tmp;
        const QString cfg = writeSmallSweep(tmp);
        QVERIFY(!cfg.isEmpty());
        for (const char* command : {"sweep", "figures"}) {
            const Proc p = runBinary({s(command), s("--config"), cfg, s("--out"),
                                      tmp.filePath(s("out")), s("--set"), s("sweep.seeds=1")});
            QCOMPARE(p.code, 2);
            QVERIFY2(p.err.contains("--set sweep.seeds: --set changes the experiment of every "
                                    "point") &&
                         p.err.contains("--grid KEY=VALUES and --seeds K"),
                     p.err.constData());
            QVERIFY(!QFileInfo::exists(tmp.filePath(s("out"))));
        }
    }
    void ctrlCLosesNothing() {
        QTemporaryDir tmp;
        const QString cfg = writeSmallSweep(tmp);
        QVERIFY(!cfg.isEmpty());
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
        const QString cfg = writeSmallSweep(tmp);
        QVERIFY(!cfg.isEmpty());
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
};

QTEST_GUILESS_MAIN(TestCliSweep)
#include "tst_cli_sweep.moc"
