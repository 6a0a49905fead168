#pragma once
// Training curves of every visible run overlaid: train / val / OOD loss vs epochs and the
// distance to the teacher, with the exact solver's values as horizontal reference lines.
#include "ui/resultpanel.h"
#include "ui/runlist.h"
#include <QWidget>

class QCheckBox;
class QLabel;
class QSlider;

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
    void showRun(const RunRecord*) override {}
    void showRuns(const QList<const RunRecord*>& runs) override;
    bool overlaysRuns() const override { return true; }
    void liveUpdate(const RunRecord* run, const QList<const RunRecord*>& visible, bool) override {
        if (run->visible && !run->history().empty()) showRuns(visible);
    }
    PlotWidget* lossPlot() const { return m_loss; }
    PlotWidget* distancePlot() const { return m_distance; }
    QList<const Figure*> figures() const override;
    /// Runs that differ only in task.seed / solver.seed are drawn as their mean with a min–max
    /// band.
    bool seedBands() const;
    void setSeedBands(bool on);
    /// TensorBoard-style smoothing of the training curves, weight in [0, 0.99]; 0 = raw.
    double smoothing() const;
    void setSmoothing(double weight);

Q_SIGNALS:
    void exportRequested(const mhla::ui::Figure* figure);
    /// The band option changed: the owner redraws with its current runs.
    void displayChanged();

private:
    QCheckBox* m_bandCheck = nullptr;
    QSlider* m_smoothSlider = nullptr;
    QLabel* m_smoothValue = nullptr;
    PlotWidget* m_loss = nullptr;
    PlotWidget* m_distance = nullptr;
};

} // namespace mhla::ui
