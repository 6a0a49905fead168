// The experiment file: strict parsing, defaults, overrides and clear errors.
#include "core/experiment/config.h"
#include "testutil.h"
#include <QJsonDocument>
#include <QTest>

using namespace mhla;

namespace {
using mhla::test::s;
QString errorOf(const QByteArray& json, const QStringList& overrides = {}) {
    try {
        QJsonObject obj;
        if (!json.isEmpty()) {
            QJsonParseError pe;
            const QJsonDocument doc = QJsonDocument::fromJson(json, &pe);
            if (pe.error != QJsonParseError::NoError || !doc.isObject()) {
                (void)experimentFromJsonText(json); // throws the parse error
                return {};
            }
            obj = doc.object();
        }
        for (const QString& o : overrides) applyOverride(obj, o);
        (void)experimentFromJson(obj);
    } catch (const ConfigError& e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}
} // namespace

class TestConfig : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void defaultsAreTheIssueDefaults() {
        const ExperimentConfig c = experimentFromJson({});
        QVERIFY(c.task.kind == TaskKind::AssociativeMemory);
        QCOMPARE(c.task.samples, 16384LL);
        QCOMPARE(c.task.pairs, 2);
        QVERIFY(c.solver.kind == SolverKind::Poly);
        QCOMPARE(c.eval.valSamples, 4096LL);
        QCOMPARE(c.promptDim(), 4);
        QCOMPARE(c.tokenCount(), 3);
        QCOMPARE(c.outputDim(), 2);
    }

    void roundTripKeepsEveryKey() {
        ExperimentConfig c;
        c.task.kind = TaskKind::Automaton;
        c.task.embedding = Embedding::Gaussian;
        c.task.coverage = 0.75;
        c.task.seed = 9007199254740991LL;
        c.solver.kind = SolverKind::Softmax;
        c.solver.optimizer = OptimizerKind::Sgd;
        c.solver.compareExact = false;
        c.solver.lr = 3e-4;
        c.solver.heads = 2;
        c.eval.spectrum = SpectrumMode::None;
        const QJsonObject j = experimentToJson(c);
        QCOMPARE(experimentToJson(experimentFromJson(j)), j);
        int keys = 0;
        for (const QString& sec : {s("task"), s("solver"), s("eval")})
            keys += j.value(sec).toObject().size();
        QCOMPARE(keys, static_cast<int>(experimentKeys().size()));
        QCOMPARE(j[s("task")][s("embedding")].toString(), s("gaussian"));
        QCOMPARE(j[s("task")][s("seed")].toInteger(), 9007199254740991LL);
    }

    void overridesParseJsonValues() {
        QJsonObject o;
        applyOverride(o, s("task.samples=1000"));
        applyOverride(o, s("task.kind=automaton"));
        applyOverride(o, s("solver.compare_exact=false"));
        applyOverride(o, s("task.coverage=0.5"));
        const ExperimentConfig c = experimentFromJson(o);
        QCOMPARE(c.task.samples, 1000LL);
        QVERIFY(c.task.kind == TaskKind::Automaton);
        QCOMPARE(c.solver.compareExact, false);
        QCOMPARE(c.task.coverage, 0.5);
    }

