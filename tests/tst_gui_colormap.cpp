// The diverging colour map and the run palette are pure functions: reference values from the
// ColorBrewer RdBu table and the Okabe-Ito definition.
#include "ui/colormap.h"
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
        QCOMPARE(runColor(9), c[1]);
        QCOMPARE(runColor(-1), c[7]);
    }

    void symmetricScaleTakesLargestMagnitude() {
        QCOMPARE(symmetricScale({0.5, -2.0, 1.0}), 2.0);
        QCOMPARE(symmetricScale({}), 0.0);
        QCOMPARE(symmetricScale({std::numeric_limits<double>::infinity(), 3.0}), 3.0);
    }
};

QTEST_APPLESS_MAIN(TstGuiColormap)
#include "tst_gui_colormap.moc"
