// The desktop app end to end on the offscreen platform: presets run on the worker thread and
// the panels show exactly core's result; Stop leaves the window usable at once; invalid values
// disable Run with core's reason at the field; saved experiments and Reset reproduce runs.
#include "core/run/runner.h"
#include "guitestutil.h"
#include "testutil.h"
#include "ui/experiment/experimentpanel.h"
#include "ui/experiment/presets.h"
#include "ui/panels/certificatepanel.h"
#include "ui/panels/curvespanel.h"
#include "ui/panels/headspanel.h"
#include "ui/plot/heatmapwidget.h"
#include "ui/plot/plotwidget.h"
#include "ui/run/runcontroller.h"
#include "ui/run/runlist.h"
#include "ui/shell/appsettings.h"
#include "ui/shell/mainwindow.h"
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QGraphicsView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

using namespace mhla;
using namespace mhla::ui;
using namespace mhla::ui::test;

namespace {

using mhla::test::near;

bool sameMatrix(const Mat& a, const Mat& b, double tol = 1e-12) {
    if (a.rows() != b.rows() || a.cols() != b.cols()) return false;
    if (a.size() == 0) return true;
    return (a - b).cwiseAbs().maxCoeff() <= tol * std::max(1.0, b.cwiseAbs().maxCoeff());
}

const PlotSeries* seriesNamed(const PlotWidget* p, const QString& name) {
    for (const auto& s : p->series())
        if (s.name == name) return &s;
    return nullptr;
}

} // namespace

