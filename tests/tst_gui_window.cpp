// Issue 9, "Broken — fix first": live controls belong to the run they were applied to; the
// window fits a 1280×720 projector in every state; axis ticks are always readable numbers.
#include "core/run/runner.h"
#include "guitestutil.h"
#include "ui/experiment/experimentpanel.h"
#include "ui/experiment/presets.h"
#include "ui/panels/certificatepanel.h"
#include "ui/panels/curvespanel.h"
#include "ui/plot/colormap.h"
#include "ui/plot/elidedlabel.h"
#include "ui/plot/plotlegend.h"
#include "ui/plot/plotwidget.h"
#include "ui/run/runcontroller.h"
#include "ui/run/runlist.h"
#include "ui/shell/appsettings.h"
#include "ui/shell/mainwindow.h"
#include <QAbstractAxis>
#include <QAction>
#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QGraphicsScene>
#include <QGraphicsTextItem>
#include <QGuiApplication>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QLogValueAxis>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSet>
#include <QSignalSpy>
#include <QSlider>
#include <QStandardPaths>
#include <QTabBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <QTreeWidget>
#include <QValueAxis>
#include <functional>

using namespace mhla;
using namespace mhla::ui;
using namespace mhla::ui::test;

namespace {

const PlotSeries* seriesNamed(const PlotWidget* p, const QString& name) {
    for (const auto& s : p->series())
        if (s.name == name) return &s;
    return nullptr;
}

/// Runs every built-in preset in turn from an empty run list and, once each run has ended,
/// shows every result tab and hands it to `visit(preset, panel)`. False if a run did not start
/// or did not end in time.
bool runEveryPresetAndShowTabs(MainWindow& w, const std::function<void(int, ResultPanel*)>& visit) {
    for (int i = 0; i < builtinPresets().size(); ++i) {
        w.runList()->clear();
        w.loadPreset(i);
        if (!w.startRuns() || !waitIdle(w)) return false;
        for (ResultPanel* panel : w.resultPanels()) {
            w.showTab(panel->panelId());
            QCoreApplication::processEvents();
            visit(i, panel);
        }
    }
    return true;
}

/// A long trainer run (SGD preset, huge epoch count) to pause and scale.
void longTrainer(MainWindow& w) {
    w.loadPreset(3);
    w.findChild<QCheckBox*>(QStringLiteral("sweepCheck"))->setChecked(false);
    w.findChild<QLineEdit*>(QStringLiteral("field_solver.epochs"))
        ->setText(QStringLiteral("100000"));
}

QString fitsReport(MainWindow& w, const QString& state) {
    QCoreApplication::processEvents();
    const QSize target(1280, 720);
    // The frame (title bar, borders) counts: the whole window must fit.
    const QSize frame = w.frameGeometry().size() - w.geometry().size();
    w.resize(target - frame);
    QCoreApplication::processEvents();
    const QSize min = w.minimumSizeHint().expandedTo(w.minimumSize()) + frame;
    const QSize got = w.frameGeometry().size();
    if (min.width() > target.width() || min.height() > target.height() ||
        got.width() > target.width() || got.height() > target.height()) {
        QString detail;
        for (QWidget* c : w.findChildren<QWidget*>(QString(), Qt::FindDirectChildrenOnly))
            if (c->isVisible())
                detail +=
                    QStringLiteral(" [%1 %2 min %3x%4]")
                        .arg(QString::fromLatin1(c->metaObject()->className()), c->objectName())
                        .arg(c->minimumSizeHint().expandedTo(c->minimumSize()).width())
                        .arg(c->minimumSizeHint().expandedTo(c->minimumSize()).height());
        return QStringLiteral("%1: minimum %2x%3, window %4x%5%6")
            .arg(state)
            .arg(min.width())
            .arg(min.height())
            .arg(got.width())
            .arg(got.height())
            .arg(detail);
    }
    return {};
}

QStringList axisProblems(const PlotWidget* plot) {
    QStringList out;
    auto* view = plot->findChild<QChartView*>();
    for (QAbstractAxis* a : view->chart()->axes()) {
        if (a->labelsTruncated())
            out << QStringLiteral("%1: truncated labels").arg(plot->objectName());
        if (!a->labelsVisible()) out << QStringLiteral("%1: labels hidden").arg(plot->objectName());
        if (a->orientation() == Qt::Vertical && a->titleText().isEmpty())
            out << QStringLiteral("%1: no y title").arg(plot->objectName());
        if (auto* c = qobject_cast<QCategoryAxis*>(a)) { // our log axes
            const QStringList labels = c->categoriesLabels();
            if (labels.size() < 2)
                out << QStringLiteral("%1: %2 log tick(s)")
                           .arg(plot->objectName())
                           .arg(labels.size());
            for (const QString& l : labels)
                if (l.isEmpty() || l.contains(QStringLiteral("…")))
                    out << QStringLiteral("%1: log labels %2")
                               .arg(plot->objectName(), labels.join(u' '));
            if (!(c->max() > c->min()))
                out << QStringLiteral("%1: empty log range").arg(plot->objectName());
        } else if (auto* v = qobject_cast<QValueAxis*>(a)) {
            if (!(v->max() > v->min()))
                out << QStringLiteral("%1: empty range").arg(plot->objectName());
            QStringList labels;
            const int n = v->tickCount();
            for (int i = 0; i < n; ++i)
                labels << QString::asprintf(qPrintable(v->labelFormat()),
                                            v->min() + i * (v->max() - v->min()) / (n - 1));
            if (n < 2 || n > 11)
                out << QStringLiteral("%1: %2 tick(s)").arg(plot->objectName()).arg(n);
            for (int i = 0; i < labels.size(); ++i)
                if (labels[i].isEmpty() || (i > 0 && labels[i] == labels[i - 1]))
                    out << QStringLiteral("%1: labels %2")
                               .arg(plot->objectName(), labels.join(u' '));
        }
        if (qobject_cast<QLogValueAxis*>(a))
            out << QStringLiteral("%1: Qt's log axis (no labels below 1e-12)")
                       .arg(plot->objectName());
    }
    return out;
}

} // namespace

