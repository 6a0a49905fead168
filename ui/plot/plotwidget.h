#pragma once
// A small chart facade over Qt Charts: series in, plot out. QChart stays private; callers see
// setSeries / setLogX / setLogY / exportTo. Log axes never drop points silently: points that
// cannot go on a log axis are counted in a note under the plot.
#include "ui/export/exporter.h"
#include "ui/export/figure.h"
#include "ui/plot/plotmath.h"
#include <QColor>
#include <QList>
#include <QPointF>
#include <QWidget>
#include <functional>
#include <optional>

class QLabel;
class QMouseEvent;
class QRubberBand;
class QToolButton;
class QVBoxLayout;

QT_BEGIN_NAMESPACE
class QChart;
class QChartView;
class QAbstractSeries;
QT_END_NAMESPACE

namespace mhla::ui {

class ElidedLabel;
class PlotLegendView;

class PlotWidget : public QWidget, public Figure {
    Q_OBJECT
public:
    PlotWidget(const QString& figureName, QWidget* parent = nullptr);
    ~PlotWidget() override;

    void setTitle(const QString& t, TitleText kind = TitleText::Literal);
    /// The title as shown (in the tool row, or above the chart when the row is too narrow).
    QString title() const { return m_state.title; }
    /// Axis titles, shown as written unless `kind` is Typeset (for titles written to be
    /// typeset, "λ_min of Λ", "σ_r": "_x" becomes a subscript).
    void setAxisTitles(const QString& x, const QString& y, TitleText kind = TitleText::Literal);
    /// Categories on the y axis (states): the values 0..n-1 labelled with these names, the
    /// axis from -0.5 to n-0.5 with ticks only at the categories. Empty: a numeric y axis.
    void setYCategories(const QStringList& names);
    /// Categories on the x axis (a swept choice key): the values 0..n-1 labelled with these
    /// names, the axis from -0.5 to n-0.5. Empty: a numeric x axis.
    void setXCategories(const QStringList& names);
    /// Replaces the data. Series with the same structure as before are refreshed in place with
    /// QXYSeries::replace(); a new structure rebuilds the chart.
    void setSeries(const QList<PlotSeries>& series);
    const QList<PlotSeries>& series() const { return m_state.series; }
    void setLogX(bool on);
    void setLogY(bool on);
    /// x counts something (epochs): linear x ticks at whole numbers only.
    void setWholeX(bool on);
    bool logX() const { return m_state.logX; }
    bool logY() const { return m_state.logY; }
    /// Manual axes (x: left..right, y: top()..bottom() as min..max); nullopt = autoscale.
    void setManualRange(const std::optional<QRectF>& r);
    /// The axis ranges currently shown (x min, x max, y min, y max).
    QRectF currentRange() const;
    /// A note shown under the plot and in exports (e.g. how non-positive values are shown).
    void setNote(const QString& note);
    QString note() const;
    void clear();
    /// TensorBoard-style smoothing of the smoothable series, weight in [0, 1); 0 = raw.
    void setSmoothing(double weight);
    double smoothing() const { return m_state.smoothing; }
    /// Sizes on screen (presentation mode): the chart's tick labels, axis titles, lines and
    /// markers are this many times their usual size; the tool row, legend and note follow the
    /// widget's font. Exports are not affected. 1 = as usual; allowed: [1, 4].
    void setScreenScale(double scale);
    double screenScale() const { return m_screenScale; }
    /// Hides or shows the series of this group (PlotSeries::groupName; what a click on its
    /// legend entry does).
    void setSeriesHidden(const QString& name, bool hidden);
    bool isSeriesHidden(const QString& name) const { return m_state.hidden.contains(name); }
    /// Called first when a legend entry is clicked, with the entry's name; returning true says
    /// the click was handled elsewhere (the run was hidden in every plot) and this plot hides
    /// nothing itself.
    void setLegendClickHandler(std::function<bool(const QString&)> handler) {
        m_legendClick = std::move(handler);
    }
    /// What the note says while the plot has no data (empty: "No data yet: run an experiment").
    void setEmptyNote(const QString& note);
    /// The legend as shown (one entry per name, with hidden and off-scale flags).
    QList<plotmath::LegendEntry> legendEntries() const;
    /// Zooms by `factor` (< 1 zooms in) about a point given as fractions of the plot area
    /// (0, 0 = bottom left); what the mouse wheel does.
    void zoomAt(const QPointF& fraction, double factor);
    /// Exports through exportFigure(); returns an error or an empty string.
    QString exportTo(const QString& path, ExportFormat format, const QSize& pixelSize, int dpi,
                     const ExportMetadata& meta) const;

