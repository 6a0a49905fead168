// Issue 9: plots you can explore and legends that never cut a name. The legend is ours (it
// wraps; a click hides or shows a run), the mouse zooms (wheel, box), pans (Shift+drag) and
// fits again (double-click), and smoothing draws the raw curve faint behind the smoothed one.
#include "ui/export/exporter.h"
#include "ui/panels/curvespanel.h"
#include "ui/panels/sweepfigures.h"
#include "ui/plot/elidedlabel.h"
#include "ui/plot/heatmapwidget.h"
#include "ui/plot/plotlegend.h"
#include "ui/plot/plotwidget.h"
#include <QApplication>
#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QClipboard>
#include <QFile>
#include <QFontMetricsF>
#include <QGraphicsScene>
#include <QGraphicsTextItem>
#include <QGuiApplication>
#include <QLabel>
#include <QLegend>
#include <QLineSeries>
#include <QMimeData>
#include <QPainter>
#include <QScatterSeries>
#include <QTemporaryDir>
#include <QTest>
#include <QTextDocument>
#include <QValueAxis>
#include <QWheelEvent>
#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>

using namespace mhla::ui;
using namespace mhla::ui::plotmath;

namespace {
PlotSeries line(const QString& name, double slope, int n = 40, const QColor& c = Qt::blue) {
    PlotSeries s;
    s.name = name;
    s.color = c;
    for (int e = 1; e <= n; ++e) s.points << QPointF(e, 1 + slope * e);
    return s;
}

QChart* chartOf(PlotWidget& p) { return p.findChild<QChartView*>()->chart(); }
QWidget* viewportOf(PlotWidget& p) { return p.findChild<QChartView*>()->viewport(); }

/// The plot area in viewport pixels.
QRect plotArea(PlotWidget& p) {
    auto* view = p.findChild<QChartView*>();
    return view->mapFromScene(view->chart()->mapToScene(view->chart()->plotArea())).boundingRect();
}

QPoint areaPoint(PlotWidget& p, double fx, double fy) { // fractions, (0, 0) = bottom left
    const QRect a = plotArea(p);
    return QPoint(a.left() + static_cast<int>(fx * a.width()),
                  a.bottom() - static_cast<int>(fy * a.height()));
}

void wheel(QWidget* w, const QPoint& pos, int delta) {
    QWheelEvent ev(QPointF(pos), QPointF(w->mapToGlobal(pos)), QPoint(), QPoint(0, delta),
                   Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(w, &ev);
}
} // namespace

class TstGuiPlotWidget : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void keyNamesInAxisTitlesAreNotSubscripted() {
        PlotWidget plot(QStringLiteral("t"));
        plot.resize(500, 350);
        mhla::SweepFigureData d;
        d.xTitle = QStringLiteral("task.orthogonal_prob");
        d.yTitle = QStringLiteral("distance_p_rel");
        mhla::SweepPlotSeries s;
        s.name = QStringLiteral("distance_p_rel");
        s.x = {0.1, 0.5};
        s.y = {1, 2};
        d.series.push_back(s);
        showSweepFigure(&plot, d);
        QCOMPARE(chartOf(plot)->axes(Qt::Horizontal).first()->titleText(),
                 QStringLiteral("task.orthogonal_prob"));
        QCOMPARE(chartOf(plot)->axes(Qt::Vertical).first()->titleText(),
                 QStringLiteral("distance_p_rel"));
        // A title written to be typeset still gets its subscript.
        plot.setAxisTitles(QStringLiteral("r"), QStringLiteral("σ_r"), TitleText::Typeset);
        QCOMPARE(chartOf(plot)->axes(Qt::Vertical).first()->titleText(),
                 QStringLiteral("σ<sub>r</sub>"));
        plot.setAxisTitles(QStringLiteral("r"), QStringLiteral("σ_r"));
        QCOMPARE(chartOf(plot)->axes(Qt::Vertical).first()->titleText(), QStringLiteral("σ_r"));
        // A sweep figure's title is typeset as its axis titles are: in the tool row when it
        // fits, above the chart as rich text when it does not; other titles stay literal.
        d.title = QStringLiteral("λ_min of Λ against p, with a long tail that needs the room");
        showSweepFigure(&plot, d);
        plot.show();
        QVERIFY(QTest::qWaitForWindowExposed(&plot));
        auto* label = plot.findChild<ElidedLabel*>(QStringLiteral("tTitle"));
        QVERIFY(label);
        QVERIFY(label->typeset());
        plot.resize(220, 350);
        QTRY_VERIFY(chartOf(plot)->title().startsWith(QStringLiteral("λ<sub>min</sub> of Λ")));
        plot.setTitle(QStringLiteral("λ_min literal"));
        QVERIFY(!label->typeset());
        QTRY_VERIFY(!chartOf(plot)->title().contains(QStringLiteral("<sub>")));
    }

    // At scale 2 the Curves tab's loss plot showed "MSE · O…": a title that does not fit gets a
    // smaller font, then is shortened with its full text in the tooltip.
    void axisTitlesFitAlongShortPlots() {
        PlotWidget plot(QStringLiteral("loss"));
        plot.setSeries({line(QStringLiteral("a"), 0.5)});
        const QString y = QStringLiteral("MSE · OOD relative error (validation)");
        plot.setAxisTitles(QStringLiteral("epoch"), y);
        plot.resize(420, 230);
        plot.show();
        QVERIFY(QTest::qWaitForWindowExposed(&plot));
        QTest::qWait(50);
        QChart* c = chartOf(plot);
        QAbstractAxis* a = c->axes(Qt::Vertical).first();
        QTextDocument doc;
        doc.setHtml(a->titleText());
        const double w = QFontMetricsF(a->titleFont()).horizontalAdvance(doc.toPlainText());
        QVERIFY2(w <= c->plotArea().height(),
                 qPrintable(
                     QStringLiteral("%1 px title along %2 px").arg(w).arg(c->plotArea().height())));
        if (doc.toPlainText() != y) QVERIFY(plot.findChild<QChartView*>()->toolTip().contains(y));
    }

