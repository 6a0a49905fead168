#include "ui/mainwindow.h"
#include "ui/automatonpanel.h"
#include "ui/certificatepanel.h"
#include "ui/curvespanel.h"
#include "ui/experimentpanel.h"
#include "ui/explanations.h"
#include "ui/exportdialog.h"
#include "ui/exporter.h"
#include "ui/headspanel.h"
#include "ui/heatmapwidget.h"
#include "ui/plotwidget.h"
#include "ui/presets.h"
#include "ui/runcontroller.h"
#include "ui/runlist.h"
#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QJsonDocument>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QSaveFile>
#include <QScreen>
#include <QStatusBar>
#include <QStyle>
#include <QStyleFactory>
#include <QTabWidget>
#include <QTextBrowser>
#include <QToolBar>

namespace mhla::ui {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
    setObjectName(QStringLiteral("mainWindow"));
    initResources();
    setWindowIcon(QIcon(QStringLiteral(":/icons/mhla-lab.svg")));
    m_controller = new RunController(this);
    m_controller->setObjectName(QStringLiteral("runController"));
    buildLayout();
    buildActions();

    connect(m_controller, &RunController::started, this, [this](int id) {
        if (RunRecord* r = m_runs->find(id)) {
            r->state = RunRecord::State::Running;
            m_runs->refresh(id);
            m_runs->select(id);
        }
        updateRunState();
    });
    connect(m_controller, &RunController::progressed, this, &MainWindow::onProgress);
    connect(m_controller, &RunController::finished, this, &MainWindow::onFinished);
    connect(m_controller, &RunController::failed, this, &MainWindow::onFailed);
    connect(m_controller, &RunController::cancelled, this, &MainWindow::onCancelled);
    connect(m_controller, &RunController::idle, this, &MainWindow::updateRunState);
    connect(m_runs, &RunList::runsChanged, this, &MainWindow::refreshOverlay);
    connect(m_runs, &RunList::currentChanged, this, &MainWindow::refreshCurrent);
    connect(m_panel, &ExperimentPanel::runRequested, this, &MainWindow::startRuns);
    connect(m_panel, &ExperimentPanel::stopRequested, this, &MainWindow::stopRuns);
    connect(m_panel, &ExperimentPanel::resetRequested, this, &MainWindow::resetRuns);
    connect(m_panel, &ExperimentPanel::pauseToggled, this, [this](bool on) {
        m_controller->setPaused(on);
        statusBar()->showMessage(on ? tr("Training paused between epochs — Step runs one epoch, Pause again resumes")
                                    : tr("Training resumed"), 4000);
    });
    connect(m_panel, &ExperimentPanel::stepRequested, m_controller, &RunController::stepEpoch);
    connect(m_panel, &ExperimentPanel::learningRateScaleChanged, m_controller, &RunController::setLearningRateScale);
    connect(m_panel, &ExperimentPanel::validityChanged, this, &MainWindow::updateRunState);
    connect(m_panel, &ExperimentPanel::edited, this, [this] { setWindowModified(true); });
    connect(m_panel, &ExperimentPanel::presetLoaded, this, [this](int i) {
        const auto& presets = builtinPresets();
        m_explanation->setHtml(QStringLiteral("<h3>%1</h3>%2").arg(presets[i].title.toHtmlEscaped(), presets[i].explanation));
        m_settings.setLastPreset(i);
        setCurrentFile({});
    });
    connect(m_certificate, &CertificatePanel::exportRequested, this, &MainWindow::exportFigureInteractive);
    connect(m_curves, &CurvesPanel::exportRequested, this, &MainWindow::exportFigureInteractive);
    connect(m_curves, &CurvesPanel::displayChanged, this, &MainWindow::refreshOverlay);
    connect(m_certificate, &CertificatePanel::displayChanged, this, &MainWindow::refreshCurrent);
    connect(m_heads, &HeadsPanel::exportRequested, this, &MainWindow::exportFigureInteractive);

    // A sensible first size that fits the screen; the saved geometry wins afterwards.
    QSize size(1500, 940);
    if (const QScreen* screen = QGuiApplication::primaryScreen())
        size = size.boundedTo(screen->availableSize() * 0.92);
    resize(size);
    restoreGeometry(m_settings.windowGeometry());
    restoreState(m_settings.windowState());
    applyTheme(m_settings.theme());
    const int preset = m_settings.lastPreset();
    loadPreset(preset >= 0 && preset < builtinPresets().size() ? preset : 0);
    updateRecentMenu();
    updateRunState();
    setCurrentFile({});
}

