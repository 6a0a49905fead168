// The results-folder reader: what `solve --out` and Export all write reads back bit for bit
// (every task kind, every solver family), and a bad folder is an error that names the file
// and the line or key, never a crash or a half-filled result.
#include "core/algebra/model.h"
#include "core/base/fileio.h"
#include "core/records/resultio.h"
#include "core/records/resultread.h"
#include "core/run/runner.h"
#include "testutil.h"
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <cmath>
#include <cstring>

using namespace mhla;

namespace {

using mhla::test::readAll;

/// Bit-for-bit equality of doubles (NaN equals NaN: both were written as undefined), except
/// the sign of a zero: a CSV cell holds -0.0 as "0" (the automaton's teacher heads have them).
bool same(double a, double b) {
    if (std::isnan(a) && std::isnan(b)) return true;
    if (a == 0 && b == 0) return true;
    return std::memcmp(&a, &b, sizeof a) == 0;
}
bool same(const Mat& a, const Mat& b) {
    if (a.rows() != b.rows() || a.cols() != b.cols()) return false;
    for (Index i = 0; i < a.size(); ++i)
        if (!same(a.data()[i], b.data()[i])) return false;
    return true;
}
bool same(const Metrics& a, const Metrics& b) {
    return same(a.trainMse, b.trainMse) && same(a.valMse, b.valMse) &&
           same(a.oodRelMse, b.oodRelMse) && same(a.distanceP, b.distanceP) &&
           same(a.distancePRel, b.distancePRel);
}
bool same(const std::optional<Metrics>& a, const std::optional<Metrics>& b) {
    return a.has_value() == b.has_value() && (!a || same(*a, *b));
}
bool same(const Heads& a, const Heads& b) {
    if (a.count() != b.count()) return false;
    for (int k = 0; k < a.count(); ++k)
        if (!same(a.V[k], b.V[k]) || !same(a.Q[k], b.Q[k])) return false;
    return true;
}

ExperimentConfig config(TaskKind task, SolverKind solver) {
    ExperimentConfig cfg;
    cfg.task.kind = task;
    cfg.task.samples = 256;
    cfg.task.d = 3;
    cfg.task.tokens = 4;
    cfg.task.dOut = 2;
    cfg.task.teacherHeads = 2;
    cfg.task.wordLength = 6;
    cfg.eval.valSamples = cfg.eval.oodSamples = 64;
    cfg.eval.words = 20;
    cfg.eval.lambdaTrace = 5;
    cfg.solver.kind = solver;
    if (solver != SolverKind::Poly) {
        cfg.solver.heads = solver == SolverKind::Softmax ? 1 : 2;
        cfg.solver.epochs = 3;
        cfg.solver.batch = 32;
    }
    return cfg;
}

QString writeRun(const QString& dir, const ExperimentResult& r) {
    const QByteArray json = QJsonDocument(resultToJson(r)).toJson();
    return writeFiles(dir, resultFiles(r, json));
}

bool overwrite(const QString& path, const QByteArray& data) {
    return writeFileAtomic(path, data).isEmpty();
}

} // namespace