class TstGuiMainWindow : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(useTestSettings(m_dir));
        QVERIFY(builtinPresets().size() >= 5);
    }

    void presetRunsAndPanelsShowCoreResult_data() {
        QTest::addColumn<int>("preset");
        QTest::addColumn<int>("runs");
        const auto& presets = builtinPresets();
        for (int i = 0; i < presets.size(); ++i)
            QTest::newRow(qPrintable(presets[i].file))
                << i << std::max(1, static_cast<int>(presets[i].sweepValues.size()));
    }
    void presetRunsAndPanelsShowCoreResult() {
        QFETCH(int, preset);
        QFETCH(int, runs);
        MainWindow w;
        w.show();
        w.loadPreset(preset);
        auto* run = w.findChild<QPushButton*>(QStringLiteral("runButton"));
        QVERIFY(run && run->isEnabled());
        QTest::mouseClick(run, Qt::LeftButton);
        QVERIFY(waitIdle(w));
        RunList* list = w.findChild<RunList*>(QStringLiteral("runList"));
        QCOMPARE(list->count(), runs);

        auto* badge = w.findChild<QLabel*>(QStringLiteral("certificateBadge"));
        auto* spectrum = w.findChild<PlotWidget*>(QStringLiteral("spectrumPlot"));
        auto* loss = w.findChild<PlotWidget*>(QStringLiteral("lossPlot"));
        auto* heads = w.findChild<HeatmapWidget*>(QStringLiteral("headsHeatmap"));
        auto* coeffs = w.findChild<HeatmapWidget*>(QStringLiteral("coefficientsHeatmap"));
        QVERIFY(badge && spectrum && loss && heads && coeffs);

        for (const RunRecord* rec : list->allRuns()) {
            QVERIFY2(rec->result, qPrintable(rec->name + QStringLiteral(": ") + rec->stateText()));
            list->select(rec->id);
            const ExperimentResult core = runExperiment(rec->config);
            const ExperimentResult& gui = *rec->result;
            // The worker ran core's exact code: identical numbers.
            QVERIFY(near(gui.certificate.lambdaMin, core.certificate.lambdaMin));
            QCOMPARE(gui.certificate.nullDim, core.certificate.nullDim);
            QCOMPARE(gui.certificate.certified, core.certificate.certified);
            QVERIFY(sameMatrix(gui.P, core.P));
            // Badge.
            const QString expected =
                core.certificate.certified
                    ? QStringLiteral("certified identifiable")
                    : QStringLiteral("≤ τ = %1; null dimension %2)")
                          .arg(QString::number(core.certificate.tolerance, 'g', 4))
                          .arg(core.certificate.nullDim);
            QVERIFY2(badge->text().contains(expected), qPrintable(badge->text()));
            // Spectrum: every eigenvalue is drawn (positive ones as they are, the others at the
            // floor).
            qsizetype drawn = 0;
            for (const auto& s : spectrum->series())
                if (s.style != PlotSeries::Style::HLine) drawn += s.points.size();
            QCOMPARE(drawn, static_cast<qsizetype>(core.certificate.spectrum.size()));
            QVERIFY(!spectrum->series().first().points.isEmpty());
            // Curves: trainers' history points, or the exact solver's losses as reference lines.
            if (!core.history.empty()) {
                const PlotSeries* train = seriesNamed(loss, rec->name);
                QVERIFY(train);
                QCOMPARE(train->points.size(), static_cast<qsizetype>(core.history.size()));
                for (size_t i = 0; i < core.history.size(); ++i) {
                    QCOMPARE(train->points[static_cast<qsizetype>(i)].x(),
                             double(core.history[i].epoch));
                    QVERIFY(near(train->points[static_cast<qsizetype>(i)].y(),
                                 core.history[i].trainMse));
                }
            } else {
                const PlotSeries* ref =
                    seriesNamed(loss, rec->name + QStringLiteral(" (exact) train MSE"));
                QVERIFY(ref);
                QVERIFY(near(ref->points.first().y(), core.metrics.trainMse));
            }
            // Heatmaps: teacher and learned head 1 in canonical form, P* and P.
            const auto& panels = heads->panels();
            QCOMPARE(panels.size(), 6);
            if (core.identifiability && core.identifiability->minHeads &&
                core.identifiability->minHeads->heads.count() > 0) {
                // Default form: the minimal heads beside the teacher's own (sign-aligned).
                const Mat& mv = core.identifiability->minHeads->heads.V.at(0);
                QVERIFY(sameMatrix(panels[0].matrix,
                                   core.identifiability->teacherMinimalHeads.V.at(0)));
                QVERIFY(sameMatrix(panels[1].matrix, mv) || sameMatrix(panels[1].matrix, -mv));
            } else {
                QVERIFY(sameMatrix(panels[0].matrix, core.teacherHeads.heads.V.at(0)));
                if (core.heads.heads.count() > 0)
                    QVERIFY(sameMatrix(panels[1].matrix, core.heads.heads.V.at(0)));
            }
            QVERIFY(sameMatrix(coeffs->panels()[0].matrix, core.teacherP));
            QVERIFY(sameMatrix(coeffs->panels()[1].matrix, core.P));
            QVERIFY(heads->scale() > 0);
            QVERIFY(!heads->describeCell(0, 0, 0).isEmpty());
        }
    }

    void hoverShowsValueUnderCursor() {
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.loadPreset(2);
        QVERIFY(w.startRuns());
        QVERIFY(waitIdle(w));
        w.showTab(QStringLiteral("certificate"));
        auto* spectrum = w.findChild<PlotWidget*>(QStringLiteral("spectrumPlot"));
        auto* view = spectrum->findChild<QGraphicsView*>();
        QVERIFY(view);
        auto* hover = w.findChild<QLabel*>(QStringLiteral("spectrumHover"));
        QTest::mouseMove(view->viewport(), view->viewport()->rect().center());
        QTRY_VERIFY(hover->text().startsWith(QStringLiteral("x = ")));

        w.showTab(QStringLiteral("heads"));
        auto* heads = w.findChild<HeatmapWidget*>(QStringLiteral("headsHeatmap"));
        QVERIFY(heads->isVisible());
        // Scan for a cell: the text names the panel and the value.
        QString text;
        for (int y = 40; y < heads->height() && text.isEmpty(); y += 10)
            for (int x = 10; x < heads->width() / 3 && text.isEmpty(); x += 10) {
                QTest::mouseMove(heads, QPoint(x, y));
                text = heads->hoverText();
            }
        QVERIFY2(text.contains(QStringLiteral("teacher")) && text.contains(QStringLiteral("V1")),
                 qPrintable(text));
        QVERIFY(text.contains(QStringLiteral(" = ")));
    }

    void presetsHaveExpectedCertificates() {
        // The two associative-memory presets are the app's headline contrast.
        const auto& presets = builtinPresets();
        const ExperimentResult a = runExperiment(experimentFromJson(presets[0].experiment));
        const ExperimentResult b = runExperiment(experimentFromJson(presets[1].experiment));
        QVERIFY(a.certificate.certified);
        QVERIFY(!b.certificate.certified);
        QVERIFY(b.certificate.nullDim > 0);
    }

    void stopLongRunKeepsWindowUsable() {
        MainWindow w;
        w.show();
        w.loadPreset(0);
        auto* samples = w.findChild<QLineEdit*>(QStringLiteral("field_task.samples"));
        QVERIFY(samples);
        samples->setText(QStringLiteral("200000000"));
        auto* run = w.findChild<QPushButton*>(QStringLiteral("runButton"));
        auto* stop = w.findChild<QPushButton*>(QStringLiteral("stopButton"));
        QVERIFY(run->isEnabled());
        RunController* c = w.findChild<RunController*>(QStringLiteral("runController"));
        QSignalSpy progress(c, &RunController::progressed);
        QTest::mouseClick(run, Qt::LeftButton);
        QVERIFY(c->isBusy());
        QVERIFY(stop->isEnabled());
        QVERIFY(progress.wait(10000)); // the worker reports while the GUI thread stays free
        QElapsedTimer t;
        t.start();
        QTest::mouseClick(stop, Qt::LeftButton);
        // Usable at once: no run in flight, Stop disabled, Run enabled, the run marked stopped.
        QVERIFY(t.elapsed() < 500);
        QVERIFY(!c->isBusy());
        QVERIFY(!stop->isEnabled());
        QVERIFY(run->isEnabled());
        RunList* list = w.findChild<RunList*>(QStringLiteral("runList"));
        QCOMPARE(list->allRuns().first()->state, RunRecord::State::Cancelled);
        // And a new run goes through right away; nothing of the stopped run shows up later.
        samples->setText(QStringLiteral("2048"));
        QTest::mouseClick(run, Qt::LeftButton);
        QVERIFY(waitIdle(w, 30000));
        QCOMPARE(list->count(), 2);
        QVERIFY(!list->allRuns()[0]->result);
        QVERIFY(list->allRuns()[1]->result);
        QCOMPARE(list->allRuns()[0]->state, RunRecord::State::Cancelled);
    }

    // The GUI thread keeps turning while a heavy run computes: a 5 ms timer measures the gaps
    // between event-loop turns. If any part of the run (accumulation, solve, evaluation) ran on
    // the GUI thread, a gap would last as long as that phase (seconds here). The bound is loose
    // for noisy CI machines; the measured figures are printed for the record.
    void guiThreadStaysResponsiveDuringRun() {
        MainWindow w;
        w.show();
        w.loadPreset(2); // random MHLA
        w.findChild<QLineEdit*>(QStringLiteral("field_task.d"))->setText(QStringLiteral("8"));
        w.findChild<QLineEdit*>(QStringLiteral("field_task.samples"))
            ->setText(QStringLiteral("300000"));
        QVERIFY(w.startRuns());
        RunController* c = w.controller();
        QElapsedTimer clock;
        clock.start();
        std::vector<qint64> gaps;
        qint64 last = clock.elapsed();
        QTimer tick;
        tick.setInterval(5);
        QObject::connect(&tick, &QTimer::timeout, [&] {
            const qint64 now = clock.elapsed();
            gaps.push_back(now - last);
            last = now;
        });
        tick.start();
        while (c->isBusy() && clock.elapsed() < 60000) QTest::qWait(20);
        tick.stop();
        QVERIFY(!c->isBusy());
        QVERIFY(gaps.size() > 20);
        std::sort(gaps.begin(), gaps.end());
        const qint64 p99 = gaps[gaps.size() * 99 / 100], worst = gaps.back();
        qInfo(
            "event-loop gaps during a %lld ms run: median %lld ms, p99 %lld ms, max %lld ms (%zu ticks)",
            static_cast<long long>(clock.elapsed()), static_cast<long long>(gaps[gaps.size() / 2]),
            static_cast<long long>(p99), static_cast<long long>(worst), gaps.size());
        QVERIFY2(worst < 500,
                 qPrintable(QStringLiteral("the GUI thread stalled for %1 ms").arg(worst)));
    }

    // Seeds > 1 queues runs with consecutive seeds; the Curves tab draws them as the mean with a
    // min–max band at each epoch, equal to the runs' own histories.
    void seedRunsShowMeanAndBand() {
        MainWindow w;
        w.show();
        w.loadPreset(3);
        w.findChild<QCheckBox*>(QStringLiteral("sweepCheck"))->setChecked(false);
        w.findChild<QLineEdit*>(QStringLiteral("field_solver.heads"))->setText(QStringLiteral("2"));
        w.findChild<QLineEdit*>(QStringLiteral("field_solver.epochs"))
            ->setText(QStringLiteral("4"));
        w.findChild<QSpinBox*>(QStringLiteral("seedsSpin"))->setValue(3);
        QVERIFY(w.startRuns());
        QVERIFY(waitIdle(w));
        const QList<const RunRecord*> runs = w.runList()->allRuns();
        QCOMPARE(runs.size(), 3);
        for (int k = 0; k < 3; ++k) {
            QVERIFY(runs[k]->result);
            QCOMPARE(runs[k]->config.task.seed, 1LL + k);
            QVERIFY(runs[k]->name.endsWith(QStringLiteral("seed %1").arg(1 + k)));
        }
        auto* band = w.findChild<QCheckBox*>(QStringLiteral("seedBandCheck"));
        QVERIFY(band->isChecked());
        auto* loss = w.findChild<PlotWidget*>(QStringLiteral("lossPlot"));
        // The median and the min–max band over seeds (the sweep figures' "minmax" statistic).
        const PlotSeries* median = nullptr;
        const PlotSeries* range = nullptr;
        for (const auto& ser : loss->series()) {
            if (ser.name.endsWith(QStringLiteral("(3 seeds) median"))) median = &ser;
            if (ser.name.endsWith(QStringLiteral("(3 seeds) min–max"))) range = &ser;
        }
        QVERIFY(median && range);
        QCOMPARE(range->style, PlotSeries::Style::Band);
        const auto& h0 = runs[0]->result->history;
        QCOMPARE(median->points.size(), static_cast<qsizetype>(h0.size()));
        for (qsizetype i = 0; i < median->points.size(); ++i) {
            std::array<double, 3> v{};
            for (int k = 0; k < 3; ++k)
                v[static_cast<size_t>(k)] =
                    runs[k]->result->history[static_cast<size_t>(i)].trainMse;
            std::sort(v.begin(), v.end());
            const double lo = v[0], hi = v[2];
            QCOMPARE(median->points[i].y(), v[1]); // the middle of three seeds, exactly
            QCOMPARE(range->points[i].y(), hi);
            QCOMPARE(range->lower[i].y(), lo);
        }
        QVERIFY(range->points.first().y() > range->lower.first().y()); // seeds differ
        QVERIFY(!seriesNamed(loss, runs[0]->name));
        // Without bands every run has its own curve again.
        band->setChecked(false);
        for (const RunRecord* r : runs) QVERIFY(seriesNamed(loss, r->name));
        QVERIFY(loss->csv().contains(QStringLiteral("(upper)")) == false);
        band->setChecked(true);
        QVERIFY(loss->csv().contains(QStringLiteral("min–max (lower)")));
    }

    // Pause holds training between epochs, Step runs exactly one epoch, and the η × control
    // scales the learning rate of the running training without restarting it.
    void pauseStepAndLearningRateScale() {
        MainWindow w;
        w.show();
        w.loadPreset(3);
        w.findChild<QCheckBox*>(QStringLiteral("sweepCheck"))->setChecked(false);
        w.findChild<QLineEdit*>(QStringLiteral("field_solver.epochs"))
            ->setText(QStringLiteral("100000"));
        w.findChild<QLineEdit*>(QStringLiteral("field_solver.warmup"))
            ->setText(QStringLiteral("0"));
        auto* schedule = w.findChild<QComboBox*>(QStringLiteral("field_solver.schedule"));
        schedule->setCurrentIndex(schedule->findText(QStringLiteral("constant")));
        auto* pause = w.findChild<QPushButton*>(QStringLiteral("pauseButton"));
        auto* step = w.findChild<QPushButton*>(QStringLiteral("stepButton"));
        auto* scale = w.findChild<QDoubleSpinBox*>(QStringLiteral("lrScaleSpin"));
        QVERIFY(pause && step && scale);
        QVERIFY(!step->isEnabled());
        QVERIFY(w.startRuns());
        RunController* c = w.controller();
        const RunRecord* rec = w.runList()->allRuns().first();
        QSignalSpy progress(c, &RunController::progressed);
        QElapsedTimer t;
        t.start();
        while (rec->liveHistory.size() < 3 && t.elapsed() < 20000) progress.wait(100);
        QVERIFY(rec->liveHistory.size() >= 3);
        QTest::mouseClick(pause, Qt::LeftButton);
        QVERIFY(pause->isChecked() && step->isEnabled());
        QTest::qWait(400); // the epoch in flight finishes and its point arrives
        const size_t held = rec->liveHistory.size();
        QTest::qWait(400);
        QCOMPARE(rec->liveHistory.size(), held); // paused: nothing more
        QVERIFY(c->isBusy());
        scale->setValue(0.5);
        QTest::mouseClick(step, Qt::LeftButton);
        for (int i = 0; i < 50 && rec->liveHistory.size() == held; ++i) progress.wait(100);
        QTest::qWait(300);
        QCOMPARE(rec->liveHistory.size(), held + 1);      // exactly one epoch
        QCOMPARE(rec->liveHistory.back().lr, 0.5 * 0.05); // preset lr 0.05, constant schedule
        QTest::mouseClick(pause, Qt::LeftButton);         // resume
        for (int i = 0; i < 50 && rec->liveHistory.size() < held + 3; ++i) progress.wait(100);
        QVERIFY(rec->liveHistory.size() >= held + 3);
        w.stopRuns();
        QVERIFY(!c->isBusy());
    }

    // The spectra of the two associative-memory presets on one axis: every eigenvalue of each
    // run appears in its run's colour, the orthogonal-key run with its null space at the floor.
    // Text written to be typeset shows its subscripts as subscripts in plain-text places (plot
    // titles, legends, notes, the badge): "λₘᵢₙ", "σᵣ", never "λ_min" or "σ_r". Key names keep
    // their underscores.
    void certificateAndHeadsShowSubscriptsNotUnderscores() {
        MainWindow w;
        w.show();
        w.loadPreset(0);
        QVERIFY(w.startRuns());
        QVERIFY(waitIdle(w));
        const auto* trace = w.findChild<PlotWidget*>(QStringLiteral("lambda_tracePlot"));
        const auto* badge = w.findChild<QLabel*>(QStringLiteral("certificateBadge"));
        const auto* sv = w.findChild<PlotWidget*>(QStringLiteral("singular_valuesPlot"));
        QVERIFY(trace && badge);
        QStringList shown{trace->title(), trace->note(), badge->text()};
        for (const auto& e : trace->legendEntries()) shown << e.name;
        if (sv)
            for (const auto& e : sv->legendEntries()) shown << e.name;
        QVERIFY2(trace->title().startsWith(QStringLiteral("λₘᵢₙ(Λ)")), qPrintable(trace->title()));
        QVERIFY(badge->text().contains(QStringLiteral("λₘᵢₙ")));
        for (const QString& text : shown)
            QVERIFY2(!text.contains(QStringLiteral("λ_min")) &&
                         !text.contains(QStringLiteral("σ_r")),
                     qPrintable(text));
        QVERIFY(trace->legendEntries().size() >= 2);
    }

    void spectrumOverlayComparesRuns() {
        MainWindow w;
        w.show();
        for (int preset : {0, 1}) {
            w.loadPreset(preset);
            QVERIFY(w.startRuns());
            QVERIFY(waitIdle(w));
        }
        const QList<const RunRecord*> runs = w.runList()->allRuns();
        QCOMPARE(runs.size(), 2);
        auto* overlay = w.findChild<QCheckBox*>(QStringLiteral("spectrumOverlayCheck"));
        QVERIFY(overlay && !overlay->isChecked());
        overlay->setChecked(true);
        auto* spectrum = w.findChild<PlotWidget*>(QStringLiteral("spectrumPlot"));
        for (const RunRecord* r : runs) {
            const PlotSeries* pos = seriesNamed(spectrum, r->name);
            const PlotSeries* low =
                seriesNamed(spectrum, r->name + QStringLiteral(" ≤ 0 (at floor)"));
            QVERIFY(pos && low);
            QCOMPARE(pos->color, r->color);
            const Vec& ev = r->result->certificate.spectrum;
            QCOMPARE(pos->points.size() + low->points.size(), static_cast<qsizetype>(ev.size()));
            for (const QPointF& p : pos->points) QCOMPARE(p.y(), ev(static_cast<Index>(p.x()) - 1));
        }
        QCOMPARE(
            seriesNamed(spectrum, runs[0]->name + QStringLiteral(" ≤ 0 (at floor)"))->points.size(),
            0);
        QVERIFY(seriesNamed(spectrum, runs[1]->name + QStringLiteral(" ≤ 0 (at floor)"))
                    ->points.size() > 0);
        // The same not-certified run again: its triangles fall on the first one's spots at the
        // floor; they are smaller and drawn after it, so both show (nested).
        w.loadPreset(1);
        QVERIFY(w.startRuns());
        QVERIFY(waitIdle(w));
        const RunRecord* again = w.runList()->allRuns().last();
        const PlotSeries* first =
            seriesNamed(spectrum, runs[1]->name + QStringLiteral(" ≤ 0 (at floor)"));
        const PlotSeries* second =
            seriesNamed(spectrum, again->name + QStringLiteral(" ≤ 0 (at floor)"));
        QVERIFY(first && second);
        QCOMPARE(second->points, first->points);
        QVERIFY2(second->markerSize > 0 && second->markerSize < first->markerSize,
                 qPrintable(
                     QStringLiteral("%1 after %2").arg(second->markerSize).arg(first->markerSize)));
        // Switching the overlay off shows the current run only.
        overlay->setChecked(false);
        QVERIFY(!seriesNamed(spectrum, runs[0]->name) || !seriesNamed(spectrum, runs[1]->name));
    }

    void liveCurvesDuringTraining() {
        MainWindow w;
        w.show();
        w.loadPreset(3);
        w.findChild<QCheckBox*>(QStringLiteral("sweepCheck"))->setChecked(false);
        w.findChild<QLineEdit*>(QStringLiteral("field_solver.heads"))->setText(QStringLiteral("4"));
        w.findChild<QLineEdit*>(QStringLiteral("field_solver.epochs"))
            ->setText(QStringLiteral("100000"));
        w.showTab(QStringLiteral("curves")); // live redraws go to the visible tab only
        QVERIFY(w.startRuns());
        RunController* c = w.controller();
        auto* loss = w.findChild<PlotWidget*>(QStringLiteral("lossPlot"));
        QSignalSpy progress(c, &RunController::progressed);
        const RunRecord* rec = w.runList()->allRuns().first();
        QElapsedTimer t;
        t.start();
        qsizetype shown = 0;
        while (t.elapsed() < 20000 && shown < 3) {
            progress.wait(200);
            if (const PlotSeries* s = seriesNamed(loss, rec->name)) shown = s->points.size();
        }
        QVERIFY(c->isBusy()); // still training: the curve grows live
        QVERIFY(shown >= 3);
        // Drawn on a budget: the plot shows the points up to its last redraw (every point once
        // the tab is shown again: tst_gui_classroom).
        QVERIFY(seriesNamed(loss, rec->name)->points.size() <=
                static_cast<qsizetype>(rec->liveHistory.size()));
        // Progress arrives batched, at most ~30 signals per second.
        QVERIFY(progress.count() <= 2 + t.elapsed() * 40 / 1000);
        w.stopRuns();
        QVERIFY(!c->isBusy());
    }

    // Regression: after a trainer preset hid rows and a poly preset showed them again, marking a
    // field invalid made Qt 6.4.2's QFormLayout write out of bounds (valgrind); the window then
    // crashed when destroyed. The panel now lays its rows out in a QGridLayout.
    void switchingPresetsThenEditingIsSafe() {
        for (int round = 0; round < 3; ++round) {
            MainWindow w;
            w.show();
            w.loadPreset(3); // trainer without the exact comparison: the ridge row is hidden
            // (with compare_exact the exact solver reads solver.ridge, and core's key table
            // shows it; the panel's old copy hid it for every trainer)
            w.findChild<QCheckBox*>(QStringLiteral("field_solver.compare_exact"))
                ->setChecked(false);
            auto* field = w.findChild<QLineEdit*>(QStringLiteral("field_solver.ridge"));
            QVERIFY(field);
            QVERIFY(!field->isVisibleTo(&w));
            w.loadPreset(0); // poly: shown again
            QVERIFY(field->isVisibleTo(&w));
            auto* error = w.findChild<QLabel*>(QStringLiteral("error_solver.ridge"));
            field->setText(QStringLiteral("-1"));
            QVERIFY(!error->isHidden());
            field->setText(QStringLiteral("0"));
            QVERIFY(error->isHidden());
            QVERIFY(w.findChild<QPushButton*>(QStringLiteral("runButton"))->isEnabled());
        }
    }
    void invalidValuesDisableRun_data() {
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("text");
        QTest::newRow("zero samples") << QStringLiteral("task.samples") << QStringLiteral("0");
        QTest::newRow("not a number") << QStringLiteral("task.samples") << QStringLiteral("many");
        QTest::newRow("fractional integer")
            << QStringLiteral("task.pairs") << QStringLiteral("2.5");
        QTest::newRow("probability above 1")
            << QStringLiteral("task.orthogonal_prob") << QStringLiteral("1.5");
        QTest::newRow("negative ridge") << QStringLiteral("solver.ridge") << QStringLiteral("-1");
        QTest::newRow("infinite tolerance")
            << QStringLiteral("solver.tolerance") << QStringLiteral("inf");
        QTest::newRow("empty") << QStringLiteral("eval.val_samples") << QString();
    }
    void invalidValuesDisableRun() {
        QFETCH(QString, key);
        QFETCH(QString, text);
        MainWindow w;
        w.show();
        w.loadPreset(0);
        auto* run = w.findChild<QPushButton*>(QStringLiteral("runButton"));
        auto* field = w.findChild<QLineEdit*>(QStringLiteral("field_") + key);
        auto* error = w.findChild<QLabel*>(QStringLiteral("error_") + key);
        QVERIFY(run && field && error);
        QVERIFY(run->isEnabled());
        const QString good = field->text();
        field->setText(text);
        QVERIFY(!run->isEnabled());
        QVERIFY(!error->isHidden());
        // Messages name the field by its label, not the internal key (issue 9).
        QVERIFY2(error->text().startsWith(findExperimentKey(key)->label + u':'),
                 qPrintable(error->text()));
        auto* panel = w.findChild<ExperimentPanel*>(QStringLiteral("experimentPanel"));
        QVERIFY(panel->fieldErrors().contains(key));
        QVERIFY(!w.startRuns()); // also refused through the menu / shortcut path
        field->setText(good);
        QVERIFY(run->isEnabled());
        QVERIFY(error->isHidden());
    }

    void twoInvalidFieldsAreBothMarked() {
        MainWindow w;
        w.loadPreset(0);
        auto* panel = w.findChild<ExperimentPanel*>(QStringLiteral("experimentPanel"));
        w.findChild<QLineEdit*>(QStringLiteral("field_task.samples"))
            ->setText(QStringLiteral("-3"));
        w.findChild<QLineEdit*>(QStringLiteral("field_eval.ood_samples"))
            ->setText(QStringLiteral("x"));
        QVERIFY(!panel->isValid());
        QVERIFY(panel->fieldErrors().contains(QStringLiteral("task.samples")));
        QVERIFY(panel->fieldErrors().contains(QStringLiteral("eval.ood_samples")));
    }

    void savedExperimentReproducesRun() {
        const QString path = m_dir.filePath(QStringLiteral("saved.json"));
        ExperimentResult first;
        {
            MainWindow w;
            w.loadPreset(2);
            w.findChild<QLineEdit*>(QStringLiteral("field_task.seed"))
                ->setText(QStringLiteral("7"));
            w.findChild<QLineEdit*>(QStringLiteral("field_task.samples"))
                ->setText(QStringLiteral("2000"));
            QCOMPARE(w.saveExperiment(path), QString());
            QVERIFY(w.startRuns());
            QVERIFY(waitIdle(w));
            first = *w.runList()->allRuns().first()->result;
        }
        // The file is the CLI's format.
        const ExperimentConfig fromFile = experimentFromFile(path);
        QCOMPARE(fromFile.task.seed, 7LL);
        QCOMPARE(fromFile.task.samples, 2000LL);
        MainWindow w2;
        QCOMPARE(w2.openExperiment(path), QString());
        QCOMPARE(experimentToJson(w2.experimentPanel()->config()), experimentToJson(fromFile));
        QVERIFY(w2.startRuns());
        QVERIFY(waitIdle(w2));
        const ExperimentResult& second = *w2.runList()->allRuns().first()->result;
        QVERIFY(sameMatrix(second.P, first.P, 0.0));
        QCOMPARE(second.certificate.lambdaMin, first.certificate.lambdaMin);
        QCOMPARE(second.metrics.oodRelMse, first.metrics.oodRelMse);
    }

    void invalidFileIsReportedNotRun() {
        const QString path = m_dir.filePath(QStringLiteral("bad.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"task": {"kind": "associative_memory", "samples": -5}})");
        f.close();
        MainWindow w;
        const QString err = w.openExperiment(path);
        QVERIFY2(err.contains(QStringLiteral("task.samples")), qPrintable(err));
        QVERIFY(!w.experimentPanel()->isValid());
        QVERIFY(!w.findChild<QPushButton*>(QStringLiteral("runButton"))->isEnabled());
    }

    void resetGivesTheSameRun() {
        MainWindow w;
        w.show(); // a click on a hidden button does nothing
        w.loadPreset(1);
        QVERIFY(w.startRuns());
        QVERIFY(waitIdle(w));
        const ExperimentResult a = *w.runList()->allRuns().first()->result;
        {
            DialogAnswerer yes(QMessageBox::Yes); // it deletes a run: it asks (issue 23)
            QTest::mouseClick(w.findChild<QPushButton*>(QStringLiteral("resetButton")),
                              Qt::LeftButton);
            QVERIFY(!yes.asked().isNull());
        }
        QVERIFY(waitIdle(w));
        QCOMPARE(w.runList()->count(), 1);
        QCOMPARE(w.runList()->allRuns().first()->id, 2); // cleared and run again
        const ExperimentResult& b = *w.runList()->allRuns().first()->result;
        QVERIFY(sameMatrix(b.P, a.P, 0.0));
        QCOMPARE(b.certificate.nullDim, a.certificate.nullDim);
    }

    void runListHidesAndRemovesRuns() {
        MainWindow w;
        w.loadPreset(3); // four SGD runs overlaid
        QVERIFY(w.startRuns());
        QVERIFY(waitIdle(w));
        RunList* list = w.runList();
        QCOMPARE(list->count(), 4);
        auto* loss = w.findChild<PlotWidget*>(QStringLiteral("lossPlot"));
        const RunRecord* r0 = list->allRuns().first();
        const QString name = r0->name;
        QVERIFY(seriesNamed(loss, name));
        // Distinct colours per run.
        QSet<QRgb> colours;
        for (const RunRecord* r : list->allRuns()) colours.insert(r->color.rgb());
        QCOMPARE(colours.size(), 4);
        list->remove(r0->id);
        QCOMPARE(list->count(), 3);
        QVERIFY(!seriesNamed(loss, name));
    }
};

QTEST_MAIN(TstGuiMainWindow)
#include "tst_gui_mainwindow.moc"