MainWindow::~MainWindow() = default;

void MainWindow::buildLayout() {
    m_tabs = new QTabWidget(this);
    m_tabs->setObjectName(QStringLiteral("resultTabs"));
    m_tabs->setDocumentMode(true);
    m_certificate = new CertificatePanel(m_tabs);
    m_curves = new CurvesPanel(m_tabs);
    m_heads = new HeadsPanel(m_tabs);
    m_automaton = new AutomatonPanel(m_tabs);
    m_tabs->addTab(m_certificate, tr("Certificate"));
    m_tabs->addTab(m_curves, tr("Curves"));
    m_tabs->addTab(m_heads, tr("Heads"));
    m_tabs->addTab(m_automaton, tr("Automaton"));
    setCentralWidget(m_tabs);

    auto* expDock = new QDockWidget(tr("Experiment"), this);
    expDock->setObjectName(QStringLiteral("experimentDock"));
    m_panel = new ExperimentPanel(expDock);
    expDock->setWidget(m_panel);
    expDock->setMinimumWidth(350);
    addDockWidget(Qt::LeftDockWidgetArea, expDock);

    auto* runsDock = new QDockWidget(tr("Runs"), this);
    runsDock->setObjectName(QStringLiteral("runsDock"));
    m_runs = new RunList(runsDock);
    runsDock->setWidget(m_runs);
    addDockWidget(Qt::RightDockWidgetArea, runsDock);

    auto* explDock = new QDockWidget(tr("About this experiment"), this);
    explDock->setObjectName(QStringLiteral("explanationDock"));
    m_explanation = new QTextBrowser(explDock);
    m_explanation->setObjectName(QStringLiteral("explanation"));
    m_explanation->setOpenExternalLinks(true);
    m_explanation->setHtml(explain::welcome());
    explDock->setWidget(m_explanation);
    addDockWidget(Qt::RightDockWidgetArea, explDock);
    resizeDocks({runsDock, explDock}, {340, 340}, Qt::Horizontal);

    m_phase = new QLabel(tr("Ready"), this);
    m_phase->setObjectName(QStringLiteral("statusPhase"));
    m_progress = new QProgressBar(this);
    m_progress->setObjectName(QStringLiteral("statusProgress"));
    m_progress->setRange(0, 1000);
    m_progress->setMaximumWidth(260);
    m_progress->setTextVisible(false);
    statusBar()->addWidget(m_phase, 1);
    statusBar()->addPermanentWidget(m_progress);
}

