#pragma once
// The Sweep tab: one sweep of the visible runs — the runs of one Run click (RunRecord::batch;
// the newest unless another is chosen), or all visible runs — drawn as a sweep (the keys in
// which they differ are the swept keys, their seeds the seeds), drawn as the headless `figures`
// draws a sweep: a metric against a swept key with a band over seeds, or the trainers' learning
// curves. It redraws as each run of a preset's sweep finishes. The reduction is core's
// (core/sweep/sweepfigure.h).
#include "core/sweep/sweepfigure.h"
#include "ui/panels/resultpanel.h"
#include <QHash>
#include <QJsonObject>
#include <QWidget>

class QComboBox;
class QLabel;

namespace mhla::ui {

class ElidedComboBox;
class PlotWidget;

class SweepPanel : public QWidget, public ResultPanel {
    Q_OBJECT
public:
    explicit SweepPanel(QWidget* parent = nullptr);
    QString panelId() const override { return QStringLiteral("sweep"); }
    QString tabName() const override { return tr("Sweep"); }
    QWidget* widget() override { return this; }
    void showRun(const RunRecord* run) override { (void)run; }
    void showRuns(const QList<const RunRecord*>& runs) override;
    bool overlaysRuns() const override { return true; }
    QList<const Figure*> figures() const override;
    /// What is drawn now (for tests): the reduced figure, empty when nothing is drawn.
    const SweepFigureData& data() const { return m_data; }
    QString status() const;

    /// The runs drawn now: the chosen group's (all given runs when there are no groups).
    QList<const RunRecord*> drawnRuns() const;

    /// The "figures" of an opened sweep file (core/sweep/sweepfigure.h): offered first in the
    /// view box, chosen, and drawn as `mhla-lab figures` draws them (their metrics, bands, log
    /// axes and titles). Runs they do not fit get the default figure and a line that says why.
    /// An undefined value (a file without figures, a preset) takes them away. `source`: the
    /// file's name, for the box.
    void setFileFigures(const QJsonValue& figures, const QString& source);

private:
    void redraw();
    void updateGroups();
    /// The spec to draw for `plan` from the view, metric and band boxes; `problem` says why
    /// a file's figure chosen in the view box could not be drawn (the default is drawn then).
    [[nodiscard]] SweepFigureSpec chosenSpec(const SweepPlan& plan, QString* problem) const;

    ElidedComboBox* m_view = nullptr;
    ElidedComboBox* m_metric = nullptr;
    ElidedComboBox* m_band = nullptr;
    ElidedComboBox* m_group = nullptr; ///< which runs: a batch, or all visible runs (kAllRuns)
    static constexpr int kAllRuns = -1;
    int m_chosen = kAllRuns - 1; ///< the batch chosen in m_group; below kAllRuns: the newest
    int m_newest = 0;            ///< the newest batch when the choice was made
    QLabel* m_status = nullptr;
    PlotWidget* m_plot = nullptr;
    QList<const RunRecord*> m_runs;
    QHash<int, QJsonObject> m_results; ///< result.json of finished runs, by run id
    SweepFigureData m_data;
    QJsonValue m_fileFigures; ///< setFileFigures()
    QString m_fileSource;
};

} // namespace mhla::ui
