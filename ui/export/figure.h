#pragma once
// A figure that can be painted on any device: the widget, SVG, PDF and PNG exports all go
// through paintFigure(), so what is exported is what the app draws.
#include <QJsonObject>
#include <QList>
#include <QPainter>
#include <QRectF>
#include <QSize>
#include <QString>

namespace mhla::ui {

class Figure {
public:
    virtual ~Figure() = default;
    /// File base name used by "Export all" (e.g. "spectrum").
    virtual QString figureName() const = 0;
    /// Title drawn on the figure and stored in the exported file's metadata.
    virtual QString figureTitle() const = 0;
    /// Paints the whole figure (title, axes, labels, legend, colour bar) into `rect`, in
    /// logical units of 1/96 inch.
    virtual void paintFigure(QPainter& painter, const QRectF& rect) const = 0;
    /// The plotted data as CSV text (header line first).
    virtual QString csv() const = 0;
    /// False when there is nothing to draw yet.
    virtual bool hasData() const = 0;
};

/// A table a panel can export as CSV (e.g. the automaton's execution trace).
struct ExportTable {
    QString fileName; ///< base name, e.g. "automaton_trace"
    QString title;    ///< for the metadata
    QString csv;      ///< header line first; empty when there is nothing to export
};

} // namespace mhla::ui
