// The plot maths alone (no widgets): nice ticks, linear padding, log decades, the log floor,
// empty data and manual ranges; tick labels are readable numbers that tell ticks apart.
#include "ui/plotmath.h"
#include <QTest>
#include <cmath>

using namespace mhla::ui;
using namespace mhla::ui::plotmath;

namespace {
bool near(double a, double b, double rel = 1e-12) {
    return std::abs(a - b) <= rel * std::max(1.0, std::abs(b));
}
PlotState withPoints(const QList<QPointF>& pts, bool logX = false, bool logY = false) {
    PlotState st;
    PlotSeries s;
    s.points = pts;
    st.series << s;
    st.logX = logX;
    st.logY = logY;
    return st;
}
} // namespace

class TstGuiPlotMath : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void niceTicksStayInsideTheRange_data() {
        QTest::addColumn<double>("lo");
        QTest::addColumn<double>("hi");
        QTest::addColumn<double>("step");
        QTest::newRow("0..41.95") << 0.0 << 41.95 << 10.0;
        QTest::newRow("0..1") << 0.0 << 1.0 << 0.2;
        QTest::newRow("-3..7") << -3.0 << 7.0 << 2.0;
        QTest::newRow("tiny") << 1e-12 << 5e-12 << 1e-12;
        QTest::newRow("huge") << 0.0 << 3e9 << 5e8;
        QTest::newRow("narrow") << 0.999 << 1.001 << 0.0005;
    }
    void niceTicksStayInsideTheRange() {
        QFETCH(double, lo);
        QFETCH(double, hi);
        QFETCH(double, step);
        const Ticks t = niceTicks(lo, hi);
        QVERIFY2(near(t.step, step), qPrintable(QString::number(t.step)));
        QVERIFY(t.count >= 2 && t.count <= 8);
        QVERIFY(t.first >= lo - 1e-9 * step);
        QVERIFY(t.first + (t.count - 1) * t.step <= hi + 1e-9 * step);
        QVERIFY(t.first - t.step < lo); // no tick left out at the start
        // Labels tell neighbouring ticks apart and are never empty.
        const QString fmt = tickFormat(lo, hi, t.step);
        QStringList labels;
        for (int i = 0; i < t.count; ++i)
            labels << QString::asprintf(qPrintable(fmt), t.first + i * t.step);
        for (int i = 0; i < labels.size(); ++i) {
            QVERIFY(!labels[i].isEmpty());
            QVERIFY(!labels[i].contains(QStringLiteral("…")));
            if (i > 0) QVERIFY2(labels[i] != labels[i - 1], qPrintable(labels.join(u' ')));
        }
    }

    void degenerateTicks() {
        QCOMPARE(niceTicks(1.0, 1.0).count, 1);
        QCOMPARE(niceTicks(std::nan(""), 1.0).count, 0);
        QCOMPARE(niceTicks(1e16, 1e16 + 2).count, 1); // steps below the doubles' resolution
    }

    void linearPadding() {
        double lo = 1, hi = 40;
        padLinear(lo, hi);
        QCOMPARE(lo, 0.0); // never negative for data that is not
        QVERIFY(near(hi, 40 + 0.05 * 39));
        lo = -10, hi = 10;
        padLinear(lo, hi);
        QVERIFY(near(lo, -11) && near(hi, 11));
        lo = hi = 5; // one value: a range around it
        padLinear(lo, hi);
        QVERIFY(lo < 5 && hi > 5);
        lo = hi = 0;
        padLinear(lo, hi);
        QVERIFY(hi > lo);
        // A span at round-off level is widened like a single value: its ticks must advance.
        lo = 0.3, hi = 0.30000000000000004;
        padLinear(lo, hi);
        const Ticks t = niceTicks(lo, hi);
        QVERIFY(t.count >= 2 && t.first + t.step > t.first);
    }

    void logRangesAreWholeDecades() {
        double lo = 3e-5, hi = 0.2;
        padLog(lo, hi);
        QVERIFY(near(lo, 1e-5, 1e-8) && near(hi, 1.0, 1e-8));
        lo = hi = 0.5; // one value: at least two decades
        padLog(lo, hi);
        QVERIFY(hi / lo >= 99);
        lo = 1e-20, hi = 1; // 20 decades: 3 per tick, ends on ticks
        padLog(lo, hi);
        QCOMPARE(decadesPerTick(lo, hi), 3);
        QVERIFY(near(std::log10(lo), -21, 1e-6) && near(std::log10(hi), 0, 1e-6));
    }

    void emptyData() {
        PlotState st;
        Ranges r = computeRanges(st);
        QVERIFY(r.x1 > r.x0 && r.y1 > r.y0);
        st.logY = true;
        r = computeRanges(st);
        QVERIFY(r.y0 > 0 && r.y1 > r.y0);
    }

    void logFloorAndDropped() {
        PlotState st = withPoints({{1, 1e-30}, {2, 0.0}, {3, -1.0}, {4, 0.5}}, false, true);
        const Ranges r = computeRanges(st);
        QCOMPARE(r.droppedLogY, 2);
        QCOMPARE(r.raisedLogY, 1);
        QVERIFY(r.y0 <= kLogFloor && r.y0 > kLogFloor / 100);
        QCOMPARE(shownY(1e-30, true), kLogFloor);
        QCOMPARE(shownY(1e-30, false), 1e-30); // only log axes have a floor
    }

    void linearAxisDoesNotRunFarPastTheData() {
        QList<QPointF> pts;
        for (int e = 1; e <= 40; ++e) pts << QPointF(e, 1.0 / e);
        const Ranges r = computeRanges(withPoints(pts));
        QVERIFY2(r.x1 < 45, qPrintable(QString::number(r.x1))); // not 0..50 for 40 epochs
    }

    void fixedTicksLandOnNiceNumbers() {
        double lo = 0, hi = 41.95;
        int n = 0;
        const double step = niceFixedRange(lo, hi, &n);
        QCOMPARE(lo, 0.0);
        QVERIFY2(hi <= 45 && hi >= 41.95, qPrintable(QString::number(hi)));
        QVERIFY(n >= 3 && n <= 11);
        QVERIFY(near(lo + (n - 1) * step, hi));
        lo = 1e16, hi = 1e16; // degenerate: left alone
        niceFixedRange(lo, hi, &n);
        QCOMPARE(n, 2);
    }

    void manualRangeWins() {
        PlotState st = withPoints({{0, 0}, {10, 10}});
        st.manualRange = QRectF(QPointF(2, 3), QPointF(4, 5));
        const Ranges r = computeRanges(st);
        QCOMPARE(r.x0, 2.0);
        QCOMPARE(r.x1, 4.0);
        QCOMPARE(r.y0, 3.0);
        QCOMPARE(r.y1, 5.0);
    }

    void logTickLabels() {
        QCOMPARE(logTickLabel(1e-20), QStringLiteral("1e-20"));
        QCOMPARE(logTickLabel(0.01), QStringLiteral("0.01"));
        QCOMPARE(logTickLabel(1.0), QStringLiteral("1"));
        QCOMPARE(logTickLabel(1e6), QStringLiteral("1e+06"));
    }

    void exactNumbersRoundTrip() {
        for (double v : {0.1, 1.0 / 3.0, -3.0e-15, 1e-300, 123456789.123456789})
            QCOMPARE(exact(v).toDouble(), v);
    }
};

QTEST_MAIN(TstGuiPlotMath)
#include "tst_gui_plotmath.moc"