    // The Explorer tab at 1366 x 768 cut "Along null relation 1, output 1 — #1 Left free" to
    // "Along null relation 1, output 1...": a title too long for the tool row goes above the
    // chart in a smaller font (down to 3/4) before it is shortened, whole in the tooltip.
    void chartTitleShrinksBeforeItIsCut() {
        PlotWidget plot(QStringLiteral("explorer"));
        plot.setSeries({line(QStringLiteral("a"), 0.5)});
        const QString title = QStringLiteral("Along null relation 1, output 1 — #1 Left free");
        plot.setTitle(title);
        plot.resize(330, 300);
        plot.show();
        QVERIFY(QTest::qWaitForWindowExposed(&plot));
        QTest::qWait(50);
        QChart* c = chartOf(plot);
        QVERIFY2(!c->title().isEmpty(), "the title did not fit the tool row: above the chart");
        QVERIFY(c->titleFont().pointSizeF() < 11);
        QVERIFY(c->titleFont().pointSizeF() >= 8.25);
        QTextDocument doc;
        doc.setHtml(c->title());
        const double w = QFontMetricsF(c->titleFont()).horizontalAdvance(doc.toPlainText());
        QVERIFY2(w <= plot.findChild<QChartView*>()->width(),
                 qPrintable(QStringLiteral("%1 px title in a %2 px chart")
                                .arg(w)
                                .arg(plot.findChild<QChartView*>()->width())));
        QCOMPARE(doc.toPlainText() == title,
                 !plot.findChild<QChartView*>()->toolTip().contains(title));
        plot.resize(1200, 300); // room in the tool row: the title there, none above the chart
        QTest::qWait(50);
        QVERIFY(c->title().isEmpty());
    }

    // Issue 23: the note promised hollow diamonds for every value below the log floor, but
    // bars (singular values of 1e-30) get none: it says which values are marked.
    void floorNoteSaysWhichValuesAreMarked() {
        PlotWidget plot(QStringLiteral("t"));
        plot.resize(500, 350);
        plot.setLogY(true);
        PlotSeries bars;
        bars.name = QStringLiteral("sigma");
        bars.style = PlotSeries::Style::Bars;
        bars.points = {{1, 1.0}, {2, 1e-30}, {3, 1e-31}};
        plot.setSeries({bars});
        QVERIFY2(plot.note().contains(QStringLiteral("2 values")), qPrintable(plot.note()));
        QVERIFY2(!plot.note().contains(QStringLiteral("diamond")), qPrintable(plot.note()));
        PlotSeries dots;
        dots.name = QStringLiteral("loss");
        dots.style = PlotSeries::Style::Markers;
        dots.points = {{1, 1e-29}, {2, 0.5}};
        plot.setSeries({bars, dots});
        QVERIFY2(
            plot.note().contains(QStringLiteral("3 values")) &&
                plot.note().contains(QStringLiteral("the 1 point marked with hollow diamonds")),
            qPrintable(plot.note()));
        plot.setSeries({dots});
        QVERIFY2(plot.note().contains(QStringLiteral("1 value) are drawn at 10⁻²⁰, the floor of "
                                                     "the log axis, marked with hollow diamonds")),
                 qPrintable(plot.note()));
    }

    void statesAreCategoriesOnTheYAxis() {
        PlotWidget plot(QStringLiteral("automaton_states"));
        plot.resize(500, 350);
        plot.setYCategories({QStringLiteral("q0"), QStringLiteral("q1"), QStringLiteral("q2")});
        PlotSeries s;
        s.name = QStringLiteral("true state");
        s.style = PlotSeries::Style::LineMarkers;
        s.points = {{0, 0}, {1, 2}, {2, 1}, {3, 1}};
        plot.setSeries({s});
        auto check = [&plot] {
            auto* y = qobject_cast<QCategoryAxis*>(chartOf(plot)->axes(Qt::Vertical).first());
            QVERIFY(y);
            QCOMPARE(y->categoriesLabels(), QStringList({QStringLiteral("q0"), QStringLiteral("q1"),
                                                         QStringLiteral("q2")}));
            for (int k = 0; k < 3; ++k)
                QCOMPARE(y->endValue(y->categoriesLabels()[k]), static_cast<double>(k));
            QCOMPARE(y->min(), -0.5);
            QCOMPARE(y->max(), 2.5);
        };
        check();
        if (QTest::currentTestFailed()) return;
        s.points = {{0, 0}, {1, 0}, {2, 0}}; // refreshed in place: still the whole state range
        plot.setSeries({s});
        check();
    }

