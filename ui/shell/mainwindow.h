#pragma once
// The main window: experiment panel (left), result tabs (certificate, curves, heads,
// automaton, explorer, sweep), run list and explanation (right), run control, files, export.
// Its definitions are split along their jobs: mainwindow.cpp (layout, run control, live
// drawing), mainwindowactions.cpp (menus, toolbar, tour), mainwindowdocuments.cpp (experiment,
// data and results files, drops), mainwindowsessions.cpp (sessions, autosave) and
// mainwindowexport.cpp (figures to files and the clipboard).
#include "core/run/runner.h"
#include "ui/export/figure.h"
#include "ui/panels/resultpanel.h"
#include "ui/shell/appsettings.h"
#include <QElapsedTimer>
#include <QMainWindow>
#include <QSet>
#include <QTimer>
#include <vector>

class QAction;
class QLabel;
class QMenu;
class QProgressBar;
class QTabWidget;
class QTextBrowser;

class QMimeData;

namespace mhla::ui {

class AutomatonPanel;
class ElidedLabel;
class CertificatePanel;
class CurvesPanel;
class DataStatistics;
class ExperimentPanel;
class HeadsPanel;
class RunController;
class RunList;
struct RunProgress;
struct RunRecord;
struct SessionRun;
struct SessionView;
struct ExportMetadata;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    ExperimentPanel* experimentPanel() const { return m_panel; }
    RunList* runList() const { return m_runs; }
    /// How often the overlay panels were given the visible runs (for tests: opening a session
    /// redraws them once, not once per run).
    int overlayRefreshCount() const { return m_overlayRefreshes; }
    RunController* controller() const { return m_controller; }
    CertificatePanel* certificatePanel() const { return m_certificate; }
    CurvesPanel* curvesPanel() const { return m_curves; }
    HeadsPanel* headsPanel() const { return m_heads; }

