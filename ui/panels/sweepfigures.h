#pragma once
// Sweep figures drawn with the app's plot (core/sweep/sweepfigure.h reduces the runs; this file
// only turns the reduced series into plot series and files): used by `mhla-lab figures` on a sweep
// file and by the Sweep tab.
#include "core/sweep/sweepfigure.h"
#include "ui/export/exporter.h"
#include "ui/plot/plotmath.h"
#include <QJsonObject>
#include <QList>
#include <QSize>
#include <QString>
#include <QStringList>
#include <vector>

namespace mhla::ui {

class PlotWidget;

/// The plot series of a reduced sweep figure (bands as filled areas in their line's colour).
QList<PlotSeries> sweepPlotSeries(const SweepFigureData& d);
/// Shows a reduced sweep figure in `plot` (title, axis titles, log axes, note, series).
void showSweepFigure(PlotWidget* plot, const SweepFigureData& d);

/// Reduces and writes every figure into `dir`: <name>.svg, .pdf, .png and <name>.csv (the
/// reduced data with the metadata comment lines). A figure without data is skipped with a
/// line in *skipped. `paper` (not null): each figure as a PaperFigure of that style, at its
/// size in inches times dpi (pixelSize unused). Throws ConfigError from the reduction; returns
/// a write error or empty.
QString writeSweepFigures(const QString& dir, const SweepPlan& plan,
                          const std::vector<QJsonObject>& results,
                          const std::vector<SweepFigureSpec>& specs, const QSize& pixelSize,
                          int dpi, QStringList* written, QStringList* skipped = nullptr,
                          const PaperStyle* paper = nullptr);

} // namespace mhla::ui
