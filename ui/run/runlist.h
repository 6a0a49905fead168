#pragma once
// The runs of a session: each has a name, a colour, a visibility, its config, the live training
// data while it runs and its result when done. The widget shows, hides, renames and removes
// them. Colours go by what is on screen (RunColorAssigner): the visible runs have distinct
// colours, kept while they stay visible; a hidden run keeps its last colour in the list.
#include "core/run/runner.h"
#include "ui/plot/colormap.h"
#include <QColor>
#include <QWidget>
#include <memory>
#include <optional>
#include <vector>

class QTreeWidget;
class QTreeWidgetItem;

namespace mhla::ui {

struct RunRecord {
    enum class State { Queued, Running, Finished, Failed, Cancelled };
    int id = 0;
    QString name;
    QColor color;
    /// The second cue when more runs are on screen than colours (PlotSeries::mark): 0 for the
    /// first visible run of each colour, 1, 2, … for the next ones in list order.
    int mark = 0;
    bool visible = true;
    /// Training is paused between epochs (only while Running).
    bool paused = false;
    ExperimentConfig config;
    State state = State::Queued;
    QString message;
    QString phase;
    double fraction = 0;       ///< of the whole run, 0..1 (core's one progress model)
    qint64 startedMs = -1;     ///< wall clock when the worker started it (ms since epoch)
    qint64 endedMs = -1;       ///< wall clock when it ended
    qint64 pausedMs = 0;       ///< time spent paused before the current pause (ms)
    qint64 pausedSinceMs = -1; ///< wall clock when the current pause began (-1: not paused)
    std::vector<HistoryPoint> liveHistory;
    std::vector<std::pair<long long, double>> liveTrace;
    std::optional<ExperimentResult> result;
    /// The results folder this run was read from (File ▸ Open results…); empty for runs
    /// computed in this window.
    QString loadedFrom;
    /// The group the run was made in: every run of one Run click (a preset's sweep, seeds)
    /// shares one number, which the Sweep tab draws as one sweep; sessions keep it. 0: none
    /// (a run opened from a results folder, a test's run).
    int batch = 0;

    /// Pauses or resumes at wall clock nowMs (sets `paused` and keeps the paused time).
    void setPaused(bool on, qint64 nowMs);
    /// Time spent running at wall clock nowMs (or at the end): the paused time left out, so
    /// the elapsed time, the time left and "took" count the training, not the pauses.
    [[nodiscard]] qint64 runningMs(qint64 nowMs) const;

    const std::vector<HistoryPoint>& history() const {
        return result ? result->history : liveHistory;
    }
    const std::vector<std::pair<long long, double>>& trace() const {
        return result && !result->lambdaTrace.empty() ? result->lambdaTrace : liveTrace;
    }
    /// "queued", "running 42% · 0:12, ~0:16 left", "done · certified · 3.1 s", …: the one
    /// progress text of the run list and the status bar.
    QString stateText() const;
    /// Elapsed and estimated remaining time of a running run ("0:12, ~0:16 left").
    QString timeText(qint64 nowMs) const;
};

class RunList : public QWidget {
    Q_OBJECT
public:
    explicit RunList(QWidget* parent = nullptr);
    ~RunList() override;

    /// Adds a queued, visible run with a free colour; returns it.
    RunRecord& add(const QString& name, const ExperimentConfig& cfg);
    RunRecord* find(int id);
    const RunRecord* find(int id) const;
    /// Runs shown in overlay plots, in creation order.
    QList<const RunRecord*> visibleRuns() const;
    QList<const RunRecord*> allRuns() const;
    /// The run the single-run panels show: the selected one, else the newest with a result.
    const RunRecord* current() const;
    void select(int id);
    void remove(int id);
    void clear();
    /// A batch number not used yet in this window (RunRecord::batch), from 1 up.
    int newBatch() { return m_nextBatch++; }
    /// Shows or hides a run in every plot (what its tick in the list does).
    void setRunVisible(int id, bool visible);
    /// Renames a run (double-click, F2 or Rename in its context menu): the name its legends,
    /// titles, exports and sessions use. Surrounding spaces are dropped; an empty name or one
    /// another run has is refused with the reason (and the list shows the old name again).
    [[nodiscard]] QString rename(int id, const QString& name);
    /// Starts editing the name of run `id` in the list (what F2 does).
    void editName(int id);
    /// The run whose name is `name`, or nullptr.
    [[nodiscard]] const RunRecord* findByName(const QString& name) const;
    /// Asks for the colour `c` for run `id` whenever it is free (a session's saved colour).
    void preferColor(int id, const QColor& c);
    /// Re-reads a record's name, state and colour into the list.
    void refresh(int id);
    int count() const { return static_cast<int>(m_runs.size()); }

Q_SIGNALS:
    /// Visibility, names or the set of runs changed (overlay plots must be redrawn).
    void runsChanged();
    /// A rename was refused (why, for the status bar).
    void renameRefused(const QString& reason);
    /// The run shown by the single-run panels changed.
    void currentChanged();

private:
    QTreeWidgetItem* itemFor(int id) const;
    /// Gives the visible runs their colours (m_colors) and redraws the swatches that changed.
    void recolor();
    QTreeWidget* m_tree = nullptr;
    std::vector<std::unique_ptr<RunRecord>> m_runs;
    int m_nextId = 1;
    int m_nextBatch = 1;
    RunColorAssigner m_colors;
    bool m_updating = false;
};

} // namespace mhla::ui
