#include "ui/shell/mainwindow.h"
#include "core/algebra/features.h"
#include "core/base/stopwatch.h"
#include "core/experiment/config.h"
#include "core/records/resultread.h"
#include "ui/experiment/datastatistics.h"
#include "ui/experiment/experimentpanel.h"
#include "ui/experiment/presets.h"
#include "ui/experiment/session.h"
#include "ui/panels/automatonpanel.h"
#include "ui/panels/certificatepanel.h"
#include "ui/panels/curvespanel.h"
#include "ui/panels/explanations.h"
#include "ui/panels/headspanel.h"
#include "ui/panels/sweeppanel.h"
#include "ui/plot/elidedlabel.h"
#include "ui/plot/plotwidget.h"
#include "ui/plot/theme.h"
#include "ui/run/runcontroller.h"
#include "ui/run/runlist.h"
#include "ui/shell/exportdialog.h"
#include <QApplication>
#include <QCloseEvent>
#include <QDateTime>
#include <QDesktopServices>
#include <QDockWidget>
#include <QFileInfo>
#include <QFrame>
#include <QLabel>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QScreen>
#include <QSignalBlocker>
#include <QStatusBar>
#include <QStyle>
#include <QStyleFactory>
#include <QTabWidget>
#include <QTextBrowser>
#include <QUrl>
#include <algorithm>
#include <optional>

namespace mhla::ui {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
    setObjectName(QStringLiteral("mainWindow"));
    initResources();
    setWindowIcon(QIcon(QStringLiteral(":/icons/mhla-lab.svg")));
    m_controller = new RunController(this);
    m_controller->setObjectName(QStringLiteral("runController"));
    m_dataStats = new DataStatistics(this);
    connect(m_dataStats, &DataStatistics::ready, this, [this](const QString& html) {
        if (!m_dataNote.isEmpty()) m_explanation->setHtml(m_dataNote + html);
    });
    buildLayout();
    buildActions();

    connectController();
    connectPanel();
    connectResultPanels();
    restoreWindowGeometry();
    restoreState(m_settings.windowState());
    setAcceptDrops(true); // an experiment file or results folder dropped on the window opens
    applyTheme(m_settings.theme());
    const int preset = m_settings.lastPreset();
    loadPreset(preset >= 0 && preset < builtinPresets().size() ? preset : 0);
    updateRecentMenu();
    updateRunState();
    setCurrentFile({});

    setUpAutosave();
}

void MainWindow::connectController() {
    connect(m_controller, &RunController::started, this, [this](int id) {
        if (RunRecord* r = m_runs->find(id)) {
            r->state = RunRecord::State::Running;
            r->startedMs = QDateTime::currentMSecsSinceEpoch();
            m_runs->refresh(id);
            m_pacedSelect = true; // its views are drawn at the batch's pace (redrawPaced)
            m_runs->select(id);
            m_pacedSelect = false;
        }
        updateRunState();
        syncPaused();
    });
    connect(m_controller, &RunController::progressed, this, &MainWindow::onProgress);
    m_liveTimer.setSingleShot(true);
    connect(&m_liveTimer, &QTimer::timeout, this, &MainWindow::flushLive);
    connect(m_tabs, &QTabWidget::currentChanged, this, &MainWindow::onTabShown);
    m_finishRedrawTimer.setSingleShot(true);
    connect(&m_finishRedrawTimer, &QTimer::timeout, this, [this] {
        m_lastFinishRedraw.start();
        refreshCurrent();
    });
    connect(m_controller, &RunController::finished, this, &MainWindow::onFinished);
    connect(m_controller, &RunController::failed, this, &MainWindow::onFailed);
    connect(m_controller, &RunController::cancelled, this, &MainWindow::onCancelled);
    connect(m_controller, &RunController::idle, this, &MainWindow::updateRunState);
    connect(m_runs, &RunList::runsChanged, this, &MainWindow::refreshOverlay);
    connect(m_runs, &RunList::currentChanged, this, [this] {
        if (m_pacedSelect) redrawPaced();
        else refreshCurrent();
    });
    connect(m_runs, &RunList::renameRefused, this,
            [this](const QString& why) { statusBar()->showMessage(why, 8000); });
}

