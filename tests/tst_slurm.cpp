// `mhla-lab sweep slurm --submit` end to end against a real single-node Slurm that this test
// starts (munged, slurmctld, slurmd from Debian's munge, slurmctld, slurmd, slurm-client) and
// stops, also on failure: the job array runs the shards, the dependent merge job writes
// runs.csv and summary.csv, and both are identical, bit for bit, to an unsharded local run.
// Needs root; skipped with a message otherwise or when the daemons are not installed, unless
// MHLA_REQUIRE_SLURM=1 (CI's root A, where .ci/run installs them): then it fails.
#include "testutil.h"
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <arpa/inet.h>
#include <csignal>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <utility>
#include <vector>

namespace {

using mhla::test::readAll;
using mhla::test::s;

bool writeText(const QString& path, const QByteArray& data) {
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(data) == data.size();
}

struct Out {
    int code;
    QByteArray out, err;
};

Out run(const QString& program, const QStringList& args, int timeoutMs = 60000) {
    QProcess p;
    p.start(program, args);
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        return {-1, {}, "timed out"};
    }
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2, p.readAllStandardOutput(),
            p.readAllStandardError()};
}

/// Stops every daemon the test started, by the pid in its pid file, whatever happens.
class Daemons {
public:
    void add(const QString& pidFile) { m_pidFiles << pidFile; }
    ~Daemons() { stop(); }
    void stop() {
        // Reverse order: slurmd, slurmctld, then munged.
        for (auto it = m_pidFiles.rbegin(); it != m_pidFiles.rend(); ++it) {
            const pid_t pid = static_cast<pid_t>(readAll(*it).trimmed().toLongLong());
            if (pid <= 1) continue;
            ::kill(pid, SIGTERM);
            for (int i = 0; i < 50 && ::kill(pid, 0) == 0; ++i) QThread::msleep(100);
            if (::kill(pid, 0) == 0) ::kill(pid, SIGKILL);
        }
        m_pidFiles.clear();
    }

private:
    QStringList m_pidFiles;
};

const char kSweep[] = R"({
  "task": {"kind": "associative_memory", "pairs": 2, "samples": 400},
  "eval": {"val_samples": 200, "ood_samples": 200, "lambda_trace": 0},
  "sweep": {"grid": {"task.orthogonal_prob": "0:1:0.5"}, "seeds": 2}
})";

/// Two distinct TCP ports that are free now (the kernel's picks for port 0; both sockets are
/// held until both are known), so that two runs of this test on one host, or a Slurm that
/// already runs there, do not collide. {0, 0} if none can be had.
std::pair<int, int> twoFreePorts() {
    int ports[2] = {0, 0}, fds[2] = {-1, -1};
    for (int k = 0; k < 2; ++k) {
        fds[k] = ::socket(AF_INET, SOCK_STREAM, 0);
        if (fds[k] < 0) break;
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_ANY);
        a.sin_port = 0;
        socklen_t len = sizeof(a);
        if (::bind(fds[k], reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0 &&
            ::getsockname(fds[k], reinterpret_cast<sockaddr*>(&a), &len) == 0)
            ports[k] = ntohs(a.sin_port);
    }
    for (const int fd : fds)
        if (fd >= 0) ::close(fd);
    return {ports[0], ports[1]};
}
} // namespace