class TstGuiWindow : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;

private Q_SLOTS:
    void initTestCase() { QVERIFY(useTestSettings(m_dir)); }

    // --- Live controls -------------------------------------------------------------------

    void pauseDisabledWhenNothingRuns() {
        MainWindow w;
        w.show();
        auto* pause = w.findChild<QPushButton*>(QStringLiteral("pauseButton"));
        auto* step = w.findChild<QPushButton*>(QStringLiteral("stepButton"));
        auto* scale = w.findChild<QDoubleSpinBox*>(QStringLiteral("lrScaleSpin"));
        QVERIFY(!pause->isEnabled());
        QVERIFY(!step->isEnabled());
        QVERIFY(!scale->isEnabled());
        // Even if pressed through the controller, an idle controller does not stay paused.
        w.controller()->setPaused(true);
        QVERIFY(!w.controller()->isPaused());
    }

    void pauseReadsResumeWhilePaused() {
        MainWindow w;
        w.show();
        longTrainer(w);
        QVERIFY(w.startRuns());
        auto* pause = w.findChild<QPushButton*>(QStringLiteral("pauseButton"));
        QVERIFY(pause->isEnabled());
        QCOMPARE(pause->text(), QStringLiteral("Pause"));
        QTest::mouseClick(pause, Qt::LeftButton);
        QVERIFY(w.controller()->isPaused());
        QCOMPARE(pause->text(), QStringLiteral("Resume"));
        QTest::mouseClick(pause, Qt::LeftButton);
        QVERIFY(!w.controller()->isPaused());
        QCOMPARE(pause->text(), QStringLiteral("Pause"));
        w.stopRuns();
        QVERIFY(!pause->isEnabled());
    }

    void liveControlsDoNotLeakIntoTheNextRun() {
        MainWindow w;
        w.show();
        longTrainer(w);
        QVERIFY(w.startRuns());
        auto* pause = w.findChild<QPushButton*>(QStringLiteral("pauseButton"));
        auto* scale = w.findChild<QDoubleSpinBox*>(QStringLiteral("lrScaleSpin"));
        scale->setValue(0.25);
        QCOMPARE(w.controller()->learningRateScale(), 0.25);
        QTest::mouseClick(pause, Qt::LeftButton);
        QVERIFY(w.controller()->isPaused());
        w.stopRuns();
        // After the run: controls back to "running at ×1", and the next run is not affected.
        QCOMPARE(scale->value(), 1.0);
        QVERIFY(!pause->isChecked());
        w.findChild<QLineEdit*>(QStringLiteral("field_solver.epochs"))
            ->setText(QStringLiteral("3"));
        QVERIFY(w.startRuns());
        QVERIFY(!w.controller()->isPaused());
        QCOMPARE(w.controller()->learningRateScale(), 1.0);
        QVERIFY(waitIdle(w));
        const RunRecord* last = w.runList()->allRuns().last();
        QVERIFY(last->result);
        QVERIFY(!last->result->history.empty());
        for (const HistoryPoint& h : last->result->history) QVERIFY(h.lr > 0);
        const ExperimentResult ref = runExperiment(last->config);
        QCOMPARE(last->result->history.back().trainMse,
                 ref.history.back().trainMse); // scale 1: same run
    }

    void scaleAppliesOnlyToItsRunInAQueue() {
        MainWindow w;
        w.show();
        w.loadPreset(3); // a sweep: several trainer runs queued
        w.findChild<QLineEdit*>(QStringLiteral("field_solver.epochs"))
            ->setText(QStringLiteral("5"));
        w.findChild<QLineEdit*>(QStringLiteral("field_solver.warmup"))
            ->setText(QStringLiteral("0"));
        auto* schedule = w.findChild<QComboBox*>(QStringLiteral("field_solver.schedule"));
        schedule->setCurrentIndex(schedule->findText(QStringLiteral("constant")));
        QVERIFY(w.startRuns());
        QVERIFY(w.controller()->queued() > 0);
        auto* scale = w.findChild<QDoubleSpinBox*>(QStringLiteral("lrScaleSpin"));
        scale->setValue(4.0); // applied to the run going now
        QVERIFY(waitIdle(w));
        const RunRecord* last = w.runList()->allRuns().last();
        QVERIFY(last->result && !last->result->history.empty());
        for (const HistoryPoint& h : last->result->history) QCOMPARE(h.lr, last->config.solver.lr);
        QCOMPARE(scale->value(), 1.0);
    }

    // --- The window fits 1280x720 ---------------------------------------------------------

    void windowFitsAProjector() {
        MainWindow w;
        w.show();
        QStringList problems;
        const QString atLaunch = fitsReport(w, QStringLiteral("at launch"));
        if (!atLaunch.isEmpty()) problems << atLaunch;
        for (int i = 0; i < builtinPresets().size(); ++i) {
            w.loadPreset(i);
            for (int t = 0; t < w.resultPanels().size(); ++t) {
                w.showTab(w.resultPanels()[t]->panelId());
                const QString p =
                    fitsReport(w, QStringLiteral("preset %1, tab %2").arg(i + 1).arg(t));
                if (!p.isEmpty()) problems << p;
            }
            QVERIFY(w.startRuns());
            QVERIFY(waitIdle(w));
            for (int t = 0; t < w.resultPanels().size(); ++t) {
                w.showTab(w.resultPanels()[t]->panelId());
                const QString p = fitsReport(
                    w, QStringLiteral("after running preset %1, tab %2").arg(i + 1).arg(t));
                if (!p.isEmpty()) problems << p;
            }
        }
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(u'\n')));
    }

    // At x2 on a 1280x720 projector with both docks the tab bar is ~540 px wide: the Sweep tab
    // was behind scroll arrows. Every tab is now inside the bar, its name shortened if need be
    // and whole in its tooltip.
    void everyTabIsVisibleInANarrowTabBar() {
        MainWindow w;
        w.resize(900, 600);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        auto* tabs = w.findChild<QTabWidget*>(QStringLiteral("resultTabs"));
        QVERIFY(tabs);
        tabs->setFixedWidth(420);
        QTRY_VERIFY(tabs->tabBar()->width() <= 420);
        QTabBar* bar = tabs->tabBar();
        for (int i = 0; i < bar->count(); ++i) {
            const QRect r = bar->tabRect(i);
            QVERIFY2(r.left() >= 0 && r.right() < bar->width(),
                     qPrintable(QStringLiteral("tab %1 (%2) at %3..%4 of %5")
                                    .arg(i)
                                    .arg(bar->tabText(i))
                                    .arg(r.left())
                                    .arg(r.right())
                                    .arg(bar->width())));
            QCOMPARE(bar->tabToolTip(i), bar->tabText(i));
        }
        // The longest name gives up width first: the short ones keep their natural width.
        int widest = 0;
        for (int i = 1; i < bar->count(); ++i)
            if (bar->fontMetrics().horizontalAdvance(bar->tabText(i)) >
                bar->fontMetrics().horizontalAdvance(bar->tabText(widest)))
                widest = i;
        for (int i = 0; i < bar->count(); ++i)
            QVERIFY2(bar->tabRect(i).width() <= bar->tabRect(widest).width() + 1,
                     qPrintable(bar->tabText(i)));
    }

    // The Certificate tab at 1280×720: no horizontal scroll, the badge and both plots whole
    // (it needed a scroll bar and cut the badge and the right plot before).
    void certificateTabFitsAProjector() {
        MainWindow w;
        w.show();
        QCoreApplication::processEvents();
        const QSize frame = w.frameGeometry().size() - w.geometry().size();
        // 1280×720 (a projector) and 1178×662 (the first size on 2560×1440 at scale 2).
        for (const QSize size : {QSize(1280, 720), QSize(1178, 662)})
            for (int preset : {0, 1}) { // certified (long badge), not certified (witness line)
                w.resize(size - frame);
                w.loadPreset(preset);
                QVERIFY(w.startRuns());
                QVERIFY(waitIdle(w));
                w.showTab(QStringLiteral("certificate"));
                QCoreApplication::processEvents();
                auto* scroll = w.findChild<QScrollArea*>(QStringLiteral("certificateScroll"));
                QVERIFY(scroll);
                auto* panel = w.findChild<CertificatePanel*>();
                QVERIFY2(
                    scroll->horizontalScrollBar()->maximum() == 0,
                    qPrintable(QStringLiteral("%4 wide, preset %1: panel needs %2 px, tab has %3")
                                   .arg(preset)
                                   .arg(panel->minimumSizeHint().width())
                                   .arg(scroll->viewport()->width())
                                   .arg(size.width())));
                auto whole = [](const QWidget* wd) {
                    return wd->visibleRegion().boundingRect() == wd->rect() && wd->width() > 0;
                };
                auto* badge = w.findChild<QLabel*>(QStringLiteral("certificateBadge"));
                QVERIFY(!badge->text().isEmpty());
                QVERIFY2(whole(badge), qPrintable(badge->text()));
                // The whole badge text is shown: its wrapped height fits the label.
                QVERIFY(badge->heightForWidth(badge->width()) <= badge->height());
                for (const PlotWidget* plot : {panel->spectrumPlot(), panel->tracePlot()}) {
                    QVERIFY2(whole(plot),
                             qPrintable(QStringLiteral("preset %1: %2 shows %3 of %4x%5")
                                            .arg(preset)
                                            .arg(plot->objectName())
                                            .arg(QString::number(
                                                plot->visibleRegion().boundingRect().width()))
                                            .arg(plot->width())
                                            .arg(plot->height())));
                    QVERIFY(plot->width() >= 220);
                }
            }
    }

    // Every tab at 1280×720 after a run of every preset: no horizontal scroll bar (the Heads
    // tab needed one for its info line).
    void noTabScrollsSideways() {
        MainWindow w;
        w.show();
        QCoreApplication::processEvents();
        const QSize frame = w.frameGeometry().size() - w.geometry().size();
        w.resize(QSize(1280, 720) - frame);
        QStringList problems;
        QVERIFY(runEveryPresetAndShowTabs(w, [&](int i, ResultPanel* panel) {
            auto* scroll = w.findChild<QScrollArea*>(panel->panelId() + QStringLiteral("Scroll"));
            if (scroll->horizontalScrollBar()->maximum() > 0)
                problems << QStringLiteral("preset %1, %2: needs %3 px, has %4")
                                .arg(i + 1)
                                .arg(panel->panelId())
                                .arg(panel->widget()->minimumSizeHint().width())
                                .arg(scroll->viewport()->width());
        }));
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(u'\n')));
    }

    // --- Axis ticks are readable numbers --------------------------------------------------

    void axisTicksAreNumbersEverywhere() {
        MainWindow w;
        w.resize(1280, 720);
        w.show();
        QStringList problems;
        QVERIFY(runEveryPresetAndShowTabs(w, [&](int, ResultPanel* panel) {
            for (const PlotWidget* plot : panel->widget()->findChildren<PlotWidget*>())
                if (plot->hasData()) problems += axisProblems(plot);
        }));
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(u'\n')));
    }

    void curvesOfExactRunsHaveYNumbersAndTitle() {
        MainWindow w;
        w.resize(1280, 720);
        w.show();
        w.loadPreset(0); // exact solver only
        QVERIFY(w.startRuns());
        QVERIFY(waitIdle(w));
        w.showTab(QStringLiteral("curves"));
        QCoreApplication::processEvents();
        auto* loss = w.findChild<PlotWidget*>(QStringLiteral("lossPlot"));
        QVERIFY(loss->hasData());
        QCOMPARE(axisProblems(loss), QStringList());
        auto* view = loss->findChild<QChartView*>();
        const auto vertical = view->chart()->axes(Qt::Vertical);
        QCOMPARE(vertical.size(), 1);
        QVERIFY(!vertical.first()->titleText().isEmpty());
        QVERIFY(vertical.first()->isVisible());
        // Really drawn, not only "visible" as a property: Qt's log axis drew no y labels and
        // no y title for these 1e-30 losses.
        QStringList drawn;
        for (QGraphicsItem* it : view->chart()->scene()->items())
            if (auto* t = dynamic_cast<QGraphicsTextItem*>(it))
                if (t->isVisible()) drawn << t->toPlainText();
        auto* ylog = qobject_cast<QCategoryAxis*>(vertical.first());
        QVERIFY(ylog);
        for (const QString& l : ylog->categoriesLabels())
            QVERIFY2(drawn.contains(l), qPrintable(drawn.join(QStringLiteral(" | "))));
        QVERIFY2(drawn.join(u'|').contains(QStringLiteral("MSE · OOD")),
                 qPrintable(drawn.join(QStringLiteral(" | "))));
        // No epochs to count: the x axis does not pretend to (0..1, titled as such; not 0..1.5).
        const auto horizontal = view->chart()->axes(Qt::Horizontal);
        auto* x = qobject_cast<QValueAxis*>(horizontal.first());
        QVERIFY(x);
        QCOMPARE(x->max(), 1.0);
        QVERIFY2(x->titleText().contains(QStringLiteral("no epochs")), qPrintable(x->titleText()));
    }

    // --- Issue 23: nothing lost by a key ---------------------------------------------------

    void clearAndRerunAsksBeforeDeletingRuns() {
        MainWindow w;
        w.show();
        w.loadPreset(0);
        auto* reset = w.findChild<QAction*>(QStringLiteral("resetAction"));
        QVERIFY(reset);
        QCOMPARE(reset->shortcut(), QKeySequence(QStringLiteral("Ctrl+Shift+R")));
        auto firstId = [&w] { return w.runList()->allRuns().first()->id; };
        {
            DialogAnswerer no(QMessageBox::Cancel); // no runs: nothing to lose, no question
            reset->trigger();
            QVERIFY(no.asked().isNull());
        }
        QVERIFY(waitIdle(w));
        QCOMPARE(w.runList()->count(), 1);
        const int kept = firstId();
        {
            DialogAnswerer no(QMessageBox::Cancel);
            reset->trigger();
            QVERIFY2(no.asked().contains(QStringLiteral("1 run")), qPrintable(no.asked()));
        }
        QCOMPARE(w.runList()->count(), 1);
        QCOMPARE(firstId(), kept);
        QVERIFY(!w.controller()->isBusy());
        {
            DialogAnswerer no(QMessageBox::Cancel); // the panel's button asks the same
            QTest::mouseClick(w.findChild<QPushButton*>(QStringLiteral("resetButton")),
                              Qt::LeftButton);
            QVERIFY(!no.asked().isNull());
        }
        QCOMPARE(firstId(), kept);
        {
            DialogAnswerer no(QMessageBox::Cancel); // as "Clear all" does
            QTest::mouseClick(w.findChild<QPushButton*>(QStringLiteral("clearRunsButton")),
                              Qt::LeftButton);
            QVERIFY(!no.asked().isNull());
        }
        QCOMPARE(firstId(), kept);
        {
            DialogAnswerer yes(QMessageBox::Yes);
            reset->trigger();
            QVERIFY(!yes.asked().isNull());
        }
        QVERIFY(waitIdle(w));
        QCOMPARE(w.runList()->count(), 1);
        QVERIFY(firstId() != kept); // cleared and run again
    }

    void openWithUnsavedEditsAsks() {
        MainWindow w;
        w.show();
        w.loadPreset(0);
        auto* open = w.findChild<QAction*>(QStringLiteral("openAction"));
        QVERIFY(open);
        QCOMPARE(open->shortcut(), QKeySequence(QKeySequence::Open));
        {
            DialogAnswerer a(QMessageBox::Cancel); // no edits: straight to the file dialog
            open->trigger();
            QVERIFY(a.asked().isNull());
            QCOMPARE(a.others().size(), 1);
        }
        auto* samples = w.findChild<QLineEdit*>(QStringLiteral("field_task.samples"));
        samples->setText(QStringLiteral("777"));
        QVERIFY(w.isWindowModified());
        {
            DialogAnswerer no(QMessageBox::Cancel);
            open->trigger();
            QVERIFY2(no.asked().contains(QStringLiteral("unsaved")), qPrintable(no.asked()));
            QVERIFY(no.others().isEmpty()); // no file dialog after Cancel
        }
        QCOMPARE(samples->text(), QStringLiteral("777"));
        {
            DialogAnswerer yes(QMessageBox::Yes);
            open->trigger();
            QVERIFY(!yes.asked().isNull());
            QCOMPARE(yes.others().size(), 1); // the file dialog (cancelled: nothing opens)
        }
        QCOMPARE(samples->text(), QStringLiteral("777"));
        // A preset from the menu (Ctrl+2) would replace the form too.
        QAction* preset2 = nullptr;
        for (QAction* a : w.findChildren<QAction*>())
            if (a->shortcut() == QKeySequence(QStringLiteral("Ctrl+2"))) preset2 = a;
        QVERIFY(preset2);
        {
            DialogAnswerer no(QMessageBox::Cancel);
            preset2->trigger();
            QVERIFY(!no.asked().isNull());
        }
        QCOMPARE(w.experimentPanel()->currentPreset(), 0);
        QCOMPARE(samples->text(), QStringLiteral("777"));
        // The panel's preset box asks too (it replaced the edits at once); Cancel puts the box
        // back on the form's preset.
        auto* combo = w.findChild<QComboBox*>(QStringLiteral("presetCombo"));
        QVERIFY(combo);
        {
            DialogAnswerer no(QMessageBox::Cancel);
            combo->setCurrentIndex(3);
            Q_EMIT combo->activated(3);
            QVERIFY2(no.asked().contains(QStringLiteral("unsaved")), qPrintable(no.asked()));
        }
        QCOMPARE(w.experimentPanel()->currentPreset(), 0);
        QCOMPARE(combo->currentIndex(), 1);
        QCOMPARE(samples->text(), QStringLiteral("777"));
        {
            DialogAnswerer yes(QMessageBox::Yes);
            combo->setCurrentIndex(3);
            Q_EMIT combo->activated(3);
            QVERIFY(!yes.asked().isNull());
        }
        QCOMPARE(w.experimentPanel()->currentPreset(), 2);
        QVERIFY(samples->text() != QStringLiteral("777"));
    }

    // --- Issue 23: colours by what is on screen, one visibility ---------------------------

    void runColoursGoByWhatIsOnScreen() {
        MainWindow w;
        w.loadPreset(0);
        const ExperimentConfig cfg = w.experimentPanel()->config();
        RunList* list = w.runList();
        auto check = [](const QList<const RunRecord*>& runs) {
            QSet<QRgb> seen;
            for (const RunRecord* r : runs) {
                if (!screenRunPalette().contains(r->color))
                    return QStringLiteral("%1 has %2, not a palette colour")
                        .arg(r->name, r->color.name());
                if (runs.size() <= screenRunPalette().size() && seen.contains(r->color.rgb()))
                    return QStringLiteral("%1 repeats %2").arg(r->name, r->color.name());
                seen.insert(r->color.rgb());
            }
            return QString();
        };
        // A 105-run sweep: every run has a palette colour (none black, none near-black).
        for (int i = 0; i < 105; ++i) (void)list->add(QStringLiteral("sweep"), cfg);
        QString why = check(list->visibleRuns());
        QVERIFY2(why.isEmpty(), qPrintable(why));
        QVERIFY2(check(list->visibleRuns().mid(0, 8)).isEmpty(), "the first eight share one");
        // Removed one by one; the next runs take the first colours again.
        for (const RunRecord* r : list->allRuns()) list->remove(r->id);
        for (int i = 0; i < 3; ++i) (void)list->add(QStringLiteral("after"), cfg);
        for (int i = 0; i < 3; ++i) QCOMPARE(list->allRuns()[i]->color, screenRunPalette()[i]);
        // Stable while on screen: hiding #2 (its tick) changes nobody else; a new run takes the
        // free colour, and #2 shown again gets one nobody on screen has.
        const QList<const RunRecord*> three = list->allRuns();
        const QColor c1 = three[0]->color, c2 = three[1]->color, c3 = three[2]->color;
        auto* tree = w.findChild<QTreeWidget*>(QStringLiteral("runTree"));
        tree->topLevelItem(1)->setCheckState(0, Qt::Unchecked);
        QVERIFY(!three[1]->visible);
        QCOMPARE(three[0]->color, c1);
        QCOMPARE(three[2]->color, c3);
        const RunRecord& fourth = list->add(QStringLiteral("new"), cfg);
        QCOMPARE(fourth.color, c2);
        tree->topLevelItem(1)->setCheckState(0, Qt::Checked);
        why = check(list->visibleRuns());
        QVERIFY2(why.isEmpty(), qPrintable(why));
        QCOMPARE(three[0]->color, c1);
        QCOMPARE(fourth.color, c2);
        for (const RunRecord* r : list->allRuns())
            for (const QColor& reserved : reservedPlotColors())
                QVERIFY2(deltaE(r->color, reserved) >= kRunColorMinDeltaE,
                         qPrintable(r->color.name()));
    }

    // Beyond eight runs on screen colours repeat: the second run of a colour gets mark 1, the
    // third mark 2 (a marker shape on its line, legend and swatch); the first of each none.
    void runsSharingAColourGetMarks() {
        MainWindow w;
        w.loadPreset(0);
        const ExperimentConfig cfg = w.experimentPanel()->config();
        RunList* list = w.runList();
        const int n = static_cast<int>(screenRunPalette().size());
        for (int i = 0; i < 2 * n + 1; ++i) (void)list->add(QStringLiteral("r"), cfg);
        QHash<QRgb, QSet<int>> marksOf;
        for (const RunRecord* r : list->visibleRuns()) {
            QVERIFY2(!marksOf[r->color.rgb()].contains(r->mark),
                     qPrintable(QStringLiteral("%1: colour and mark repeat").arg(r->name)));
            marksOf[r->color.rgb()].insert(r->mark);
        }
        for (int i = 0; i < n; ++i) QCOMPARE(list->allRuns()[i]->mark, 0);
        QCOMPARE(list->allRuns()[2 * n]->mark, 2);
        // Hiding the first run of the last one's colour: the others move up a mark.
        const RunRecord* last = list->allRuns()[2 * n];
        auto* tree = w.findChild<QTreeWidget*>(QStringLiteral("runTree"));
        for (int i = 0; i < n; ++i)
            if (list->allRuns()[i]->color == last->color)
                tree->topLevelItem(i)->setCheckState(0, Qt::Unchecked);
        QCOMPARE(last->mark, 1);
        // At most eight on screen: no marks.
        for (int i = 0; i < 2 * n + 1; ++i) tree->topLevelItem(i)->setCheckState(0, Qt::Unchecked);
        for (int i = 0; i < n; ++i) tree->topLevelItem(2 * n - i)->setCheckState(0, Qt::Checked);
        for (const RunRecord* r : list->visibleRuns()) QCOMPARE(r->mark, 0);
    }

    void legendClickHidesARunEverywhere() {
        MainWindow w;
        w.show();
        w.loadPreset(3); // four SGD runs overlaid
        QVERIFY(w.startRuns());
        QVERIFY(waitIdle(w));
        w.showTab(QStringLiteral("curves"));
        QCoreApplication::processEvents();
        RunList* list = w.runList();
        QCOMPARE(list->count(), 4);
        const RunRecord* second = list->allRuns()[1];
        const QString name = second->name;
        QList<QColor> before;
        for (const RunRecord* r : list->allRuns()) before << r->color;
        auto* loss = w.findChild<PlotWidget*>(QStringLiteral("lossPlot"));
        auto* distance = w.findChild<PlotWidget*>(QStringLiteral("distancePlot"));
        QVERIFY(loss && distance);
        QVERIFY(seriesNamed(loss, name) && seriesNamed(distance, name));
        auto* legend = loss->findChild<QWidget*>(QStringLiteral("lossLegend"));
        QVERIFY(legend);
        const QList<plotmath::LegendEntry> entries = loss->legendEntries();
        const LegendLayout lay = layoutLegend(entries, legend->font(), legend->width() - 12);
        int at = -1;
        for (int i = 0; i < entries.size(); ++i)
            if (entries[i].name == name) at = i;
        QVERIFY(at >= 0 && at < lay.boxes.size());
        QTest::mouseClick(legend, Qt::LeftButton, {},
                          (lay.boxes[at].center() + QPointF(6, 2)).toPoint());
        QVERIFY(!second->visible); // as the run list's tick: hidden everywhere
        auto* tree = w.findChild<QTreeWidget*>(QStringLiteral("runTree"));
        QCOMPARE(tree->topLevelItem(1)->checkState(0), Qt::Unchecked);
        QVERIFY(!seriesNamed(loss, name));
        QVERIFY(!seriesNamed(distance, name));
        for (int i = 0; i < 4; ++i) QCOMPARE(list->allRuns()[i]->color, before[i]);
        tree->topLevelItem(1)->setCheckState(0, Qt::Checked); // and back from the list
        QVERIFY(seriesNamed(loss, name) && seriesNamed(distance, name));
    }

    // --- Issue 23, point 7 -------------------------------------------------------------------

    void revertClearsAStaleCannotRun() {
        MainWindow w;
        w.show();
        w.loadPreset(0);
        w.findChild<QLineEdit*>(QStringLiteral("field_task.samples"))->setText(QStringLiteral("0"));
        QVERIFY(!w.startRuns());
        auto* phase = w.findChild<ElidedLabel*>(QStringLiteral("statusPhase"));
        QVERIFY(phase->text().startsWith(QStringLiteral("Cannot run")));
        QTest::mouseClick(w.findChild<QPushButton*>(QStringLiteral("revertPresetButton")),
                          Qt::LeftButton);
        QVERIFY(w.experimentPanel()->isValid());
        QVERIFY2(!phase->text().contains(QStringLiteral("Cannot run")), qPrintable(phase->text()));
        // Still invalid for another reason: the line gives that one.
        w.findChild<QLineEdit*>(QStringLiteral("field_task.samples"))->setText(QStringLiteral("0"));
        QVERIFY(!w.startRuns());
        w.findChild<QLineEdit*>(QStringLiteral("field_task.samples"))
            ->setText(QStringLiteral("-3"));
        QVERIFY2(phase->text().startsWith(QStringLiteral("Cannot run")) &&
                     phase->text().contains(QStringLiteral("-3")),
                 qPrintable(phase->text()));
    }

    void pausedRunSaysPaused() {
        MainWindow w;
        w.show();
        longTrainer(w);
        QVERIFY(w.startRuns());
        QSignalSpy spy(w.controller(), &RunController::progressed);
        QVERIFY(spy.wait(20000));
        auto* pause = w.findChild<QPushButton*>(QStringLiteral("pauseButton"));
        QTest::mouseClick(pause, Qt::LeftButton);
        QVERIFY(w.controller()->isPaused());
        auto* tree = w.findChild<QTreeWidget*>(QStringLiteral("runTree"));
        auto* phase = w.findChild<ElidedLabel*>(QStringLiteral("statusPhase"));
        auto saysPaused = [&] {
            const QString state = tree->topLevelItem(0)->text(1);
            return state.startsWith(QStringLiteral("paused")) &&
                   phase->text().contains(QStringLiteral("paused")) &&
                   !phase->text().contains(QStringLiteral("running"));
        };
        QVERIFY2(saysPaused(), qPrintable(tree->topLevelItem(0)->text(1) + u'|' + phase->text()));
        QTest::qWait(300); // progress still on its way does not bring "running" back
        QVERIFY2(saysPaused(), qPrintable(tree->topLevelItem(0)->text(1) + u'|' + phase->text()));
        QTest::mouseClick(pause, Qt::LeftButton);
        QVERIFY(tree->topLevelItem(0)->text(1).startsWith(QStringLiteral("running")));
        w.stopRuns();
    }

    void pauseIsOffDuringExactRuns() {
        MainWindow w;
        w.show();
        w.loadPreset(0); // poly: no epochs
        QVERIFY(w.startRuns());
        QVERIFY(w.controller()->isBusy());
        QVERIFY(!w.findChild<QPushButton*>(QStringLiteral("pauseButton"))->isEnabled());
        QVERIFY(!w.findChild<QDoubleSpinBox*>(QStringLiteral("lrScaleSpin"))->isEnabled());
        QVERIFY(waitIdle(w));
        longTrainer(w); // a trainer can pause
        QVERIFY(w.startRuns());
        QVERIFY(w.findChild<QPushButton*>(QStringLiteral("pauseButton"))->isEnabled());
        w.stopRuns();
    }

    void emptyPlotsDuringARunSayItIsRunning() {
        MainWindow w;
        longTrainer(w);
        auto* loss = w.findChild<PlotWidget*>(QStringLiteral("lossPlot"));
        const QString idle = QStringLiteral("No data yet: run an experiment");
        QVERIFY(loss->note().contains(idle));
        QVERIFY(w.startRuns());
        QVERIFY(!loss->hasData());
        QVERIFY2(!loss->note().contains(idle) && loss->note().contains(QStringLiteral("running")),
                 qPrintable(loss->note()));
        w.stopRuns();
        QVERIFY(waitIdle(w));
        if (!loss->hasData()) QVERIFY2(loss->note().contains(idle), qPrintable(loss->note()));
    }

    // --- Smaller items of issue 9 ---------------------------------------------------------

    void runWithInvalidFieldsSaysWhy() {
        MainWindow w;
        w.show();
        w.loadPreset(0);
        w.findChild<QLineEdit*>(QStringLiteral("field_task.samples"))->setText(QStringLiteral("0"));
        QAction* run = nullptr;
        for (QAction* a : w.findChildren<QAction*>())
            if (a->shortcut() == QKeySequence(QStringLiteral("Ctrl+R"))) run = a;
        QVERIFY(run);
        QVERIFY(run->isEnabled()); // not silently disabled: it explains
        run->trigger();
        QCOMPARE(w.runList()->count(), 0);
        const QString said = w.findChild<ElidedLabel*>(QStringLiteral("statusPhase"))->text();
        QVERIFY2(said.contains(findExperimentKey(QStringLiteral("task.samples"))->label),
                 qPrintable(said));
    }

    // Finished runs are autosaved and offered back at the next start: quitting does not ask
    // about them, unless the last autosave failed; unsaved experiment edits are still asked about.
    void quittingAsksOnlyWhenSomethingIsLost() {
        MainWindow w;
        w.loadPreset(0);
        QCOMPARE(w.closeQuestion(), QString());
        QVERIFY(w.startRuns());
        QVERIFY(waitIdle(w));
        QCOMPARE(w.closeQuestion(), QString());
        Q_EMIT w.autosaved(QStringLiteral("disk full"));
        const QString q = w.closeQuestion();
        QVERIFY2(q.contains(QStringLiteral("could not be autosaved (disk full)")) &&
                     q.contains(QStringLiteral("will be lost")),
                 qPrintable(q));
        Q_EMIT w.autosaved(QString());
        QCOMPARE(w.closeQuestion(), QString());
        w.setWindowModified(true);
        const QString edits = w.closeQuestion();
        QVERIFY2(edits.contains(QStringLiteral("unsaved changes, which will be lost")) &&
                     edits.contains(QStringLiteral("offers them back")),
                 qPrintable(edits));
    }

    void progressHasElapsedAndRemainingTime() {
        RunRecord r;
        r.state = RunRecord::State::Running;
        r.startedMs = 1'000'000;
        r.fraction = 0.25;
        QCOMPARE(r.timeText(1'010'000), QStringLiteral("0:10, ~0:30 left"));
        r.fraction = 0.01; // too early for an estimate
        QCOMPARE(r.timeText(1'010'000), QStringLiteral("0:10"));
        r.state = RunRecord::State::Finished;
        r.endedMs = 1'003'100;
        QVERIFY(r.stateText().endsWith(QStringLiteral("3.1 s")));
        // The status bar shows the run list's text while a run goes.
        MainWindow w;
        longTrainer(w);
        QVERIFY(w.startRuns());
        QSignalSpy spy(w.controller(), &RunController::progressed);
        QVERIFY(spy.wait(20000));
        const RunRecord* rec = w.runList()->allRuns().first();
        const QString status = w.findChild<ElidedLabel*>(QStringLiteral("statusPhase"))->text();
        QVERIFY2(status.contains(QStringLiteral("running")) && status.contains(rec->name),
                 qPrintable(status));
        w.stopRuns();
    }

    void certificateShowsNothingStaleDuringANewRun() {
        MainWindow w;
        w.loadPreset(0);
        QVERIFY(w.startRuns());
        QVERIFY(waitIdle(w));
        longTrainer(w);
        w.findChild<QCheckBox*>(QStringLiteral("field_solver.compare_exact"))->setChecked(false);
        QVERIFY(w.startRuns());
        const RunRecord* rec = w.runList()->allRuns().last();
        QCoreApplication::processEvents();
        auto* spectrum = w.findChild<PlotWidget*>(QStringLiteral("spectrumPlot"));
        QVERIFY2(spectrum->figureTitle().contains(rec->name), qPrintable(spectrum->figureTitle()));
        QVERIFY(!spectrum->hasData());
        QVERIFY(!spectrum->note().contains(QStringLiteral("eigenvalue")));
        w.stopRuns();
    }

    void noEmptyProgressBoxAtLaunch() {
        MainWindow w;
        w.show();
        QCoreApplication::processEvents();
        auto* bar = w.findChild<QProgressBar*>(QStringLiteral("statusProgress"));
        QVERIFY(bar);
        QVERIFY(!bar->isVisible()); // an empty bar at launch says nothing
        longTrainer(w);
        QVERIFY(w.startRuns());
        QCoreApplication::processEvents();
        QVERIFY(bar->isVisible()); // while something runs
        w.stopRuns();
        QVERIFY(waitIdle(w));
        QVERIFY(!bar->isVisible());
    }

    void automatonTabSaysWhatItIsFor() {
        MainWindow w;
        w.show();
        w.loadPreset(0); // associative memory: not an automaton
        QVERIFY(w.startRuns());
        QVERIFY(waitIdle(w));
        w.showTab(QStringLiteral("automaton"));
        QCoreApplication::processEvents();
        auto* dfa = w.findChild<QWidget*>(QStringLiteral("dfaTable"));
        auto* trace = w.findChild<QWidget*>(QStringLiteral("traceTable"));
        QVERIFY(!dfa->isVisible() && !trace->isVisible()); // no two empty boxes
        const QString said = w.findChild<QLabel*>(QStringLiteral("automatonSummary"))->text();
        QVERIFY2(said.contains(QStringLiteral("not an automaton run")), qPrintable(said));
        QVERIFY(said.contains(QStringLiteral("transition table")));
        QVERIFY(said.contains(QStringLiteral("preset")));
        w.loadPreset(4); // the automaton preset: the tables are back
        QVERIFY(w.startRuns());
        QVERIFY(waitIdle(w));
        QCoreApplication::processEvents();
        QVERIFY(dfa->isVisible() && trace->isVisible());
    }

    void curvesHaveASmoothingSlider() {
        MainWindow w;
        w.show();
        w.loadPreset(3); // SGD: training curves
        w.findChild<QCheckBox*>(QStringLiteral("sweepCheck"))->setChecked(false);
        QVERIFY(w.startRuns());
        QVERIFY(waitIdle(w));
        w.showTab(QStringLiteral("curves"));
        auto* slider = w.findChild<QSlider*>(QStringLiteral("smoothingSlider"));
        QVERIFY(slider && slider->isVisible());
        auto* loss = w.findChild<PlotWidget*>(QStringLiteral("lossPlot"));
        auto* view = loss->findChild<QChartView*>();
        const int before = static_cast<int>(view->chart()->series().size());
        slider->setValue(60);
        QCOMPARE(loss->smoothing(), 0.6);
        QCOMPARE(w.findChild<PlotWidget*>(QStringLiteral("distancePlot"))->smoothing(), 0.6);
        QVERIFY2(view->chart()->series().size() > before, "the raw curves are drawn behind");
        QCOMPARE(w.findChild<QLabel*>(QStringLiteral("smoothingValue"))->text(),
                 QStringLiteral("0.60"));
        // Edit ▸ Copy figure: the visible tab's first figure, as shown or for a paper.
        QCOMPARE(w.copyCurrentFigure(false), QString());
        QVERIFY(QGuiApplication::clipboard()->mimeData()->hasImage());
        QCOMPARE(w.copyCurrentFigure(true), QString());
        QCOMPARE(
            qvariant_cast<QImage>(QGuiApplication::clipboard()->mimeData()->imageData()).size(),
            QSize(1020, 720)); // one column, 3.4 × 2.4 in at 300 dpi
        // Training curves: the x axis ends at the last epoch, not past it.
        double lastEpoch = 0;
        for (const auto& s : loss->series())
            for (const auto& p : s.points) lastEpoch = std::max(lastEpoch, p.x());
        auto* x = qobject_cast<QValueAxis*>(view->chart()->axes(Qt::Horizontal).first());
        QVERIFY(x);
        QVERIFY(lastEpoch > 0);
        QVERIFY2(x->max() >= lastEpoch && x->max() < lastEpoch * 1.1,
                 qPrintable(QStringLiteral("%1 vs %2").arg(x->max()).arg(lastEpoch)));
    }

    void helpHasShortcutsAndATour() {
        MainWindow w;
        QVERIFY(w.shortcutsHtml().contains(QStringLiteral("Ctrl+R")));
        QVERIFY(w.shortcutsHtml().contains(QStringLiteral("Ctrl+O")));
        QVERIFY(w.shortcutsHtml().contains(QStringLiteral("Ctrl+Shift+C"))); // Edit ▸ Copy figure
        QVERIFY(w.shortcutsHtml().contains(QStringLiteral("Shift+drag")));   // the plots' gestures
        w.showTourStep(1);
        QCOMPARE(w.experimentPanel()->currentPreset(), 1);
        QVERIFY(w.findChild<QTextBrowser*>(QStringLiteral("explanation"))
                    ->toPlainText()
                    .contains(QStringLiteral("Tour 2 of")));
    }
    // Issue 23 point 7: the tour visits every preset once (it stopped after the fifth), each
    // stop names its tab as the tab bar does ("What is left free?", not "explorer"), and the
    // last stop ends the tour.
    void tourVisitsEveryPreset() {
        MainWindow w;
        auto* text = w.findChild<QTextBrowser*>(QStringLiteral("explanation"));
        QSet<int> visited;
        QStringList tabNames;
        for (const ResultPanel* p : w.resultPanels()) tabNames << p->tabName();
        const int n = static_cast<int>(builtinPresets().size());
        for (int step = 0; step < n; ++step) {
            w.showTourStep(step);
            const QString shown = text->toPlainText();
            QVERIFY2(shown.contains(QStringLiteral("Tour %1 of %2").arg(step + 1).arg(n)),
                     qPrintable(shown));
            visited.insert(w.experimentPanel()->currentPreset());
            bool namesATab = false;
            for (const QString& t : tabNames)
                namesATab =
                    namesATab || shown.contains(QStringLiteral("look at the %1 tab").arg(t));
            QVERIFY2(namesATab, qPrintable(shown));
            QCOMPARE(shown.contains(QStringLiteral("End of the tour")), step == n - 1);
        }
        QCOMPARE(visited.size(), n);
    }

    // Issue 23: choosing a preset shows the tab where it makes its point (the tour did, the
    // preset box did not: Ctrl+R on "How many heads?" left the Certificate tab in front).
    // Every preset names a tab that exists.
    void choosingAPresetShowsItsTab() {
        MainWindow w;
        w.setQuitWithoutAsking(true);
        auto* tabs = w.findChild<QTabWidget*>(QStringLiteral("resultTabs"));
        QVERIFY(tabs);
        auto* box = w.findChild<QComboBox*>(QStringLiteral("presetCombo"));
        QVERIFY(box);
        QStringList ids;
        for (const ResultPanel* p : w.resultPanels()) ids << p->panelId();
        QSet<QString> shown;
        for (int i = 0; i < builtinPresets().size(); ++i) {
            const QString tab = builtinPresets()[i].tab;
            QVERIFY2(ids.contains(tab),
                     qPrintable(builtinPresets()[i].file + QStringLiteral(": ") + tab));
            tabs->setCurrentIndex(i % 2 ? 0 : tabs->count() - 1); // somewhere else first
            box->setCurrentIndex(i + 1);                          // entry 0 is the prompt
            Q_EMIT box->activated(i + 1);                         // as a click on the entry does
            QCOMPARE(w.experimentPanel()->currentPreset(), i);
            QCOMPARE(w.resultPanels()[tabs->currentIndex()]->panelId(), tab);
            shown.insert(tab);
        }
        QVERIFY(shown.size() >= 4); // not one tab for all
    }

    // Issue 9: "the window reopens 20 px lower". restoreGeometry() keeps a title bar's height
    // free above a window at the top of the screen; without a window manager's frame (as here,
    // and under Xvfb, where it was reproduced: y = 0 and y = 5 reopened at y = 20) the window
    // moved down. It now reopens where it was closed.
    void windowReopensWhereItWasClosed_data() {
        QTest::addColumn<QPoint>("pos");
        QTest::newRow("top-left corner") << QPoint(0, 0);
        QTest::newRow("5 px from the top") << QPoint(0, 5);
        QTest::newRow("lower down") << QPoint(10, 60);
    }
    void windowReopensWhereItWasClosed() {
        QFETCH(QPoint, pos);
        QRect closed;
        {
            MainWindow w;
            w.setQuitWithoutAsking(true);
            w.setGeometry(QRect(pos, QSize(760, 460)));
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            closed = w.geometry();
            QVERIFY(closed.top() < 70);
            QVERIFY(w.close());
        }
        MainWindow again;
        QCOMPARE(again.geometry(), closed);
        again.show();
        QVERIFY(QTest::qWaitForWindowExposed(&again));
        QCOMPARE(again.geometry(), closed);
    }
};

QTEST_MAIN(TstGuiWindow)
#include "tst_gui_window.moc"
