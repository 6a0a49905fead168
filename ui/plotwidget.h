#pragma once
// A small chart facade over Qt Charts: series in, plot out. QChart stays private; callers see
// setSeries / setLogX / setLogY / exportTo. Log axes never drop points silently: points that
// cannot go on a log axis are counted in a note under the plot.
#include "ui/exporter.h"
#include "ui/figure.h"
#include "ui/plotmath.h"
#include <QColor>
#include <QList>
#include <QPointF>
#include <QWidget>
#include <optional>

class QLabel;
class QToolButton;

QT_BEGIN_NAMESPACE
class QChart;
class QChartView;
class QAbstractSeries;
QT_END_NAMESPACE

namespace mhla::ui {

class PlotWidget : public QWidget, public Figure {
    Q_OBJECT
public:
    PlotWidget(const QString& figureName, QWidget* parent = nullptr);
    ~PlotWidget() override;

    void setTitle(const QString& t);
    void setAxisTitles(const QString& x, const QString& y);
    /// Replaces the data. Series with the same structure as before are refreshed in place with
    /// QXYSeries::replace(); a new structure rebuilds the chart.
    void setSeries(const QList<PlotSeries>& series);
    const QList<PlotSeries>& series() const { return m_state.series; }
    void setLogX(bool on);
    void setLogY(bool on);
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
    /// Exports through exportFigure(); returns an error or an empty string.
    QString exportTo(const QString& path, ExportFormat format, const QSize& pixelSize, int dpi,
                     const ExportMetadata& meta) const;

    // Figure
    QString figureName() const override { return m_name; }
    QString figureTitle() const override { return m_state.title; }
    void paintFigure(QPainter& painter, const QRectF& rect) const override;
    QString csv() const override;
    bool hasData() const override;

Q_SIGNALS:
    void exportRequested();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    void changeEvent(QEvent* e) override;

private:
    void rebuild();
    void refreshData();
    QString fullNote() const;
    void updateNote();
    void editAxes();

    QString m_name;
    PlotState m_state;
    QChartView* m_view = nullptr;
    QChart* m_chart = nullptr;
    QList<QAbstractSeries*> m_handles;
    QStringList m_signature;
    QLabel* m_hover = nullptr;
    QLabel* m_noteLabel = nullptr;
    QToolButton* m_logXButton = nullptr;
    QToolButton* m_logYButton = nullptr;
    QToolButton* m_autoButton = nullptr;
};

} // namespace mhla::ui