    void legendWrapsInsteadOfCuttingNames() {
        PlotWidget plot(QStringLiteral("t"));
        QList<PlotSeries> series;
        for (int i = 0; i < 10; ++i)
            series << line(QStringLiteral("#%1 AM certified (exact) train MSE").arg(i + 1), i);
        plot.setSeries(series);
        plot.resize(420, 420);
        plot.show();
        QVERIFY(QTest::qWaitForWindowExposed(&plot));
        QVERIFY(!chartOf(plot)->legend()->isVisible()); // Qt's legend elides: not used
        auto* legend = plot.findChild<QWidget*>(QStringLiteral("tLegend"));
        QVERIFY(legend);
        const LegendLayout lay =
            layoutLegend(plot.legendEntries(), legend->font(), legend->width() - 12);
        QCOMPARE(lay.texts.size(), 10);
        for (int i = 0; i < 10; ++i) {
            QCOMPARE(lay.texts[i], series[i].name); // whole names: the rows wrap
            QVERIFY(lay.boxes[i].right() <= legend->width() - 12 + 1e-6);
        }
        QVERIFY(lay.height > 2 * QFontMetricsF(legend->font()).height()); // several rows
        // At most a quarter of the plot: the chart keeps its height; the rest is one
        // "N more" line that shows all rows when clicked.
        QVERIFY2(legend->height() <= plot.height() / 4 + 1,
                 qPrintable(QStringLiteral("%1 of %2").arg(legend->height()).arg(plot.height())));
        QTest::mouseClick(legend, Qt::LeftButton, {}, QPoint(40, legend->height() - 8));
        QVERIFY2(legend->height() >= lay.height, // all rows shown
                 qPrintable(QStringLiteral("%1 < %2").arg(legend->height()).arg(lay.height)));
        QTest::mouseClick(legend, Qt::LeftButton, {}, QPoint(40, legend->height() - 8));
        QVERIFY(legend->height() <= plot.height() / 4 + 1); // and fewer again
        plot.resize(420, 1200);                             // room for all
        QCoreApplication::processEvents();
        QVERIFY(legend->height() >= lay.height);
        // A legend that grows (a live run's entries) pushes the note down at once, before any
        // event is processed: it was drawn over the note until the layout's posted request.
        plot.setNote(QStringLiteral("A note under the legend"));
        QCoreApplication::processEvents();
        auto* note = plot.findChild<QLabel*>(QStringLiteral("tNote"));
        QVERIFY(note && note->isVisible());
        plot.setSeries(series.mid(0, 1));
        QCoreApplication::processEvents();
        const int oneRow = legend->height();
        plot.setSeries(series);
        QVERIFY(legend->height() > oneRow);
        QVERIFY2(note->y() >= legend->geometry().bottom(),
                 qPrintable(QStringLiteral("note at %1, legend ends at %2")
                                .arg(note->y())
                                .arg(legend->geometry().bottom())));
        // A name longer than a whole row is elided in the middle (its tooltip has it whole).
        PlotSeries longName = line(QString(300, u'x') + QStringLiteral("END"), 1);
        PlotState longState;
        longState.series = {longName};
        const LegendLayout cut = layoutLegend(
            plotmath::legendEntries(longState, computeRanges(longState)), legend->font(), 200);
        QVERIFY(cut.texts.first().contains(QStringLiteral("…")));
        QVERIFY(cut.texts.first().endsWith(QStringLiteral("END")));
    }

    void clickingALegendEntryHidesAndShowsARun() {
        PlotWidget plot(QStringLiteral("t"));
        plot.setSeries({line(QStringLiteral("#1 short run"), 1, 40),
                        line(QStringLiteral("#2 long run"), 1, 2000, Qt::red)});
        plot.resize(500, 400);
        plot.show();
        QVERIFY(QTest::qWaitForWindowExposed(&plot));
        QCOMPARE(plot.currentRange().right(), 2000.0);
        auto* legend = plot.findChild<QWidget*>(QStringLiteral("tLegend"));
        const LegendLayout lay =
            layoutLegend(plot.legendEntries(), legend->font(), legend->width() - 12);
        const QPoint second = (lay.boxes[1].center() + QPointF(6, 2)).toPoint();
        QTest::mouseClick(legend, Qt::LeftButton, {}, second);
        QVERIFY(plot.isSeriesHidden(QStringLiteral("#2 long run")));
        QCOMPARE(chartOf(plot)->series().size(), 1); // not drawn
        QCOMPARE(plot.legendEntries().size(), 2);    // still listed, to show it again
        QVERIFY(plot.legendEntries()[1].hidden);
        // The axes fit what is shown: the 40-epoch run is no longer squashed.
        QCOMPARE(plot.currentRange().right(), 40.0);
        QVERIFY(plot.csv().contains(QStringLiteral("#2 long run"))); // the data stays
        // The run's other curves (validation, OOD) go with its legend entry.
        PlotSeries val = line(QStringLiteral("#2 long run val"), 2, 2000, Qt::red);
        val.group = QStringLiteral("#2 long run");
        val.inLegend = false;
        plot.setSeries({line(QStringLiteral("#1 short run"), 1, 40),
                        line(QStringLiteral("#2 long run"), 1, 2000, Qt::red), val});
        QCOMPARE(chartOf(plot)->series().size(), 1);
        QCOMPARE(plot.currentRange().right(), 40.0);
        QTest::mouseClick(legend, Qt::LeftButton, {}, second);
        QVERIFY(!plot.isSeriesHidden(QStringLiteral("#2 long run")));
        QCOMPARE(chartOf(plot)->series().size(), 3);
    }

    void wheelZoomsAboutTheCursorAndDoubleClickFits() {
        PlotWidget plot(QStringLiteral("t"));
        plot.setSeries({line(QStringLiteral("a"), 1, 40)});
        plot.resize(500, 400);
        plot.show();
        QVERIFY(QTest::qWaitForWindowExposed(&plot));
        const QRectF before = plot.currentRange();
        QWidget* vp = viewportOf(plot);
        wheel(vp, areaPoint(plot, 0.5, 0.5), 120); // one notch in
        const QRectF after = plot.currentRange();
        QVERIFY2(after.width() < before.width() * 0.9,
                 qPrintable(QStringLiteral("%1 -> %2").arg(before.width()).arg(after.width())));
        QVERIFY(after.left() > before.left() && after.right() < before.right());
        wheel(vp, areaPoint(plot, 0.5, 0.5), -240); // two notches out
        QVERIFY(plot.currentRange().width() > before.width());
        QTest::mouseDClick(vp, Qt::LeftButton, {}, areaPoint(plot, 0.5, 0.5));
        QCOMPARE(plot.currentRange(), before);
    }

