#pragma once
// The legend of our plots, drawn by us (not QLegend): entries flow in rows under the chart and
// wrap instead of being cut; a name longer than a whole row is elided and its tooltip has it
// in full; line, dashed, dotted and marker glyphs say how each series is drawn; hidden and
// off-scale entries are drawn faded. One layout and one paint routine serve the widget and
// every export.
#include "ui/plot/plotmath.h"
#include <QFont>
#include <QList>
#include <QRectF>

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
/// The index of the entry at `pos` (legend coordinates), or -1.
int legendEntryAt(const LegendLayout& layout, const QPointF& pos);

} // namespace mhla::ui