void MainWindow::buildActions() {
    auto* file = menuBar()->addMenu(tr("&File"));
    auto* openAct = file->addAction(tr("&Open experiment…"), this, &MainWindow::openInteractive);
    openAct->setShortcut(QKeySequence::Open);
    m_recentMenu = file->addMenu(tr("Open &recent"));
    auto* saveAct = file->addAction(tr("&Save experiment"), this, [this] { saveInteractive(false); });
    saveAct->setShortcut(QKeySequence::Save);
    auto* saveAsAct = file->addAction(tr("Save experiment &as…"), this, [this] { saveInteractive(true); });
    saveAsAct->setShortcut(QKeySequence(QStringLiteral("Ctrl+Shift+S")));
    file->addSeparator();
    auto* exportAct = file->addAction(tr("&Export figure…"), this, [this] {
        // The first figure with data on the visible tab.
        QList<const Figure*> figs;
        QWidget* w = m_tabs->currentWidget();
        if (w == m_certificate) figs = m_certificate->figures();
        else if (w == m_curves) figs = m_curves->figures();
        else if (w == m_heads) figs = m_heads->figures();
        for (const Figure* f : figs)
            if (f->hasData()) return exportFigureInteractive(f);
        statusBar()->showMessage(tr("Nothing to export on this tab yet"), 4000);
    });
    exportAct->setShortcut(QKeySequence(QStringLiteral("Ctrl+E")));
    auto* exportAllAct = file->addAction(tr("Export &all…"), this, &MainWindow::exportAllInteractive);
    exportAllAct->setShortcut(QKeySequence(QStringLiteral("Ctrl+Shift+E")));
    file->addSeparator();
    auto* quitAct = file->addAction(tr("&Quit"), this, &QWidget::close);
    quitAct->setShortcut(QKeySequence::Quit);

    auto* run = menuBar()->addMenu(tr("&Run"));
    m_runAction = run->addAction(tr("&Run"), this, &MainWindow::startRuns);
    m_runAction->setShortcut(QKeySequence(QStringLiteral("Ctrl+R")));
    m_stopAction = run->addAction(tr("&Stop"), this, &MainWindow::stopRuns);
    m_stopAction->setShortcut(QKeySequence(Qt::Key_Escape));
    m_resetAction = run->addAction(tr("Rese&t (same seeds, same run)"), this, &MainWindow::resetRuns);
    m_resetAction->setShortcut(QKeySequence(QStringLiteral("Ctrl+Shift+R")));
    run->addSeparator();
    auto* presetMenu = run->addMenu(tr("&Presets"));
    const auto& presets = builtinPresets();
    for (int i = 0; i < presets.size(); ++i) {
        auto* a = presetMenu->addAction(presets[i].title, this, [this, i] { loadPreset(i); });
        if (i < 9) a->setShortcut(QKeySequence(QStringLiteral("Ctrl+%1").arg(i + 1)));
    }

    auto* view = menuBar()->addMenu(tr("&View"));
    const QStringList tabNames{tr("&Certificate"), tr("C&urves"), tr("&Heads"), tr("&Automaton")};
    for (int i = 0; i < tabNames.size(); ++i) {
        auto* a = view->addAction(tabNames[i], this, [this, i] { m_tabs->setCurrentIndex(i); });
        a->setShortcut(QKeySequence(QStringLiteral("Alt+%1").arg(i + 1)));
    }
    view->addSeparator();
    for (auto* dock : findChildren<QDockWidget*>()) view->addAction(dock->toggleViewAction());
    view->addSeparator();
    auto* themeMenu = view->addMenu(tr("&Theme"));
    auto* group = new QActionGroup(this);
    const std::pair<QString, ThemeChoice> themes[] = {
        {tr("System"), ThemeChoice::System}, {tr("Light"), ThemeChoice::Light}, {tr("Dark"), ThemeChoice::Dark}};
    for (const auto& [name, t] : themes) {
        auto* a = themeMenu->addAction(name);
        a->setCheckable(true);
        a->setChecked(m_settings.theme() == t);
        group->addAction(a);
        const ThemeChoice choice = t;
        connect(a, &QAction::triggered, this, [this, choice] {
            m_settings.setTheme(choice);
            applyTheme(choice);
        });
    }

    auto* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About MHLA Lab"), this, [this] {
        QMessageBox::about(this, tr("About MHLA Lab"),
                           tr("<h3>%1</h3><p>Learning multi-head linear attention in polynomial time, with an "
                              "identifiability certificate.</p><p>Reference: Yau, Akyürek, Mao, Tenenbaum, Jegelka, "
                              "Andreas, <i>Learning Linear Attention in Polynomial Time</i> (NeurIPS 2025).</p>")
                               .arg(appVersionString()));
    });

    auto* tb = addToolBar(tr("Run"));
    tb->setObjectName(QStringLiteral("runToolBar"));
    tb->addAction(openAct);
    tb->addAction(saveAct);
    tb->addSeparator();
    tb->addAction(m_runAction);
    tb->addAction(m_stopAction);
    tb->addAction(m_resetAction);
    tb->addSeparator();
    tb->addAction(exportAct);
    tb->addAction(exportAllAct);
    m_runAction->setToolTip(tr("Run the experiment (Ctrl+R)"));
    m_stopAction->setToolTip(tr("Stop at once (Esc)"));
    m_resetAction->setToolTip(tr("Clear all runs and run again with the same seeds (Ctrl+Shift+R)"));
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
    QPalette p;
    const QColor window(45, 45, 48), base(30, 30, 32), text(230, 230, 230), button(60, 60, 64);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, window);
    p.setColor(QPalette::ToolTipBase, base);
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, button);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, Qt::red);
    p.setColor(QPalette::Highlight, QColor(0, 114, 178));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::PlaceholderText, QColor(150, 150, 150));
    p.setColor(QPalette::Disabled, QPalette::Text, QColor(120, 120, 120));
    p.setColor(QPalette::Disabled, QPalette::ButtonText, QColor(120, 120, 120));
    p.setColor(QPalette::Disabled, QPalette::WindowText, QColor(120, 120, 120));
    QApplication::setPalette(p);
}