    void dragZoomsToABoxAndShiftDragPans() {
        PlotWidget plot(QStringLiteral("t"));
        plot.setSeries({line(QStringLiteral("a"), 1, 40)});
        plot.resize(500, 400);
        plot.show();
        QVERIFY(QTest::qWaitForWindowExposed(&plot));
        const QRectF full = plot.currentRange();
        QWidget* vp = viewportOf(plot);
        QTest::mousePress(vp, Qt::LeftButton, {}, areaPoint(plot, 0.25, 0.25));
        QTest::mouseMove(vp, areaPoint(plot, 0.5, 0.5));
        QTest::mouseRelease(vp, Qt::LeftButton, {}, areaPoint(plot, 0.75, 0.75));
        const QRectF box = plot.currentRange();
        const double tolX = 0.02 * full.width(), tolY = 0.02 * full.height();
        QVERIFY2(std::abs(box.left() - (full.left() + 0.25 * full.width())) < tolX,
                 qPrintable(QString::number(box.left())));
        QVERIFY(std::abs(box.right() - (full.left() + 0.75 * full.width())) < tolX);
        QVERIFY(std::abs(box.top() - (full.top() + 0.25 * full.height())) < tolY);
        QVERIFY(std::abs(box.bottom() - (full.top() + 0.75 * full.height())) < tolY);
        // The zoomed axis has ticks at round numbers (not 1.97, 7.09, 12.21 ...).
        auto* x = qobject_cast<QValueAxis*>(chartOf(plot)->axes(Qt::Horizontal).first());
        QVERIFY(x);
        QCOMPARE(x->tickType(), QValueAxis::TicksDynamic);
        const double step = x->tickInterval();
        const double mant = step / std::pow(10.0, std::floor(std::log10(step)));
        QVERIFY2(std::abs(mant - 1) < 1e-9 || std::abs(mant - 2) < 1e-9 ||
                     std::abs(mant - 2.5) < 1e-9 || std::abs(mant - 5) < 1e-9,
                 qPrintable(QString::number(step)));
        QVERIFY(std::abs(std::remainder(x->tickAnchor(), step)) < 1e-9 * step);
        // A click is not a box: nothing changes.
        QTest::mouseClick(vp, Qt::LeftButton, {}, areaPoint(plot, 0.5, 0.5));
        QCOMPARE(plot.currentRange(), box);
        // Shift+drag to the right by a quarter of the plot: the view moves left by a quarter.
        QTest::mousePress(vp, Qt::LeftButton, Qt::ShiftModifier, areaPoint(plot, 0.5, 0.5));
        QTest::mouseMove(vp, areaPoint(plot, 0.75, 0.5));
        QTest::mouseRelease(vp, Qt::LeftButton, Qt::ShiftModifier, areaPoint(plot, 0.75, 0.5));
        const QRectF panned = plot.currentRange();
        QVERIFY(std::abs(panned.width() - box.width()) < 1e-9 * box.width());
        QVERIFY2(std::abs(panned.left() - (box.left() - 0.25 * box.width())) < 0.02 * box.width(),
                 qPrintable(QStringLiteral("%1 %2").arg(panned.left()).arg(box.left())));
        QVERIFY(std::abs(panned.top() - box.top()) < 0.02 * box.height());
    }

    void zoomWorksOnLogAxesInDecades() {
        PlotWidget plot(QStringLiteral("t"));
        PlotSeries s;
        s.name = QStringLiteral("loss");
        for (int e = 1; e <= 40; ++e) s.points << QPointF(e, std::pow(10.0, -e / 4.0));
        plot.setSeries({s});
        plot.setLogY(true);
        plot.resize(500, 400);
        plot.show();
        QVERIFY(QTest::qWaitForWindowExposed(&plot));
        const QRectF before = plot.currentRange();
        wheel(viewportOf(plot), areaPoint(plot, 0.5, 0.5), 120);
        const QRectF after = plot.currentRange();
        QVERIFY(after.top() > 0);
        const double decadesBefore = std::log10(before.bottom() / before.top()),
                     decadesAfter = std::log10(after.bottom() / after.top());
        QVERIFY2(std::abs(decadesAfter - 0.8 * decadesBefore) < 1e-6 * decadesBefore,
                 qPrintable(QStringLiteral("%1 %2").arg(decadesBefore).arg(decadesAfter)));
    }

