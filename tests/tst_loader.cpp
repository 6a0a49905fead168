// The one experiment loader and the structured errors of the key table: files that are not
// regular files, repeated keys, overrides of keys the run does not read, every problem at
// once with its key, and bounds that are always shown.
#include "core/base/fileio.h"
#include "core/experiment/loader.h"
#include <QFile>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>
#include <sys/stat.h>

using namespace mhla;

namespace {
QString write(const QTemporaryDir& dir, const char* name, const QByteArray& text) {
    const QString path = dir.filePath(QString::fromUtf8(name));
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(text) != text.size()) return {};
    return path;
}
QString errorOf(const std::function<void()>& f, QString* key = nullptr) {
    try {
        f();
    } catch (const ConfigError& e) {
        if (key) *key = e.key();
        return QString::fromStdString(e.what());
    }
    return {};
}
} // namespace

class TestLoader : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void defaultsAndOverrides() {
        const LoadedExperiment a = loadExperiment(QString(), {QStringLiteral("task.samples=500")});
        QCOMPARE(a.config.task.samples, 500LL);
        QVERIFY(a.config.task.kind == TaskKind::AssociativeMemory);
        QVERIFY(a.warnings.isEmpty());
        // One default experiment: what the loader gives with no file is ExperimentConfig{}.
        QCOMPARE(experimentToJson(loadExperiment(QString()).config),
                 experimentToJson(ExperimentConfig{}));
    }
    void fileWithOverridesInOrder() {
        QTemporaryDir dir;
        const QString path = write(dir, "e.json", R"({"task": {"kind": "random_mhla", "d": 3}})");
        const LoadedExperiment a =
            loadExperiment(path, {QStringLiteral("task.d=5"), QStringLiteral("task.d=6")});
        QCOMPARE(a.config.task.d, 6);
        QCOMPARE(a.json.value(QStringLiteral("task")).toObject().value(QStringLiteral("d")).toInt(),
                 6);
    }
    void refusesWhatIsNotAnExperiment_data() {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("expected");
        QTest::addColumn<QString>("key");
        QTest::newRow("number") << QByteArray("42") << QStringLiteral("must be a JSON object")
                                << QString();
        QTest::newRow("null") << QByteArray("null") << QStringLiteral("must be a JSON object")
                              << QString();
        QTest::newRow("string") << QByteArray("\"x\"") << QStringLiteral("must be a JSON object")
                                << QString();
        QTest::newRow("array") << QByteArray("[]") << QStringLiteral("not an array") << QString();
        QTest::newRow("malformed")
            << QByteArray("{\"task\": ") << QStringLiteral("malformed JSON at offset") << QString();
        QTest::newRow("duplicate key")
            << QByteArray(R"({"task": {"pairs": 2, "pairs": 3}})")
            << QStringLiteral("\"task.pairs\" is given twice") << QStringLiteral("task.pairs");
        QTest::newRow("duplicate section")
            << QByteArray(R"({"task": {}, "eval": {}, "task": {"seed": 2}})")
            << QStringLiteral("\"task\" is given twice") << QStringLiteral("task");
        QTest::newRow("escaped duplicate")
            << QByteArray(R"({"task": {"seed": 1, "se\u0065d": 2}})")
            << QStringLiteral("\"task.seed\" is given twice") << QStringLiteral("task.seed");
        QTest::newRow("result.json")
            << QByteArray(R"({"lambda_min": 0.5, "config": {}})")
            << QStringLiteral(
                   "unknown key \"config\" at the top level; allowed: task, solver, eval")
            << QStringLiteral("config");
        QTest::newRow("upper bound shown")
            << QByteArray(R"({"task": {"samples": 2e10}})")
            << QStringLiteral("expected an integer >= 1 and <= 10000000000")
            << QStringLiteral("task.samples");
        QTest::newRow("value as given")
            << QByteArray(R"({"task": {"samples": 1000.0000000000001}})")
            << QStringLiteral("1000.0000000000001 is not an integer")
            << QStringLiteral("task.samples");
    }
    void refusesWhatIsNotAnExperiment() {
        QFETCH(QByteArray, text);
        QFETCH(QString, expected);
        QFETCH(QString, key);
        QTemporaryDir dir;
        const QString path = write(dir, "bad.json", text);
        QString gotKey;
        const QString e = errorOf([&] { (void)loadExperiment(path); }, &gotKey);
        QVERIFY2(e.contains(expected), qPrintable(e));
        QVERIFY2(e.startsWith(path), qPrintable(e)); // the file is named
        QCOMPARE(gotKey, key);
    }
    void readsOnlyRegularFiles() {
        QTemporaryDir dir;
        QVERIFY(errorOf([] {
                    (void)loadExperiment(QStringLiteral("/dev/zero"));
                }).contains(QStringLiteral("not a regular file")));
        QVERIFY(errorOf([&] {
                    (void)loadExperiment(dir.path());
                }).contains(QStringLiteral("is a folder")));
        QVERIFY(errorOf([&] {
                    (void)loadExperiment(dir.filePath(QStringLiteral("missing.json")));
                }).contains(QStringLiteral("No such file or directory")));
        const QString fifo = dir.filePath(QStringLiteral("fifo"));
        QCOMPARE(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
        // Must return at once (no writer will ever come), not hang.
        QVERIFY(errorOf([&] {
                    (void)loadExperiment(fifo);
                }).contains(QStringLiteral("not a regular file")));
        const QString big = write(dir, "big.json", QByteArray(2 * 1024 * 1024, ' '));
        QVERIFY(
            errorOf([&] { (void)loadExperiment(big); }).contains(QStringLiteral("bytes are read")));
    }
    void overrideOfAKeyTheRunDoesNotRead() {
        QString key;
        const QString e =
            errorOf([] { (void)loadExperiment(QString(), {QStringLiteral("task.d=8")}); }, &key);
        QVERIFY2(e.contains(QStringLiteral("does not read this key; it applies to random_mhla")),
                 qPrintable(e));
        QVERIFY(e.contains(QStringLiteral("task.pairs")));
        QCOMPARE(key, QStringLiteral("task.d"));
        // Adam does not read momentum; SGD does.
        QVERIFY(!errorOf([] {
                     (void)loadExperiment(QString(), {QStringLiteral("solver.kind=mhla"),
                                                      QStringLiteral("solver.heads=1"),
                                                      QStringLiteral("solver.optimizer=adam"),
                                                      QStringLiteral("solver.momentum=0.5")});
                 }).isEmpty());
        QVERIFY(errorOf([] {
                    (void)loadExperiment(QString(), {QStringLiteral("solver.kind=mhla"),
                                                     QStringLiteral("solver.heads=1"),
                                                     QStringLiteral("solver.optimizer=sgd"),
                                                     QStringLiteral("solver.momentum=0.5")});
                }).isEmpty());
    }
    void fileKeysNotReadAreWarnings() {
        QTemporaryDir dir;
        const QString path =
            write(dir, "e.json", R"({"task": {"kind": "associative_memory", "d": 9}})");
        const LoadedExperiment a = loadExperiment(path);
        QCOMPARE(a.warnings.size(), 1);
        QVERIFY(a.warnings.first().startsWith(QStringLiteral("task.d is set but not read")));
        // The app's own files (every key, defaults where unread) load without warnings.
        const QString full =
            write(dir, "full.json", QJsonDocument(experimentToJson(ExperimentConfig{})).toJson());
        QVERIFY(loadExperiment(full).warnings.isEmpty());
    }
    void validateAllReportsEveryProblemWithItsKey() {
        const QJsonObject obj =
            QJsonDocument::fromJson(
                R"({"task": {"samples": 0, "pairs": 99, "bogus": 1}, "solver": {"lr": "fast"}})")
                .object();
        const auto issues = validateAll(obj);
        QStringList keys;
        for (const ConfigIssue& i : issues) keys << i.key;
        keys.sort();
        QCOMPARE(keys, (QStringList{QStringLiteral("solver.lr"), QStringLiteral("task.bogus"),
                                    QStringLiteral("task.pairs"), QStringLiteral("task.samples")}));
        // Cross-key constraints carry their key too.
        const QJsonObject softmax =
            QJsonDocument::fromJson(
                R"({"task": {"kind": "random_mhla", "d": 4}, "solver": {"kind": "softmax", "heads": 5}})")
                .object();
        const auto s = validateAll(softmax);
        QCOMPARE(s.size(), size_t(1));
        QCOMPARE(s.front().key, QStringLiteral("solver.heads"));
        QVERIFY(validateAll(experimentToJson(ExperimentConfig{})).empty());
    }
    void applicabilityMatchesWhatRunsRead() {
        ExperimentConfig poly;
        QVERIFY(findExperimentKey(QStringLiteral("solver.ridge"))->applies.reads(poly));
        QVERIFY(!findExperimentKey(QStringLiteral("solver.lr"))->applies.reads(poly));
        QVERIFY(findExperimentKey(QStringLiteral("solver.rank_tolerance"))->applies.reads(poly));
        ExperimentConfig trainer = poly;
        trainer.solver.kind = SolverKind::Mhla;
        trainer.solver.compareExact = false;
        QVERIFY(findExperimentKey(QStringLiteral("solver.rank_tolerance"))->applies.reads(trainer));
        QVERIFY(!findExperimentKey(QStringLiteral("solver.tolerance"))->applies.reads(trainer));
        QVERIFY(!findExperimentKey(QStringLiteral("eval.spectrum"))->applies.reads(trainer));
        trainer.solver.compareExact = true;
        QVERIFY(findExperimentKey(QStringLiteral("solver.tolerance"))->applies.reads(trainer));
        QVERIFY(!findExperimentKey(QStringLiteral("solver.layers"))->applies.reads(trainer));
        trainer.solver.kind = SolverKind::Multilayer;
        QVERIFY(findExperimentKey(QStringLiteral("solver.layers"))->applies.reads(trainer));
        // Every key has a label and a tooltip, and the tooltip names the allowed values.
        for (const KeyInfo& k : experimentKeys()) {
            QVERIFY2(!k.label.isEmpty() && !k.tooltip.isEmpty(), qPrintable(k.path()));
            QVERIFY2(k.tooltipHtml().contains(k.allowed().toHtmlEscaped()), qPrintable(k.path()));
        }
    }
};

QTEST_APPLESS_MAIN(TestLoader)
#include "tst_loader.moc"