void MainWindow::connectPanel() {
    connect(m_panel, &ExperimentPanel::runRequested, this, &MainWindow::startRuns);
    connect(m_panel, &ExperimentPanel::stopRequested, this, &MainWindow::stopRuns);
    connect(m_panel, &ExperimentPanel::resetRequested, this, &MainWindow::resetInteractive);
    connect(m_panel, &ExperimentPanel::pauseToggled, this, [this](bool on) {
        m_controller->setPaused(on);
        syncPaused();
        statusBar()->showMessage(
            on ? tr("Training paused between epochs — Step runs one epoch, Resume continues")
               : tr("Training resumed"),
            4000);
    });
    connect(m_panel, &ExperimentPanel::stepRequested, m_controller, &RunController::stepEpoch);
    connect(m_controller, &RunController::controlsReset, m_panel,
            &ExperimentPanel::resetLiveControls);
    connect(m_controller, &RunController::controlsReset, this, &MainWindow::syncPaused);
    connect(m_panel, &ExperimentPanel::learningRateScaleChanged, m_controller,
            &RunController::setLearningRateScale);
    connect(m_panel, &ExperimentPanel::validityChanged, this, &MainWindow::updateRunState);
    connect(m_panel, &ExperimentPanel::edited, this, [this] {
        setWindowModified(true);
        updateCannotRun();
    });
    connect(m_panel, &ExperimentPanel::presetLoaded, this, [this](int i) {
        const auto& presets = builtinPresets();
        setExplanation(QStringLiteral("<h3>%1</h3>%2")
                           .arg(presets[i].title.toHtmlEscaped(), presets[i].explanation));
        m_settings.setLastPreset(i);
        // The tab where the preset makes its point, as the tour shows it.
        if (!presets[i].tab.isEmpty()) showTab(presets[i].tab);
        if (auto* sweep = panelOf<SweepPanel>()) sweep->setFileFigures({}, {}); // the file's
        setCurrentFile({});
        updateCannotRun();
    });
}

void MainWindow::connectResultPanels() {
    for (ResultPanel* panel : m_resultPanels) {
        panel->setExportHandler([this](const Figure* f) { exportFigureInteractive(f); });
        panel->setRefreshHandler([this] { refreshCurrent(); });
        // A click on a run's legend entry hides the run in every plot, as its tick in the run
        // list does; other entries (exact references, seed means, τ) hide in that plot only.
        for (PlotWidget* plot : panel->widget()->findChildren<PlotWidget*>())
            plot->setLegendClickHandler([this](QString entry) { // a copy: the legend is redrawn
                const RunRecord* r = m_runs->findByName(entry);
                if (!r || !r->visible) return false;
                m_runs->setRunVisible(r->id, false);
                statusBar()->showMessage(
                    tr("%1 is hidden in every plot; tick it in the run list to show it again")
                        .arg(entry),
                    6000);
                return true;
            });
    }
}

void MainWindow::restoreWindowGeometry() {
    // A sensible first size that fits the screen; the saved geometry wins afterwards.
    QSize size(1500, 940);
    if (const QScreen* screen = QGuiApplication::primaryScreen())
        size = size.boundedTo(screen->availableSize() * 0.92);
    resize(size);
    restoreGeometry(m_settings.windowGeometry());
    // restoreGeometry() keeps a title bar's height (the style's PM_TitleBarHeight, 20 px) free
    // above a window whose top is within that of the screen's top. Without a window manager's
    // frame (none, a tiling one, an undecorated kiosk) a window closed at the top reopened
    // 20 px lower. The client rectangle saved beside the geometry puts it back where it was,
    // when restoreGeometry() kept its size and it still lies on a screen.
    if (const QRect was = m_settings.windowRect();
        was.isValid() && !isMaximized() && !isFullScreen() && was.size() == geometry().size() &&
        was.topLeft() != geometry().topLeft())
        if (const QScreen* s = QGuiApplication::screenAt(was.center());
            s && s->availableGeometry().contains(was.topLeft()))
            setGeometry(was);
}

void MainWindow::setUpAutosave() {
    m_autosaveTimer.setSingleShot(true);
    m_autosaveTimer.setInterval(kAutosaveDelayMs);
    connect(&m_autosaveTimer, &QTimer::timeout, this, &MainWindow::startAutosave);
    connect(this, &MainWindow::autosaved, this,
            [this](const QString& err) { m_autosaveError = err; });
    // Removing, renaming or hiding runs changes what a restore would bring back.
    connect(m_runs, &RunList::runsChanged, this, [this] {
        if (m_autosaveArmed) scheduleAutosave();
    });
    const QString autosave = AppSettings::autosaveFolder();
    if (const std::optional<int> n = sessionRunCount(autosave); n && *n > 0) {
        m_offerDir = autosave;
        m_offerCount = *n;
        m_restoreText->setText(autosaveOffer());
        m_restoreBar->setVisible(true);
    }
}