    void smoothingDrawsTheRawCurveFaintBehind() {
        PlotWidget plot(QStringLiteral("t"));
        PlotSeries s = line(QStringLiteral("noisy"), 0);
        for (int i = 0; i < s.points.size(); ++i) s.points[i].setY(1 + ((i % 2) ? 0.5 : -0.5));
        s.smoothable = true;
        plot.setSeries({s, PlotSeries::hline(QStringLiteral("exact"), 1.0, Qt::gray)});
        plot.show();
        QCOMPARE(chartOf(plot)->series().size(), 2);
        plot.setSmoothing(0.9);
        const auto drawn = chartOf(plot)->series();
        QCOMPARE(drawn.size(), 3);
        auto* raw = qobject_cast<QLineSeries*>(drawn[0]);
        auto* smooth = qobject_cast<QLineSeries*>(drawn[1]);
        QVERIFY(raw && smooth);
        QVERIFY(raw->pen().color().alphaF() < 0.5);    // faint
        QCOMPARE(smooth->pen().color().alphaF(), 1.0); // the smoothed curve in full colour
        QCOMPARE(raw->count(), 40);
        // The smoothed curve wiggles far less than the raw one.
        const double rawStep = std::abs(raw->at(30).y() - raw->at(31).y());
        const double smoothStep = std::abs(smooth->at(30).y() - smooth->at(31).y());
        QVERIFY2(smoothStep < 0.25 * rawStep, qPrintable(QString::number(smoothStep)));
        QCOMPARE(plot.legendEntries().size(), 2); // the raw curve is not a legend entry
        // The CSV keeps the raw values.
        QVERIFY(plot.csv().contains(QStringLiteral("\nnoisy,2,1.5\n")));
        plot.setSmoothing(0);
        QCOMPARE(chartOf(plot)->series().size(), 2);
    }

    void offScaleLinesAreNotListedAsVisible() {
        PlotWidget plot(QStringLiteral("t"));
        PlotSeries ref = PlotSeries::hline(QStringLiteral("exact: train = 1e-30"), 1e-30, Qt::gray);
        ref.inRange = false;
        plot.setSeries({line(QStringLiteral("run"), 1), ref});
        plot.setLogY(true);
        plot.show();
        const auto entries = plot.legendEntries();
        QCOMPARE(entries.size(), 2);
        QVERIFY(!entries[0].offScale);
        QVERIFY(entries[1].offScale);
        QVERIFY(plot.currentRange().top() > 1e-3); // it does not squash the run
        auto* legend = plot.findChild<QWidget*>(QStringLiteral("tLegend"));
        const LegendLayout lay = layoutLegend(entries, legend->font(), 400);
        QVERIFY(lay.texts[1].contains(QStringLiteral("off scale")));
    }

    // Tick labels are really drawn (not only "visible" as a property) also in a short plot of
    // reference lines only (the Curves tab of an exact run showed no y numbers at all).
    void shortPlotsStillDrawTheirTickLabels() {
        for (int h : {150, 180, 220, 300}) {
            PlotWidget plot(QStringLiteral("t"));
            plot.setAxisTitles(QStringLiteral("(no epochs: exact-solver values)"),
                               QStringLiteral("MSE  /  OOD relative error"));
            plot.setSeries({PlotSeries::hline(QStringLiteral("train"), 2.3e-30, Qt::gray),
                            PlotSeries::hline(QStringLiteral("val"), 2.4e-30, Qt::gray)});
            plot.setLogY(true);
            plot.setNote(QStringLiteral("A note of two lines under the plot, long enough to "
                                        "wrap in a narrow plot like this one here."));
            plot.resize(520, h);
            plot.show();
            QVERIFY(QTest::qWaitForWindowExposed(&plot));
            QCoreApplication::processEvents();
            QStringList shown;
            for (QGraphicsItem* it : chartOf(plot)->scene()->items())
                if (auto* t = dynamic_cast<QGraphicsTextItem*>(it))
                    if (t->isVisible() && !t->toPlainText().isEmpty()) shown << t->toPlainText();
            auto* view = plot.findChild<QChartView*>();
            QVERIFY2(shown.contains(QStringLiteral("10⁻²⁰")),
                     qPrintable(QStringLiteral("height %1 (view %2): %3")
                                    .arg(h)
                                    .arg(view->height())
                                    .arg(shown.join(QStringLiteral(" | ")))));
        }
    }

    // The value read out under the mouse belongs to the series shown: when other series replace
    // them (another run selected), it goes (issue 23's walk: a stale "x = 0.451, y = 2.4e-15 ·
    // #3 How many samples" stayed above the SGD run's plot).
    void hoverGoesWhenTheSeriesChange() {
        PlotWidget plot(QStringLiteral("t"));
        plot.setSeries({line(QStringLiteral("#1 exact"), 0.5)});
        plot.resize(600, 300);
        plot.show();
        QVERIFY(QTest::qWaitForWindowExposed(&plot));
        auto* hover = plot.findChild<QLabel*>(QStringLiteral("tHover"));
        QVERIFY(hover);
        QTest::mouseMove(viewportOf(plot), areaPoint(plot, 0.5, 0.5));
        QTRY_VERIFY(hover->text().startsWith(QStringLiteral("x = ")));
        plot.setSeries({line(QStringLiteral("#1 exact"), 0.6)}); // the same run, new values
        QVERIFY(!hover->text().isEmpty());
        plot.setSeries({line(QStringLiteral("#2 SGD"), 0.5), line(QStringLiteral("#3 SGD"), 1)});
        QVERIFY2(hover->text().isEmpty() && hover->isHidden(), qPrintable(hover->text()));
    }