    /// Loads built-in preset i.
    void loadPreset(int index);
    /// Starts the panel's run(s). Returns false if the experiment is invalid.
    bool startRuns();
    void stopRuns();
    /// Clears every run and starts the form's run(s) again, without asking: Run ▸ Clear and
    /// rerun (Ctrl+Shift+R) and the panel's button ask first (resetQuestion()).
    void resetRuns();
    /// Why "Clear and rerun" needs confirmation (runs would be deleted), or an empty string.
    [[nodiscard]] QString resetQuestion() const;
    /// Why replacing the form (Open, Open recent, a drop, a preset from the menu) needs
    /// confirmation (unsaved edits), or an empty string.
    [[nodiscard]] QString discardEditsQuestion() const;
    /// Opens an experiment file; returns core's error message. A file that is not an
    /// experiment file (not JSON, repeated or unknown keys, a result.json) changes nothing; an
    /// experiment file with bad values fills the form with them marked. Only valid files go
    /// into Open Recent.
    /// A results folder (from solve --out or Export all) opens its experiment.json.
    QString openExperiment(const QString& pathOrFolder);
    /// File ▸ Open data… and .npy files dropped on the window: fills the form with a dataset
    /// experiment on one or two .npy files (which is which by shape, core's pairDataFiles), the
    /// solver and evaluation at their defaults, and the Experiment note gives the data's shape.
    /// Files that do not pair or read change nothing; returns the error.
    QString openData(const QStringList& npyFiles);
    /// Loads a results folder (result.json + CSVs from `solve --out` or Export all) as a
    /// finished run, marked as loaded from dir and named after it, and selects it. A folder
    /// that does not read changes nothing and stays out of Open Recent; returns the error.
    QString openResults(const QString& dir);
    /// What File ▸ Open recent, a drop and `mhla-lab PATH` do: a folder holding result.json
    /// loads as a run (openResults), a .npy file as data (openData), anything else opens as an
    /// experiment (openExperiment).
    QString openPath(const QString& path);
    /// Writes every finished run into a session folder (ui/experiment/session.h); returns the
    /// error. The caller asks first when sessionFolderRisk(dir) says something would be replaced.
    QString saveSession(const QString& dir);
    /// Restores the runs of a session folder, after the runs there are (replace = false) or in
    /// their place, and the view it saved (the Curves tab's smoothing). A session.json that does
    /// not read, or a session none of whose runs reads, changes nothing; returns the error. Runs
    /// whose folders do not read are left out, their errors in *skipped; the status bar says so.
    QString openSession(const QString& dir, bool replace, QStringList* skipped = nullptr);
    /// Opens an entry of Open Recent; one that fails (gone, no longer an experiment, bad
    /// values) is taken out of the list. Returns the error or an empty string.
    QString openRecent(const QString& path);
    /// The file a drag carries when the window takes it: one local experiment file or results
    /// folder; empty otherwise.
    static QString droppedPath(const QMimeData* mime);
    /// The .npy files a drag carries: one or two local files ending in .npy; empty otherwise.
    static QStringList droppedData(const QMimeData* mime);
    /// Copies the first figure with data on the visible tab to the clipboard (as shown, or
    /// as a one-column paper figure); returns an error or an empty string.
    QString copyCurrentFigure(bool paper);
    /// Opens what a drop carries, exactly as Open does (a failed open changes nothing);
    /// returns the error or an empty string.
    QString openDropped(const QMimeData* mime);
    /// Why saving over `path` needs the user's confirmation (see overwriteRisk()); empty if not.
    QString saveRisk(const QString& path) const;
    QString currentFile() const { return m_currentFile; }
    /// Saves the panel's experiment; returns an error message or an empty string.
    QString saveExperiment(const QString& path);
    /// Adds a finished run computed elsewhere (the headless `figures` command, a results
    /// folder) and selects it; returns its id.
    int addFinishedRun(const QString& name, const ExperimentResult& result,
                       const QString& loadedFrom = {});
    /// Every figure of every panel, in tab order.
    QList<const Figure*> figures() const;
    /// Every table of every panel (e.g. the automaton's trace), for "Export all".
    QList<ExportTable> tables() const;
    /// The result panels, in tab order.
    const QList<ResultPanel*>& resultPanels() const { return m_resultPanels; }
    /// Writes every figure, CSV, experiment.json and result.json of the current run into `dir`.
    QString exportAllTo(const QString& dir, bool overwrite, QStringList* written = nullptr,
                        QStringList* existing = nullptr);
    /// Metadata for exports: the experiments of the runs a figure shows (the visible runs for
    /// overlay figures, the selected run otherwise; all visible runs when `figure` is null).
    ExportMetadata exportMetadata(const QString& title, const Figure* figure = nullptr) const;
    /// Shows one of the result tabs by name: certificate, curves, heads, automaton.
    void showTab(const QString& name);
    void applyTheme(ThemeChoice t);
    /// Why quitting needs confirmation (a run going, unsaved edits, runs that would be lost),
    /// or an empty string.
    QString closeQuestion() const;
    /// Quit without the confirmation (screenshots, scripted use).
    void setQuitWithoutAsking(bool on) { m_quitWithoutAsking = on; }
    /// Every shortcut of the menus, as an HTML table (Help ▸ Keyboard shortcuts).
    QString shortcutsHtml() const;
    /// Guided tour: loads stop `step` (a preset and a tab) and says what to look at.
    void showTourStep(int step);

    /// Autosave: after a run finishes (and after later changes to the list), the finished runs
    /// are written as a session into AppSettings::autosaveFolder(), off the GUI thread, this
    /// long after the last change. Never into a folder the user saved a session in.
    static constexpr int kAutosaveDelayMs = 1500;
    /// What the bar above the tabs offers at start ("Restore the 12 runs from the last
    /// session?"), or an empty string when there is nothing to restore or it was answered.
    QString autosaveOffer() const;
    /// Adds the offered runs to the list (as this window's own runs); returns the error.
    QString restoreAutosave();
    /// Declines the offer; the runs stay in the autosave folder until the next autosave.
    void declineAutosave();
    /// Writes the autosave now, on this thread (what closing the window does when one is due).
    QString autosaveNow();

    /// The watch speeds offered beside Max (epochs per second), for the toolbar's combo box.
    static constexpr double kWatchSpeeds[] = {50, 20, 10, 5, 2, 1};

    /// Presentation mode (View ▸ Presentation mode, F5): the window full screen, the side
    /// panels (docks) hidden, the result tabs, menus and toolbar in fonts, lines and markers
    /// kPresentationScale times their size, readable from the back of a room on a 1280×720
    /// projector. Leaving it brings back the docks, the window state and the fonts as they were.
    static constexpr double kPresentationScale = 1.6;
    void setPresentationMode(bool on);
    bool presentationMode() const { return m_presenting; }

