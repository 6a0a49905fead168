// The diverging colour map and the run palette are pure functions: reference values from the
// ColorBrewer RdBu table and the Okabe-Ito definition.
#include "ui/plot/colormap.h"
#include "ui/plot/theme.h"
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

    void symmetricScaleTakesLargestMagnitude() {
        QCOMPARE(symmetricScale({0.5, -2.0, 1.0}), 2.0);
        QCOMPARE(symmetricScale({}), 0.0);
        QCOMPARE(symmetricScale({std::numeric_limits<double>::infinity(), 3.0}), 3.0);
    }
};

QTEST_APPLESS_MAIN(TstGuiColormap)
#include "tst_gui_colormap.moc"