    // An epoch axis is ticked at whole epochs (issue 23's walk: "0.0, 2.5, ... 22.5" under a
    // run of 23 epochs); a plain axis of the same data may take the 2.5 step.
    void epochAxesTickAtWholeNumbers() {
        const auto ticksOf = [](PlotWidget& plot) {
            auto* ax = qobject_cast<QValueAxis*>(chartOf(plot)->axes(Qt::Horizontal).value(0));
            std::vector<double> ticks;
            if (!ax) return ticks;
            if (ax->tickType() == QValueAxis::TicksDynamic) {
                const double step = ax->tickInterval(), anchor = ax->tickAnchor();
                for (double t = anchor + std::ceil((ax->min() - anchor) / step - 1e-9) * step;
                     t <= ax->max() + 1e-9 * step; t += step)
                    ticks.push_back(t);
            } else {
                for (int k = 0; k < ax->tickCount(); ++k)
                    ticks.push_back(ax->min() +
                                    k * (ax->max() - ax->min()) / (ax->tickCount() - 1));
            }
            return ticks;
        };
        const auto fractional = [](const std::vector<double>& ticks) {
            return std::any_of(ticks.begin(), ticks.end(),
                               [](double t) { return std::abs(t - std::round(t)) > 1e-9; });
        };
        for (const int width : {420, 700, 1100, 1500})
            for (const int epochs : {4, 9, 18, 22, 23, 45}) {
                PlotWidget plot(QStringLiteral("t"));
                plot.setAxisTitles(QStringLiteral("epoch"), QStringLiteral("MSE"));
                plot.setSeries({line(QStringLiteral("run"), 0.5, epochs)});
                plot.setWholeX(true);
                plot.resize(width, 300);
                plot.show();
                QVERIFY(QTest::qWaitForWindowExposed(&plot));
                QCoreApplication::processEvents();
                const std::vector<double> ticks = ticksOf(plot);
                QVERIFY2(ticks.size() >= 2, qPrintable(QString::number(width)));
                QVERIFY2(!fractional(ticks),
                         qPrintable(QStringLiteral("width %1, %2 epochs: ticks %3, %4, ...")
                                        .arg(width)
                                        .arg(epochs)
                                        .arg(ticks[0])
                                        .arg(ticks[1])));
            }
    }