    /// Live redraw budget: at most this many plot redraws per second in all, across every plot
    /// (what the eye needs to see a curve grow; the rest of the GUI thread is for input).
    static constexpr int kLiveRedrawsPerSecond = 20;
    /// While more runs of a batch are queued, the panels are redrawn for finished runs at most
    /// once per this many ms (the batch's last run at once).
    static constexpr int kFinishRedrawGapMs = 250;
    /// The live view may use at most this share of the wall time as GUI-thread CPU: a redraw
    /// cycle that cost the GUI thread t ms of CPU (the redraw, the paint events it scheduled,
    /// the progress stored meanwhile) is followed by one at least t / share ms long (a slow,
    /// loaded machine redraws less often, and input keeps the rest).
    static constexpr double kLiveRedrawShare = 0.1;
    /// Live redraws so far (each of the plots redrawn counts one), for tests and benchmarks.
    long long liveRedraws() const { return m_liveRedraws; }

Q_SIGNALS:
    /// An autosave was written (error empty) or failed.
    void autosaved(const QString& error);

protected:
    void closeEvent(QCloseEvent* e) override;
    void dragEnterEvent(QDragEnterEvent* e) override;
    void dropEvent(QDropEvent* e) override;

private:
    /// The File menu's actions the toolbar shows too.
    struct FileActions {
        QAction* open;
        QAction* save;
        QAction* exportFigure;
        QAction* exportAll;
    };
    void buildActions();
    FileActions buildFileMenu();
    void buildEditMenu();
    void buildRunMenu();
    void buildViewMenu();
    void buildHelpMenu();
    void buildToolBar(const FileActions& file);
    /// The widgets (mainwindowlayout.cpp): tabs, the restore bar, docks, status bar.
    void buildLayout();
    void buildTabs();
    QWidget* buildRestoreBar(QWidget* parent);
    void buildDocks();
    void buildStatusBar();
    /// The constructor's wiring, in order: the worker's signals, the experiment panel's, the
    /// result panels' handlers; then the saved geometry, and the autosave timer with the offer
    /// of the last session.
    void connectController();
    void connectPanel();
    void connectResultPanels();
    void restoreWindowGeometry();
    void setUpAutosave();
    void onProgress(int runId, const RunProgress& p);
    /// Draws the progress stored since the last live redraw: the run's line in the list and
    /// the status bar, and the plots of the visible tab (hidden tabs are drawn when shown).
    void flushLive();
    /// Schedules flushLive() no sooner than the redraw budget allows.
    void scheduleLive();
    /// Forgets undrawn live progress (the run ended and everything is drawn from its result).
    void dropLive();
    /// A tab was shown: draws the live points it missed while hidden.
    void onTabShown(int index);
    void onFinished(int runId, const ExperimentResult& r);
    void onFailed(int runId, const QString& message);
    void onCancelled(int runId);
    void refreshOverlay();
    void refreshCurrent();
    void updateRunState();
    void updateRecentMenu();
    void exportFigureInteractive(const Figure* f);
    void exportAllInteractive();
    void openInteractive();
    void resetInteractive();
    /// True when `question` is empty or the user answers Yes to it.
    bool confirm(const QString& title, const QString& question);
    /// Whether opening `path` replaces the form (an experiment, not a results or session folder).
    static bool opensIntoForm(const QString& path);
    /// Keeps a "Cannot run: …" in the status line true to the form (cleared once it is valid).
    void updateCannotRun();
    /// Marks the running run paused or not as the controller is, in the list and status line.
    void syncPaused();
    /// The status line of a run: "#3 SGD: training, running 38%" (a paused run: "#3 SGD: paused
    /// at 38%", its phase not repeated).
    [[nodiscard]] QString phaseLine(const RunRecord& r) const;
    /// "Cannot run: <first reason>", or an empty string when the form is valid.
    QString cannotRunText() const;
    /// The finished runs, as a session holds them.
    [[nodiscard]] std::vector<SessionRun> sessionRuns() const;
    /// Adds a session's runs to the list; loadedFrom: the session folder ("" for an autosave:
    /// the runs are this window's again). Returns the id of the last one.
    int addSessionRuns(const std::vector<SessionRun>& runs, const QString& loadedFrom);
    /// Adds a session's runs (read by readSession) as openSession does; `skipped` runs of it
    /// could not be read.
    void loadSession(const QString& dir, const std::vector<SessionRun>& runs,
                     const SessionView& view, bool replace, qsizetype skipped);
    /// Schedules an autosave (debounced, kAutosaveDelayMs).
    void scheduleAutosave();
    /// Starts the due autosave on the thread pool (one at a time).
    void startAutosave();
    /// The folder the next autosave writes: the offered runs are kept aside first.
    void keepOfferedAside();
    void saveSessionInteractive();
    void openSessionInteractive();
    bool saveInteractive(bool saveAs);
    void setCurrentFile(const QString& path);
    /// Shows html in the explanation dock; a data note's pending statistics are dropped.
    void setExplanation(const QString& html);
    template <class T> T* panelOf() const {
        for (ResultPanel* p : m_resultPanels)
            if (auto* t = dynamic_cast<T*>(p)) return t;
        return nullptr;
    }

