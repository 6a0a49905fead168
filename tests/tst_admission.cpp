// Admission (core/run/admission.h): whether this machine can run a parsed experiment. Parsing
// never asks it, so a result written on a bigger machine reads here.
#include "core/algebra/model.h"
#include "core/experiment/config.h"
#include "core/records/resultio.h"
#include "core/records/resultread.h"
#include "core/run/admission.h"
#include "core/run/runner.h"
#include "core/sweep/sweep.h"
#include "core/tasks/tasks.h"
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

using namespace mhla;

namespace {
QString s(const char* t) { return QString::fromUtf8(t); }
ExperimentConfig parse(const QByteArray& json) { return experimentFromJsonText(json); }
} // namespace

class TestAdmission : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // Sizes no 24 GiB machine holds: they parse, and admission refuses them with the key to change.
    void tooLargeForThisMachine_data() {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("key");
        QTest::addColumn<QStringList>("mustContain");
        QTest::newRow("memory d=64")
            << QByteArray(R"({"task": {"kind": "random_mhla", "d": 64}})") << s("task.d")
            << QStringList{s("d = 64"), s("GiB"), s("this machine has")};
        QTest::newRow("memory pairs=32")
            << QByteArray(R"({"task": {"pairs": 32}})") << s("task.pairs")
            << QStringList{s("task.pairs = 32"), s("GiB")};
        QTest::newRow("memory automaton")
            << QByteArray(R"({"task": {"kind": "automaton", "states": 32, "alphabet": 32}})")
            << s("task.states") << QStringList{s("task.states = 32"), s("GiB")};
    }
    void tooLargeForThisMachine() {
        QFETCH(QByteArray, json);
        QFETCH(QString, key);
        QFETCH(QStringList, mustContain);
        ExperimentConfig cfg;
        try {
            cfg = parse(json);
        } catch (const ConfigError& e) {
            QFAIL(qPrintable(s("parsing refused a valid file: ") + QString::fromUtf8(e.what())));
        }
        const auto issues = admissionIssues(cfg);
        QCOMPARE(issues.size(), size_t(1));
        QCOMPARE(issues.front().key, key);
        for (const QString& m : mustContain)
            QVERIFY2(issues.front().message.contains(m), qPrintable(issues.front().message));
        // The same experiment is admitted on a machine that holds it (10^30 bytes here).
        QVERIFY(admissionIssues(cfg, 1e30).empty());
        // runExperiment admits too (the last guard), before allocating anything.
        bool refused = false;
        try {
            runExperiment(cfg);
        } catch (const ConfigError& e) {
            refused = QString::fromUtf8(e.what()).contains(s("GiB")) && e.key() == key;
        }
        QVERIFY(refused);
    }

    void smallRunsAreAdmitted() {
        QVERIFY(admissionIssues(ExperimentConfig{}).empty());
        QVERIFY(estimateRunBytes(ExperimentConfig{}) > 0);
    }

    // A sweep is planned only if every run is admitted; the refusal names the point.
    void sweepPlanningAdmitsEveryRun() {
        SweepSpec spec;
        spec.axes.push_back(SweepAxis{s("task.pairs"), {QJsonValue(2), QJsonValue(32)}});
        try {
            planSweep(QJsonObject{}, spec);
            QFAIL("a sweep with a point this machine cannot hold was planned");
        } catch (const ConfigError& e) {
            const QString m = QString::fromUtf8(e.what());
            QVERIFY2(m.contains(s("sweep point 1")) && m.contains(s("GiB")), qPrintable(m));
            QCOMPARE(e.key(), s("task.pairs"));
        }
    }

    // The dimensions are a pure function of the task keys, and the tasks agree with them.
    void taskDimsAgreeWithTheTasks_data() {
        QTest::addColumn<QByteArray>("json");
        QTest::newRow("random_mhla")
            << QByteArray(R"({"task": {"kind": "random_mhla", "d": 5, "tokens": 7, "d_out": 3}})");
        QTest::newRow("associative_memory") << QByteArray(R"({"task": {"pairs": 3}})");
        QTest::newRow("automaton") << QByteArray(
            R"({"task": {"kind": "automaton", "states": 3, "alphabet": 2, "coverage": 0.5}})");
    }
    void taskDimsAgreeWithTheTasks() {
        QFETCH(QByteArray, json);
        const ExperimentConfig cfg = parse(json);
        const TaskDims dims = taskDims(cfg.task);
        const auto task = makeTask(cfg.task);
        QCOMPARE(dims.d, task->d());
        QCOMPARE(dims.n, task->tokens());
        QCOMPARE(dims.dOut, task->dOut());
        QCOMPARE(cfg.promptDim(), task->d());
    }

    // Reading is not admission: a result whose experiment needs ~77 GiB (task.pairs = 24, as
    // written on a bigger machine) opens here.
    void aResultFromABiggerMachineOpens() {
        ExperimentConfig cfg;
        cfg.task.samples = 256;
        cfg.eval.valSamples = cfg.eval.oodSamples = 64;
        cfg.eval.identifiability = ExploreMode::None;
        ExperimentResult r = runExperiment(cfg);
        // The reader checks every size against the embedded experiment (issue 26): the sizes
        // are those of pairs = 24 (d = 48, n = 25, d_out = 24); the heads and the spectrum are
        // left out (a folder may hold none), so that nothing of the pairs = 2 run disagrees.
        r.heads = {};
        r.teacherHeads = {};
        r.certificate.spectrum.resize(0);
        r.certificate.nullDim = 0;
        QJsonObject json = resultToJson(r);
        QJsonObject config = json.value(s("config")).toObject();
        QJsonObject task = config.value(s("task")).toObject();
        task.insert(s("pairs"), 24);
        config.insert(s("task"), task);
        json.insert(s("config"), config);
        json.insert(s("d"), 48);
        json.insert(s("tokens"), 25);
        json.insert(s("d_out"), 24);
        json.insert(s("feature_dim"), static_cast<qint64>(featureDim(48)));
        QVERIFY(!admissionIssues(experimentFromJson(config)).empty()); // too big for this machine
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString error = writeFiles(dir.path(), resultFiles(r, QJsonDocument(json).toJson()));
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QString readError;
        const auto folder = readResultFolder(dir.path(), &readError);
        QVERIFY2(folder.has_value(), qPrintable(readError));
        QCOMPARE(folder->result.config.task.pairs, 24);
    }
};

QTEST_APPLESS_MAIN(TestAdmission)
#include "tst_admission.moc"
