#pragma once
// Training curves of the visible runs overlaid (by default those comparable with the selected
// run): train / val / OOD loss vs epochs and the distance to the teacher, with the exact
// solver's values as horizontal reference lines.
#include "ui/panels/resultpanel.h"
#include "ui/plot/plotmath.h"
#include "ui/run/runlist.h"
#include <QWidget>
#include <optional>

class QCheckBox;
class QLabel;
class QResizeEvent;
class QSlider;
class QSplitter;

namespace mhla::ui {

class Figure;
class PlotWidget;

class CurvesPanel : public QWidget, public ResultPanel {
    Q_OBJECT
public:
    explicit CurvesPanel(QWidget* parent = nullptr);
    // ResultPanel
    QString panelId() const override { return QStringLiteral("curves"); }
    QString tabName() const override { return tr("Curves"); }
    QWidget* widget() override { return this; }
    /// The selected run: by default only runs comparable with it are overlaid.
    void showRun(const RunRecord* run) override;
    void showRuns(const QList<const RunRecord*>& runs) override;
    bool overlaysRuns() const override { return true; }
    QList<int> drawnRunIds() const override { return m_drawnRunIds; }
    void liveUpdate(const RunRecord* run, const QList<const RunRecord*>& visible, bool) override {
        if (run->visible && !run->history().empty()) showRuns(visible);
    }
    PlotWidget* lossPlot() const { return m_loss; }
    PlotWidget* distancePlot() const { return m_distance; }
    QList<const Figure*> figures() const override;
    /// Runs that differ only in task.seed / solver.seed are drawn as their median with a min–max
    /// band.
    bool seedBands() const;
    void setSeedBands(bool on);
    /// Overlay every visible run, not only those comparable with the selected run (same task
    /// kind and output dimension: the same y quantity). Off by default: the losses of
    /// unrelated tasks are different quantities on one axis.
    bool showAllTasks() const;
    void setShowAllTasks(bool on);
    /// Whether two runs' curves measure the same quantity (same task kind and d_out).
    static bool comparable(const ExperimentConfig& a, const ExperimentConfig& b);
    /// TensorBoard-style smoothing of the training curves, weight in [0, 0.99]; 0 = raw.
    double smoothing() const;
    void setSmoothing(double weight);

protected:
    /// Wide and short (presentation mode on a 16:9 projector): the two plots side by side,
    /// else one above the other.
    void resizeEvent(QResizeEvent* event) override;

Q_SIGNALS:
    void exportRequested(const mhla::ui::Figure* figure);
    /// The band option changed: the owner redraws with its current runs.
    void displayChanged();

private:
    /// The collected series in the two plots, with axis titles and notes that say what they show
    /// (`anyHistory`: some run has training curves; `anyRun`: some run is drawn at all).
    void showCurves(const QList<PlotSeries>& loss, const QList<PlotSeries>& dist, bool anyHistory,
                    bool anyRun);
    QCheckBox* m_bandCheck = nullptr;
    QCheckBox* m_allTasksCheck = nullptr;
    QWidget* m_otherTasksRow = nullptr;
    std::optional<ExperimentConfig> m_reference; ///< config of the selected run
    QList<int> m_drawnRunIds;                    ///< the runs the plots show (ids)
    QSlider* m_smoothSlider = nullptr;
    QLabel* m_smoothValue = nullptr;
    PlotWidget* m_loss = nullptr;
    PlotWidget* m_distance = nullptr;
    QSplitter* m_split = nullptr;
};

} // namespace mhla::ui