MainWindow::~MainWindow() = default;

QString MainWindow::presentationHint() { return tr("Presentation mode: F5 leaves it"); }

void MainWindow::setPresentationMode(bool on) {
    if (on == m_presenting) return;
    m_presenting = on;
    if (m_presentAction->isChecked() != on) m_presentAction->setChecked(on);
    if (on) {
        m_presentDocks = saveState();
        m_presentWindowState = windowState();
        m_presentHadFont = testAttribute(Qt::WA_SetFont);
        m_presentFont = font();
        for (auto* dock : findChildren<QDockWidget*>()) dock->hide();
        m_restoreBar->hide(); // the offer of the last session's runs waits until F5
        QFont big = font();
        big.setPointSizeF(big.pointSizeF() * kPresentationScale);
        // Menus, dialogs and tooltips are windows of their own and take the application's
        // font, not this window's: they grow too.
        m_presentAppFont = QApplication::font();
        QFont bigApp = m_presentAppFont;
        bigApp.setPointSizeF(bigApp.pointSizeF() * kPresentationScale);
        QApplication::setFont(bigApp);
        setFont(big);
        showFullScreen();
        // In the phase label, not a temporary message: a message shown while the window goes
        // full screen was drawn over the label's text instead of hiding it.
        m_presentPhase = m_phase->text();
        m_phase->setText(presentationHint());
    } else {
        QApplication::setFont(m_presentAppFont);
        setFont(m_presentHadFont ? m_presentFont : QFont());
        setWindowState(m_presentWindowState);
        restoreState(m_presentDocks);
        m_restoreBar->setVisible(!m_offerDir.isEmpty()); // still unanswered
        if (m_phase->text() == presentationHint()) m_phase->setText(m_presentPhase);
    }
    for (auto* plot : findChildren<PlotWidget*>())
        plot->setScreenScale(on ? kPresentationScale : 1.0);
}

void MainWindow::applyTheme(ThemeChoice t) {
    static const QPalette systemPalette = QApplication::palette();
    if (t == ThemeChoice::System) {
        QApplication::setPalette(systemPalette);
        return;
    }
    QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    if (t == ThemeChoice::Light) {
        QApplication::setPalette(QApplication::style()->standardPalette());
        return;
    }
    QApplication::setPalette(darkPalette());
}

void MainWindow::loadPreset(int index) { m_panel->loadPreset(index); }

bool MainWindow::startRuns() {
    if (!m_panel->isValid()) {
        const auto errs = m_panel->fieldErrors();
        statusBar()->showMessage(cannotRunText(), 8000);
        m_phase->setText(cannotRunText());
        m_saysCannotRun = true;
        if (!errs.isEmpty())
            if (auto* field =
                    m_panel->findChild<QWidget*>(QStringLiteral("field_") + errs.firstKey()))
                field->setFocus();
        return false;
    }
    const auto planned = m_panel->jobs();
    if (planned.isEmpty()) { // e.g. the seeds box runs a seed past 2^53: core's message says so
        const QString why = tr("Cannot run: %1").arg(m_panel->planProblem());
        statusBar()->showMessage(why, 8000);
        m_phase->setText(why);
        m_saysCannotRun = true;
        return false;
    }
    m_saysCannotRun = false;
    QList<RunController::Job> jobs;
    const int batch = m_runs->newBatch();
    {
        // One redraw for the queued runs, not one per run (see addSessionRuns).
        const QSignalBlocker queued(m_runs);
        for (const auto& nc : planned) {
            RunRecord& r = m_runs->add(nc.name, nc.config);
            r.batch = batch;
            jobs << RunController::Job{r.id, nc.config};
            m_lastStarted = r.id;
        }
    }
    Q_EMIT m_runs->runsChanged();
    m_controller->enqueue(jobs);
    updateRunState();
    return true;
}

void MainWindow::stopRuns() {
    m_controller->stop();
    for (const RunRecord* r : m_runs->allRuns())
        if (r->state == RunRecord::State::Queued || r->state == RunRecord::State::Running) {
            RunRecord* rr = m_runs->find(r->id);
            rr->state = RunRecord::State::Cancelled;
            m_runs->refresh(r->id);
        }
    m_phase->setText(tr("Stopped"));
    m_progress->setValue(0);
    updateRunState();
    refreshCurrent();
}

