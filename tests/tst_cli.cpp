// The command-line tool, end to end: `mhla-lab solve` output, files and exit codes.
#include "core/experiment/config.h"
#include "testutil.h"
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <cmath>
#include <vector>

namespace {
using mhla::test::Outcome;
using mhla::test::s;
Outcome run(const QStringList& args) { return mhla::test::runBinary(args); }
QJsonObject json(const QByteArray& text) { return QJsonDocument::fromJson(text).object(); }
} // namespace

class TestCli : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_tmp;

private Q_SLOTS:
    void solvePrintsEveryField() {
        const Outcome o = run({s("solve"), s("--set"), s("task.samples=4000")});
        QCOMPARE(o.code, 0);
        const QJsonObject r = json(o.out);
        for (const char* key :
             {"feature_dim", "samples", "lambda_min", "lambda_max", "null_dim", "certified",
              "tolerance", "train_mse", "val_mse", "ood_rel_mse", "distance_p", "distance_p_rel",
              "heads", "singular_values", "timings_ms", "config"})
            QVERIFY2(r.contains(s(key)), key);
        QCOMPARE(r[s("feature_dim")].toInt(), 40);
        QCOMPARE(r[s("samples")].toInt(), 4000);
        QVERIFY(r[s("timings_ms")].toObject().contains(s("total")));
        QCOMPARE(r[s("config")][s("task")][s("samples")].toInt(), 4000);
        QCOMPARE(r[s("config")][s("task")][s("kind")].toString(), s("associative_memory"));
    }

    // The demo of the README: the certificate holds for Gaussian keys and fails for orthogonal
    // keys.
    void associativeMemoryDemo() {
        const QJsonObject good =
            json(run({s("solve"), s("--set"), s("task.orthogonal_prob=0")}).out);
        const QJsonObject bad =
            json(run({s("solve"), s("--set"), s("task.orthogonal_prob=1")}).out);
        QCOMPARE(good[s("certified")].toBool(), true);
        QCOMPARE(good[s("null_dim")].toInt(), 0);
        QVERIFY(good[s("distance_p_rel")].toDouble() <= 1e-9);
        QCOMPARE(bad[s("certified")].toBool(), false);
        QVERIFY(bad[s("null_dim")].toInt() > 0);
        QVERIFY(bad[s("null_witness")][s("train_mse")].toDouble() <= 1e-24);
        QVERIFY(bad[s("null_witness")][s("ood_rel_mse")].toDouble() >= 1e-2);
    }

    void automatonReportsExecution() {
        const Outcome o = run({s("solve"), s("--set"), s("task.kind=automaton"), s("--set"),
                               s("task.samples=3000"), s("--set"), s("eval.words=20")});
        QCOMPARE(o.code, 0);
        const QJsonObject e = json(o.out)[s("execution")].toObject();
        for (const char* key :
             {"step_accuracy", "word_accuracy", "teacher_step_accuracy", "teacher_word_accuracy"})
            QVERIFY2(e.contains(s(key)), key);
        QCOMPARE(e[s("teacher_word_accuracy")].toDouble(), 1.0);
    }

    void outWritesFilesAndNeverOverwrites() {
        const QString dir = m_tmp.filePath(s("run1"));
        const Outcome o = run({s("solve"), s("--set"), s("task.samples=2000"), s("--out"), dir});
        QCOMPARE(o.code, 0);
        for (const char* f :
             {"result.json", "experiment.json", "spectrum.csv", "heads.csv", "lambda_trace.csv"})
            QVERIFY2(QFile::exists(QDir(dir).filePath(s(f))), f);
        QFile spec(QDir(dir).filePath(s("spectrum.csv")));
        QVERIFY(spec.open(QIODevice::ReadOnly));
        QCOMPARE(spec.readAll().count('\n'), 41); // header + D = 40 eigenvalues
        // The written experiment file runs again to the same numbers.
        const QByteArray before = QFile(QDir(dir).filePath(s("result.json"))).exists()
                                      ? [&] { QFile f(QDir(dir).filePath(s("result.json"))); f.open(QIODevice::ReadOnly); return f.readAll(); }()
                                      : QByteArray();
        const Outcome again =
            run({s("solve"), s("--config"), QDir(dir).filePath(s("experiment.json"))});
        QCOMPARE(again.code, 0);
        QCOMPARE(json(again.out)[s("lambda_min")].toDouble(),
                 json(before)[s("lambda_min")].toDouble());
        QCOMPARE(json(again.out)[s("train_mse")].toDouble(),
                 json(before)[s("train_mse")].toDouble());
        // A second run into the same folder is refused and leaves the files alone.
        const Outcome refused =
            run({s("solve"), s("--set"), s("task.samples=999"), s("--out"), dir});
        QCOMPARE(refused.code, 2);
        QVERIFY(refused.err.contains("--force"));
        QFile f(QDir(dir).filePath(s("result.json")));
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), before);
        QCOMPARE(run({s("solve"), s("--set"), s("task.samples=999"), s("--out"), dir, s("--force")})
                     .code,
                 0);
    }

    // --seeds K: K runs with consecutive seeds and a mean / sample-std summary of each metric.
    void seedsSummarizeRuns() {
        const QString dir = m_tmp.filePath(s("seeds"));
        const Outcome o = run({s("solve"), s("--seeds"), s("3"), s("--set"), s("task.samples=1500"),
                               s("--set"), s("task.orthogonal_prob=0.95"), s("--out"), dir});
        QCOMPARE(o.code, 0);
        const QJsonObject r = json(o.out);
        QCOMPARE(r[s("seeds")].toInt(), 3);
        const QJsonArray runs = r[s("runs")].toArray();
        QCOMPARE(runs.size(), 3);
        std::vector<double> lmin;
        for (int k = 0; k < 3; ++k) {
            QCOMPARE(runs[k][s("config")][s("task")][s("seed")].toInt(), 1 + k);
            lmin.push_back(runs[k][s("lambda_min")].toDouble());
        }
        QVERIFY(lmin[0] != lmin[1]); // different data per seed
        const double mean = (lmin[0] + lmin[1] + lmin[2]) / 3.0;
        double ss = 0;
        for (double x : lmin) ss += (x - mean) * (x - mean);
        const QJsonObject sum = r[s("summary")][s("lambda_min")].toObject();
        QVERIFY(std::abs(sum[s("mean")].toDouble() - mean) <= 1e-15 * std::abs(mean));
        QVERIFY(std::abs(sum[s("std")].toDouble() - std::sqrt(ss / 2.0)) <=
                1e-12 * std::sqrt(ss / 2.0));
        QCOMPARE(sum[s("min")].toDouble(), *std::min_element(lmin.begin(), lmin.end()));
        QCOMPARE(r[s("summary")][s("certified_fraction")].toDouble(), 1.0);
        QFile csv(QDir(dir).filePath(s("seeds.csv")));
        QVERIFY(csv.open(QIODevice::ReadOnly));
        QCOMPARE(csv.readAll().count('\n'), 4); // header + 3 runs
        // Seeds must stay exact in JSON: task.seed + K beyond 2^53 is refused.
        const Outcome big =
            run({s("solve"), s("--seeds"), s("2"), s("--set"), s("task.seed=9007199254740992")});
        QCOMPARE(big.code, 2);
        QVERIFY(big.err.contains("2^53"));
    }

    void badInputExitsWithTwo_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("mustContain");
        const QString bad = m_tmp.filePath(s("bad.json"));
        QFile f(bad);
        f.open(QIODevice::WriteOnly);
        f.write("{\"task\": {\"samples\": 10,}");
        f.close();
        const QString blocker = m_tmp.filePath(s("a-file"));
        QFile b(blocker);
        b.open(QIODevice::WriteOnly);
        b.close();
        QTest::newRow("malformed file")
            << QStringList{s("solve"), s("--config"), bad} << s("malformed JSON");
        QTest::newRow("missing file")
            << QStringList{s("solve"), s("--config"), m_tmp.filePath(s("nope.json"))}
            << s("cannot read");
        QTest::newRow("unknown key")
            << QStringList{s("solve"), s("--set"), s("task.foo=1")} << s("task.foo");
        QTest::newRow("wrong type")
            << QStringList{s("solve"), s("--set"), s("task.samples=lots")} << s("task.samples");
        QTest::newRow("negative size")
            << QStringList{s("solve"), s("--set"), s("task.samples=-5")} << s("task.samples");
        QTest::newRow("pairs out of range")
            << QStringList{s("solve"), s("--set"), s("task.pairs=0")} << s("task.pairs");
        QTest::newRow("states out of range")
            << QStringList{s("solve"), s("--set"), s("task.states=1")} << s("task.states");
        QTest::newRow("alphabet out of range")
            << QStringList{s("solve"), s("--set"), s("task.alphabet=99")} << s("task.alphabet");
        QTest::newRow("probability")
            << QStringList{s("solve"), s("--set"), s("task.orthogonal_prob=2")}
            << s("task.orthogonal_prob");
        QTest::newRow("NaN") << QStringList{s("solve"), s("--set"), s("task.noise=NaN")}
                             << s("NaN");
        QTest::newRow("infinite") << QStringList{s("solve"), s("--set"),
                                                 s("task.query_filler=-inf")}
                                  << s("infinite");
        QTest::newRow("memory") << QStringList{s("solve"), s("--set"), s("task.kind=random_mhla"),
                                               s("--set"), s("task.d=60")}
                                << s("GiB");
        QTest::newRow("unwritable out")
            << QStringList{s("solve"), s("--out"), blocker + s("/sub")} << s("--out");
        QTest::newRow("unknown option")
            << QStringList{s("solve"), s("--frobnicate")} << s("frobnicate");
        QTest::newRow("bad threads")
            << QStringList{s("solve"), s("--threads"), s("0")} << s("--threads");
        QTest::newRow("bad seeds")
            << QStringList{s("solve"), s("--seeds"), s("-2")} << s("--seeds");
        QTest::newRow("unknown command") << QStringList{s("sovle")} << s("unknown command");
        QTest::newRow("bench option")
            << QStringList{s("bench"), s("--repeats"), s("x")} << s("--repeats");
    }
    void badInputExitsWithTwo() {
        QFETCH(QStringList, args);
        QFETCH(QString, mustContain);
        const Outcome o = run(args);
        QCOMPARE(o.code, 2);
        QVERIFY(o.out.isEmpty());
        QVERIFY2(QString::fromUtf8(o.err).contains(mustContain), o.err.constData());
    }

    void helpDocumentsEveryOptionAndKey() {
        const Outcome top = run({s("--help")});
        QCOMPARE(top.code, 0);
        for (const char* w : {"solve", "figures", "bench", "--config", "--out", "--set"})
            QVERIFY2(top.out.contains(w), w);
        const Outcome solve = run({s("solve"), s("--help")});
        QCOMPARE(solve.code, 0);
        for (const mhla::KeyInfo& k : mhla::experimentKeys())
            QVERIFY2(QString::fromUtf8(solve.out).contains(k.path()), qPrintable(k.path()));
        for (const char* w : {"--threads", "--progress", "--force", "null_dim", "ood_rel_mse"})
            QVERIFY2(solve.out.contains(w), w);
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
