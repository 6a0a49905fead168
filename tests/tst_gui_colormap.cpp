// The diverging colour map and the run palette are pure functions: reference values from the
// ColorBrewer RdBu table and the Okabe-Ito definition. The colours of runs on screen
// (issue 23): distinct for every colour vision, never a colour that means something else,
// assigned by what is on screen and not by the global run number.
#include "ui/plot/colormap.h"
#include "ui/plot/theme.h"
#include <QPalette>
#include <QSet>
#include <QTest>
#include <cmath>
#include <limits>

using namespace mhla::ui;

class TstGuiColormap : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void referenceColours_data() {
        QTest::addColumn<double>("value");
        QTest::addColumn<double>("maxAbs");
        QTest::addColumn<QColor>("expected");
        QTest::newRow("zero is white") << 0.0 << 1.0 << QColor(247, 247, 247);
        QTest::newRow("+max is dark red") << 2.5 << 2.5 << QColor(103, 0, 31);
        QTest::newRow("-max is dark blue") << -2.5 << 2.5 << QColor(5, 48, 97);
        QTest::newRow("above +max clamps") << 10.0 << 1.0 << QColor(103, 0, 31);
        QTest::newRow("below -max clamps") << -10.0 << 1.0 << QColor(5, 48, 97);
        QTest::newRow("+0.2 is the first red step") << 0.2 << 1.0 << QColor(253, 219, 199);
        QTest::newRow("-0.2 is the first blue step") << -0.2 << 1.0 << QColor(209, 229, 240);
        QTest::newRow("scale 0 gives white") << 3.0 << 0.0 << QColor(247, 247, 247);
        QTest::newRow("NaN gives grey")
            << std::numeric_limits<double>::quiet_NaN() << 1.0 << QColor(128, 128, 128);
    }
    void referenceColours() {
        QFETCH(double, value);
        QFETCH(double, maxAbs);
        QFETCH(QColor, expected);
        QCOMPARE(divergingColor(value, maxAbs), expected);
    }

    void signAndMonotonicity() {
        // Positive values are reddish and get darker/redder with |v|; negative ones bluish.
        int prevGreen = 256;
        for (int i = 1; i <= 20; ++i) {
            const double v = i / 20.0;
            const QColor pos = divergingColor(v, 1.0), neg = divergingColor(-v, 1.0);
            QVERIFY2(pos.red() >= pos.blue(), qPrintable(QStringLiteral("v = %1").arg(v)));
            QVERIFY2(neg.blue() >= neg.red(), qPrintable(QStringLiteral("v = %1").arg(-v)));
            QVERIFY(pos.green() <= prevGreen);
            prevGreen = pos.green();
        }
    }

    void scaleInvariance() {
        for (double v : {-0.7, -0.1, 0.0, 0.35, 0.9})
            QCOMPARE(divergingColor(v, 1.0), divergingColor(v * 1e-6, 1e-6));
    }

    void okabeItoPalette() {
        const auto& c = okabeIto();
        QCOMPARE(c.size(), 8);
        QSet<QRgb> distinct;
        for (const QColor& x : c) distinct.insert(x.rgb());
        QCOMPARE(distinct.size(), 8);
        QCOMPARE(c.first(), QColor(0, 114, 178));
        QCOMPARE(runColor(0), c[0]);
        QCOMPARE(runColor(1), c[1]);
    }

    // Issue 9: run colours repeated after 8 runs, and the yellow run was faint on white.
    void runColoursDoNotRepeatAndReadOnWhite() {
        QSet<QRgb> seen;
        for (int i = 0; i < 64; ++i) {
            const QColor c = runColor(i);
            QVERIFY2(!seen.contains(c.rgb()),
                     qPrintable(QStringLiteral("run %1 repeats %2").arg(i).arg(c.name())));
            seen.insert(c.rgb());
            QVERIFY2(contrastRatio(c, Qt::white) >= 2.0,
                     qPrintable(QStringLiteral("run %1 %2: contrast %3 on white")
                                    .arg(i)
                                    .arg(c.name())
                                    .arg(contrastRatio(c, Qt::white))));
        }
        // The first sixteen are distinct hues, not shades: far apart in RGB.
        for (int i = 0; i < 16; ++i)
            for (int j = 0; j < i; ++j) {
                const QColor a = runColor(i), b = runColor(j);
                const double d =
                    std::hypot(a.red() - b.red(), a.green() - b.green(), a.blue() - b.blue());
                QVERIFY2(d > 60, qPrintable(QStringLiteral("%1 %2").arg(a.name(), b.name())));
            }
        QVERIFY(contrastRatio(colors::kYellow, Qt::white) < 2.0); // why it is not a run colour
        QVERIFY(std::abs(contrastRatio(Qt::black, Qt::white) - 21.0) < 1e-9);
    }

    void labAndColourVisionReferences() {
        // CIE L*a*b* of the sRGB primaries and white (D65): L* = 100 for white, red at
        // (53.24, 80.09, 67.20) (the standard sRGB table).
        const Lab white = cieLab(Qt::white), red = cieLab(QColor(255, 0, 0));
        QVERIFY(std::abs(white.L - 100) < 1e-9);
        QVERIFY(std::abs(white.a) < 0.02 && std::abs(white.b) < 0.02);
        QVERIFY(std::abs(red.L - 53.24) < 0.05);
        QVERIFY(std::abs(red.a - 80.09) < 0.05);
        QVERIFY(std::abs(red.b - 67.20) < 0.05);
        QVERIFY(std::abs(cieLab(Qt::black).L) < 1e-12);
        QVERIFY(std::abs(deltaE(Qt::black, Qt::white) - 100) < 1e-3);
        // Every simulation keeps neutral greys (each matrix row sums to 1).
        for (ColorVision v :
             {ColorVision::Protanopia, ColorVision::Deuteranopia, ColorVision::Tritanopia})
            for (int g : {0, 64, 128, 200, 255}) {
                const QColor s = simulateColorVision(QColor(g, g, g), v);
                QVERIFY2(std::abs(s.red() - g) <= 1 && std::abs(s.green() - g) <= 1 &&
                             std::abs(s.blue() - g) <= 1,
                         qPrintable(s.name()));
            }
        // A green and an orange that normal vision tells apart at once look alike to a
        // protanope: what the palette must avoid.
        const QColor green(0, 160, 0), orange(192, 128, 0);
        QVERIFY(deltaE(green, orange) > 50);
        QVERIFY(deltaE(simulateColorVision(green, ColorVision::Protanopia),
                       simulateColorVision(orange, ColorVision::Protanopia)) < 10);
    }

    void screenPaletteIsDistinctForEveryColourVision() {
        const QList<QColor>& p = screenRunPalette();
        QVERIFY(p.size() >= 8);
        const ColorVision kinds[] = {ColorVision::Protanopia, ColorVision::Deuteranopia,
                                     ColorVision::Tritanopia};
        auto far = [&](const QColor& a, const QColor& b) {
            QString why;
            if (deltaE(a, b) < kRunColorMinDeltaE)
                why += QStringLiteral(" normal %1").arg(deltaE(a, b));
            for (ColorVision v : kinds) {
                const double d = deltaE(simulateColorVision(a, v), simulateColorVision(b, v));
                if (d < kRunColorMinDeltaECvd)
                    why += QStringLiteral(" cvd%1 %2").arg(static_cast<int>(v)).arg(d);
            }
            return why.isEmpty() ? QString() : a.name() + QStringLiteral(" vs ") + b.name() + why;
        };
        for (int i = 0; i < p.size(); ++i) {
            for (int j = 0; j < i; ++j) {
                const QString why = far(p[i], p[j]);
                QVERIFY2(why.isEmpty(), qPrintable(why));
            }
            // Never black, grey, the threshold's orange, the error vermillion, the certified
            // green or the automaton's teacher blue.
            for (const QColor& r : reservedPlotColors()) {
                const QString why = far(p[i], r);
                QVERIFY2(why.isEmpty(), qPrintable(why));
            }
            // Readable as a line on white and on the dark theme's plot background.
            QVERIFY2(contrastRatio(p[i], Qt::white) >= 2.0, qPrintable(p[i].name()));
            QVERIFY2(contrastRatio(p[i], darkPalette().color(QPalette::Base)) >= 2.0,
                     qPrintable(p[i].name()));
        }
        for (const QColor& c : {colors::kBlack, colors::kTrueState, colors::kExactReference,
                                colors::kTau, colors::kError, colors::kGood, colors::kTeacher})
            QVERIFY(reservedPlotColors().contains(c));
    }

    void coloursFollowWhatIsOnScreen() {
        RunColorAssigner a;
        const int n = static_cast<int>(screenRunPalette().size());
        // The first runs take the palette in order.
        QHash<int, int> got = a.assign({1, 2, 3});
        QCOMPARE(got.value(1), 0);
        QCOMPARE(got.value(2), 1);
        QCOMPARE(got.value(3), 2);
        // Stable while on screen: hiding #2 changes nobody else; a new run takes the free one.
        got = a.assign({1, 3});
        QCOMPARE(got.value(1), 0);
        QCOMPARE(got.value(3), 2);
        QVERIFY(!got.contains(2));
        got = a.assign({1, 3, 4});
        QCOMPARE(got.value(4), 1);
        QCOMPARE(got.value(3), 2);
        // #2 back: its own colour is taken by #4, so the first free one.
        got = a.assign({1, 2, 3, 4});
        QCOMPARE(got.value(2), 3);
        QCOMPARE(got.value(4), 1);
        // A run that comes back to a free former colour gets it again.
        got = a.assign({1, 3, 4});
        got = a.assign({1, 2, 3, 4});
        QCOMPARE(got.value(2), 3);
        // All distinct up to the palette's size; beyond it the least used (first) is shared.
        QList<int> many;
        for (int id = 10; id < 10 + n + 1; ++id) many << id;
        RunColorAssigner b;
        got = b.assign(many);
        QSet<int> distinct;
        for (int k = 0; k < n; ++k) distinct.insert(got.value(many[k]));
        QCOMPARE(distinct.size(), n);
        QCOMPARE(got.value(many.last()), 0);
        // Not a function of the run number: after 105 runs went away, the next are the first
        // colours again (before: run 106 had a near-black shade).
        RunColorAssigner c;
        QList<int> sweep;
        for (int id = 1; id <= 105; ++id) sweep << id;
        (void)c.assign(sweep);
        got = c.assign({106, 107, 108});
        QCOMPARE(got.value(106), 0);
        QCOMPARE(got.value(107), 1);
        QCOMPARE(got.value(108), 2);
        // A saved colour is taken when free, ignored when another run on screen has it.
        RunColorAssigner d;
        (void)d.assign({1, 2});
        d.prefer(2, RunColorAssigner::colorOf(5));
        got = d.assign({1, 2});
        QCOMPARE(got.value(2), 5);
        d.prefer(2, RunColorAssigner::colorOf(0));
        got = d.assign({1, 2});
        QCOMPARE(got.value(1), 0);
        QVERIFY(got.value(2) != 0);
        d.prefer(2, QColor(1, 2, 3)); // not a palette colour: nothing changes
        QCOMPARE(d.assign({1, 2}), got);
        QCOMPARE(RunColorAssigner::colorOf(n + 1), screenRunPalette()[1]);
    }

    void symmetricScaleTakesLargestMagnitude() {
        QCOMPARE(symmetricScale({0.5, -2.0, 1.0}), 2.0);
        QCOMPARE(symmetricScale({}), 0.0);
        QCOMPARE(symmetricScale({std::numeric_limits<double>::infinity(), 3.0}), 3.0);
    }
};

QTEST_MAIN(TstGuiColormap) // darkPalette() needs a QGuiApplication
#include "tst_gui_colormap.moc"
