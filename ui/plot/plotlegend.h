#pragma once
// The legend of our plots, drawn by us (not QLegend): entries flow in rows under the chart and
// wrap instead of being cut; a name longer than a whole row is elided and its tooltip has it
// in full; line, dashed, dotted and marker glyphs say how each series is drawn; hidden and
// off-scale entries are drawn faded; "_x" subscripts of names written to be typeset
// ("λ_min", "‖P − P*‖_F") are drawn as subscripts, key names as they are. One layout and one paint
// routine serve the widget and every export.
#include "ui/plot/plotmath.h"
#include <QFont>
#include <QList>
#include <QPainterPath>
#include <QRectF>
#include <QWidget>
#include <functional>

class QPainter;

namespace mhla::ui {

struct LegendLayout {
    QList<QRectF> boxes;  ///< one per entry, relative to the legend's top-left corner
    QList<QString> texts; ///< the text drawn (elided when a name is longer than a row)
    double height = 0;    ///< 0 for no entries
};

/// Lays out `entries` in rows of at most `width` pixels with font `font`.
LegendLayout layoutLegend(const QList<plotmath::LegendEntry>& entries, const QFont& font,
                          double width);
/// Draws the legend laid out by layoutLegend() with its top-left corner at `origin`.
void paintLegend(QPainter& p, const QList<plotmath::LegendEntry>& entries,
                 const LegendLayout& layout, const QFont& font, const QPointF& origin,
                 const QColor& textColor);
/// The width of `text` drawn by drawTypeset().
double typesetAdvance(const QString& text, const QFont& font);
/// Draws `text` vertically centred in `box` from its left edge with its "_x" subscripts typeset
/// (λ with a smaller, lowered "min"): painted text, the same on screen and in every export.
void drawTypeset(QPainter& p, const QRectF& box, const QString& text);

/// The outline of a PlotSeries::mark's shape centred at `c` with circumradius `r` (the legend
/// glyphs and the run list's swatches; the plots draw Qt's matching scatter markers).
QPainterPath markPath(int mark, const QPointF& c, double r);

/// The index of the entry at `pos` (legend coordinates), or -1.
int legendEntryAt(const LegendLayout& layout, const QPointF& pos);

/// The clickable legend under a plot (PlotWidget's): the layout and paint routine above in a
/// widget; a click on an entry calls onToggle with its group, the tooltip says what a click does.
class PlotLegendView : public QWidget {
public:
    explicit PlotLegendView(QWidget* parent);
    std::function<void(const QString&)> onToggle;
    void setEntries(const QList<plotmath::LegendEntry>& entries);
    const QList<plotmath::LegendEntry>& entries() const { return m_entries; }
    /// At most this height (the chart keeps the rest); the entries that do not fit are
    /// summed up in a "+N more" line that shows them all when clicked.
    void setMaxHeight(int h);
    int shownEntries() const { return m_shown; }

protected:
    void resizeEvent(QResizeEvent* e) override;
    void paintEvent(QPaintEvent*) override;
    void mouseMoveEvent(QMouseEvent* e) override;
    void mousePressEvent(QMouseEvent* e) override;
    bool event(QEvent* e) override;

private:
    static constexpr QPointF kOrigin{6, 2};
    QString moreText() const;
    int entryAt(const QPointF& pos) const { return legendEntryAt(m_layout, pos - kOrigin); }
    void relayout();
    QList<plotmath::LegendEntry> m_entries;
    LegendLayout m_layout;
    int m_maxHeight = 0;
    bool m_inResize = false; ///< relayout() called by resizeEvent(), inside a layout pass
    int m_shown = 0;
    bool m_expanded = false;
    QRectF m_moreRect;
};

} // namespace mhla::ui