    // Figure
    QString figureName() const override { return m_name; }
    QString figureTitle() const override { return m_state.title; }
    void paintFigure(QPainter& painter, const QRectF& rect) const override;
    QString csv() const override;
    bool hasData() const override;
    /// paintFigure() with the sizes of a paper figure (nullptr: as on screen).
    void paintStyled(QPainter& painter, const QRectF& rect, const PaperStyle* paper) const;

Q_SIGNALS:
    void exportRequested();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    void changeEvent(QEvent* e) override;
    void resizeEvent(QResizeEvent* e) override;

private:
    void rebuild();
    void refreshData();
    QString fullNote() const;
    void updateNote();
    void editAxes();
    void updateLegend();
    /// Values under the mouse in the tool row (empty: the title again).
    void setHoverText(const QString& text);
    /// The tool row's title, the legend's and the note's fonts, from the widget's font.
    void deriveFonts();
    /// Puts the title in the tool row if it fits there whole, else above the chart.
    void placeTitle();
    /// Fits the axis titles along the plot area (plotmath::fitTitle); a shortened title is
    /// shown whole in the chart's tooltip.
    void fitAxisTitles();
    static QString viewHelp();
    /// The plot area in viewport pixels.
    QRectF plotAreaInViewport() const;
    /// The row above the chart: log x, log y, Fit (with the axis ranges in its menu), the title
    /// (or the values under the pointer) and Export…; returns the Export button.
    QToolButton* buildToolRow(QVBoxLayout* lay);
    /// The plot's right-click menu at `at` (viewport coordinates): copy, fit, ranges, export.
    void showContextMenu(const QPoint& at, QToolButton* exportButton);
    /// The mouse on the chart (plotinteraction.cpp). zoomOrPan(): wheel zoom, box zoom, pan and
    /// double-click to fit; true when it used the event. showValuesUnder(): the values under
    /// the pointer in the tool row, the nearest point (within 20 px) also in a tooltip.
    bool zoomOrPan(QEvent* event);
    void zoomToBox(const QRect& box);
    void showValuesUnder(const QMouseEvent* me);
    [[nodiscard]] QString nearestPointText(const QPointF& chartPos, double axisX) const;
    /// A viewport position as fractions of the plot area (0, 0 = bottom left).
    QPointF fractionAt(const QPointF& viewportPos) const;

    QString m_name;
    PlotState m_state;
    std::function<bool(const QString&)> m_legendClick;
    QString m_emptyNote;
    QChartView* m_view = nullptr;
    QChart* m_chart = nullptr;
    QList<QAbstractSeries*> m_handles;
    QStringList m_signature;
    QLabel* m_hover = nullptr;
    QFont m_axisTitleFont;      ///< the axes' title font before fitAxisTitles()
    double m_screenScale = 1.0; ///< setScreenScale()
    int m_xTicks = 11;          ///< the most x tick labels that fit, when last rebuilt
    bool m_fittingTitles = false;
    ElidedLabel* m_titleLabel = nullptr;
    int m_titleRoom = 0;            ///< the title label's width when last seen
    bool m_titleElided = false;     ///< the title above the chart is cut short
    QStringList m_elidedAxisTitles; ///< axis titles cut short (whole in the tooltip)
    /// The chart view's tooltip: the titles cut short, whole, then how to zoom and pan.
    void updateViewTip();
    QLabel* m_noteLabel = nullptr;
    QToolButton* m_logXButton = nullptr;
    QToolButton* m_logYButton = nullptr;
    QToolButton* m_autoButton = nullptr;
    PlotLegendView* m_legend = nullptr;
    plotmath::Ranges m_shown; ///< the ranges the axes show now
    // Mouse: left drag draws a zoom box, Shift+drag or middle drag pans.
    enum class Drag { None, Zoom, Pan };
    Drag m_drag = Drag::None;
    QPoint m_pressPos;
    plotmath::Ranges m_pressRanges;
    QRubberBand* m_rubberBand = nullptr;
};

/// A plot as a figure for a paper: no title (the run name), no notes (UI captions), fonts and
/// lines sized for one or two columns, subscripts typeset. Exported like any figure.
class PaperFigure : public Figure {
public:
    PaperFigure(const PlotWidget& plot, const PaperStyle& style);
    QString figureName() const override { return m_plot.figureName(); }
    QString figureTitle() const override { return m_plot.figureTitle(); }
    void paintFigure(QPainter& painter, const QRectF& rect) const override;
    QString csv() const override { return m_plot.csv(); }
    bool hasData() const override { return m_plot.hasData(); }
    /// The figure's size in pixels at `dpi` (its width and height in inches times dpi).
    QSize pixelSize(int dpi) const;

private:
    const PlotWidget& m_plot;
    PaperStyle m_style;
};

} // namespace mhla::ui
