#pragma once
// A group of heatmaps of signed matrices on one shared, zero-centred diverging colour scale,
// with a colour bar and the value under the cursor. The same paint routine draws the widget
// and every export.
#include "core/base/types.h"
#include "ui/export/exporter.h"
#include "ui/export/figure.h"
#include "ui/plot/plotmath.h"
#include <QList>
#include <QWidget>
#include <optional>

namespace mhla::ui {

struct HeatmapPanel {
    QString title;
    Mat matrix; ///< empty: the panel shows `emptyText`
    QString rowName = QStringLiteral("row"), colName = QStringLiteral("col");
    QString emptyText;
};

class HeatmapWidget : public QWidget, public Figure {
    Q_OBJECT
public:
    HeatmapWidget(const QString& figureName, QWidget* parent = nullptr);

    void setTitle(const QString& t);
    /// Panels laid out in `columns` columns, row by row.
    void setPanels(const QList<HeatmapPanel>& panels, int columns);
    const QList<HeatmapPanel>& panels() const { return m_panels; }
    /// Shared colour scale: |value| mapped to the ends of the colour map. Default (nullopt): the
    /// largest |entry| over all panels.
    void setFixedScale(std::optional<double> s);
    double scale() const;
    /// Text describing the cell under the cursor (empty when none).
    QString hoverText() const { return m_hoverText; }
    /// The description of cell (row, col) of panel p, as shown on hover.
    QString describeCell(int panel, int row, int col) const;
    /// describeCell() of the cell at a position in the widget, or an empty string.
    QString textAt(const QPointF& pos) const;
    /// The tooltip at a position: the cell's value, the full text of a shortened title, or a
    /// hint.
    QString toolTipAt(const QPointF& pos) const;
    /// The title as drawn at the widget's current size (panel -1: the figure title): in a
    /// smaller font (down to 3/4) when it does not fit its width, then elided with "…", never
    /// clipped; the tooltip has it in full.
    QString shownTitle(int panel = -1) const;
    /// The font shownTitle() is drawn in.
    QFont shownTitleFont(int panel = -1) const;
    /// The width a title may take at the widget's current size (panel -1: the figure title).
    double titleWidth(int panel = -1) const;
    /// The font titles are drawn in when they fit (panel titles: true).
    QFont titleFont(bool panel) const;
    QString exportTo(const QString& path, ExportFormat format, const QSize& pixelSize, int dpi,
                     const ExportMetadata& meta) const;

    QString figureName() const override { return m_name; }
    QString figureTitle() const override { return m_title; }
    void paintFigure(QPainter& painter, const QRectF& rect) const override;
    QString csv() const override;
    bool hasData() const override;
    QSize sizeHint() const override { return {640, 420}; }

Q_SIGNALS:
    void hovered(const QString& text);

protected:
    void paintEvent(QPaintEvent*) override;
    void mouseMoveEvent(QMouseEvent* e) override;
    bool event(QEvent* e) override;
    void leaveEvent(QEvent* e) override;

private:
    plotmath::FittedTitle fittedTitle(int panel) const;
    struct Layout {
        QRectF titleRect, colorBar;
        QList<QRectF> panelTitle, matrix; ///< per panel
    };
    Layout layoutFor(const QRectF& rect) const;
    void paintImpl(QPainter& p, const QRectF& rect, bool exportMode) const;

    QString m_name, m_title;
    QList<HeatmapPanel> m_panels;
    int m_columns = 1;
    std::optional<double> m_fixedScale;
    QString m_hoverText;
};

} // namespace mhla::ui
