#pragma once
// "What is left free?" (issue 11 §2): the null relations of Lambda as readable text, a chosen
// null direction v and output row i, and a slider t that moves the fit along
// P(t) = P + t ||P*|| e_i v^T. Every P(t) fits the training data as well as P; the panel shows
// live what changes: the OOD error, the distance to the teacher and the heads. The path itself
// is computed in core (nullPath, core/run/explorer.h): the run carries the default direction, other
// directions are computed on a worker thread.
#include "core/run/result.h"
#include "ui/panels/resultpanel.h"
#include "ui/run/runlist.h"
#include <QHash>
#include <QWidget>
#include <memory>
#include <optional>

class QLabel;
class QListWidget;
class QSlider;
class QSpinBox;
class QThread;

namespace mhla {
class CancelToken;
}

namespace mhla::ui {

class Figure;
class HeatmapWidget;
class PlotWidget;

class ExplorerPanel : public QWidget, public ResultPanel {
    Q_OBJECT
public:
    explicit ExplorerPanel(QWidget* parent = nullptr);
    ~ExplorerPanel() override;
    // ResultPanel
    QString panelId() const override { return QStringLiteral("explorer"); }
    QString tabName() const override { return tr("What is left free?"); }
    QWidget* widget() override { return this; }
    void showRun(const RunRecord* run) override;
    QList<const Figure*> figures() const override;

    /// The slider's position t (in units of ||P*||).
    double t() const;
    void setT(double t);
    /// Chooses null relation k (0-based) in output row `output` (0-based); computes its path
    /// on a worker thread unless it is the run's default one.
    void setDirection(int k, int output = 0);
    int relationCount() const;
    /// True while a path is being computed.
    bool busy() const { return m_pending > 0; }
    /// The metrics shown for the current t (empty when there is no path).
    std::optional<Metrics> currentMetrics() const;
    QString statusText() const;
    /// The noise line: predicted vs measured error (identifiability.noise), empty without report.
    QString noiseText() const;
    PlotWidget* oodPlot() const { return m_plot; }
    HeatmapWidget* headsHeatmap() const { return m_heads; }

    static constexpr double kTMax = 2.0; ///< the slider spans [-kTMax, kTMax]

Q_SIGNALS:
    void exportRequested(const mhla::ui::Figure* figure);
    /// A path finished computing (tests wait for it).
    void pathReady();

protected:
    void changeEvent(QEvent* e) override;

private:
    /// The relations list as tall as its rows (up to 5; more scroll), at any font size.
    void fitRelationsHeight();
    /// showRun()'s parts: the noise line (none when the fit is noise-free), and for a run that
    /// is not certified the status, the relations and the OOD execution line.
    void showNoise(const IdentifiabilityReport* x);
    void showFreeDirections(const IdentifiabilityReport& report);
    void requestPath();
    void showPath();
    void updateAtT();
    ExperimentResult m_result;
    bool m_hasResult = false;
    int m_runId = -1; ///< id of the run shown (-1: none or no result)
    /// What was chosen on a run left for another (relation row, output row, slider value):
    /// coming back to it restores the choice instead of starting at relation 1, t = 0.
    struct Choice {
        int relation = 0, output = 0, slider = 0;
    };
    QHash<int, Choice> m_choices;
    QString m_runName;
    QColor m_runColor;
    std::optional<NullPath> m_path;
    int m_generation = 0;
    int m_pending = 0;
    std::shared_ptr<CancelToken> m_cancel;
    QList<QThread*> m_threads;

    QLabel* m_status = nullptr;
    QLabel* m_noise = nullptr;
    QListWidget* m_relations = nullptr;
    QSpinBox* m_output = nullptr;
    QSlider* m_slider = nullptr;
    QWidget* m_controls = nullptr; ///< output row and slider
    QWidget* m_split = nullptr;    ///< plot and heatmaps
    QLabel* m_tLabel = nullptr;
    QLabel* m_numbers = nullptr;
    PlotWidget* m_plot = nullptr;
    HeatmapWidget* m_heads = nullptr;
};

} // namespace mhla::ui