class TestSlurm : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // Generation (issue 26; no Slurm needed): every #SBATCH value is quoted, every path in the
    // command is quoted, and the script runs as written whatever the folder is called.
    void scriptsQuoteEveryValueAndPath() {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QString out = QDir(tmp.path()).filePath(s("my sweep 100%a $(touch pwned) 'q' `x`"));
        const Out o =
            run(s(MHLA_BINARY), {s("sweep"), s("slurm"), s("--out"), out, s("--shards"), s("1"),
                                 s("--partition"), s("p1"), s("--time"), s("01:00:00"), s("--set"),
                                 s("task.samples=256"), s("--grid"), s("task.seed=1,2")});
        QVERIFY2(o.code == 0, o.err.constData());
        const QString abs = QDir(out).absolutePath();
        QString escaped = abs;
        escaped.replace(s("%"), s("%%"));
        for (const char* name : {"sweep.sbatch", "merge.sbatch"}) {
            const QString script = QString::fromUtf8(readAll(QDir(out).filePath(s(name))));
            static const QRegularExpression sbatchLine(s("^#SBATCH --[a-z-]+=\"[^\"\\n]*\"$"));
            int lines = 0;
            for (const QString& line : script.split(QLatin1Char('\n')))
                if (line.startsWith(s("#SBATCH"))) {
                    QVERIFY2(sbatchLine.match(line).hasMatch(), qPrintable(line));
                    ++lines;
                }
            QVERIFY2(lines >= 6, qPrintable(script));
            QVERIFY2(script.contains(s("#SBATCH --partition=\"p1\"\n")), qPrintable(script));
            QVERIFY2(script.contains(s("#SBATCH --time=\"01:00:00\"\n")), qPrintable(script));
            const QString log =
                s(name) == s("sweep.sbatch") ? s("/slurm/shard-%a.out") : s("/slurm/merge.out");
            QVERIFY2(script.contains(s("#SBATCH --output=\"") + escaped + log + s("\"\n")),
                     qPrintable(script));
            const Out syntax = run(s("/bin/bash"), {s("-n"), QDir(out).filePath(s(name))});
            QVERIFY2(syntax.code == 0, syntax.err.constData());
        }
        QVERIFY2(
            readAll(QDir(out).filePath(s("sweep.sbatch"))).contains("#SBATCH --array=\"0-0\"\n"),
            readAll(QDir(out).filePath(s("sweep.sbatch"))).constData());
        // Run the array task and the merge as Slurm would (bash, the task id in the
        // environment): the paths reach the binary intact and nothing else runs.
        QProcess task;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(s("SLURM_ARRAY_TASK_ID"), s("0"));
        task.setProcessEnvironment(env);
        task.setWorkingDirectory(tmp.path());
        for (const char* name : {"sweep.sbatch", "merge.sbatch"}) {
            task.start(s("/bin/bash"), {QDir(out).filePath(s(name))});
            QVERIFY(task.waitForFinished(300000));
            QVERIFY2(task.exitCode() == 0, task.readAllStandardError().constData());
        }
        QVERIFY(QFile::exists(QDir(out).filePath(s("runs.csv"))));
        QVERIFY(!QFile::exists(QDir(tmp.path()).filePath(s("pwned"))));
        QVERIFY(!QFile::exists(QDir(out).filePath(s("pwned"))));
    }

    // A path Slurm or the shell could split is refused before anything is written (exit 2,
    // the message names the option and shows the character escaped).
    void controlCharactersInPathsAreRefused_data() {
        QTest::addColumn<QString>("option");
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("shown");
        QTest::newRow("newline in --out") << s("out") << s("a\ntouch pwned") << s("\\x0A");
        QTest::newRow("carriage return in --out") << s("out") << s("a\rb") << s("\\x0D");
        QTest::newRow("tab in --out") << s("out") << s("a\tb") << s("control character");
        QTest::newRow("escape in --out") << s("out") << s("a\x1b[2Jb") << s("\\x1B[2Jb");
        QTest::newRow("double quote in --out") << s("out") << s("a\"b") << s("double quote");
        QTest::newRow("backslash in --out") << s("out") << s("a\\b") << s("backslash");
        QTest::newRow("newline in --config") << s("config") << s("e\nx.json") << s("\\x0A");
    }
    void controlCharactersInPathsAreRefused() {
        QFETCH(QString, option);
        QFETCH(QString, name);
        QFETCH(QString, shown);
        QTemporaryDir tmp;
        const QString path = QDir(tmp.path()).filePath(name);
        QStringList args{s("sweep"), s("slurm"), s("--shards"), s("1")};
        args << s("--") + option << path;
        if (option != s("out")) args << s("--out") << QDir(tmp.path()).filePath(s("s"));
        const Out o = run(s(MHLA_BINARY), args);
        QVERIFY2(o.code == 2, qPrintable(QString::number(o.code) + s(" ") + s(o.err)));
        QVERIFY2(o.err.contains((s("--") + option).toUtf8()), o.err.constData());
        QVERIFY2(o.err.contains(shown.toUtf8()), o.err.constData());
        QVERIFY2(!o.err.contains('\x1b') && !o.err.contains('\r'), o.err.constData());
        QCOMPARE(QDir(tmp.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden),
                 QStringList());
    }

    // The shard count is bounded by the runs: every array task has work.
    void shardsAreBoundedByTheRuns_data() {
        QTest::addColumn<QString>("shards");
        QTest::addColumn<int>("code");
        QTest::newRow("2 shards, 2 runs") << s("2") << 0;
        QTest::newRow("3 shards, 2 runs") << s("3") << 2;
        QTest::newRow("100000 shards, 2 runs") << s("100000") << 2;
    }
    void shardsAreBoundedByTheRuns() {
        QFETCH(QString, shards);
        QFETCH(int, code);
        QTemporaryDir tmp;
        const QString out = QDir(tmp.path()).filePath(s("s"));
        const Out o = run(s(MHLA_BINARY), {s("sweep"), s("slurm"), s("--out"), out, s("--shards"),
                                           shards, s("--grid"), s("task.seed=1,2")});
        QVERIFY2(o.code == code, qPrintable(QString::number(o.code) + s(" ") + s(o.err)));
        if (code == 0) {
            QVERIFY(readAll(QDir(out).filePath(s("sweep.sbatch"))).contains("--array=\"0-1\""));
        } else {
            QVERIFY2(o.err.contains("--shards: " + shards.toUtf8() +
                                    " is more than the 2 runs of this sweep; expected an integer "
                                    "in [1, 2]"),
                     o.err.constData());
            QVERIFY(!QFile::exists(out));
        }
    }

    void arrayAndMergeOnRealSlurm() {
        // .ci/run installs Slurm where it runs this test and sets MHLA_REQUIRE_SLURM=1: there
        // a skip would hide that the end-to-end test did not run, so it fails instead.
        const bool required = qEnvironmentVariable("MHLA_REQUIRE_SLURM") == s("1");
        QString missing;
        if (::geteuid() != 0)
            missing = s("needs root to start munged, slurmctld and slurmd (CI runs it as root)");
        for (const char* tool : {"munged", "slurmctld", "slurmd", "sbatch", "sinfo"})
            if (missing.isEmpty() &&
                QStandardPaths::findExecutable(
                    s(tool), {s("/usr/sbin"), s("/usr/bin"), s("/sbin"), s("/bin")})
                    .isEmpty())
                missing = s("Slurm is not installed (no ") + s(tool) +
                          s("); apt-get install -y slurmctld slurmd slurm-client munge");
        if (!missing.isEmpty()) {
            if (required)
                QFAIL(qPrintable(s("MHLA_REQUIRE_SLURM=1 but the test cannot run: ") + missing));
            QSKIP(qPrintable(missing));
        }
        QElapsedTimer clock;
        clock.start();
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QString t = tmp.path();
        QVERIFY(QDir().mkpath(t + s("/state")) && QDir().mkpath(t + s("/spool")));
        Daemons daemons;

        // munge: the socket folder owned by munge; reuse a munged that is already running.
        QVERIFY(QDir().mkpath(s("/run/munge")));
        QCOMPARE(run(s("chown"), {s("munge:munge"), s("/run/munge")}).code, 0);
        if (!QFile::exists(s("/run/munge/munge.socket.2")) ||
            run(s("munge"), {s("-n")}).code != 0) {
            const QString pid = t + s("/munged.pid");
            const Out m = run(s("munged"), {s("--force"), s("--pid-file=") + pid});
            QVERIFY2(m.code == 0, m.err.constData());
            daemons.add(pid);
        }

        const QString host = QString::fromLocal8Bit(run(s("hostname"), {s("-s")}).out).trimmed();
        const int cpus = QThread::idealThreadCount();
        QVERIFY(!host.isEmpty());
        // Ports picked free at the start, not fixed: two runs on one host must not collide.
        const auto [ctldPort, dPort] = twoFreePorts();
        QVERIFY2(ctldPort > 0 && dPort > 0 && ctldPort != dPort, "no free TCP ports");
        const QString conf = t + s("/slurm.conf");
        const QString text =
            s("ClusterName=mhlatest\nSlurmctldHost=%1\nSlurmUser=root\nAuthType=auth/munge\n"
              "ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\n"
              "SelectType=select/cons_tres\nSelectTypeParameters=CR_CPU\n"
              "AccountingStorageType=accounting_storage/none\nJobAcctGatherType=jobacct_gather/none\n"
              "StateSaveLocation=%3/state\nSlurmdSpoolDir=%3/spool\n"
              "SlurmctldPidFile=%3/slurmctld.pid\nSlurmdPidFile=%3/slurmd.pid\n"
              "SlurmctldLogFile=%3/slurmctld.log\nSlurmdLogFile=%3/slurmd.log\n"
              "SlurmctldPort=%4\nSlurmdPort=%5\nReturnToService=2\nMpiDefault=none\n"
              "NodeName=%1 CPUs=%2 State=UNKNOWN\n"
              "PartitionName=debug Nodes=%1 Default=YES MaxTime=INFINITE State=UP\n")
                .arg(host)
                .arg(cpus)
                .arg(t)
                .arg(ctldPort)
                .arg(dPort);
        QVERIFY(writeText(conf, text.toUtf8()));
        qputenv("SLURM_CONF", conf.toLocal8Bit()); // sinfo, sbatch and mhla-lab's sbatch read it
        const Out ctld = run(s("slurmctld"), {s("-f"), conf});
        daemons.add(t + s("/slurmctld.pid"));
        QVERIFY2(ctld.code == 0, ctld.err.constData());
        // slurmd after slurmctld in the list: stopped first.
        const Out d = run(s("slurmd"), {s("-f"), conf});
        daemons.add(t + s("/slurmd.pid"));
        QVERIFY2(d.code == 0, d.err.constData());
        QString state;
        for (int i = 0; i < 60 && state != s("idle"); ++i) {
            state =
                QString::fromLocal8Bit(run(s("sinfo"), {s("-h"), s("-o"), s("%t")}).out).trimmed();
            if (state != s("idle")) QThread::msleep(500);
        }
        QVERIFY2(state == s("idle"),
                 qPrintable(s("the node is \"") + state + s("\"; see ") + t + s("/slurmd.log")));

        const QString cfg = t + s("/sweep.json");
        QVERIFY(writeText(cfg, kSweep));
        const QString dir = t + s("/out");
        const Out sub =
            run(s(MHLA_BINARY), {s("sweep"), s("slurm"), s("--config"), cfg, s("--out"), dir,
                                 s("--shards"), s("2"), s("--time"), s("00:05:00"), s("--submit")});
        QVERIFY2(sub.code == 0, sub.err.constData());
        QVERIFY2(sub.out.contains("array job ") && sub.out.contains("merge job "),
                 sub.out.constData());

        // The merge job writes runs.csv only after both shards succeeded (afterok).
        for (int i = 0; i < 120 && !QFile::exists(dir + s("/runs.csv")); ++i) QThread::msleep(500);
        QThread::msleep(300);
        QVERIFY2(QFile::exists(dir + s("/runs.csv")),
                 readAll(dir + s("/slurm/shard-0.out")) + readAll(dir + s("/slurm/merge.out")));
        QVERIFY(readAll(dir + s("/slurm/shard-1.out")).contains("shard 1/2: 3 runs"));

        const QString local = t + s("/local");
        const Out l =
            run(s(MHLA_BINARY), {s("sweep"), s("--config"), cfg, s("--out"), local, s("--quiet")});
        QVERIFY2(l.code == 0, l.err.constData());
        QCOMPARE(readAll(dir + s("/runs.csv")), readAll(local + s("/runs.csv")));
        QCOMPARE(readAll(dir + s("/summary.csv")), readAll(local + s("/summary.csv")));

        daemons.stop();
        qunsetenv("SLURM_CONF");
        qInfo("Slurm end to end in %lld ms", static_cast<long long>(clock.elapsed()));
    }
};

QTEST_GUILESS_MAIN(TestSlurm)
#include "tst_slurm.moc"