void MainWindow::loadPreset(int index) { m_panel->loadPreset(index); }

bool MainWindow::startRuns() {
    if (!m_panel->isValid()) {
        const auto errs = m_panel->fieldErrors();
        statusBar()->showMessage(tr("Cannot run: %1")
                                     .arg(errs.isEmpty() ? m_panel->generalError() : errs.first()),
                                 6000);
        return false;
    }
    QList<RunController::Job> jobs;
    for (const auto& nc : m_panel->jobs()) {
        RunRecord& r = m_runs->add(nc.name, nc.config);
        jobs << RunController::Job{r.id, nc.config};
        m_lastStarted = r.id;
    }
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

void MainWindow::onProgress(int runId, const RunProgress& p) {
    RunRecord* r = m_runs->find(runId);
    if (!r) return;
    r->phase = p.phase;
    r->fraction = p.fraction;
    r->liveHistory.insert(r->liveHistory.end(), p.newPoints.begin(), p.newPoints.end());
    r->liveTrace.insert(r->liveTrace.end(), p.newTrace.begin(), p.newTrace.end());
    m_runs->refresh(runId);
    const int queued = m_controller->queued();
    m_phase->setText(queued > 0 ? tr("%1: %2 (%3 more queued)").arg(r->name, p.phase).arg(queued)
                                : tr("%1: %2").arg(r->name, p.phase));
    m_progress->setValue(static_cast<int>(p.fraction * 1000));
    if (!p.newPoints.empty() && r->visible) m_curves->showRuns(m_runs->visibleRuns());
    if (!p.newTrace.empty() && m_runs->current() == r) m_certificate->updateLive(r);
}

void MainWindow::onFinished(int runId, const ExperimentResult& result) {
    RunRecord* r = m_runs->find(runId);
    if (!r) return;
    r->result = result;
    r->state = RunRecord::State::Finished;
    r->fraction = 1;
    m_runs->refresh(runId);
    m_phase->setText(tr("%1 finished: %2").arg(r->name, r->stateText()));
    m_progress->setValue(1000);
    refreshOverlay();
    refreshCurrent();
}

void MainWindow::onFailed(int runId, const QString& message) {
    if (RunRecord* r = m_runs->find(runId)) {
        r->state = RunRecord::State::Failed;
        r->message = message;
        m_runs->refresh(runId);
        m_phase->setText(tr("%1 failed: %2").arg(r->name, message));
    }
    refreshCurrent();
}

void MainWindow::onCancelled(int runId) {
    if (RunRecord* r = m_runs->find(runId)) {
        r->state = RunRecord::State::Cancelled;
        m_runs->refresh(runId);
    }
}

void MainWindow::refreshOverlay() {
    m_curves->showRuns(m_runs->visibleRuns());
    m_certificate->setComparisonRuns(m_runs->visibleRuns());
}

void MainWindow::refreshCurrent() {
    const RunRecord* r = m_runs->current();
    m_certificate->showRun(r);
    m_heads->showRun(r);
    m_automaton->showRun(r);
    refreshOverlay();
}

void MainWindow::updateRunState() {
    const bool busy = m_controller->isBusy();
    m_panel->setRunning(busy);
    m_runAction->setEnabled(m_panel->isValid());
    m_stopAction->setEnabled(busy);
    m_resetAction->setEnabled(m_panel->isValid());
    if (!busy && m_progress->value() != 1000) m_progress->setValue(0);
}

void MainWindow::addFinishedRun(const QString& name, const ExperimentResult& result) {
    RunRecord& r = m_runs->add(name, result.config);
    r.result = result;
    r.state = RunRecord::State::Finished;
    m_runs->refresh(r.id);
    m_runs->select(r.id);
    refreshCurrent();
}

QList<const Figure*> MainWindow::figures() const {
    return m_certificate->figures() + m_curves->figures() + m_heads->figures();
}

ExportMetadata MainWindow::exportMetadata(const QString& title, const Figure* figure) const {
    ExportMetadata m;
    m.title = title;
    const bool overlay = !figure || m_curves->figures().contains(figure);
    if (overlay)
        for (const RunRecord* r : m_runs->visibleRuns()) m.runs << qMakePair(r->name, experimentToJson(r->config));
    if (m.runs.isEmpty())
        if (const RunRecord* r = m_runs->current()) m.runs << qMakePair(r->name, experimentToJson(r->config));
    return m;
}

QString MainWindow::exportAllTo(const QString& dir, bool overwrite, QStringList* written, QStringList* existing) {
    const RunRecord* cur = m_runs->current();
    if (!cur || !cur->result) return tr("there is no finished run to export");
    const ExportMetadata meta = exportMetadata(tr("Automaton execution trace"), m_certificate->figures().first());
    const QString trace = m_automaton->traceCsv();
    const QString tracePath = QDir(dir).filePath(QStringLiteral("automaton_trace.csv"));
    if (!trace.isEmpty() && QFileInfo::exists(tracePath) && !overwrite) {
        if (existing) *existing = QStringList{QStringLiteral("automaton_trace.csv")};
        return tr("automaton_trace.csv already exists in %1; not overwriting").arg(dir);
    }
    auto metaFor = [this](const Figure& f) { return exportMetadata(f.figureTitle(), &f); };
    QString err = exportAll(figures(), dir, *cur->result, metaFor, m_settings.exportSize(), m_settings.exportDpi(),
                            overwrite, written, existing);
    if (!err.isEmpty() || trace.isEmpty()) return err;
    QSaveFile f(tracePath);
    if (!f.open(QIODevice::WriteOnly)) return tr("cannot write %1").arg(tracePath);
    f.write(csvWithMetadata(trace, meta).toUtf8());
    if (!f.commit()) return tr("cannot write %1").arg(tracePath);
    if (written) *written << tracePath;
    return {};
}

void MainWindow::exportFigureInteractive(const Figure* f) {
    if (!f || !f->hasData()) {
        statusBar()->showMessage(tr("Nothing to export yet: run an experiment first"), 4000);
        return;
    }
    const QString suggested = QDir(m_settings.lastDirectory()).filePath(f->figureName() + QStringLiteral(".svg"));
    ExportDialog dlg(f->figureTitle(), suggested, m_settings.exportSize(), m_settings.exportDpi(), this);
    if (dlg.exec() != QDialog::Accepted) return;
    const QString path = dlg.path();
    bool ok = false;
    const ExportFormat fmt = formatFromPath(path, &ok);
    if (!ok) {
        QMessageBox::warning(this, tr("Export"), tr("Choose a file ending in .svg, .pdf, .png or .csv."));
        return;
    }
    const QFileInfo fi(path);
    const QString csvPath = fi.absolutePath() + u'/' + fi.completeBaseName() + QStringLiteral(".csv");
    QStringList clash;
    if (fi.exists()) clash << fi.fileName();
    if (fmt != ExportFormat::Csv && QFileInfo::exists(csvPath)) clash << QFileInfo(csvPath).fileName();
    if (!clash.isEmpty() &&
        QMessageBox::question(this, tr("Overwrite?"), tr("Overwrite %1?").arg(clash.join(QStringLiteral(", ")))) !=
            QMessageBox::Yes)
        return;
    m_settings.setExportSize(dlg.pixelSize());
    m_settings.setExportDpi(dlg.dpi());
    m_settings.setLastDirectory(fi.absolutePath());
    const QString err = exportFigure(*f, path, fmt, dlg.pixelSize(), dlg.dpi(), exportMetadata(f->figureTitle(), f));
    if (!err.isEmpty()) QMessageBox::warning(this, tr("Export failed"), err);
    else statusBar()->showMessage(tr("Exported %1").arg(path), 5000);
}

void MainWindow::exportAllInteractive() {
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Export all figures into folder"), m_settings.lastDirectory());
    if (dir.isEmpty()) return;
    m_settings.setLastDirectory(dir);
    QStringList written, existing;
    QString err = exportAllTo(dir, false, &written, &existing);
    if (!err.isEmpty() && !existing.isEmpty()) {
        if (QMessageBox::question(this, tr("Overwrite?"),
                                  tr("%n file(s) already exist in %1 (e.g. %2). Overwrite them?", nullptr, existing.size())
                                      .arg(dir, existing.first())) != QMessageBox::Yes)
            return;
        written.clear();
        err = exportAllTo(dir, true, &written);
    }
    if (!err.isEmpty()) QMessageBox::warning(this, tr("Export failed"), err);
    else statusBar()->showMessage(tr("Wrote %1 files to %2").arg(written.size()).arg(dir), 6000);
}

QString MainWindow::openExperiment(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return tr("cannot open %1: %2").arg(path, f.errorString());
    QJsonParseError pe;
    const QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &pe);
    if (pe.error != QJsonParseError::NoError || !doc.isObject())
        return tr("%1 is not a JSON experiment file: %2 at offset %3").arg(path, pe.errorString()).arg(pe.offset);
    const QString err = m_panel->setExperiment(doc.object());
    setCurrentFile(path);
    m_settings.addRecentFile(QFileInfo(path).absoluteFilePath());
    updateRecentMenu();
    m_explanation->setHtml(tr("<h3>%1</h3><p>Experiment file loaded. Hover a parameter for its meaning.</p>")
                               .arg(QFileInfo(path).fileName().toHtmlEscaped()));
    return err;
}