    AppSettings m_settings;
    ExperimentPanel* m_panel = nullptr;
    RunList* m_runs = nullptr;
    RunController* m_controller = nullptr;
    QTabWidget* m_tabs = nullptr;
    QList<ResultPanel*> m_resultPanels; ///< the tabs, from createResultPanels()
    CertificatePanel* m_certificate = nullptr;
    CurvesPanel* m_curves = nullptr;
    HeadsPanel* m_heads = nullptr;
    AutomatonPanel* m_automaton = nullptr;
    QTextBrowser* m_explanation = nullptr;
    DataStatistics* m_dataStats = nullptr; ///< the opened data's values, read off this thread
    QString m_dataNote;                    ///< the opened data's note, while its statistics load
    ElidedLabel* m_phase = nullptr;
    QProgressBar* m_progress = nullptr;
    QMenu* m_recentMenu = nullptr;
    QAction* m_runAction = nullptr;
    QAction* m_stopAction = nullptr;
    QAction* m_resetAction = nullptr;
    QString m_currentFile;
    QByteArray m_currentFileBytes; ///< the current file as read or written here (null: unknown)
    int m_lastStarted = 0;
    bool m_quitWithoutAsking = false;
    bool m_saysCannotRun = false; ///< the status line shows cannotRunText()
    // Live redraw (flushLive): the run with progress not drawn yet, when the next redraw may
    // start (m_liveClock ms), and the panels that missed live points while their tab was hidden.
    QTimer m_liveTimer;
    QElapsedTimer m_liveClock;
    qint64 m_liveNextMs = 0;
    int m_liveRun = 0;
    QSet<ResultPanel*> m_liveStale;
    long long m_liveRedraws = 0;
    double m_liveCpuMark = -1; ///< the GUI thread's CPU seconds when the last redraw began
    // Autosave (scheduleAutosave): armed by the first finished run or a restore.
    QTimer m_autosaveTimer;
    bool m_autosaveArmed = false;
    bool m_autosaveBusy = false;
    bool m_autosaveDue = false;
    QString m_autosaveError; ///< the last autosave's error (empty: it worked)
    QString m_offerDir;      ///< the folder whose runs the restore bar offers (empty: none)
    int m_offerCount = 0;    ///< how many runs it holds
    // Presentation mode (setPresentationMode): what it changed, to be put back.
    bool m_presenting = false;
    QAction* m_presentAction = nullptr;
    QByteArray m_presentDocks;             ///< saveState() before: docks and toolbar
    Qt::WindowStates m_presentWindowState; ///< maximized, full screen or normal before
    bool m_presentHadFont = false;         ///< the window had a font of its own before
    QFont m_presentFont, m_presentAppFont; ///< that font
    QString m_presentPhase;                ///< the status text the hint replaced
    static QString presentationHint();     ///< the status text saying how to leave
    QWidget* m_restoreBar = nullptr;
    QLabel* m_restoreText = nullptr;
    int m_overlayRefreshes = 0;
    // Redraws when a run of a batch starts or ends (redrawPaced): while more runs are queued,
    // at most one per kFinishRedrawGapMs; the batch's last run draws at once.
    QTimer m_finishRedrawTimer;
    QElapsedTimer m_lastFinishRedraw;
    bool m_pacedSelect = false; ///< the run list selects a run that has just started
    void redrawPaced();
};

} // namespace mhla::ui