class TestResultRead : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void roundTrip_data() {
        QTest::addColumn<int>("task");
        QTest::addColumn<int>("solver");
        const std::pair<const char*, TaskKind> tasks[] = {
            {"random_mhla", TaskKind::RandomMhla},
            {"associative_memory", TaskKind::AssociativeMemory},
            {"automaton", TaskKind::Automaton}};
        const std::pair<const char*, SolverKind> solvers[] = {
            {"poly", SolverKind::Poly},
            {"mhla", SolverKind::Mhla},
            {"multilayer", SolverKind::Multilayer},
            {"softmax", SolverKind::Softmax}};
        for (const auto& [tn, t] : tasks)
            for (const auto& [sn, s] : solvers)
                QTest::newRow(qPrintable(
                    QStringLiteral("%1/%2").arg(QString::fromUtf8(tn), QString::fromUtf8(sn))))
                    << int(t) << int(s);
    }
    void roundTrip() {
        QFETCH(int, task);
        QFETCH(int, solver);
        const ExperimentConfig cfg = config(TaskKind(task), SolverKind(solver));
        const ExperimentResult r = runExperiment(cfg);
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        QCOMPARE(writeRun(tmp.path(), r), QString());

        QString error;
        const std::optional<ResultFolder> back = readResultFolder(tmp.path(), &error);
        QVERIFY2(back, qPrintable(error));
        const ExperimentResult& b = back->result;
        QVERIFY(b.config.task.kind == r.config.task.kind);
        QVERIFY(b.config.solver.kind == r.config.solver.kind);
        QCOMPARE(experimentToJson(b.config), experimentToJson(r.config));
        QCOMPARE(b.d, r.d);
        QCOMPARE(b.tokens, r.tokens);
        QCOMPARE(b.dOut, r.dOut);
        QCOMPARE(b.featureDim, r.featureDim);
        QCOMPARE(b.samples, r.samples);
        const Certificate &c = r.certificate, &bc = b.certificate;
        QCOMPARE(bc.method, c.method);
        QVERIFY(same(bc.lambdaMin, c.lambdaMin));
        QVERIFY(same(bc.lambdaMax, c.lambdaMax));
        QVERIFY(same(bc.condition, c.condition));
        QVERIFY(same(bc.tolerance, c.tolerance));
        QCOMPARE(bc.nullDim, c.nullDim);
        QCOMPARE(bc.certified, c.certified);
        QVERIFY(same(Mat(bc.spectrum), Mat(c.spectrum)));
        QCOMPARE(b.solveMethod, r.solveMethod);
        QVERIFY(same(b.metrics, r.metrics));
        QVERIFY(same(b.untruncatedMetrics, r.untruncatedMetrics));
        QVERIFY(same(b.exactMetrics, r.exactMetrics));
        QVERIFY(same(b.nullWitness, r.nullWitness));
        QCOMPARE(b.heads.rank, r.heads.rank);
        QCOMPARE(b.teacherHeads.rank, r.teacherHeads.rank);
        QVERIFY(same(Mat(b.heads.singularValues), Mat(r.heads.singularValues)));
        QVERIFY(same(b.heads.heads, r.heads.heads));
        QVERIFY(same(b.teacherHeads.heads, r.teacherHeads.heads));
        QCOMPARE(b.execution.has_value(), r.execution.has_value());
        if (r.execution) {
            QVERIFY(same(b.execution->stepAccuracy, r.execution->stepAccuracy));
            QVERIFY(same(b.execution->wordAccuracy, r.execution->wordAccuracy));
            QVERIFY(same(b.execution->teacherStepAccuracy, r.execution->teacherStepAccuracy));
            QVERIFY(same(b.execution->teacherWordAccuracy, r.execution->teacherWordAccuracy));
            QCOMPARE(b.execution->words, r.execution->words);
            QCOMPARE(b.execution->wordLength, r.execution->wordLength);
        }
        QCOMPARE(b.lambdaTrace.size(), r.lambdaTrace.size());
        QVERIFY(!r.lambdaTrace.empty());
        for (size_t i = 0; i < r.lambdaTrace.size(); ++i) {
            QCOMPARE(b.lambdaTrace[i].first, r.lambdaTrace[i].first);
            QVERIFY(same(b.lambdaTrace[i].second, r.lambdaTrace[i].second));
        }
        QCOMPARE(b.history.size(), r.history.size());
        QCOMPARE(r.history.empty(), SolverKind(solver) == SolverKind::Poly);
        for (size_t i = 0; i < r.history.size(); ++i) {
            const HistoryPoint &p = r.history[i], &q = b.history[i];
            QCOMPARE(q.epoch, p.epoch);
            QCOMPARE(q.step, p.step);
            QVERIFY(same(q.lr, p.lr) && same(q.trainMse, p.trainMse) && same(q.valMse, p.valMse));
            QVERIFY(same(q.oodRelMse, p.oodRelMse) && same(q.distanceP, p.distanceP));
            QVERIFY(same(q.distancePRel, p.distancePRel));
            QVERIFY(same(q.distanceExactRel, p.distanceExactRel));
        }
        QCOMPARE(b.stopReason, r.stopReason);
        QCOMPARE(b.warnings, r.warnings);
        auto sorted = [](std::vector<std::pair<std::string, double>> v) {
            std::sort(v.begin(), v.end());
            return v;
        };
        QCOMPARE(sorted(b.timingsMs), sorted(r.timingsMs)); // a JSON object keeps no order
        // P and P* are not written: rebuilt from the heads (equal up to rounding when no head
        // was dropped).
        QVERIFY(same(b.teacherP, foldHeads(r.teacherHeads.heads, r.d, r.dOut)));
        if (r.teacherP.size()) {
            QCOMPARE(b.teacherP.rows(), r.teacherP.rows());
            QVERIFY((b.teacherP - r.teacherP).norm() <= 1e-9 * (1 + r.teacherP.norm()));
        }
        QVERIFY(!back->notes.isEmpty());
        QCOMPARE(back->name, QFileInfo(tmp.path()).fileName());
        // Writing what was read gives the same files (nothing lost on a second round).
        QTemporaryDir again;
        QCOMPARE(writeRun(again.path(), b), QString());
        for (const char* f : {"spectrum.csv", "heads.csv", "lambda_trace.csv", "experiment.json"})
            QCOMPARE(readAll(QDir(again.path()).filePath(QString::fromUtf8(f))),
                     readAll(QDir(tmp.path()).filePath(QString::fromUtf8(f))));
    }

    void badFolders_data() {
        QTest::addColumn<QString>("file");    // the file to damage ("" = the folder itself)
        QTest::addColumn<QByteArray>("from"); // replace this ("" = delete the file)
        QTest::addColumn<QByteArray>("to");
        QTest::addColumn<QString>("expected"); // in the message
        QTest::newRow("no result.json") << QStringLiteral("result.json") << QByteArray()
                                        << QByteArray() << QStringLiteral("result.json: missing");
        QTest::newRow("malformed json")
            << QStringLiteral("result.json") << QByteArray("\"d\":") << QByteArray("\"d\" ")
            << QStringLiteral("result.json line ");
        QTest::newRow("newer format")
            << QStringLiteral("result.json")
            << QByteArray("\"format_version\": ") + QByteArray::number(kResultFormatVersion)
            << QByteArray("\"format_version\": 99")
            << QStringLiteral("\"format_version\": 99 was written by a newer MHLA Lab");
        QTest::newRow("wrong type")
            << QStringLiteral("result.json") << QByteArray("\"feature_dim\": 18")
            << QByteArray("\"feature_dim\": \"many\"") << QStringLiteral("key \"feature_dim\"");
        QTest::newRow("bad config") << QStringLiteral("result.json") << QByteArray("\"d\": 3,")
                                    << QByteArray("\"d\": -3,") << QStringLiteral("key \"config\"");
        QTest::newRow("wrong header")
            << QStringLiteral("spectrum.csv") << QByteArray("index,eigenvalue")
            << QByteArray("index,lambda") << QStringLiteral("spectrum.csv line 1: header");
        QTest::newRow("not a number")
            << QStringLiteral("heads.csv") << QByteArray("\nlearned,0,V,0,0,")
            << QByteArray("\nlearned,0,V,0,0,abc") << QStringLiteral("heads.csv line 2");
        QTest::newRow("missing cells")
            << QStringLiteral("lambda_trace.csv") << QByteArray("samples,lambda_min\n")
            << QByteArray("samples,lambda_min\n7\n") << QStringLiteral("lambda_trace.csv line 2");
        QTest::newRow("missing csv") << QStringLiteral("heads.csv") << QByteArray() << QByteArray()
                                     << QStringLiteral("heads.csv: missing");
        QTest::newRow("not a folder")
            << QString() << QByteArray() << QByteArray() << QStringLiteral("not a folder");
        // Sizes are checked against the embedded experiment (d = 3, d_out = 2, D = 18) and
        // bounds before any matrix is made (issue 26). Top-level keys are indented by 4.
        QTest::newRow("d disagrees with the experiment")
            << QStringLiteral("result.json") << QByteArray("\n    \"d\": 3,")
            << QByteArray("\n    \"d\": 4096,")
            << QStringLiteral(
                   "result.json: key \"d\": 4096 disagrees with the embedded experiment");
        QTest::newRow("d_out disagrees with the experiment")
            << QStringLiteral("result.json") << QByteArray("\n    \"d_out\": 2,")
            << QByteArray("\n    \"d_out\": 4096,")
            << QStringLiteral("key \"d_out\": 4096 disagrees with the embedded experiment");
        QTest::newRow("feature_dim disagrees with d")
            << QStringLiteral("result.json") << QByteArray("\"feature_dim\": 18")
            << QByteArray("\"feature_dim\": 19")
            << QStringLiteral("key \"feature_dim\": 19 disagrees");
        QTest::newRow("null_dim above D")
            << QStringLiteral("result.json") << QByteArray("\"null_dim\": 0")
            << QByteArray("\"null_dim\": 100000")
            << QStringLiteral(
                   "key \"null_dim\": 100000 is more than the feature dimension D allows (18)");
        QTest::newRow("rank above min(d_out d, d^2) = 6")
            << QStringLiteral("result.json") << QByteArray("\"teacher_rank\": ")
            << QByteArray("\"teacher_rank\": 7") // 70..79
            << QStringLiteral("key \"teacher_rank\": 7");
        QTest::newRow("seed above 2^53 in the embedded experiment")
            << QStringLiteral("result.json") << QByteArray("\"seed\": 1,")
            << QByteArray("\"seed\": 9007199254740993,")
            << QStringLiteral("9007199254740993 is out of range");
        QTest::newRow("one-row spectrum for D = 18")
            << QStringLiteral("spectrum.csv") << QByteArray("\n1,") << QByteArray("\nTRUNCATE")
            << QStringLiteral("spectrum.csv: 1 rows; expected D = 18");
        QTest::newRow("heads.csv rows short of heads x (d_out d + d^2)")
            << QStringLiteral("heads.csv") << QByteArray("\nlearned,0,V,0,0,")
            << QByteArray("\nTRUNCATE")
            << QStringLiteral("heads.csv: 0 learned heads; result.json says heads =");
    }
    void badFolders() {
        QFETCH(QString, file);
        QFETCH(QByteArray, from);
        QFETCH(QByteArray, to);
        QFETCH(QString, expected);
        ExperimentConfig cfg = config(TaskKind::RandomMhla, SolverKind::Poly);
        const ExperimentResult r = runExperiment(cfg);
        QTemporaryDir tmp;
        QCOMPARE(writeRun(tmp.path(), r), QString());
        QString dir = tmp.path();
        if (file.isEmpty()) {
            dir = QDir(tmp.path()).filePath(QStringLiteral("result.json"));
        } else {
            const QString path = QDir(tmp.path()).filePath(file);
            if (from.isEmpty()) {
                QVERIFY(QFile::remove(path));
            } else {
                QByteArray data = readAll(path);
                QVERIFY2(data.contains(from), data.left(400).constData());
                // "TRUNCATE": the file ends where `from` begins (keeps header and rows before).
                if (to == "\nTRUNCATE") data = data.left(data.indexOf(from) + 1);
                else data.replace(from, to);
                QVERIFY(overwrite(path, data));
            }
        }
        QString error;
        QVERIFY(!readResultFolder(dir, &error));
        QVERIFY2(error.contains(expected), qPrintable(error));
    }
    // A trainer's "heads" is its model's own head count (issue 21): a 1-head MHLA model's folded
    // P has more canonical heads (here the full rank 6 = d_out d), which heads.csv lists and
    // "rank" counts. Format 2 folders, where "heads" counted those rows, still read.
    void trainerHeadsAreTheModels() {
        ExperimentConfig cfg = config(TaskKind::RandomMhla, SolverKind::Mhla);
        cfg.solver.heads = 1;
        const ExperimentResult r = runExperiment(cfg);
        QVERIFY2(r.heads.rank > 1, "the case of the issue: more canonical heads than the model's");
        QCOMPARE(r.heads.heads.count(), r.heads.rank);
        const QJsonObject json = resultToJson(r);
        QCOMPARE(json.value(QStringLiteral("heads")).toInt(), 1);
        QCOMPARE(json.value(QStringLiteral("rank")).toInt(), r.heads.rank);
        QCOMPARE(json.value(QStringLiteral("format_version")).toInt(), kResultFormatVersion);

        QTemporaryDir tmp;
        QCOMPARE(writeRun(tmp.path(), r), QString());
        QString error;
        std::optional<ResultFolder> back = readResultFolder(tmp.path(), &error);
        QVERIFY2(back, qPrintable(error));
        QVERIFY(same(back->result.heads.heads, r.heads.heads));

        const QString path = QDir(tmp.path()).filePath(QStringLiteral("result.json"));
        const QByteArray written = readAll(path);
        const QByteArray headsLine =
            "\n    \"heads\": 1,"; // top level (indent 4), not the config's
        QVERIFY2(written.contains(headsLine), written.left(400).constData());
        // The same folder as format 2 wrote it: "heads" = the rows of heads.csv.
        QByteArray old = written;
        old.replace("\"format_version\": 3", "\"format_version\": 2");
        old.replace(headsLine, "\n    \"heads\": " + QByteArray::number(r.heads.rank) + ',');
        QVERIFY(overwrite(path, old));
        back = readResultFolder(tmp.path(), &error);
        QVERIFY2(back, qPrintable(error));
        QVERIFY(same(back->result.heads.heads, r.heads.heads));
        // Format 3 with another count than the model's is refused by the key.
        QByteArray wrong = written;
        wrong.replace(headsLine, "\n    \"heads\": 2,");
        QVERIFY(overwrite(path, wrong));
        QVERIFY(!readResultFolder(tmp.path(), &error));
        QVERIFY2(error.contains(QStringLiteral("key \"heads\": 2 disagrees with the embedded "
                                               "experiment (the trained model's solver.heads "
                                               "gives 1)")),
                 qPrintable(error));
    }
    // The issue-26 folder: d = d_out = 4096 in result.json and ten more heads in heads.csv
    // (12 KB) made the reader allocate two 4096 x 4096 matrices per head (4.5 GB) before
    // checking anything. It is refused at once, by the key.
    void craftedHugeFolderIsRefusedQuickly() {
        const ExperimentResult r = runExperiment(config(TaskKind::RandomMhla, SolverKind::Poly));
        QTemporaryDir tmp;
        QCOMPARE(writeRun(tmp.path(), r), QString());
        const QString json = QDir(tmp.path()).filePath(QStringLiteral("result.json"));
        const QString heads = QDir(tmp.path()).filePath(QStringLiteral("heads.csv"));
        QByteArray data = readAll(json);
        data.replace("\n    \"d\": 3,", "\n    \"d\": 4096,")
            .replace("\n    \"d_out\": 2,", "\n    \"d_out\": 4096,");
        QVERIFY(overwrite(json, data));
        QByteArray rows = readAll(heads);
        for (int k = 0; k < 10; ++k)
            rows += "learned," + QByteArray::number(r.heads.heads.count() + k) + ",V,4095,4095,1\n";
        QVERIFY(overwrite(heads, rows));
        QVERIFY(readAll(json).size() + rows.size() < 16 * 1024);
        QElapsedTimer clock;
        clock.start();
        QString error;
        QVERIFY(!readResultFolder(tmp.path(), &error));
        QVERIFY2(clock.elapsed() < 1000, qPrintable(QString::number(clock.elapsed())));
        QVERIFY2(error.contains(QStringLiteral("result.json: key \"d\": 4096")), qPrintable(error));
        // Same with a consistent result.json: the heads.csv counts are checked before any
        // matrix is made.
        QVERIFY(overwrite(json, readAll(json)
                                    .replace("\n    \"d\": 4096,", "\n    \"d\": 3,")
                                    .replace("\n    \"d_out\": 4096,", "\n    \"d_out\": 2,")));
        QVERIFY(!readResultFolder(tmp.path(), &error));
        QVERIFY2(error.contains(QStringLiteral("heads.csv")), qPrintable(error));
        QVERIFY2(clock.elapsed() < 1000, qPrintable(QString::number(clock.elapsed())));
    }

    // A control character in a value quoted by a message is escaped, never passed raw.
    void controlCharactersInMessagesAreEscaped() {
        const ExperimentResult r = runExperiment(config(TaskKind::RandomMhla, SolverKind::Poly));
        QTemporaryDir tmp;
        QCOMPARE(writeRun(tmp.path(), r), QString());
        const QString path = QDir(tmp.path()).filePath(QStringLiteral("spectrum.csv"));
        QVERIFY(overwrite(path, readAll(path).replace("\n0,", "\n\x1b[2J0,")));
        QString error;
        QVERIFY(!readResultFolder(tmp.path(), &error));
        QVERIFY2(!error.contains(QChar(0x1b)), qPrintable(error));
        QVERIFY2(error.contains(QStringLiteral("\\x1B[2J0")), qPrintable(error));
    }

    // `solve --seeds 2 --out DIR` writes every run into result.json and the first run's CSVs:
    // the first run is read, and the notes say so.
    void seedsFolderFromTheCli() {
        QTemporaryDir tmp;
        const QString cfgPath = QDir(tmp.path()).filePath(QStringLiteral("exp.json"));
        QCOMPARE(writeFileAtomic(
                     cfgPath,
                     QJsonDocument(experimentToJson(config(TaskKind::RandomMhla, SolverKind::Poly)))
                         .toJson()),
                 QString());
        const QString out = QDir(tmp.path()).filePath(QStringLiteral("out"));
        QProcess p;
        p.start(QStringLiteral(MHLA_BINARY),
                {QStringLiteral("solve"), QStringLiteral("--config"), cfgPath,
                 QStringLiteral("--seeds"), QStringLiteral("2"), QStringLiteral("--out"), out});
        QVERIFY(p.waitForFinished(120000));
        QCOMPARE(p.exitCode(), 0);
        QString error;
        const std::optional<ResultFolder> back = readResultFolder(out, &error);
        QVERIFY2(back, qPrintable(error));
        const ExperimentResult first =
            runExperiment(config(TaskKind::RandomMhla, SolverKind::Poly));
        QCOMPARE(back->result.config.task.seed, first.config.task.seed);
        QCOMPARE(back->result.certificate.lambdaMin, first.certificate.lambdaMin);
        QCOMPARE(back->result.metrics.oodRelMse, first.metrics.oodRelMse);
        QVERIFY(back->notes.join(QLatin1Char(' ')).contains(QStringLiteral("2 seeds")));
        // And the single-run layout of the same command.
        const QString one = QDir(tmp.path()).filePath(QStringLiteral("one"));
        p.start(QStringLiteral(MHLA_BINARY), {QStringLiteral("solve"), QStringLiteral("--config"),
                                              cfgPath, QStringLiteral("--out"), one});
        QVERIFY(p.waitForFinished(120000));
        QCOMPARE(p.exitCode(), 0);
        const std::optional<ResultFolder> single = readResultFolder(one, &error);
        QVERIFY2(single, qPrintable(error));
        QCOMPARE(single->result.certificate.spectrum, first.certificate.spectrum);
        QVERIFY(!single->notes.join(QLatin1Char(' ')).contains(QStringLiteral("seeds")));
    }
};

QTEST_GUILESS_MAIN(TestResultRead)
#include "tst_resultread.moc"
