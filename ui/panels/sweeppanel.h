#pragma once
// The Sweep tab: the visible runs as a sweep (the keys in which they differ are the swept
// keys, their seeds the seeds), drawn as the headless `figures` draws a sweep: a metric against
// a swept key with a band over seeds, or the trainers' learning curves. It redraws as each run
// of a preset's sweep finishes. The reduction is core's (core/sweep/sweepfigure.h).
#include "core/sweep/sweepfigure.h"
#include "ui/panels/resultpanel.h"
#include <QHash>
#include <QJsonObject>
#include <QWidget>

class QComboBox;
class QLabel;

namespace mhla::ui {

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

private:
    void redraw();

    QComboBox* m_view = nullptr;
    QComboBox* m_metric = nullptr;
    QComboBox* m_band = nullptr;
    QLabel* m_status = nullptr;
    PlotWidget* m_plot = nullptr;
    QList<const RunRecord*> m_runs;
    QHash<int, QJsonObject> m_results; ///< result.json of finished runs, by run id
    SweepFigureData m_data;
};

} // namespace mhla::ui