    // Every bad input is refused with a message that names the key, the value and what is allowed.
    void badInputIsRefused_data() {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QStringList>("overrides");
        QTest::addColumn<QStringList>("mustContain");
        const QStringList none;
        QTest::newRow("malformed")
            << QByteArray("{\"task\": {") << none << QStringList{s("malformed JSON")};
        QTest::newRow("not an object")
            << QByteArray("[1, 2]") << none << QStringList{s("JSON object")};
        QTest::newRow("unknown section") << QByteArray(R"({"model": {}})") << none
                                         << QStringList{s("model"), s("task, solver, eval")};
        QTest::newRow("unknown key") << QByteArray(R"({"task": {"smaples": 10}})") << none
                                     << QStringList{s("task.smaples"), s("samples")};
        QTest::newRow("section not object")
            << QByteArray(R"({"task": 3})") << none << QStringList{s("task"), s("object")};
        QTest::newRow("wrong type") << QByteArray(R"({"task": {"samples": "many"}})") << none
                                    << QStringList{s("task.samples"), s("many"), s("integer")};
        QTest::newRow("bool for int") << QByteArray(R"({"task": {"d": true}})") << none
                                      << QStringList{s("task.d"), s("true")};
        QTest::newRow("zero samples") << QByteArray(R"({"task": {"samples": 0}})") << none
                                      << QStringList{s("task.samples"), s("0"), s(">= 1")};
        QTest::newRow("negative d") << QByteArray(R"({"task": {"d": -3}})") << none
                                    << QStringList{s("task.d"), s("-3"), s("[1, 64]")};
        QTest::newRow("fractional") << QByteArray(R"({"task": {"samples": 1.5}})") << none
                                    << QStringList{s("task.samples"), s("1.5"), s("integer")};
        QTest::newRow("pairs 0") << QByteArray(R"({"task": {"pairs": 0}})") << none
                                 << QStringList{s("task.pairs"), s("[1, 32]")};
        QTest::newRow("pairs 33") << QByteArray(R"({"task": {"pairs": 33}})") << none
                                  << QStringList{s("task.pairs"), s("33")};
        QTest::newRow("states 1") << QByteArray(R"({"task": {"states": 1}})") << none
                                  << QStringList{s("task.states"), s("[2, 32]")};
        QTest::newRow("alphabet 0") << QByteArray(R"({"task": {"alphabet": 0}})") << none
                                    << QStringList{s("task.alphabet")};
        QTest::newRow("prob > 1") << QByteArray(R"({"task": {"orthogonal_prob": 1.5}})") << none
                                  << QStringList{s("task.orthogonal_prob"), s("1.5"), s("[0, 1]")};
        QTest::newRow("prob < 0") << QByteArray(R"({"task": {"orthogonal_prob": -0.1}})") << none
                                  << QStringList{s("task.orthogonal_prob"), s("-0.1")};
        QTest::newRow("coverage 0") << QByteArray(R"({"task": {"coverage": 0}})") << none
                                    << QStringList{s("task.coverage"), s("(0, 1]")};
        QTest::newRow("embedding")
            << QByteArray(R"({"task": {"embedding": "binary"}})") << none
            << QStringList{s("task.embedding"), s("binary"), s("onehot, orthogonal, gaussian")};
        QTest::newRow("NaN override") << QByteArray() << QStringList{s("task.noise=nan")}
                                      << QStringList{s("task.noise"), s("NaN")};
        QTest::newRow("inf override") << QByteArray() << QStringList{s("task.noise=inf")}
                                      << QStringList{s("task.noise"), s("infinite")};
        QTest::newRow("huge number") << QByteArray(R"({"task": {"noise": 1e999}})") << none
                                     << QStringList{s("malformed JSON"), s("illegal number")};
        QTest::newRow("malformed override")
            << QByteArray() << QStringList{s("samples")} << QStringList{s("dotted.key=value")};
        QTest::newRow("override without section")
            << QByteArray() << QStringList{s("samples=3")} << QStringList{s("section.key")};
        QTest::newRow("tolerance 0") << QByteArray(R"({"solver": {"tolerance": 0}})") << none
                                     << QStringList{s("solver.tolerance"), s("(0, 1)")};
        QTest::newRow("negative lr")
            << QByteArray(R"({"solver": {"kind": "mhla", "heads": 2, "lr": -1}})") << none
            << QStringList{s("solver.lr"), s("-1")};
        QTest::newRow("zero heads trainer")
            << QByteArray(R"({"solver": {"kind": "mhla", "heads": 0}})") << none
            << QStringList{s("solver.heads"), s(">= 1")};
        QTest::newRow("batch > samples")
            << QByteArray(
                   R"({"task": {"samples": 10}, "solver": {"kind": "mhla", "heads": 1, "batch": 64}})")
            << none << QStringList{s("solver.batch"), s("64"), s("task.samples = 10")};
    }
    void badInputIsRefused() {
        QFETCH(QByteArray, json);
        QFETCH(QStringList, overrides);
        QFETCH(QStringList, mustContain);
        const QString err = errorOf(json, overrides);
        QVERIFY2(!err.isEmpty(), "the input was accepted");
        for (const QString& m : mustContain)
            QVERIFY2(err.contains(m),
                     qPrintable(s("message \"") + err + s("\" lacks \"") + m + s("\"")));
    }

    void helpListsEveryKey() {
        const QString help = experimentKeysHelp();
        for (const KeyInfo& k : experimentKeys()) {
            QVERIFY2(help.contains(k.path()), qPrintable(k.path()));
            QVERIFY(!k.help.isEmpty());
        }
    }
};

QTEST_APPLESS_MAIN(TestConfig)
#include "tst_config.moc"