QString MainWindow::saveExperiment(const QString& path) {
    if (!m_panel->isValid()) return tr("the experiment has invalid values; fix the marked fields first");
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly)) return tr("cannot write %1: %2").arg(path, f.errorString());
    f.write(QJsonDocument(experimentToJson(m_panel->config())).toJson(QJsonDocument::Indented));
    if (!f.commit()) return tr("cannot write %1: %2").arg(path, f.errorString());
    setCurrentFile(path);
    m_settings.addRecentFile(QFileInfo(path).absoluteFilePath());
    updateRecentMenu();
    return {};
}

void MainWindow::openInteractive() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open experiment"), m_settings.lastDirectory(),
                                                      tr("Experiment files (*.json);;All files (*)"));
    if (path.isEmpty()) return;
    m_settings.setLastDirectory(QFileInfo(path).absolutePath());
    const QString err = openExperiment(path);
    if (!err.isEmpty()) QMessageBox::warning(this, tr("Invalid experiment"), err);
}

bool MainWindow::saveInteractive(bool saveAs) {
    QString path = m_currentFile;
    if (saveAs || path.isEmpty()) {
        // QFileDialog asks before replacing an existing file.
        path = QFileDialog::getSaveFileName(this, tr("Save experiment"),
                                            QDir(m_settings.lastDirectory()).filePath(QStringLiteral("experiment.json")),
                                            tr("Experiment files (*.json)"));
        if (path.isEmpty()) return false;
        if (QFileInfo(path).suffix().isEmpty()) path += QStringLiteral(".json");
        m_settings.setLastDirectory(QFileInfo(path).absolutePath());
    }
    const QString err = saveExperiment(path);
    if (!err.isEmpty()) {
        QMessageBox::warning(this, tr("Save failed"), err);
        return false;
    }
    statusBar()->showMessage(tr("Saved %1").arg(path), 4000);
    return true;
}

