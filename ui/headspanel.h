#pragma once
// Teacher and learned heads side by side in canonical SVD form, their difference, P and P*,
// and the singular values of unfold(P).
#include "ui/resultpanel.h"
#include "ui/runlist.h"
#include <QWidget>

class QLabel;
class QSpinBox;

namespace mhla::ui {

class Figure;
class HeatmapWidget;
class PlotWidget;

class HeadsPanel : public QWidget, public ResultPanel {
    Q_OBJECT
public:
    explicit HeadsPanel(QWidget* parent = nullptr);
    // ResultPanel
    QString panelId() const override { return QStringLiteral("heads"); }
    QString tabName() const override { return tr("Heads"); }
    QWidget* widget() override { return this; }
    void showRun(const RunRecord* run) override;
    void setHead(int h); ///< 0-based
    int head() const;
    HeatmapWidget* headsHeatmap() const { return m_heads; }
    HeatmapWidget* coefficientsHeatmap() const { return m_coeffs; }
    PlotWidget* singularValuesPlot() const { return m_sv; }
    QList<const Figure*> figures() const override;

Q_SIGNALS:
    void exportRequested(const mhla::ui::Figure* figure);

private:
    void refresh();
    ExperimentResult m_result; ///< copy of the shown result (the record may be removed)
    bool m_hasResult = false;
    QString m_runName;
    QColor m_runColor;
    QSpinBox* m_headBox = nullptr;
    QLabel* m_info = nullptr;
    QLabel* m_hover = nullptr;
    HeatmapWidget* m_heads = nullptr;
    HeatmapWidget* m_coeffs = nullptr;
    PlotWidget* m_sv = nullptr;
};

} // namespace mhla::ui
