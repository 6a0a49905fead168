#pragma once
// Training curves of every visible run overlaid: train / val / OOD loss vs epochs and the
// distance to the teacher, with the exact solver's values as horizontal reference lines.
#include "ui/runlist.h"
#include <QWidget>

namespace mhla::ui {

class Figure;
class PlotWidget;

class CurvesPanel : public QWidget {
    Q_OBJECT
public:
    explicit CurvesPanel(QWidget* parent = nullptr);
    void showRuns(const QList<const RunRecord*>& runs);
    PlotWidget* lossPlot() const { return m_loss; }
    PlotWidget* distancePlot() const { return m_distance; }
    QList<const Figure*> figures() const;

Q_SIGNALS:
    void exportRequested(const mhla::ui::Figure* figure);

private:
    PlotWidget* m_loss = nullptr;
    PlotWidget* m_distance = nullptr;
};

} // namespace mhla::ui