void MainWindow::setCurrentFile(const QString& path) {
    m_currentFile = path;
    setWindowTitle(path.isEmpty() ? QStringLiteral("MHLA Lab[*]")
                                  : QStringLiteral("%1[*] — MHLA Lab").arg(QFileInfo(path).fileName()));
    setWindowModified(false);
}

void MainWindow::updateRecentMenu() {
    m_recentMenu->clear();
    const QStringList files = m_settings.recentFiles();
    for (const QString& f : files) {
        m_recentMenu->addAction(QFileInfo(f).fileName(), this, [this, f] {
            if (!QFileInfo::exists(f)) {
                m_settings.removeRecentFile(f);
                updateRecentMenu();
                QMessageBox::warning(this, tr("Open recent"), tr("%1 no longer exists.").arg(f));
                return;
            }
            const QString err = openExperiment(f);
            if (!err.isEmpty()) QMessageBox::warning(this, tr("Invalid experiment"), err);
        })->setToolTip(f);
    }
    m_recentMenu->setEnabled(!files.isEmpty());
}

void MainWindow::showTab(const QString& name) {
    const QStringList names{QStringLiteral("certificate"), QStringLiteral("curves"), QStringLiteral("heads"),
                            QStringLiteral("automaton")};
    const int i = static_cast<int>(names.indexOf(name));
    if (i >= 0) m_tabs->setCurrentIndex(i);
}

void MainWindow::closeEvent(QCloseEvent* e) {
    m_controller->stop();
    m_settings.setWindowGeometry(saveGeometry());
    m_settings.setWindowState(saveState());
    QMainWindow::closeEvent(e);
}

} // namespace mhla::ui
