// The command lines of `mhla-lab figures` and of the desktop app parse into option structs;
// junk is an error that names the option (no atoi).
#include "app/guioptions.h"
#include <QTest>
#include <utility>

using namespace mhla::cli;

class TstGuiOptions : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void figuresDefaultsAndValues() {
        FiguresOptions o;
        QCOMPARE(parseFiguresOptions({QStringLiteral("--config"), QStringLiteral("e.json"),
                                      QStringLiteral("--out"), QStringLiteral("d"),
                                      QStringLiteral("--set"), QStringLiteral("task.samples=8"),
                                      QStringLiteral("--set"), QStringLiteral("task.seed=2"),
                                      QStringLiteral("--size"), QStringLiteral("800x600"),
                                      QStringLiteral("--dpi"), QStringLiteral("150"),
                                      QStringLiteral("--force"), QStringLiteral("--yes")},
                                     &o),
                 QString());
        QCOMPARE(o.config, QStringLiteral("e.json"));
        QCOMPARE(o.out, QStringLiteral("d"));
        QCOMPARE(o.sets,
                 (QStringList{QStringLiteral("task.samples=8"), QStringLiteral("task.seed=2")}));
        QCOMPARE(o.size, QSize(800, 600));
        QCOMPARE(o.dpi, 150);
        QVERIFY(o.force);
        QVERIFY(o.yes);
        FiguresOptions d;
        QCOMPARE(parseFiguresOptions({QStringLiteral("--config"), QStringLiteral("e.json"),
                                      QStringLiteral("--out"), QStringLiteral("d")},
                                     &d),
                 QString());
        QCOMPARE(d.size, QSize(1600, 1000));
        QCOMPARE(d.dpi, 200);
        QCOMPARE(d.style, FigureStyle::Screen); // the default stays as it was
        for (const auto& [word, style] : {std::pair{"screen", FigureStyle::Screen},
                                          std::pair{"paper-1col", FigureStyle::PaperOneColumn},
                                          std::pair{"paper-2col", FigureStyle::PaperTwoColumns}}) {
            FiguresOptions st;
            QCOMPARE(parseFiguresOptions({QStringLiteral("--config"), QStringLiteral("e.json"),
                                          QStringLiteral("--out"), QStringLiteral("d"),
                                          QStringLiteral("--style"), QString::fromLatin1(word)},
                                         &st),
                     QString());
            QCOMPARE(st.style, style);
        }
        QVERIFY(!d.force);
        QVERIFY(!d.yes);
    }

    void figuresErrors_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("mentions");
        const QStringList base{QStringLiteral("--config"), QStringLiteral("e.json"),
                               QStringLiteral("--out"), QStringLiteral("d")};
        QTest::newRow("no config") << QStringList{QStringLiteral("--out"), QStringLiteral("d")}
                                   << QStringLiteral("--config");
        QTest::newRow("no out") << QStringList{QStringLiteral("--config"), QStringLiteral("e")}
                                << QStringLiteral("--out");
        QTest::newRow("junk dpi") << base + QStringList{QStringLiteral("--dpi"),
                                                        QStringLiteral("12abc")}
                                  << QStringLiteral("--dpi");
        QTest::newRow("dpi range")
            << base + QStringList{QStringLiteral("--dpi"), QStringLiteral("5")}
            << QStringLiteral("--dpi");
        QTest::newRow("junk size")
            << base + QStringList{QStringLiteral("--size"), QStringLiteral("800by600")}
            << QStringLiteral("--size");
        QTest::newRow("unknown") << base + QStringList{QStringLiteral("--colour")}
                                 << QStringLiteral("colour");
        QTest::newRow("stray") << base + QStringList{QStringLiteral("extra")}
                               << QStringLiteral("extra");
        QTest::newRow("missing value")
            << QStringList{QStringLiteral("--config")} << QStringLiteral("config");
        QTest::newRow("bad style")
            << base + QStringList{QStringLiteral("--style"), QStringLiteral("paper")}
            << QStringLiteral("--style must be screen, paper-1col or paper-2col, got \"paper\"");
        QTest::newRow("style and size")
            << base + QStringList{QStringLiteral("--style"), QStringLiteral("paper-2col"),
                                  QStringLiteral("--size"), QStringLiteral("800x600")}
            << QStringLiteral("give one of them");
    }
    void figuresErrors() {
        QFETCH(QStringList, args);
        QFETCH(QString, mentions);
        FiguresOptions o;
        const QString err = parseFiguresOptions(args, &o);
        QVERIFY2(err.contains(mentions), qPrintable(err));
    }

    void guiOptions() {
        GuiOptions o;
        QCOMPARE(parseGuiOptions({QStringLiteral("mhla-lab"), QStringLiteral("exp.json"),
                                  QStringLiteral("--preset"), QStringLiteral("3"),
                                  QStringLiteral("--run"), QStringLiteral("--theme"),
                                  QStringLiteral("dark"), QStringLiteral("--field"),
                                  QStringLiteral("task.d=5")},
                                 &o),
                 QString());
        QCOMPARE(o.file, QStringLiteral("exp.json"));
        QCOMPARE(o.preset, 3);
        QVERIFY(o.run);
        QCOMPARE(o.theme, QStringLiteral("dark"));
        QCOMPARE(o.fields, QStringList{QStringLiteral("task.d=5")});
        GuiOptions none;
        QCOMPARE(parseGuiOptions({QStringLiteral("mhla-lab")}, &none), QString());
        QVERIFY(none.file.isEmpty());
        QCOMPARE(none.preset, 0);
    }

    void everyListedGuiOptionParses() {
        for (const QString& name : guiOptionNames()) {
            QStringList args{QStringLiteral("mhla-lab"), name};
            if (name != u"--run" && name != u"--no-sweep")
                args << (name == u"--theme"                            ? QStringLiteral("dark")
                         : name == u"--size"                           ? QStringLiteral("800x600")
                         : name == u"--field"                          ? QStringLiteral("task.d=4")
                         : name == u"--tab" || name == u"--screenshot" ? QStringLiteral("x")
                                                                       : QStringLiteral("1"));
            GuiOptions o;
            QVERIFY2(parseGuiOptions(args, &o).isEmpty(), qPrintable(name));
        }
    }

    void guiErrors_data() {
        QTest::addColumn<QStringList>("args");
        QTest::newRow("junk preset")
            << QStringList{QStringLiteral("x"), QStringLiteral("--preset"), QStringLiteral("2x")};
        QTest::newRow("preset 0") << QStringList{QStringLiteral("x"), QStringLiteral("--preset"),
                                                 QStringLiteral("0")};
        QTest::newRow("junk seeds")
            << QStringList{QStringLiteral("x"), QStringLiteral("--seeds"), QStringLiteral("many")};
        QTest::newRow("bad theme")
            << QStringList{QStringLiteral("x"), QStringLiteral("--theme"), QStringLiteral("blue")};
        QTest::newRow("two files")
            << QStringList{QStringLiteral("x"), QStringLiteral("a.json"), QStringLiteral("b.json")};
        QTest::newRow("unknown") << QStringList{QStringLiteral("x"), QStringLiteral("--bogus")};
        QTest::newRow("field") << QStringList{QStringLiteral("x"), QStringLiteral("--field"),
                                              QStringLiteral("task.d")};
    }
    void guiErrors() {
        QFETCH(QStringList, args);
        GuiOptions o;
        QVERIFY(!parseGuiOptions(args, &o).isEmpty());
    }
};

QTEST_MAIN(TstGuiOptions)
#include "tst_gui_options.moc"