    // Presentation mode's sizes: at screen scale 2 the tick labels, axis titles and line
    // widths are twice their size, markers too; an exported figure is the same image at any
    // screen scale (exports have their own sizes).
    void screenScaleEnlargesTheChartButNotExports() {
        PlotWidget plot(QStringLiteral("t"));
        plot.setAxisTitles(QStringLiteral("epoch"), QStringLiteral("loss"));
        PlotSeries dots = line(QStringLiteral("dots"), -0.01);
        dots.style = PlotSeries::Style::Markers;
        plot.setSeries({line(QStringLiteral("a"), 0.5), dots});
        plot.resize(600, 400);
        plot.show();
        QVERIFY(QTest::qWaitForWindowExposed(&plot));
        const auto sizes = [&plot] {
            QChart* c = chartOf(plot);
            const QAbstractAxis* x = c->axes(Qt::Horizontal).first();
            const auto* ls = qobject_cast<QLineSeries*>(c->series().at(0));
            const auto* sc = qobject_cast<QScatterSeries*>(c->series().at(1));
            return std::array<double, 4>{x->labelsFont().pointSizeF(), x->titleFont().pointSizeF(),
                                         ls->pen().widthF(), sc->markerSize()};
        };
        const auto exported = [&plot] {
            QImage img(400, 300, QImage::Format_ARGB32);
            img.fill(Qt::white);
            QPainter p(&img);
            plot.paintFigure(p, QRectF(0, 0, 400, 300));
            p.end();
            return img;
        };
        const auto before = sizes();
        const QImage exportBefore = exported();
        plot.setScreenScale(2.0);
        QCOMPARE(plot.screenScale(), 2.0);
        const auto after = sizes();
        for (size_t i = 0; i < before.size(); ++i)
            QVERIFY2(std::abs(after[i] - 2 * before[i]) <= 1e-9 * before[i],
                     qPrintable(
                         QStringLiteral("size %1: %2 -> %3").arg(i).arg(before[i]).arg(after[i])));
        QCOMPARE(exported(), exportBefore);
        plot.setScreenScale(1.0);
        QCOMPARE(sizes(), before);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, plot.setScreenScale(0.5));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, plot.setScreenScale(std::nan("")));
        QCOMPARE(plot.screenScale(), 1.0);
    }

    // A sweep figure's note names ‖P − P*‖_F: on screen and in an export the F is a subscript,
    // as in the axis titles, not "_F" (key names such as distance_p_rel stay as written).
    void notesAreTypeset() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        PlotWidget plot(QStringLiteral("s"));
        plot.setSeries({line(QStringLiteral("a"), 1)});
        plot.setNote(QStringLiteral("Median of ‖P − P*‖_F (distance_p_rel in the CSV)."));
        auto* label = plot.findChild<QLabel*>(QStringLiteral("sNote"));
        QVERIFY(label);
        QCOMPARE(label->textFormat(), Qt::RichText);
        QVERIFY(label->text().contains(QStringLiteral("‖P − P*‖<sub>F</sub>")));
        QVERIFY(label->text().contains(QStringLiteral("distance_p_rel")));
        QCOMPARE(plot.note(), QStringLiteral("Median of ‖P − P*‖_F (distance_p_rel in the CSV)."));
        ExportMetadata meta;
        meta.title = QStringLiteral("t");
        const QString svg = dir.filePath(QStringLiteral("s.svg"));
        QCOMPARE(exportFigure(plot, svg, ExportFormat::Svg, QSize(800, 600), 96, meta), QString());
        QFile f(svg);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(f.readAll());
        QVERIFY(!text.contains(QStringLiteral("‖_F")));
        QVERIFY(text.contains(QStringLiteral(">F<")));
        QVERIFY(text.contains(QStringLiteral("distance_p_rel")));
    }

    // --- Figures for a paper ------------------------------------------------------------

    void paperFigureLeavesOutTitleAndCaptions() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        PlotWidget plot(QStringLiteral("lambda_trace"));
        plot.setTitle(QStringLiteral("λ_min(Λ) vs samples seen — #1 AM certified"));
        plot.setAxisTitles(QStringLiteral("samples seen k"), QStringLiteral("λ_min of Λ"),
                           TitleText::Typeset);
        plot.setNote(QStringLiteral("A caption that belongs in the app"));
        plot.setSeries({line(QStringLiteral("λ_min"), 1)});
        ExportMetadata meta;
        meta.title = QStringLiteral("t");
        const QString screen = dir.filePath(QStringLiteral("screen.svg")),
                      paper = dir.filePath(QStringLiteral("paper.svg")),
                      pdf = dir.filePath(QStringLiteral("paper.pdf"));
        QCOMPARE(exportFigure(plot, screen, ExportFormat::Svg, QSize(800, 600), 96, meta),
                 QString());
        const PaperFigure one(plot, PaperStyle::oneColumn());
        QCOMPARE(one.pixelSize(300), QSize(1020, 720));
        QCOMPARE(exportFigure(one, paper, ExportFormat::Svg, one.pixelSize(300), 300, meta),
                 QString());
        QCOMPARE(exportFigure(one, pdf, ExportFormat::Pdf, one.pixelSize(300), 300, meta),
                 QString());
        auto read = [](const QString& path) {
            QFile f(path);
            return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
        };
        const QString s = QString::fromUtf8(read(screen)), pp = QString::fromUtf8(read(paper));
        QVERIFY(s.contains(QStringLiteral("#1 AM certified")));
        QVERIFY(s.contains(QStringLiteral("caption that belongs")));
        QVERIFY(!pp.contains(QStringLiteral("#1 AM certified")));      // no run name
        QVERIFY(!pp.contains(QStringLiteral("caption that belongs"))); // no UI caption
        QVERIFY(pp.contains(QStringLiteral("samples seen k")));        // the axes stay
        QVERIFY(!pp.contains(QStringLiteral("λ_min")));                // typeset, not "_"
        QVERIFY(pp.contains(QStringLiteral(">min<")));                 // the subscript
        // The PDF page is one column wide: 3.4 in = 244.8 pt.
        const QByteArray p = read(pdf);
        QVERIFY(p.startsWith("%PDF"));
        QVERIFY2(p.contains("244.8") || p.contains("245"), "page width of one column");
    }

    void figuresCopyToTheClipboard() {
        PlotWidget plot(QStringLiteral("t"));
        QVERIFY(!copyFigureToClipboard(plot, QSize(400, 300), 96).isEmpty()); // no data yet
        plot.setSeries({line(QStringLiteral("a"), 1)});
        QCOMPARE(copyFigureToClipboard(plot, QSize(400, 300), 96), QString());
        const QMimeData* m = QGuiApplication::clipboard()->mimeData();
        QVERIFY(m && m->hasImage());
        QCOMPARE(qvariant_cast<QImage>(m->imageData()).size(), QSize(400, 300));
        QVERIFY(m->hasFormat(QStringLiteral("image/svg+xml")));
        QVERIFY(m->data(QStringLiteral("image/svg+xml")).contains("<svg"));
    }
    // Issue 9: the Curves tab overlaid runs of unrelated tasks by default. Now it overlays the
    // runs comparable with the selected one (same task kind and d_out) unless "All tasks" is on.
    void curvesOverlayOnlyComparableRuns() {
        auto run = [](int id, const QString& name, mhla::TaskKind kind, int dOut) {
            RunRecord r;
            r.id = id;
            r.name = name;
            r.config.task.kind = kind;
            r.config.task.dOut = dOut;
            r.config.solver.kind = mhla::SolverKind::Mhla;
            for (int e = 0; e < 5; ++e) {
                mhla::HistoryPoint p;
                p.epoch = e;
                p.trainMse = p.valMse = 1.0 / (1 + e + id);
                r.liveHistory.push_back(p);
            }
            return r;
        };
        const RunRecord a = run(1, QStringLiteral("mhla A"), mhla::TaskKind::RandomMhla, 4),
                        b = run(2, QStringLiteral("mhla B"), mhla::TaskKind::RandomMhla, 4),
                        c = run(3, QStringLiteral("memory C"), mhla::TaskKind::AssociativeMemory,
                                4),
                        d = run(4, QStringLiteral("wide D"), mhla::TaskKind::RandomMhla, 2);
        QVERIFY(CurvesPanel::comparable(a.config, b.config));
        QVERIFY(!CurvesPanel::comparable(a.config, c.config));
        QVERIFY(!CurvesPanel::comparable(a.config, d.config));
        auto shown = [](const CurvesPanel& p) {
            QStringList names;
            for (const PlotSeries& s : p.lossPlot()->series())
                if (s.inLegend) names << s.name;
            return names;
        };
        CurvesPanel panel;
        QVERIFY(!panel.showAllTasks()); // the default
        panel.showRun(&a);
        panel.showRuns({&a, &b, &c, &d});
        QCOMPARE(shown(panel), (QStringList{a.name, b.name}));
        auto* row = panel.findChild<QWidget*>(QStringLiteral("otherTasksRow"));
        auto* all = panel.findChild<QCheckBox*>(QStringLiteral("allTasksCheck"));
        QVERIFY(row && all);
        QVERIFY(!row->isHidden()); // the toggle says how many runs it would add
        QVERIFY2(all->text().contains(QStringLiteral("2 runs of other tasks")),
                 qPrintable(all->text()));
        panel.showRun(&c); // selecting the memory run shows it alone
        panel.showRuns({&a, &b, &c, &d});
        QCOMPARE(shown(panel), QStringList{c.name});
        panel.setShowAllTasks(true);
        panel.showRuns({&a, &b, &c, &d});
        QCOMPARE(shown(panel), (QStringList{a.name, b.name, c.name, d.name}));
        QVERIFY(!row->isHidden()); // still there, to turn it off again
        panel.setShowAllTasks(false);
        panel.showRun(&a);
        panel.showRuns({&a, &b}); // only comparable runs: no toggle taking room
        QVERIFY(row->isHidden());
        panel.showRun(nullptr); // nothing selected: everything ticked
        panel.showRuns({&a, &c});
        QCOMPARE(shown(panel), (QStringList{a.name, c.name}));
    }
    // Issue 22: the data beside a figure or a heatmap come from core's one CSV writer (CsvTable),
    // as every results file does: 17 significant digits, empty cells for NaN, names quoted only
    // when they must be, heatmap rows and columns 0-based as in heads.csv. Before, the plot wrote
    // "nan" and quoted every name, the heatmap wrote 12 digits and counted from 1.
    void csvIsWrittenByCoresOneWriter() {
        PlotWidget plot(QStringLiteral("csv"));
        PlotSeries s = line(QStringLiteral("a, \"b\""), 0, 3);
        s.points[1] = QPointF(1.0 / 3.0, std::numeric_limits<double>::quiet_NaN());
        plot.setSeries({s, PlotSeries::hline(QStringLiteral("exact"), 0.1, Qt::gray)});
        const QStringList lines = plot.csv().split(u'\n');
        QCOMPARE(lines.value(0), QStringLiteral("series,x,y"));
        QCOMPARE(lines.value(2), QStringLiteral("\"a, \"\"b\"\"\",0.33333333333333331,"));
        QCOMPARE(lines.value(4), QStringLiteral("exact,,0.10000000000000001"));
        QCOMPARE(lines.value(5), QString()); // one line per row, then the final newline
        QCOMPARE(lines.size(), 6);

        HeatmapWidget w(QStringLiteral("heads"));
        mhla::Mat m(2, 3);
        m << 1.0 / 3.0, 0, 0, 0, 0, -2.5;
        w.setPanels({HeatmapPanel{QStringLiteral("V1"), m, QStringLiteral("row"),
                                  QStringLiteral("col"), QString()}},
                    1);
        const QStringList cells = w.csv().split(u'\n');
        QCOMPARE(cells.value(0), QStringLiteral("panel,row,col,value"));
        QCOMPARE(cells.value(1), QStringLiteral("V1,0,0,0.33333333333333331"));
        QCOMPARE(cells.value(6), QStringLiteral("V1,1,2,-2.5"));
        QCOMPARE(cells.size(), 8);
    }
    // Issue 9: heatmap titles were clipped on both sides (Explorer tab at 1366x768). Titles
    // that do not fit are elided, and the tooltip has them in full.
    void heatmapTitlesElideInsteadOfClipping() {
        HeatmapWidget w(QStringLiteral("titles"));
        const QString title = QStringLiteral(
            "Fits along a null direction: the learned coefficients, their difference from the "
            "teacher, and the witness that fits the training data as well");
        const QString panelTitle =
            QStringLiteral("P(t) − P* along the first null relation, output row 1 (every pair)");
        w.setTitle(title);
        const HeatmapPanel panel{panelTitle, mhla::Mat::Ones(3, 4), QStringLiteral("row"),
                                 QStringLiteral("col"), QString()};
        w.setPanels({panel, panel, panel}, 3);
        w.resize(420, 260);
        for (int i = -1; i < 3; ++i) {
            const QString shown = w.shownTitle(i);
            const QFont font = w.shownTitleFont(i);
            QVERIFY(font.pointSizeF() < w.titleFont(i >= 0).pointSizeF()); // shrunk first
            QVERIFY(font.pointSizeF() >= std::max(7.0, 0.75 * w.titleFont(i >= 0).pointSizeF()));
            const double width = QFontMetricsF(font, &w).horizontalAdvance(shown);
            QVERIFY2(
                width <= w.titleWidth(i) + 0.5,
                qPrintable(QStringLiteral("%1: %2 > %3").arg(i).arg(width).arg(w.titleWidth(i))));
            QVERIFY2(shown.endsWith(QChar(0x2026)), qPrintable(shown)); // elided, not cut
            QVERIFY(w.titleWidth(i) > 20);
        }
        QCOMPARE(w.toolTipAt(QPointF(210, 8)), title);
        w.resize(3000, 700); // room enough: the titles in full
        QCOMPARE(w.shownTitle(-1), title);
        QCOMPARE(w.shownTitle(0), panelTitle);
        QCOMPARE(w.shownTitleFont(0), w.titleFont(true));
        // A little short of room (10-20 % wider than it): the whole title in a smaller font,
        // nothing elided (the Explorer tab's panels at 1366 x 768 showed "teache…").
        w.resize(160, 260);
        HeatmapPanel one{QStringLiteral("teacher V1"), mhla::Mat::Ones(3, 4), QStringLiteral("row"),
                         QStringLiteral("col"), QString()};
        w.setPanels({one}, 1);
        const double room = w.titleWidth(0);
        const QFontMetricsF base(w.titleFont(true), &w);
        while (base.horizontalAdvance(one.title) <= 1.1 * room) one.title += QStringLiteral(" V1");
        QVERIFY(base.horizontalAdvance(one.title) <= 1.2 * room);
        w.setPanels({one}, 1);
        QCOMPARE(w.titleWidth(0), room);
        QCOMPARE(w.shownTitle(0), one.title);
        QVERIFY(w.shownTitleFont(0).pointSizeF() < w.titleFont(true).pointSizeF());
    }
};

QTEST_MAIN(TstGuiPlotWidget)
#include "tst_gui_plotwidget.moc"
