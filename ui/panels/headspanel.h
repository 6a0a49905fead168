#pragma once
// Teacher and learned heads side by side in canonical SVD form, their difference, P and P*,
// and the singular values of unfold(P); or the minimal heads (min_heads) beside the teacher's.
#include "ui/panels/resultpanel.h"
#include "ui/run/runlist.h"
#include <QWidget>

class QComboBox;
class QLabel;
class QSpinBox;

namespace mhla::ui {

class Figure;
class HeatmapWidget;
class PlotWidget;

/// "unfold(P) has rank 16, but the function needs only 1 head: …" for a run with an
/// identifiability report (empty otherwise).
QString minHeadsSentence(const ExperimentResult& r);

class HeadsPanel : public QWidget, public ResultPanel {
    Q_OBJECT
public:
    explicit HeadsPanel(QWidget* parent = nullptr);
    // ResultPanel
    QString panelId() const override { return QStringLiteral("heads"); }
    /// The heads are a long page (one row of heatmaps per head): it scrolls.
    bool fitsWindow() const override { return false; }
    QString tabName() const override { return tr("Heads"); }
    QWidget* widget() override { return this; }
    void showRun(const RunRecord* run) override;
    void setHead(int h); ///< 0-based
    int head() const;
    /// Minimal heads (min_heads, canonical SVD form of the minimal W, beside the teacher's own
    /// W*) or the symmetric representative unfold(P) (canonical SVD, beside unfold(P*)).
    void setMinimalForm(bool on);
    bool minimalForm() const;
    /// The sentence under the head selector: rank of unfold(P) vs min_heads.
    QString rankSentence() const;
    HeatmapWidget* headsHeatmap() const { return m_heads; }
    HeatmapWidget* coefficientsHeatmap() const { return m_coeffs; }
    PlotWidget* singularValuesPlot() const { return m_sv; }
    QList<const Figure*> figures() const override;

Q_SIGNALS:
    void exportRequested(const mhla::ui::Figure* figure);

private:
    void refresh();
    /// refresh()'s parts: the learned heads' signs set to their teacher's, the head's heatmaps,
    /// the folded coefficients, the singular values of unfold(P), the line under them.
    static void alignSigns(Heads& L, const Heads& T);
    void showHead(const Heads& L, const Heads& T, bool minimal, bool teacherKnown);
    void showCoefficients(bool teacherKnown);
    void showSingularValues();
    void showInfo(bool teacherKnown);
    void showRange();
    ExperimentResult m_result; ///< copy of the shown result (the record may be removed)
    bool m_hasResult = false;
    QString m_runName;
    QColor m_runColor;
    QSpinBox* m_headBox = nullptr;
    QComboBox* m_formBox = nullptr;
    QLabel* m_sentence = nullptr;
    QLabel* m_info = nullptr;
    QLabel* m_hover = nullptr;
    HeatmapWidget* m_heads = nullptr;
    HeatmapWidget* m_coeffs = nullptr;
    PlotWidget* m_sv = nullptr;
};

} // namespace mhla::ui
