// The main window's widgets: the result tabs (each in a scroll area), the bar that offers the
// last session back, the docks (experiment, runs, explanation) and the status bar. How they
// are wired is mainwindow.cpp's; the menus and toolbar are mainwindowactions.cpp's.
#include "ui/experiment/experimentpanel.h"
#include "ui/panels/automatonpanel.h"
#include "ui/panels/certificatepanel.h"
#include "ui/panels/curvespanel.h"
#include "ui/panels/explanations.h"
#include "ui/panels/headspanel.h"
#include "ui/plot/elidedlabel.h"
#include "ui/plot/fitscrollarea.h"
#include "ui/run/runlist.h"
#include "ui/shell/mainwindow.h"
#include "ui/shell/resulttabs.h"
#include <QDesktopServices>
#include <QDockWidget>
#include <QFrame>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QStatusBar>
#include <QTabWidget>
#include <QTextBrowser>
#include <QUrl>
#include <QVBoxLayout>

namespace mhla::ui {

void MainWindow::buildLayout() {
    buildTabs();
    auto* central = new QWidget(this);
    auto* centralLayout = new QVBoxLayout(central);
    centralLayout->setContentsMargins(0, 0, 0, 0);
    centralLayout->setSpacing(0);
    centralLayout->addWidget(buildRestoreBar(central));
    centralLayout->addWidget(m_tabs, 1);
    setCentralWidget(central);
    buildDocks();
    buildStatusBar();
}

void MainWindow::buildTabs() {
    m_tabs = new ResultTabs(this); // every tab one click away (see resulttabs.h)
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
        const int index = m_tabs->addTab(scroll, panel->tabName());
        m_tabs->setTabToolTip(index, panel->tabName());
    }
    m_certificate = panelOf<CertificatePanel>();
    m_curves = panelOf<CurvesPanel>();
    m_heads = panelOf<HeadsPanel>();
    m_automaton = panelOf<AutomatonPanel>();
}

QWidget* MainWindow::buildRestoreBar(QWidget* parent) {
    // The bar that offers the runs of the last session back (autosave), above the tabs.
    m_restoreBar = new QFrame(parent);
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
    return m_restoreBar;
}

void MainWindow::buildDocks() {
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
}

void MainWindow::buildStatusBar() {
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

} // namespace mhla::ui
