#include "ui/shell/mainwindow.h"
#include "core/algebra/features.h"
#include "core/base/fileio.h"
#include "core/base/plural.h"
#include "core/experiment/config.h"
#include "core/records/resultread.h"
#include "ui/experiment/datastatistics.h"
#include "ui/experiment/experimentfile.h"
#include "ui/experiment/experimentpanel.h"
#include "ui/experiment/presets.h"
#include "ui/experiment/session.h"
#include "ui/export/exporter.h"
#include "ui/panels/automatonpanel.h"
#include "ui/panels/certificatepanel.h"
#include "ui/panels/curvespanel.h"
#include "ui/panels/explanations.h"
#include "ui/panels/headspanel.h"
#include "ui/plot/elidedlabel.h"
#include "ui/plot/fitscrollarea.h"
#include "ui/plot/heatmapwidget.h"
#include "ui/plot/plotwidget.h"
#include "ui/plot/theme.h"
#include "ui/run/runcontroller.h"
#include "ui/run/runlist.h"
#include "ui/shell/exportdialog.h"
#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDateTime>
#include <QDesktopServices>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFrame>
#include <QHBoxLayout>
#include <QJsonDocument>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QStatusBar>
#include <QStyle>
#include <QStyleFactory>
#include <QTabWidget>
#include <QTextBrowser>
#include <QThreadPool>
#include <QToolBar>
#include <QUrl>
#include <QVBoxLayout>
#include <algorithm>
#include <map>
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

    connect(m_controller, &RunController::started, this, [this](int id) {
        if (RunRecord* r = m_runs->find(id)) {
            r->state = RunRecord::State::Running;
            r->startedMs = QDateTime::currentMSecsSinceEpoch();
            m_runs->refresh(id);
            m_runs->select(id);
        }
        updateRunState();
        syncPaused();
    });
    connect(m_controller, &RunController::progressed, this, &MainWindow::onProgress);
    m_liveTimer.setSingleShot(true);
    connect(&m_liveTimer, &QTimer::timeout, this, &MainWindow::flushLive);
    connect(m_tabs, &QTabWidget::currentChanged, this, &MainWindow::onTabShown);
    connect(m_controller, &RunController::finished, this, &MainWindow::onFinished);
    connect(m_controller, &RunController::failed, this, &MainWindow::onFailed);
    connect(m_controller, &RunController::cancelled, this, &MainWindow::onCancelled);
    connect(m_controller, &RunController::idle, this, &MainWindow::updateRunState);
    connect(m_runs, &RunList::runsChanged, this, &MainWindow::refreshOverlay);
    connect(m_runs, &RunList::currentChanged, this, &MainWindow::refreshCurrent);
    connect(m_runs, &RunList::renameRefused, this,
            [this](const QString& why) { statusBar()->showMessage(why, 8000); });
    connect(m_panel, &ExperimentPanel::runRequested, this, &MainWindow::startRuns);
    connect(m_panel, &ExperimentPanel::stopRequested, this, &MainWindow::stopRuns);
    connect(m_panel, &ExperimentPanel::resetRequested, this, &MainWindow::resetInteractive);
    connect(m_panel, &ExperimentPanel::pauseToggled, this, [this](bool on) {
        m_controller->setPaused(on);
        syncPaused();
        statusBar()->showMessage(
            on ? tr("Training paused between epochs — Step runs one epoch, Pause again resumes")
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
        setCurrentFile({});
        updateCannotRun();
    });
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
    restoreState(m_settings.windowState());
    setAcceptDrops(true); // an experiment file or results folder dropped on the window opens
    applyTheme(m_settings.theme());
    const int preset = m_settings.lastPreset();
    loadPreset(preset >= 0 && preset < builtinPresets().size() ? preset : 0);
    updateRecentMenu();
    updateRunState();
    setCurrentFile({});

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

void MainWindow::buildLayout() {
    m_tabs = new QTabWidget(this);
    m_tabs->setObjectName(QStringLiteral("resultTabs"));
    m_tabs->setDocumentMode(true);
    m_resultPanels = createResultPanels(m_tabs);
    for (ResultPanel* panel : m_resultPanels) {
        // Each tab scrolls when the window is smaller than the panel's minimum, so that no
        // panel can make the window wider than a 1280×720 projector.
        QScrollArea* scroll = nullptr;
        if (panel->fitsWindow()) {
            auto* fit = new FitScrollArea(m_tabs);
            fit->setFittedWidget(panel->widget());
            scroll = fit;
        } else {
            scroll = new QScrollArea(m_tabs);
            scroll->setWidgetResizable(true);
            scroll->setWidget(panel->widget());
        }
        scroll->setObjectName(panel->panelId() + QStringLiteral("Scroll"));
        scroll->setFrameShape(QFrame::NoFrame);
        scroll->setMinimumSize(200, 150);
        m_tabs->addTab(scroll, panel->tabName());
    }
    m_certificate = panelOf<CertificatePanel>();
    m_curves = panelOf<CurvesPanel>();
    m_heads = panelOf<HeadsPanel>();
    m_automaton = panelOf<AutomatonPanel>();
    // The bar that offers the runs of the last session back (autosave), above the tabs.
    auto* central = new QWidget(this);
    auto* centralLayout = new QVBoxLayout(central);
    centralLayout->setContentsMargins(0, 0, 0, 0);
    centralLayout->setSpacing(0);
    m_restoreBar = new QFrame(central);
    m_restoreBar->setObjectName(QStringLiteral("restoreBar"));
    static_cast<QFrame*>(m_restoreBar)->setFrameShape(QFrame::StyledPanel);
    auto* barLayout = new QHBoxLayout(m_restoreBar);
    barLayout->setContentsMargins(8, 4, 8, 4);
    m_restoreText = new QLabel(m_restoreBar);
    m_restoreText->setObjectName(QStringLiteral("restoreText"));
    m_restoreText->setWordWrap(true);
    auto* restoreButton = new QPushButton(tr("Restore"), m_restoreBar);
    restoreButton->setObjectName(QStringLiteral("restoreButton"));
    auto* declineButton = new QPushButton(tr("No, thanks"), m_restoreBar);
    declineButton->setObjectName(QStringLiteral("declineRestoreButton"));
    barLayout->addWidget(m_restoreText, 1);
    barLayout->addWidget(restoreButton);
    barLayout->addWidget(declineButton);
    connect(restoreButton, &QPushButton::clicked, this, [this] {
        if (const QString err = restoreAutosave(); !err.isEmpty())
            QMessageBox::warning(this, tr("Restore the last session"), err);
    });
    connect(declineButton, &QPushButton::clicked, this, &MainWindow::declineAutosave);
    m_restoreBar->setVisible(false);
    centralLayout->addWidget(m_restoreBar);
    centralLayout->addWidget(m_tabs, 1);
    setCentralWidget(central);

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

    // The preset box asks before it replaces unsaved edits, as the Presets menu does.
    m_panel->setPresetGuard([this] { return confirm(tr("Load preset"), discardEditsQuestion()); });

    auto* explDock = new QDockWidget(tr("About this experiment"), this);
    explDock->setObjectName(QStringLiteral("explanationDock"));
    m_explanation = new QTextBrowser(explDock);
    m_explanation->setObjectName(QStringLiteral("explanation"));
    m_explanation->setOpenExternalLinks(false);
    m_explanation->setOpenLinks(false);
    connect(m_explanation, &QTextBrowser::anchorClicked, this, [this](const QUrl& url) {
        if (url.scheme() == u"tour") {
            if (confirm(tr("Guided tour"), discardEditsQuestion()))
                showTourStep(url.path().toInt());
        } else QDesktopServices::openUrl(url);
    });
    setExplanation(explain::welcome());
    explDock->setWidget(m_explanation);
    addDockWidget(Qt::RightDockWidgetArea, explDock);
    resizeDocks({runsDock, explDock}, {340, 340}, Qt::Horizontal);

    m_phase = new ElidedLabel(this);
    m_phase->setText(tr("Ready"));
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
    openAct->setObjectName(QStringLiteral("openAction"));
    openAct->setShortcut(QKeySequence::Open);
    auto* openDataAct = file->addAction(tr("Open &data…"), this, [this] {
        if (!confirm(tr("Open data"), discardEditsQuestion())) return;
        const QStringList files = QFileDialog::getOpenFileNames(
            this, tr("Open data: the prompts (N × n × d) and optionally the targets (N × d_out)"),
            m_settings.lastDirectory(), tr("NumPy arrays (*.npy *.npz);;All files (*)"));
        if (files.isEmpty()) return;
        m_settings.setLastDirectory(QFileInfo(files.first()).absolutePath());
        const QString err = openData(files);
        if (!err.isEmpty()) QMessageBox::warning(this, tr("Open data"), err);
    });
    openDataAct->setObjectName(QStringLiteral("openDataAction"));
    openDataAct->setToolTip(tr("Certify your own prompts (.npy, or a .npz archive), and fit them "
                               "when targets are given"));
    auto* openResultsAct = file->addAction(tr("Open &results…"), this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(
            this, tr("Open a results folder (result.json and its CSV files)"),
            m_settings.lastDirectory());
        if (dir.isEmpty()) return;
        m_settings.setLastDirectory(QFileInfo(dir).absolutePath());
        const QString err = openResults(dir);
        if (!err.isEmpty()) QMessageBox::warning(this, tr("Open results"), err);
    });
    openResultsAct->setObjectName(QStringLiteral("openResultsAction"));
    openResultsAct->setToolTip(tr("Load a run saved by Export all or `mhla-lab solve --out` to "
                                  "view and compare it again"));
    file->addAction(tr("Open sess&ion…"), this, &MainWindow::openSessionInteractive)
        ->setObjectName(QStringLiteral("openSessionAction"));
    m_recentMenu = file->addMenu(tr("Open &recent"));
    auto* saveAct =
        file->addAction(tr("&Save experiment"), this, [this] { saveInteractive(false); });
    saveAct->setShortcut(QKeySequence::Save);
    auto* saveAsAct =
        file->addAction(tr("Save experiment &as…"), this, [this] { saveInteractive(true); });
    file->addAction(tr("Save sessio&n…"), this, &MainWindow::saveSessionInteractive)
        ->setObjectName(QStringLiteral("saveSessionAction"));
    saveAsAct->setShortcut(QKeySequence(QStringLiteral("Ctrl+Shift+S")));
    file->addSeparator();
    auto* exportAct = file->addAction(tr("&Export figure…"), this, [this] {
        // The first figure with data on the visible tab.
        const int tab = m_tabs->currentIndex();
        const QList<const Figure*> figs = tab >= 0 && tab < m_resultPanels.size()
                                              ? m_resultPanels[tab]->figures()
                                              : QList<const Figure*>{};
        for (const Figure* f : figs)
            if (f->hasData()) return exportFigureInteractive(f);
        statusBar()->showMessage(tr("Nothing to export on this tab yet"), 4000);
    });
    exportAct->setShortcut(QKeySequence(QStringLiteral("Ctrl+E")));
    auto* exportAllAct =
        file->addAction(tr("Export &all…"), this, &MainWindow::exportAllInteractive);
    exportAllAct->setShortcut(QKeySequence(QStringLiteral("Ctrl+Shift+E")));
    file->addSeparator();
    auto* quitAct = file->addAction(tr("&Quit"), this, &QWidget::close);
    quitAct->setShortcut(QKeySequence::Quit);

    auto* edit = menuBar()->addMenu(tr("&Edit"));
    auto* copyAct = edit->addAction(tr("&Copy figure"), this, [this] {
        const QString err = copyCurrentFigure(false);
        statusBar()->showMessage(err.isEmpty() ? tr("Figure copied to the clipboard") : err, 4000);
    });
    copyAct->setShortcut(QKeySequence(QStringLiteral("Ctrl+Shift+C")));
    copyAct->setToolTip(tr("The first figure of the visible tab, as an image and as SVG"));
    edit->addAction(tr("Copy figure for a &paper (one column)"), this, [this] {
        const QString err = copyCurrentFigure(true);
        statusBar()->showMessage(err.isEmpty() ? tr("Paper figure copied to the clipboard") : err,
                                 4000);
    });

    auto* run = menuBar()->addMenu(tr("&Run"));
    m_runAction = run->addAction(tr("&Run"), this, &MainWindow::startRuns);
    m_runAction->setShortcut(QKeySequence(QStringLiteral("Ctrl+R")));
    m_stopAction = run->addAction(tr("&Stop"), this, &MainWindow::stopRuns);
    m_stopAction->setShortcut(QKeySequence(Qt::Key_Escape));
    m_resetAction = run->addAction(tr("&Clear runs and rerun (same seeds, same run)"), this,
                                   &MainWindow::resetInteractive);
    m_resetAction->setObjectName(QStringLiteral("resetAction"));
    m_resetAction->setShortcut(QKeySequence(QStringLiteral("Ctrl+Shift+R")));
    m_resetAction->setIconText(tr("Clear and rerun")); // the toolbar's short form
    run->addSeparator();
    auto* presetMenu = run->addMenu(tr("&Presets"));
    const auto& presets = builtinPresets();
    for (int i = 0; i < presets.size(); ++i) {
        auto* a = presetMenu->addAction(presets[i].title, this, [this, i] {
            if (confirm(tr("Load preset"), discardEditsQuestion())) loadPreset(i);
        });
        if (i < 9) a->setShortcut(QKeySequence(QStringLiteral("Ctrl+%1").arg(i + 1)));
    }

    auto* view = menuBar()->addMenu(tr("&View"));
    for (int i = 0; i < m_resultPanels.size(); ++i) {
        auto* a = view->addAction(m_resultPanels[i]->tabName(), this,
                                  [this, i] { m_tabs->setCurrentIndex(i); });
        if (i < 9) a->setShortcut(QKeySequence(QStringLiteral("Alt+%1").arg(i + 1)));
    }
    view->addSeparator();
    for (auto* dock : findChildren<QDockWidget*>()) view->addAction(dock->toggleViewAction());
    view->addSeparator();
    m_presentAction = view->addAction(tr("&Presentation mode"), this,
                                      [this](bool on) { setPresentationMode(on); });
    m_presentAction->setObjectName(QStringLiteral("presentationAction"));
    m_presentAction->setCheckable(true);
    m_presentAction->setShortcut(QKeySequence(Qt::Key_F5));
    m_presentAction->setToolTip(
        tr("Full screen, side panels hidden, large fonts and lines for a projector (F5 again "
           "leaves it)"));
    view->addSeparator();
    auto* themeMenu = view->addMenu(tr("&Theme"));
    auto* group = new QActionGroup(this);
    const std::pair<QString, ThemeChoice> themes[] = {{tr("System"), ThemeChoice::System},
                                                      {tr("Light"), ThemeChoice::Light},
                                                      {tr("Dark"), ThemeChoice::Dark}};
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
    auto* tourAct = help->addAction(tr("Guided &tour of the presets"), this, [this] {
        if (confirm(tr("Guided tour"), discardEditsQuestion())) showTourStep(0);
    });
    tourAct->setObjectName(QStringLiteral("tourAction"));
    auto* keysAct = help->addAction(tr("&Keyboard shortcuts"), this, [this] {
        QMessageBox box(QMessageBox::NoIcon, tr("Keyboard shortcuts"), shortcutsHtml(),
                        QMessageBox::Close, this);
        box.setTextFormat(Qt::RichText);
        box.exec();
    });
    keysAct->setShortcut(QKeySequence::HelpContents);
    help->addSeparator();
    help->addAction(tr("&About MHLA Lab"), this, [this] {
        QMessageBox::about(
            this, tr("About MHLA Lab"),
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
    // Watch speed: trainers at a pace a class can follow (TensorFlow Playground's), Max as fast
    // as the machine goes.
    auto* speedLabel = new QLabel(tr(" Watch speed "), tb);
    auto* speed = new QComboBox(tb);
    speed->setObjectName(QStringLiteral("watchSpeedCombo"));
    speed->addItem(tr("Max"), 0.0);
    for (const double eps : kWatchSpeeds)
        speed->addItem(eps == 1 ? tr("1 epoch/s") : tr("%1 epochs/s").arg(eps), eps);
    const QString speedTip =
        tr("How fast trainers go, so that the curves can be watched as they grow: Max runs as "
           "fast as the machine can; a number of epochs per second makes the run wait between "
           "logged epochs (Esc still stops at once). Changes apply to the running run at once.");
    speed->setToolTip(speedTip);
    speedLabel->setToolTip(speedTip);
    connect(speed, &QComboBox::currentIndexChanged, this,
            [this, speed](int i) { m_controller->setWatchSpeed(speed->itemData(i).toDouble()); });
    tb->addWidget(speedLabel);
    tb->addWidget(speed);
    tb->addSeparator();
    tb->addAction(exportAct);
    tb->addAction(exportAllAct);
    m_runAction->setToolTip(tr("Run the experiment (Ctrl+R)"));
    m_stopAction->setToolTip(tr("Stop at once (Esc)"));
    m_resetAction->setToolTip(
        tr("Clear all runs and run again with the same seeds (Ctrl+Shift+R)"));
}

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
        setFont(big);
        showFullScreen();
        // In the phase label, not a temporary message: a message shown while the window goes
        // full screen was drawn over the label's text instead of hiding it.
        m_presentPhase = m_phase->text();
        m_phase->setText(presentationHint());
    } else {
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
    m_saysCannotRun = false;
    QList<RunController::Job> jobs;
    const int batch = m_runs->newBatch();
    for (const auto& nc : m_panel->jobs()) {
        RunRecord& r = m_runs->add(nc.name, nc.config);
        r.batch = batch;
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
        m_runs->find(r->id)->paused = paused;
        m_runs->refresh(r->id);
        m_phase->setText(tr("%1: %2, %3").arg(r->name, r->phase, r->stateText()));
    }
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
}

void MainWindow::flushLive() {
    RunRecord* r = m_runs->find(m_liveRun);
    if (!r || r->state != RunRecord::State::Running) return dropLive();
    QElapsedTimer cost;
    cost.start();
    m_runs->refresh(r->id);
    const int queued = m_controller->queued();
    // The same progress as the run list (one model: core's whole-run fraction, elapsed, ETA).
    m_phase->setText(
        queued > 0
            ? tr("%1: %2, %3 (%4 more queued)").arg(r->name, r->phase, r->stateText()).arg(queued)
            : tr("%1: %2, %3").arg(r->name, r->phase, r->stateText()));
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
    // The budget: kLiveRedrawsPerSecond plot redraws a second in all, and at most
    // kLiveRedrawShare of the GUI thread's time (the drawing itself follows in the paint
    // events this schedules, which cost about as much again: counted twice).
    const qint64 spent = 2 * cost.elapsed();
    const qint64 wait =
        std::max<qint64>({1000 / kLiveRedrawsPerSecond * std::max(plots, 1),
                          static_cast<qint64>(static_cast<double>(spent) / kLiveRedrawShare)});
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
    refreshOverlay();
    refreshCurrent();
    m_autosaveArmed = true;
    scheduleAutosave();
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

QList<const Figure*> MainWindow::figures() const {
    QList<const Figure*> out;
    for (const ResultPanel* panel : m_resultPanels) out += panel->figures();
    return out;
}

ExportMetadata MainWindow::exportMetadata(const QString& title, const Figure* figure) const {
    ExportMetadata m;
    m.title = title;
    bool overlay = !figure;
    std::optional<QList<int>> drawn; // the overlaying panel's runs: those its filter kept
    for (const ResultPanel* panel : m_resultPanels)
        if (figure && panel->overlaysRuns() && panel->figures().contains(figure)) {
            overlay = true;
            drawn = panel->drawnRunIds();
        }
    if (overlay)
        for (const RunRecord* r : m_runs->visibleRuns())
            if (!drawn || drawn->contains(r->id))
                m.runs << qMakePair(r->name, experimentToJson(r->config));
    if (m.runs.isEmpty())
        if (const RunRecord* r = m_runs->current())
            m.runs << qMakePair(r->name, experimentToJson(r->config));
    return m;
}

QList<ExportTable> MainWindow::tables() const {
    QList<ExportTable> out;
    for (const ResultPanel* panel : m_resultPanels) out += panel->tables();
    return out;
}

QString MainWindow::exportAllTo(const QString& dir, bool overwrite, QStringList* written,
                                QStringList* existing) {
    const RunRecord* cur = m_runs->current();
    if (!cur || !cur->result) return tr("there is no finished run to export");
    auto metaFor = [this](const Figure& f) { return exportMetadata(f.figureTitle(), &f); };
    ExportMetadata tableMeta;
    tableMeta.runs << qMakePair(cur->name, experimentToJson(cur->config));
    return exportAll(figures(), tables(), dir, *cur->result, metaFor, tableMeta,
                     m_settings.exportSize(), m_settings.exportDpi(), overwrite, written, existing);
}

void MainWindow::exportFigureInteractive(const Figure* f) {
    if (!f || !f->hasData()) {
        statusBar()->showMessage(tr("Nothing to export yet: run an experiment first"), 4000);
        return;
    }
    const QString suggested =
        QDir(m_settings.lastDirectory()).filePath(f->figureName() + QStringLiteral(".svg"));
    const auto* plot = dynamic_cast<const PlotWidget*>(f);
    ExportDialog dlg(f->figureTitle(), suggested, m_settings.exportSize(), m_settings.exportDpi(),
                     this, plot != nullptr);
    // The style last chosen for a plot, as the size and resolution are remembered.
    if (plot) dlg.setStyleIndex(m_settings.exportStyle());
    if (dlg.exec() != QDialog::Accepted) return;
    if (plot) m_settings.setExportStyle(dlg.styleIndex());
    const QString path = dlg.path();
    bool ok = false;
    const ExportFormat fmt = formatFromPath(path, &ok);
    if (!ok) {
        QMessageBox::warning(this, tr("Export"),
                             tr("Choose a file ending in .svg, .pdf, .png or .csv."));
        return;
    }
    const QFileInfo fi(path);
    const QString csvPath = csvPathFor(path);
    QStringList clash;
    if (fi.exists()) clash << fi.fileName();
    // The CSV beside the figure is asked about only when it is not one this app wrote (loss.png
    // after loss.svg rewrites the same data).
    if (fmt != ExportFormat::Csv && QFileInfo::exists(csvPath) && !isOurCsv(csvPath))
        clash << QFileInfo(csvPath).fileName();
    if (!clash.isEmpty() &&
        QMessageBox::question(this, tr("Overwrite?"),
                              tr("Overwrite %1?").arg(clash.join(QStringLiteral(", ")))) !=
            QMessageBox::Yes)
        return;
    const std::optional<PaperStyle> paper = dlg.paperStyle();
    if (!paper) m_settings.setExportSize(dlg.pixelSize()); // a paper size is the style's
    m_settings.setExportDpi(dlg.dpi());
    m_settings.setLastDirectory(fi.absolutePath());
    QString err;
    if (paper && plot) {
        const PaperFigure pf(*plot, *paper);
        err = exportFigure(pf, path, fmt, dlg.pixelSize(), dlg.dpi(),
                           exportMetadata(f->figureTitle(), f));
    } else {
        err = exportFigure(*f, path, fmt, dlg.pixelSize(), dlg.dpi(),
                           exportMetadata(f->figureTitle(), f));
    }
    if (!err.isEmpty()) QMessageBox::warning(this, tr("Export failed"), err);
    else statusBar()->showMessage(tr("Exported %1").arg(path), 5000);
}

void MainWindow::exportAllInteractive() {
    // A folder that does not exist yet is created (the system folder dialog refuses one).
    ExportAllDialog dlg(m_settings.lastDirectory(), this);
    if (dlg.exec() != QDialog::Accepted) return;
    const QString dir = QFileInfo(dlg.folder()).absoluteFilePath();
    m_settings.setLastDirectory(dir);
    QStringList written, existing;
    QString err = exportAllTo(dir, false, &written, &existing);
    if (!err.isEmpty() && !existing.isEmpty()) {
        if (QMessageBox::question(
                this, tr("Overwrite?"),
                existing.size() == 1
                    ? tr("%1 already exists in %2. Overwrite it?").arg(existing.first(), dir)
                    : tr("%1 files already exist in %2 (e.g. %3). Overwrite them?")
                          .arg(existing.size())
                          .arg(dir, existing.first())) != QMessageBox::Yes)
            return;
        written.clear();
        err = exportAllTo(dir, true, &written);
    }
    if (!err.isEmpty()) QMessageBox::warning(this, tr("Export failed"), err);
    else statusBar()->showMessage(tr("Wrote %1 files to %2").arg(written.size()).arg(dir), 6000);
}

QString MainWindow::openExperiment(const QString& pathOrFolder) {
    // A results folder (solve --out, Export all) opens its experiment.json.
    QString path = pathOrFolder;
    if (QFileInfo(path).isDir()) {
        path = QDir(pathOrFolder).filePath(QStringLiteral("experiment.json"));
        if (!QFileInfo::exists(path))
            return tr("%1 is not a results folder: it has no experiment.json").arg(pathOrFolder);
    }
    // A failed Open changes nothing: not the form, not the current file, not Open Recent.
    const ExperimentFileRead read = readExperimentFile(path);
    if (!read.usable) return read.error;
    const QString err = m_panel->setExperiment(read.json);
    if (read.hasSweep) m_panel->setFileSweep(read.sweep);
    if (read.valid) m_panel->recognisePreset();
    setCurrentFile(path);
    m_currentFileBytes = read.bytes;
    if (read.valid) {
        m_settings.addRecentFile(QFileInfo(path).absoluteFilePath());
        updateRecentMenu();
    }
    QString note =
        tr("<h3>%1</h3><p>Experiment file loaded. Hover a parameter for its meaning.</p>")
            .arg(QFileInfo(path).fileName().toHtmlEscaped());
    for (const QString& w : read.warnings)
        note += QStringLiteral("<p>%1</p>").arg(w.toHtmlEscaped());
    setExplanation(note);
    return read.valid ? QString() : err.isEmpty() ? read.error : err;
}

QString MainWindow::openData(const QStringList& npyFiles) {
    // Everything is checked before the form changes: the pairing, both headers, the shapes.
    DataFiles files;
    TaskConfig task;
    DatasetShape shape;
    try {
        files = pairDataFiles(npyFiles);
        task.kind = TaskKind::Dataset;
        task.prompts = QFileInfo(files.prompts).absoluteFilePath();
        task.targets =
            files.targets.isEmpty() ? QString() : QFileInfo(files.targets).absoluteFilePath();
        task.validationPrompts = files.validationPrompts;
        task.validationTargets = files.validationTargets;
        shape = readDatasetShape(task);
    } catch (const ConfigError& e) {
        return QString::fromStdString(e.what());
    }
    const QJsonObject obj{
        {QStringLiteral("task"),
         QJsonObject{{QStringLiteral("kind"), QStringLiteral("dataset")},
                     {QStringLiteral("prompts"), task.prompts},
                     {QStringLiteral("targets"), task.targets},
                     {QStringLiteral("validation_prompts"), task.validationPrompts},
                     {QStringLiteral("validation_targets"), task.validationTargets}}}};
    const QString err = m_panel->setExperiment(obj);
    setCurrentFile({}); // the form is a new, unsaved experiment on those files
    const TaskDims& dims = shape.dims;
    const long long D = featureDim(dims.d);
    QString note =
        tr("<h3>Data: %1</h3><p><b>%2</b> prompts of <b>%3</b> tokens × <b>d = %4</b> (the last "
           "token the query): D = %5 cubic features, so the certificate needs N ≥ D; here "
           "N %6 D.</p>")
            .arg(QFileInfo(task.prompts).fileName().toHtmlEscaped())
            .arg(shape.samples)
            .arg(dims.n)
            .arg(dims.d)
            .arg(D)
            .arg(shape.samples >= D ? QStringLiteral("≥") : QStringLiteral("<"));
    note += task.targets.isEmpty()
                ? tr("<p>No targets: Run certifies the prompts (λ_min, the null relations, the "
                     "samples the certificate needs) and fits nothing.</p>")
                : tr("<p>Targets: %1, d_out = %2. Run fits the minimum-norm P and certifies "
                     "it; nothing here has a teacher, so the distance to P* is absent.</p>")
                      .arg(QFileInfo(task.targets).fileName().toHtmlEscaped())
                      .arg(dims.dOut);
    if (shape.validationSamples > 0)
        note += tr("<p>Held out: <b>%1</b> prompts (%2) give the val MSE; λ_min and the fit use "
                   "the training files alone.</p>")
                    .arg(shape.validationSamples)
                    .arg(QFileInfo(task.validationPrompts).fileName().toHtmlEscaped());
    if (!files.note.isEmpty()) note += QStringLiteral("<p>%1</p>").arg(files.note.toHtmlEscaped());
    setExplanation(note);
    m_dataNote = note;
    m_explanation->setHtml(note + DataStatistics::pendingHtml());
    QStringList labels{QFileInfo(task.prompts).fileName()};
    QStringList paths{task.prompts};
    // The held-out set's values too: a scale unlike the training set's shows in its val MSE.
    for (const QString* f : {&task.targets, &task.validationPrompts, &task.validationTargets})
        if (!f->isEmpty()) {
            labels << QFileInfo(*f).fileName();
            paths << *f;
        }
    m_dataStats->start(labels, paths);
    statusBar()->showMessage(
        shape.validationSamples > 0
            ? tr("Opened %1 prompts and %2 held out from %3")
                  .arg(shape.samples)
                  .arg(shape.validationSamples)
                  .arg(task.prompts)
            : tr("Opened %1 prompts from %2").arg(shape.samples).arg(task.prompts),
        6000);
    return err;
}

QString MainWindow::saveExperiment(const QString& path) {
    if (!m_panel->isValid())
        return tr("the experiment has invalid values; fix the marked fields first");
    const QByteArray bytes =
        QJsonDocument(experimentToJson(m_panel->config())).toJson(QJsonDocument::Indented);
    const QString err = writeFileAtomic(path, bytes);
    if (!err.isEmpty()) return err;
    setCurrentFile(path);
    m_currentFileBytes = bytes;
    m_settings.addRecentFile(QFileInfo(path).absoluteFilePath());
    updateRecentMenu();
    return {};
}

QString MainWindow::saveRisk(const QString& path) const {
    return overwriteRisk(path, path == m_currentFile ? m_currentFileBytes : QByteArray());
}

void MainWindow::openInteractive() {
    if (!confirm(tr("Open experiment"), discardEditsQuestion())) return;
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Open experiment"), m_settings.lastDirectory(),
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
        path = QFileDialog::getSaveFileName(
            this, tr("Save experiment"),
            QDir(m_settings.lastDirectory()).filePath(QStringLiteral("experiment.json")),
            tr("Experiment files (*.json)"));
        if (path.isEmpty()) return false;
        if (QFileInfo(path).suffix().isEmpty()) path += QStringLiteral(".json");
        m_settings.setLastDirectory(QFileInfo(path).absolutePath());
    }
    if (!m_panel->isValid()) {
        QMessageBox::warning(this, tr("Save failed"),
                             tr("The experiment has invalid values; fix the marked fields first."));
        return false;
    }
    const QString risk = saveRisk(path);
    if (!risk.isEmpty() && QMessageBox::question(this, tr("Replace file?"), risk,
                                                 QMessageBox::Yes | QMessageBox::Cancel,
                                                 QMessageBox::Cancel) != QMessageBox::Yes)
        return false;
    const QString err = saveExperiment(path);
    if (!err.isEmpty()) {
        QMessageBox::warning(this, tr("Save failed"), err);
        return false;
    }
    statusBar()->showMessage(tr("Saved %1").arg(path), 4000);
    return true;
}

void MainWindow::setExplanation(const QString& html) {
    m_dataStats->cancel();
    m_dataNote.clear();
    m_explanation->setHtml(html);
}

void MainWindow::setCurrentFile(const QString& path) {
    m_currentFile = path;
    m_currentFileBytes = QByteArray();
    setWindowTitle(path.isEmpty()
                       ? QStringLiteral("MHLA Lab[*]")
                       : QStringLiteral("%1[*] — MHLA Lab").arg(QFileInfo(path).fileName()));
    setWindowModified(false);
}

void MainWindow::updateRecentMenu() {
    m_recentMenu->clear();
    const QStringList files = m_settings.recentFiles();
    for (const QString& f : files) {
        m_recentMenu
            ->addAction(QFileInfo(f).fileName(), this,
                        [this, f] {
                            if (opensIntoForm(f) &&
                                !confirm(tr("Open recent"), discardEditsQuestion()))
                                return;
                            const QString err = openRecent(f);
                            if (!err.isEmpty()) QMessageBox::warning(this, tr("Open recent"), err);
                        })
            ->setToolTip(f);
    }
    m_recentMenu->setEnabled(!files.isEmpty());
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

QString MainWindow::shortcutsHtml() const {
    QString rows;
    for (const QMenu* menu : menuBar()->findChildren<QMenu*>()) {
        for (const QAction* a : menu->actions()) {
            if (a->shortcut().isEmpty() || a->isSeparator()) continue;
            QString text = a->text();
            text.remove(u'&');
            rows += QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>")
                        .arg(a->shortcut().toString(QKeySequence::NativeText).toHtmlEscaped(),
                             text.toHtmlEscaped());
        }
    }
    rows += QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>")
                .arg(tr("Ctrl+P"), tr("Pause / resume training"));
    rows += QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>")
                .arg(tr("Ctrl+T"), tr("One epoch while paused"));
    // The plots' mouse gestures (no menu action to list them).
    const std::pair<QString, QString> mouse[] = {
        {tr("Wheel"), tr("Zoom a plot about the cursor")},
        {tr("Drag"), tr("Zoom a plot to the box")},
        {tr("Shift+drag"), tr("Pan a plot (or drag with the middle button)")},
        {tr("Double-click"), tr("Fit a plot to its data again")},
        {tr("Click a legend entry"), tr("Hide or show that run")},
        {tr("Drop a file"),
         tr("Open an experiment file or results folder; .npy prompts (and targets) or a .npz archive open as data")}};
    for (const auto& [k, what] : mouse)
        rows += QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>")
                    .arg(k.toHtmlEscaped(), what.toHtmlEscaped());
    return QStringLiteral("<table cellspacing='4'>%1</table>").arg(rows);
}

void MainWindow::showTourStep(int step) {
    // The presets in the order that tells the paper's story, each with what to look at.
    // The tab each stop points at is its preset's (Preset::tab), shown by loadPreset().
    struct Stop {
        int preset;
        const char* look;
    };
    static const Stop stops[] = {
        {0,
         QT_TR_NOOP(
             "Gaussian keys: after Run the badge turns green (certified): λ_min(Λ) is well above "
             "τ, so the exact solver's answer is the only function that fits the data. The "
             "spectrum has no eigenvalue at the floor.")},
        {1,
         QT_TR_NOOP(
             "Orthogonal keys: many eigenvalues of Λ are zero. The training data is fitted "
             "perfectly, yet 'another exact fit' is far off out of distribution — the certificate "
             "says so before any test data is seen.")},
        {2,
         QT_TR_NOOP(
             "A random multi-head teacher: the learned heads match the teacher's in canonical SVD form, "
             "and P matches P*. Hover a cell for its value.")},
        {3,
         QT_TR_NOOP(
             "Gradient descent on the same task with 1, 2, 4 and 8 heads: more heads train better, "
             "and the dashed grey lines are the exact solver's answer they approach.")},
        {4, QT_TR_NOOP(
                "Executing an automaton from its transition table in the prompt: one-hot codes are "
                "never certified, Gaussian codes are — compare step and word accuracy.")},
        {5, QT_TR_NOOP(
                "A 1-head teacher whose symmetric representative unfold(P) has rank 16: read "
                "naively, the fit uses 16 heads. The sentence under the head selector gives the "
                "fewest heads that compute the same function (min_heads), and the minimal head is "
                "drawn beside the teacher's.")},
        {6,
         QT_TR_NOOP(
             "Orthonormal keys leave exact relations among the features that no amount of data "
             "removes. Pick a relation and move the slider: the training error stays at round-off "
             "while the error on new prompts grows — the data cannot tell these models apart.")},
        {7,
         QT_TR_NOOP(
             "How many samples does the certificate need? Λ has rank at most N, so at least D = "
             "126 samples. In the λ_min-vs-samples plot the checkpoints before the dashed marker "
             "(certificate_samples) are singular, drawn as triangles at the floor; after it "
             "λ_min is above τ.")},
        {8,
         QT_TR_NOOP(
             "Certified is not the same as accurate: with label noise every run is certified (the "
             "fit is unique), but it is off by the noise. The noise line on this tab "
             "compares the predicted error with the measured one; select the runs in turn to see "
             "it fall as N grows.")},
    };
    const int n = static_cast<int>(std::size(stops));
    if (step < 0 || step >= n || stops[step].preset >= builtinPresets().size()) return;
    const Stop& st = stops[step];
    loadPreset(st.preset);
    QString tabName = builtinPresets()[st.preset].tab;
    for (const ResultPanel* p : m_resultPanels)
        if (p->panelId() == tabName) tabName = p->tabName();
    setExplanation(
        tr("<h3>Tour %1 of %2: %3</h3><p>%4</p><p>Press <b>Run</b> (Ctrl+R), then look at the "
           "<b>%5</b> tab.</p>%6")
            .arg(step + 1)
            .arg(n)
            .arg(builtinPresets()[st.preset].title.toHtmlEscaped(), tr(st.look),
                 tabName.toHtmlEscaped(),
                 step + 1 < n ? tr("<p><a href='tour:%1'>Next stop →</a></p>").arg(step + 1)
                              : tr("<p>End of the tour.</p>")));
}

QString MainWindow::openResults(const QString& dir) {
    QString error;
    const std::optional<ResultFolder> folder = readResultFolder(dir, &error);
    if (!folder) return error;
    const QString abs = QFileInfo(dir).absoluteFilePath();
    addFinishedRun(folder->name, folder->result, abs);
    m_settings.addRecentFile(abs);
    updateRecentMenu();
    const QJsonObject experiment = experimentToJson(folder->result.config);
    // The form shows the loaded run's experiment (ready to rerun or vary) unless it holds
    // unsaved edits, which are never replaced silently. The form is then untitled: Save asks
    // for a name, so the file open before is not overwritten with the run's settings, and the
    // folder is not taken for an experiment file.
    const bool keepForm = isWindowModified();
    if (!keepForm) {
        m_panel->setExperiment(experiment);
        setCurrentFile(QString());
    }
    QString note =
        tr("<h3>%1</h3><p>Results loaded from %2.</p>")
            .arg(folder->name.toHtmlEscaped(), QDir::toNativeSeparators(abs).toHtmlEscaped());
    for (const QString& n : folder->notes)
        note += QStringLiteral("<p>%1.</p>").arg(n.toHtmlEscaped());
    note +=
        tr("<p>Its experiment%1:</p><pre>%2</pre>")
            .arg(keepForm ? tr(" (the form keeps your unsaved edits)") : tr(" (now in the form)"),
                 QString::fromUtf8(QJsonDocument(experiment).toJson(QJsonDocument::Indented))
                     .toHtmlEscaped());
    setExplanation(note);
    statusBar()->showMessage(
        keepForm
            ? tr("Loaded %1; the form keeps your unsaved edits: the run's settings are in "
                 "About this experiment")
                  .arg(QDir::toNativeSeparators(abs))
            : tr("Loaded %1; its experiment is in the form").arg(QDir::toNativeSeparators(abs)),
        keepForm ? 10000 : 4000);
    return {};
}

std::vector<SessionRun> MainWindow::sessionRuns() const {
    std::vector<SessionRun> runs;
    for (const RunRecord* r : m_runs->allRuns())
        if (r->result && r->state == RunRecord::State::Finished)
            runs.push_back(SessionRun{r->name, r->color, r->visible, *r->result, {}, r->batch});
    return runs;
}

QString MainWindow::saveSession(const QString& dir) {
    std::vector<SessionRun> runs = sessionRuns();
    const int skipped = m_runs->count() - static_cast<int>(runs.size());
    if (const QString err =
            writeSession(dir, std::move(runs), nullptr, SessionView{m_curves->smoothing()});
        !err.isEmpty())
        return err;
    statusBar()->showMessage(
        skipped > 0 ? (skipped == 1 ? tr("Session saved to %1 (1 run without a result left out)")
                                    : tr("Session saved to %1 (%n runs without a result left out)",
                                         nullptr, skipped))
                          .arg(QDir::toNativeSeparators(dir))
                    : tr("Session saved to %1").arg(QDir::toNativeSeparators(dir)),
        6000);
    return {};
}

QString MainWindow::openSession(const QString& dir, bool replace, QStringList* skipped) {
    QString error;
    QStringList left;
    SessionView view;
    std::optional<std::vector<SessionRun>> runs = readSession(dir, &error, &left, &view);
    if (!runs) return error;
    loadSession(dir, *runs, view, replace, left.size());
    if (skipped) *skipped = left;
    return {};
}

void MainWindow::loadSession(const QString& dir, const std::vector<SessionRun>& runs,
                             const SessionView& view, bool replace, qsizetype skipped) {
    if (replace) {
        stopRuns();
        m_runs->clear();
    }
    const QString abs = QFileInfo(dir).absoluteFilePath();
    addSessionRuns(runs, abs);
    if (view.smoothing) m_curves->setSmoothing(*view.smoothing);
    m_settings.addRecentFile(abs);
    updateRecentMenu();
    const qsizetype n = static_cast<qsizetype>(runs.size());
    QString text =
        tr("Opened session %1 (%2)")
            .arg(
                QDir::toNativeSeparators(abs),
                skipped > 0
                    ? tr("%1 of %2 runs; %3 could not be read").arg(n).arg(n + skipped).arg(skipped)
                    : countOf(n, tr("run"), tr("runs")));
    statusBar()->showMessage(text, skipped > 0 ? 15000 : 6000);
}

int MainWindow::addSessionRuns(const std::vector<SessionRun>& runs, const QString& loadedFrom) {
    int last = 0;
    // The run list's signals wait until every run is in: each one redrew every overlay panel
    // over all runs so far, so opening a session took time quadratic in its runs (issue 26
    // item 7: 100 / 200 / 400 runs took 3.0 / 17.7 / > 61 s). One redraw at the end.
    std::optional<QSignalBlocker> batch(m_runs);
    std::map<int, int> batches; // the session's batch numbers -> new ones in this window
    for (const SessionRun& s : runs) {
        RunRecord& r = m_runs->add(s.name, s.result.config);
        if (s.batch > 0) {
            auto [it, fresh] = batches.try_emplace(s.batch, 0);
            if (fresh) it->second = m_runs->newBatch();
            r.batch = it->second;
        }
        r.name = s.name;                    // as saved (add() numbers new runs)
        m_runs->preferColor(r.id, s.color); // its saved colour unless another run on screen has it
        m_runs->setRunVisible(r.id, s.visible);
        if (!s.visible) r.color = s.color;
        r.result = s.result;
        r.state = RunRecord::State::Finished;
        if (!loadedFrom.isEmpty()) r.loadedFrom = QDir(loadedFrom).filePath(s.folder);
        m_runs->refresh(r.id);
        last = r.id;
    }
    batch.reset();
    Q_EMIT m_runs->runsChanged(); // the overlays and the autosave, once
    m_runs->select(last);
    refreshCurrent();
    return last;
}

QString MainWindow::autosaveOffer() const {
    if (m_offerDir.isEmpty()) return {};
    return m_offerCount == 1
               ? tr("Restore the 1 run from the last session?")
               : tr("Restore the %n runs from the last session?", nullptr, m_offerCount);
}

QString MainWindow::restoreAutosave() {
    if (m_offerDir.isEmpty()) return tr("there is no session to restore");
    QString error;
    const std::optional<std::vector<SessionRun>> runs = readSession(m_offerDir, &error);
    if (!runs) return error;
    addSessionRuns(*runs, {});
    statusBar()->showMessage(runs->size() == 1 ? tr("Restored 1 run from the last session")
                                               : tr("Restored %n runs from the last session",
                                                    nullptr, static_cast<int>(runs->size())),
                             6000);
    declineAutosave(); // answered
    m_autosaveArmed = true;
    scheduleAutosave();
    return {};
}

void MainWindow::declineAutosave() {
    m_offerDir.clear();
    m_offerCount = 0;
    m_restoreBar->setVisible(false);
}

void MainWindow::scheduleAutosave() {
    m_autosaveDue = true;
    m_autosaveTimer.start();
}

namespace {
/// Writes runs as the session in `folder`, replacing it only once the new one is whole:
/// written beside it (folder.new), then swapped in by renames. No runs: the folder goes.
QString writeAutosave(const QString& folder, std::vector<SessionRun> runs) {
    const QString fresh = folder + QStringLiteral(".new"), old = folder + QStringLiteral(".old");
    QDir(fresh).removeRecursively();
    QDir(old).removeRecursively();
    if (!runs.empty())
        if (const QString err = writeSession(fresh, std::move(runs)); !err.isEmpty()) {
            QDir(fresh).removeRecursively();
            return err;
        }
    if (QFileInfo::exists(folder) && !QDir().rename(folder, old))
        return QObject::tr("cannot replace the autosave %1").arg(QDir::toNativeSeparators(folder));
    if (QFileInfo::exists(fresh) && !QDir().rename(fresh, folder))
        return QObject::tr("cannot move the autosave into %1")
            .arg(QDir::toNativeSeparators(folder));
    QDir(old).removeRecursively();
    return {};
}
} // namespace

void MainWindow::keepOfferedAside() {
    // The runs still offered are not replaced by this window's: they move beside the autosave
    // and the bar keeps offering them from there.
    const QString folder = AppSettings::autosaveFolder();
    if (m_offerDir != folder) return;
    const QString aside = folder + QStringLiteral(".previous");
    QDir(aside).removeRecursively();
    if (QDir().rename(folder, aside)) m_offerDir = aside;
}

void MainWindow::startAutosave() {
    if (!m_autosaveDue) return;
    if (m_autosaveBusy) return; // started again when the running write ends
    m_autosaveDue = false;
    keepOfferedAside();
    m_autosaveBusy = true;
    const QString folder = AppSettings::autosaveFolder();
    QPointer<MainWindow> self(this);
    QThreadPool::globalInstance()->start([self, folder, runs = sessionRuns()]() mutable {
        const QString err = writeAutosave(folder, std::move(runs));
        QMetaObject::invokeMethod(
            qApp,
            [self, err] {
                if (!self) return;
                self->m_autosaveBusy = false;
                Q_EMIT self->autosaved(err);
                if (self->m_autosaveDue) self->startAutosave();
            },
            Qt::QueuedConnection);
    });
}

QString MainWindow::autosaveNow() {
    m_autosaveTimer.stop();
    m_autosaveDue = false;
    QThreadPool::globalInstance()->waitForDone(); // a write under way ends first
    keepOfferedAside();
    const QString err = writeAutosave(AppSettings::autosaveFolder(), sessionRuns());
    Q_EMIT autosaved(err);
    return err;
}

void MainWindow::saveSessionInteractive() {
    bool any = false;
    for (const RunRecord* r : m_runs->allRuns()) any = any || r->result.has_value();
    if (!any) {
        QMessageBox::information(this, tr("Save session"),
                                 tr("There is no finished run to save yet."));
        return;
    }
    // A save dialog, not a folder picker: a folder picker cannot name a folder that does not
    // exist yet, which is what a new session wants. The suggested name is new in the last
    // folder used; an existing folder typed in is checked by sessionFolderRisk below.
    const QDir base(m_settings.lastDirectory());
    const QString stem = QStringLiteral("mhla-session-") +
                         QDateTime::currentDateTime().toString(QStringLiteral("yyyy-MM-dd-HHmm"));
    QString suggested = stem;
    for (int k = 2; base.exists(suggested); ++k) suggested = stem + QStringLiteral("-%1").arg(k);
    QFileDialog dialog(this, tr("Save the session as a folder (a new name, or an empty folder)"),
                       base.path());
    dialog.setObjectName(QStringLiteral("saveSessionDialog"));
    dialog.setAcceptMode(QFileDialog::AcceptSave);
    dialog.setFileMode(QFileDialog::AnyFile);
    dialog.setOption(QFileDialog::DontConfirmOverwrite); // sessionFolderRisk asks instead
    dialog.setLabelText(QFileDialog::FileName, tr("Folder:"));
    dialog.selectFile(suggested);
    if (dialog.exec() != QDialog::Accepted || dialog.selectedFiles().isEmpty()) return;
    const QString dir = QDir::cleanPath(dialog.selectedFiles().constFirst());
    if (dir.isEmpty()) return;
    m_settings.setLastDirectory(QFileInfo(dir).absolutePath());
    if (const QString risk = sessionFolderRisk(dir);
        !risk.isEmpty() && QMessageBox::question(this, tr("Save session"), risk,
                                                 QMessageBox::Yes | QMessageBox::Cancel,
                                                 QMessageBox::Cancel) != QMessageBox::Yes)
        return;
    if (const QString err = saveSession(dir); !err.isEmpty())
        QMessageBox::warning(this, tr("Save session failed"), err);
}

void MainWindow::openSessionInteractive() {
    const QString dir = QFileDialog::getExistingDirectory(
        this, tr("Open a session folder (session.json)"), m_settings.lastDirectory());
    if (dir.isEmpty()) return;
    m_settings.setLastDirectory(QFileInfo(dir).absolutePath());
    // The folder is read before anything is asked: a folder that is not a session says so at
    // once, and the question can count the runs it brings.
    QString error;
    QStringList skipped;
    SessionView view;
    const std::optional<std::vector<SessionRun>> runs = readSession(dir, &error, &skipped, &view);
    if (!runs) {
        QMessageBox::warning(this, tr("Open session"), error);
        return;
    }
    bool replace = false;
    if (m_runs->count() > 0) {
        const QString brings = countOf(static_cast<long long>(runs->size()), tr("run"), tr("runs"));
        QMessageBox box(QMessageBox::Question, tr("Open session"),
                        m_runs->count() == 1
                            ? tr("There is 1 run in this window. Add the session's %1 to it, "
                                 "or replace it?")
                                  .arg(brings)
                            : tr("There are %1 runs in this window. Add the session's %2 to "
                                 "them, or replace them?")
                                  .arg(m_runs->count())
                                  .arg(brings),
                        QMessageBox::Cancel, this);
        QPushButton* add = box.addButton(tr("Add"), QMessageBox::AcceptRole);
        QPushButton* repl = box.addButton(tr("Replace"), QMessageBox::DestructiveRole);
        box.setDefaultButton(add);
        box.exec();
        if (box.clickedButton() != add && box.clickedButton() != repl) return;
        replace = box.clickedButton() == repl;
    }
    loadSession(dir, *runs, view, replace, skipped.size());
    if (!skipped.isEmpty()) {
        constexpr int kListed = 5;
        QString text = tr("%1 of the session could not be read and %2 left out; the others are "
                          "open.")
                           .arg(countOf(skipped.size(), tr("run"), tr("runs")),
                                skipped.size() == 1 ? tr("was") : tr("were"));
        for (qsizetype i = 0; i < std::min<qsizetype>(skipped.size(), kListed); ++i)
            text += QStringLiteral("\n\n") + skipped[i];
        if (skipped.size() > kListed)
            text += QStringLiteral("\n") + tr("… and %1 more").arg(skipped.size() - kListed);
        QMessageBox::warning(this, tr("Open session"), text);
    }
}

QString MainWindow::openPath(const QString& path) {
    if (QFileInfo(path).isDir() && isSessionFolder(path)) return openSession(path, false);
    if (QFileInfo(path).isDir() && isResultFolder(path)) return openResults(path);
    if (path.endsWith(u".npy", Qt::CaseInsensitive) || path.endsWith(u".npz", Qt::CaseInsensitive))
        return openData({path});
    return openExperiment(path);
}

QString MainWindow::openRecent(const QString& path) {
    QString err = QFileInfo::exists(path) ? openPath(path) : tr("%1 no longer exists.").arg(path);
    // A file that no longer opens cleanly leaves Open Recent (it went in only when it did).
    if (!err.isEmpty()) {
        m_settings.removeRecentFile(path);
        updateRecentMenu();
    }
    return err;
}

QString MainWindow::copyCurrentFigure(bool paper) {
    const int tab = m_tabs->currentIndex();
    const QList<const Figure*> figs = tab >= 0 && tab < m_resultPanels.size()
                                          ? m_resultPanels[tab]->figures()
                                          : QList<const Figure*>{};
    for (const Figure* f : figs) {
        if (!f->hasData()) continue;
        const auto* plot = dynamic_cast<const PlotWidget*>(f);
        if (paper && plot) {
            const PaperFigure pf(*plot, PaperStyle::oneColumn());
            return copyFigureToClipboard(pf, pf.pixelSize(300), 300);
        }
        return copyFigureToClipboard(*f, m_settings.exportSize(), m_settings.exportDpi());
    }
    return tr("Nothing to copy on this tab yet");
}

QString MainWindow::droppedPath(const QMimeData* mime) {
    if (!mime || !mime->hasUrls() || mime->urls().size() != 1) return {};
    const QUrl url = mime->urls().first();
    if (!url.isLocalFile()) return {};
    const QFileInfo fi(url.toLocalFile());
    if (fi.isDir() || (fi.isFile() && fi.suffix().compare(u"json", Qt::CaseInsensitive) == 0))
        return fi.absoluteFilePath();
    return {};
}

QStringList MainWindow::droppedData(const QMimeData* mime) {
    if (!mime || !mime->hasUrls() || mime->urls().isEmpty() || mime->urls().size() > 2) return {};
    QStringList out;
    for (const QUrl& url : mime->urls()) {
        const QFileInfo fi(url.toLocalFile());
        const bool npz = fi.suffix().compare(u"npz", Qt::CaseInsensitive) == 0;
        if (!url.isLocalFile() || !fi.isFile() ||
            (fi.suffix().compare(u"npy", Qt::CaseInsensitive) != 0 && !npz) ||
            (npz && mime->urls().size() != 1))
            return {};
        out << fi.absoluteFilePath();
    }
    return out;
}

QString MainWindow::openDropped(const QMimeData* mime) {
    if (const QStringList data = droppedData(mime); !data.isEmpty()) {
        m_settings.setLastDirectory(QFileInfo(data.first()).absolutePath());
        return openData(data);
    }
    const QString path = droppedPath(mime);
    if (path.isEmpty())
        return tr("drop one experiment file (.json), one results folder, one or two .npy "
                  "files (prompts, and optionally targets), or one .npz archive");
    m_settings.setLastDirectory(QFileInfo(path).absolutePath());
    return openPath(path);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* e) {
    if (!droppedPath(e->mimeData()).isEmpty() || !droppedData(e->mimeData()).isEmpty())
        e->acceptProposedAction();
    else e->ignore();
}

void MainWindow::dropEvent(QDropEvent* e) {
    const QString path = droppedPath(e->mimeData());
    const bool data = !droppedData(e->mimeData()).isEmpty();
    if (path.isEmpty() && !data) {
        e->ignore();
        return;
    }
    if ((data || opensIntoForm(path)) && !confirm(tr("Open"), discardEditsQuestion())) {
        e->ignore();
        return;
    }
    e->acceptProposedAction(); // after the question: its event loop leaves the event ignored
    const QString err = openDropped(e->mimeData());
    if (!err.isEmpty()) QMessageBox::warning(this, tr("Could not open"), err);
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
