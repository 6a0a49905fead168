// Command-line option structs: every option parsed into its struct, junk refused with a
// message that names the option and what is allowed, unknown options get a suggestion.
#include "app/options.h"
#include <QTest>

using namespace mhla::cli;

class TestOptions : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void solveDefaults() {
        SolveOptions o;
        QVERIFY(parseSolveOptions({}, &o).isEmpty());
        QCOMPARE(o.threads, 0);
        QCOMPARE(o.seeds, 1);
        QVERIFY(o.config.isEmpty() && o.out.isEmpty() && o.sets.isEmpty());
        QVERIFY(!o.progress && !o.force && !o.yes && !o.help);
    }
    void solveEverything() {
        SolveOptions o;
        const QString e = parseSolveOptions(
            {QStringLiteral("--config"), QStringLiteral("a.json"), QStringLiteral("--set"),
             QStringLiteral("task.samples=9"), QStringLiteral("--set"),
             QStringLiteral("task.seed=3"), QStringLiteral("--out"), QStringLiteral("dir"),
             QStringLiteral("--threads"), QStringLiteral("2"), QStringLiteral("--seeds"),
             QStringLiteral("4"), QStringLiteral("--progress"), QStringLiteral("--force"),
             QStringLiteral("--yes")},
            &o);
        QVERIFY2(e.isEmpty(), qPrintable(e));
        QCOMPARE(o.config, QStringLiteral("a.json"));
        QCOMPARE(o.sets,
                 (QStringList{QStringLiteral("task.samples=9"), QStringLiteral("task.seed=3")}));
        QCOMPARE(o.out, QStringLiteral("dir"));
        QCOMPARE(o.threads, 2);
        QCOMPARE(o.seeds, 4);
        QVERIFY(o.progress && o.force && o.yes);
    }
    void solveRefuses_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("expected");
        QTest::newRow("threads junk")
            << QStringList{QStringLiteral("--threads"), QStringLiteral("2x")}
            << QStringLiteral("--threads: \"2x\" is not allowed; expected an integer in [1, 256]");
        QTest::newRow("threads 0") << QStringList{QStringLiteral("--threads"), QStringLiteral("0")}
                                   << QStringLiteral("[1, 256]");
        QTest::newRow("threads 1024")
            << QStringList{QStringLiteral("--threads"), QStringLiteral("1024")}
            << QStringLiteral("[1, 256]");
        QTest::newRow("seeds 0")
            << QStringList{QStringLiteral("--seeds"), QStringLiteral("0")}
            << QStringLiteral("--seeds: \"0\" is not allowed; expected an integer in [1, 1000]");
        QTest::newRow("seeds float")
            << QStringList{QStringLiteral("--seeds"), QStringLiteral("2.5")}
            << QStringLiteral("--seeds");
        QTest::newRow("typo") << QStringList{QStringLiteral("--thread"), QStringLiteral("2")}
                              << QStringLiteral("did you mean --threads?");
        QTest::newRow("typo flag") << QStringList{QStringLiteral("--progres")}
                                   << QStringLiteral("did you mean --progress?");
        QTest::newRow("missing value")
            << QStringList{QStringLiteral("--config")} << QStringLiteral("config");
        QTest::newRow("empty config") << QStringList{QStringLiteral("--config"), QString()}
                                      << QStringLiteral("--config: expected the path");
        QTest::newRow("positional") << QStringList{QStringLiteral("extra")}
                                    << QStringLiteral("unexpected argument \"extra\"");
    }
    void solveRefuses() {
        QFETCH(QStringList, args);
        QFETCH(QString, expected);
        SolveOptions o;
        o.threads = 77; // untouched on failure
        const QString e = parseSolveOptions(args, &o);
        QVERIFY2(e.contains(expected), qPrintable(e));
        QCOMPARE(o.threads, 77);
    }
    void bench() {
        BenchOptions o;
        QVERIFY(parseBenchOptions({QStringLiteral("--repeats"), QStringLiteral("3"),
                                   QStringLiteral("--threads"), QStringLiteral("1")},
                                  &o)
                    .isEmpty());
        QCOMPARE(o.repeats, 3);
        QCOMPARE(o.threads, 1);
        BenchOptions quick;
        QVERIFY(parseBenchOptions({QStringLiteral("--quick")}, &quick).isEmpty());
        QVERIFY(quick.quick);
        QCOMPARE(quick.repeats, 1);
        BenchOptions bad;
        QVERIFY(parseBenchOptions({QStringLiteral("--repeats"), QStringLiteral("abc")}, &bad)
                    .contains(QStringLiteral("[1, 1000]")));
        QVERIFY(parseBenchOptions({QStringLiteral("--repeat"), QStringLiteral("3")}, &bad)
                    .contains(QStringLiteral("did you mean --repeats?")));
        BenchOptions torch;
        QVERIFY(
            parseBenchOptions({QStringLiteral("--torch-reference"), QStringLiteral("t.py")}, &torch)
                .isEmpty());
        QCOMPARE(torch.torchReference, QStringLiteral("t.py"));
        QVERIFY(torch.reference.isEmpty());
        QVERIFY(
            parseBenchOptions({QStringLiteral("--torch-refrence"), QStringLiteral("t.py")}, &bad)
                .contains(QStringLiteral("did you mean --torch-reference?")));
    }
    void closest() {
        QCOMPARE(closestMatch(QStringLiteral("--verison"), topLevelWords()),
                 QStringLiteral("--version"));
        QCOMPARE(closestMatch(QStringLiteral("slove"), topLevelWords()), QStringLiteral("solve"));
        QCOMPARE(closestMatch(QStringLiteral("--bogus"), topLevelWords()), QString());
    }
};

QTEST_APPLESS_MAIN(TestOptions)
#include "tst_options.moc"
