// The main window's menus, toolbar, keyboard shortcuts and guided tour.
#include "core/algebra/features.h"
#include "core/experiment/config.h"
#include "ui/experiment/experimentpanel.h"
#include "ui/experiment/presets.h"
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
#include "ui/run/runcontroller.h"
#include "ui/run/runlist.h"
#include "ui/shell/exportdialog.h"
#include "ui/shell/mainwindow.h"
#include <QAction>
#include <QActionGroup>
#include <QComboBox>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QStatusBar>
#include <QToolBar>

namespace mhla::ui {

void MainWindow::buildActions() {
    const FileActions fileActions = buildFileMenu();
    buildEditMenu();
    buildRunMenu();
    buildViewMenu();
    buildHelpMenu();
    buildToolBar(fileActions);
}

MainWindow::FileActions MainWindow::buildFileMenu() {
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
    return {openAct, saveAct, exportAct, exportAllAct};
}

void MainWindow::buildEditMenu() {
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
}

void MainWindow::buildRunMenu() {
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
}

void MainWindow::buildViewMenu() {
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
}

void MainWindow::buildHelpMenu() {
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
}

void MainWindow::buildToolBar(const FileActions& file) {
    auto* tb = addToolBar(tr("Run"));
    tb->setObjectName(QStringLiteral("runToolBar"));
    tb->addAction(file.open);
    tb->addAction(file.save);
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
    // A click opens the list without keeping the keyboard focus: a combo with the focus took
    // Ctrl+PgDn (next tab) as "next speed" and changed the pace unseen. Tab still reaches it.
    speed->setFocusPolicy(Qt::TabFocus);
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
    tb->addAction(file.exportFigure);
    tb->addAction(file.exportAll);
    m_runAction->setToolTip(tr("Run the experiment (Ctrl+R)"));
    m_stopAction->setToolTip(tr("Stop at once (Esc)"));
    m_resetAction->setToolTip(
        tr("Clear all runs and run again with the same seeds (Ctrl+Shift+R)"));
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
             "Orthogonal keys: some eigenvalues of Λ are zero (the badge counts them). The "
             "training data is fitted perfectly, yet 'another exact fit' is far off out of distribution — the certificate "
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

} // namespace mhla::ui