void MainWindow::resetRuns() {
    stopRuns();
    m_runs->clear();
    startRuns();
}

QString MainWindow::resetQuestion() const {
    if (m_runs->count() == 0) return {};
    const QString which = m_runs->count() == 1
                              ? tr("the 1 run and its results")
                              : tr("all %n runs and their results", nullptr, m_runs->count());
    return tr("Clear and rerun deletes %1 (export them first with Export all, or save a "
              "session). Delete them and run again?")
        .arg(which);
}

QString MainWindow::discardEditsQuestion() const {
    if (!isWindowModified()) return {};
    return tr("The experiment in the form has unsaved changes. Discard them?");
}

bool MainWindow::confirm(const QString& title, const QString& question) {
    return question.isEmpty() ||
           QMessageBox::question(this, title, question, QMessageBox::Yes | QMessageBox::Cancel,
                                 QMessageBox::Cancel) == QMessageBox::Yes;
}

void MainWindow::resetInteractive() {
    if (confirm(tr("Clear and rerun?"), resetQuestion())) resetRuns();
}

bool MainWindow::opensIntoForm(const QString& path) {
    const QFileInfo fi(path);
    return !(fi.isDir() && (isSessionFolder(path) || isResultFolder(path)));
}

QString MainWindow::cannotRunText() const {
    if (m_panel->isValid()) return {};
    const auto errs = m_panel->fieldErrors();
    return tr("Cannot run: %1").arg(errs.isEmpty() ? m_panel->generalError() : errs.first());
}

void MainWindow::updateCannotRun() {
    if (!m_saysCannotRun) return;
    const QString now = cannotRunText();
    if (now.isEmpty()) {
        m_saysCannotRun = false;
        m_phase->setText(tr("Ready"));
        statusBar()->clearMessage();
        return;
    }
    m_phase->setText(now);
}

void MainWindow::syncPaused() {
    const int current = m_controller->currentRun();
    for (const RunRecord* r : m_runs->allRuns()) {
        const bool paused =
            r->state == RunRecord::State::Running && r->id == current && m_controller->isPaused();
        if (paused == r->paused) continue;
        m_runs->find(r->id)->setPaused(paused, QDateTime::currentMSecsSinceEpoch());
        m_runs->refresh(r->id);
        m_phase->setText(phaseLine(*r));
    }
}

QString MainWindow::phaseLine(const RunRecord& r) const {
    // A paused run's state says "paused at 69%" itself; its phase would say "paused" again.
    if (r.paused || r.phase == QStringLiteral("paused"))
        return tr("%1: %2").arg(r.name, r.stateText());
    return tr("%1: %2, %3").arg(r.name, r.phase, r.stateText());
}

void MainWindow::onProgress(int runId, const RunProgress& p) {
    // Store at once (cheap), draw later: progress arrives up to ~30 times a second, and
    // redrawing at that rate on a loaded machine left no time for Esc or a click.
    RunRecord* r = m_runs->find(runId);
    if (!r) return;
    r->phase = p.phase;
    r->fraction = p.fraction;
    r->liveHistory.insert(r->liveHistory.end(), p.newPoints.begin(), p.newPoints.end());
    r->liveTrace.insert(r->liveTrace.end(), p.newTrace.begin(), p.newTrace.end());
    if (!p.newPoints.empty() || !p.newTrace.empty())
        for (ResultPanel* panel : m_resultPanels) m_liveStale.insert(panel);
    m_liveRun = runId;
    scheduleLive();
}

void MainWindow::scheduleLive() {
    if (m_liveTimer.isActive()) return;
    if (!m_liveClock.isValid()) m_liveClock.start();
    m_liveTimer.start(static_cast<int>(std::max<qint64>(0, m_liveNextMs - m_liveClock.elapsed())));
}

void MainWindow::dropLive() {
    m_liveTimer.stop();
    m_liveRun = 0;
    m_liveStale.clear();
    m_liveCpuMark = -1;
}

void MainWindow::flushLive() {
    RunRecord* r = m_runs->find(m_liveRun);
    if (!r || r->state != RunRecord::State::Running) return dropLive();
    // What the last cycle cost the GUI thread: its CPU time since the last redraw began.
    const double cpuNow = threadCpuSeconds();
    const double lastCycleCpuMs =
        m_liveCpuMark >= 0 && cpuNow >= 0 ? 1000.0 * (cpuNow - m_liveCpuMark) : 0.0;
    m_liveCpuMark = cpuNow;
    QElapsedTimer cost;
    cost.start();
    m_runs->refresh(r->id);
    const int queued = m_controller->queued();
    // The same progress as the run list (one model: core's whole-run fraction, elapsed, ETA).
    m_phase->setText(queued > 0 ? tr("%1 (%2 more queued)").arg(phaseLine(*r)).arg(queued)
                                : phaseLine(*r));
    m_progress->setValue(static_cast<int>(r->fraction * 1000));
    int plots = 0;
    for (ResultPanel* panel : m_resultPanels) {
        if (!m_liveStale.contains(panel) || !panel->widget()->isVisible()) continue;
        m_liveStale.remove(panel);
        panel->liveUpdate(r, m_runs->visibleRuns(), m_runs->current() == r);
        for (const PlotWidget* plot : panel->widget()->findChildren<PlotWidget*>())
            if (plot->isVisible()) ++plots;
    }
    m_liveRedraws += plots;
    // The budget: kLiveRedrawsPerSecond plot redraws a second in all, and GUI-thread CPU at most
    // kLiveRedrawShare of the wall time, judged by what the last cycle cost (the drawing itself
    // follows in the paint events this schedules), and for the first cycle, or one that costs
    // more than the last, by this update's wall time counted twice for its paint.
    const double spent = std::max(lastCycleCpuMs, 2.0 * static_cast<double>(cost.elapsed()));
    const qint64 wait = std::max<qint64>(1000 / kLiveRedrawsPerSecond * std::max(plots, 1),
                                         static_cast<qint64>(spent / kLiveRedrawShare));
    m_liveNextMs = m_liveClock.elapsed() + wait;
}

void MainWindow::onTabShown(int index) {
    if (index < 0 || index >= m_resultPanels.size()) return;
    ResultPanel* panel = m_resultPanels[index];
    if (!m_liveStale.contains(panel)) return;
    RunRecord* r = m_runs->find(m_liveRun);
    if (!r || r->state != RunRecord::State::Running) return;
    // Drawn at once: the tab shows every point so far; the budget then counts it.
    m_liveStale.remove(panel);
    panel->liveUpdate(r, m_runs->visibleRuns(), m_runs->current() == r);
}

void MainWindow::onFinished(int runId, const ExperimentResult& result) {
    if (runId == m_liveRun) dropLive(); // everything is drawn from the result below
    RunRecord* r = m_runs->find(runId);
    if (!r) return;
    r->result = result;
    r->state = RunRecord::State::Finished;
    r->fraction = 1;
    r->endedMs = QDateTime::currentMSecsSinceEpoch();
    m_runs->refresh(runId);
    m_phase->setText(tr("%1 finished: %2").arg(r->name, r->stateText()));
    m_progress->setValue(1000);
    redrawPaced();
    m_autosaveArmed = true;
    scheduleAutosave();
}

void MainWindow::redrawPaced() {
    // Every panel draws every visible run: a batch of quick runs (a sweep of 105 runs of 50 ms)
    // redrew them all when each run was queued, when it started and twice when it ended, so the
    // drawing grew with the run count and took longer than the runs. While more runs are queued
    // a run's start and end are drawn at most once per gap; the last run of a batch (and a lone
    // run) at once.
    if (m_controller->queued() > 0 && m_lastFinishRedraw.isValid() &&
        m_lastFinishRedraw.elapsed() < kFinishRedrawGapMs) {
        if (!m_finishRedrawTimer.isActive())
            m_finishRedrawTimer.start(
                static_cast<int>(kFinishRedrawGapMs - m_lastFinishRedraw.elapsed()));
        return;
    }
    m_finishRedrawTimer.stop();
    m_lastFinishRedraw.start();
    refreshCurrent(); // the current run's views, then every visible run's (refreshOverlay)
}

void MainWindow::onFailed(int runId, const QString& message) {
    if (runId == m_liveRun) dropLive();
    if (RunRecord* r = m_runs->find(runId)) {
        r->state = RunRecord::State::Failed;
        r->message = message;
        m_runs->refresh(runId);
        m_phase->setText(tr("%1 failed: %2").arg(r->name, message));
    }
    refreshCurrent();
}

void MainWindow::onCancelled(int runId) {
    if (runId == m_liveRun) dropLive();
    if (RunRecord* r = m_runs->find(runId)) {
        r->state = RunRecord::State::Cancelled;
        m_runs->refresh(runId);
    }
}

void MainWindow::refreshOverlay() {
    ++m_overlayRefreshes;
    const QList<const RunRecord*> visible = m_runs->visibleRuns();
    for (ResultPanel* panel : m_resultPanels) panel->showRuns(visible);
}

void MainWindow::refreshCurrent() {
    const RunRecord* r = m_runs->current();
    for (ResultPanel* panel : m_resultPanels) panel->showRun(r);
    refreshOverlay();
}

void MainWindow::updateRunState() {
    const bool busy = m_controller->isBusy();
    const RunRecord* running = m_runs->find(m_controller->currentRun());
    // Pause, Step and η × act between epochs: the exact solver has none.
    m_panel->setRunning(busy, running && running->config.solver.kind != SolverKind::Poly);
    // An empty plot while a run goes is waiting for it, not asking for one.
    const QString waiting =
        running ? tr("No points yet: %1 is running (Esc stops it).").arg(running->name) : QString();
    for (PlotWidget* plot : m_tabs->findChildren<PlotWidget*>()) plot->setEmptyNote(waiting);
    m_runAction->setEnabled(
        true); // Ctrl+R on invalid fields says why (startRuns) instead of doing nothing
    m_stopAction->setEnabled(busy);
    m_resetAction->setEnabled(m_panel->isValid());
    if (!busy && m_progress->value() != 1000) m_progress->setValue(0);
    // Only while something runs: an empty bar at launch says nothing.
    m_progress->setVisible(busy);
}

int MainWindow::addFinishedRun(const QString& name, const ExperimentResult& result,
                               const QString& loadedFrom) {
    RunRecord& r = m_runs->add(name, result.config);
    r.result = result;
    r.state = RunRecord::State::Finished;
    r.loadedFrom = loadedFrom;
    m_runs->refresh(r.id);
    m_runs->select(r.id);
    refreshCurrent();
    return r.id;
}

void MainWindow::setExplanation(const QString& html) {
    m_dataStats->cancel();
    m_dataNote.clear();
    m_explanation->setHtml(html);
}

void MainWindow::showTab(const QString& name) {
    for (int i = 0; i < m_resultPanels.size(); ++i)
        if (m_resultPanels[i]->panelId() == name) m_tabs->setCurrentIndex(i);
}

QString MainWindow::closeQuestion() const {
    // The runs are autosaved and offered back at the next start; they are at risk only when the
    // last autosave failed. The experiment's edits are not autosaved.
    const int runs = m_runs->count();
    const bool runsAtRisk = runs > 0 && !m_autosaveError.isEmpty();
    const QString kept = runs > 0 && !runsAtRisk
                             ? tr(" The finished runs are kept: MHLA Lab offers them back when it "
                                  "starts again.")
                             : QString();
    if (m_controller->isBusy()) return tr("A run is still going. Stop it and quit?") + kept;
    const QString lost = (runs == 1 ? tr("1 run could not be autosaved (%1)")
                                    : tr("%n runs could not be autosaved (%1)", nullptr, runs))
                             .arg(m_autosaveError);
    if (isWindowModified() && runsAtRisk)
        return tr("The experiment has unsaved changes, and %1: both will be lost. Quit anyway?")
            .arg(lost);
    if (isWindowModified())
        return tr("The experiment has unsaved changes, which will be lost. Quit anyway?") + kept;
    if (runsAtRisk)
        return tr("%1 and will be lost (export them first with Export all). Quit anyway?")
            .arg(lost);
    return {};
}

void MainWindow::closeEvent(QCloseEvent* e) {
    // The runs of the last few seconds are written first, so the question knows whether they
    // are kept.
    if (m_autosaveArmed && (m_autosaveDue || m_autosaveBusy)) autosaveNow();
    if (const QString q = closeQuestion();
        !q.isEmpty() && !m_quitWithoutAsking &&
        QMessageBox::question(this, tr("Quit MHLA Lab?"), q, QMessageBox::Yes | QMessageBox::Cancel,
                              QMessageBox::Cancel) != QMessageBox::Yes) {
        e->ignore();
        return;
    }
    m_controller->stop();
    if (m_autosaveDue || m_autosaveBusy) autosaveNow(); // what the stopped run left too
    // Quitting in presentation mode keeps the docks and window as they were before it.
    if (m_presenting) setPresentationMode(false);
    m_settings.setWindowGeometry(saveGeometry());
    m_settings.setWindowRect(isMaximized() || isFullScreen() ? normalGeometry() : geometry());
    m_settings.setWindowState(saveState());
    QMainWindow::closeEvent(e);
}

} // namespace mhla::ui
