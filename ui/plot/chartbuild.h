#pragma once
// The Qt Charts side of a plot: a PlotState (plotmath) turned into a QChart's axes, ticks and
// series, and brought up to date when only the data changed. PlotWidget draws the screen's
// chart and every export's through these functions, so a figure on paper has the axes and
// series the window shows. Internal to ui/plot: nothing outside the plot widget includes this.
#include "ui/plot/plotmath.h"
#include <QList>
#include <QPointF>
#include <QStringList>

class QAbstractSeries;
class QChart;
class QPalette;

namespace mhla::ui::chartbuild {

/// The on-screen chart title's point size.
inline constexpr double kScreenTitlePt = 11;
/// The point size of Qt Charts' tick labels on screen (its themes' default).
inline constexpr double kTickLabelPt = 9;

/// plotmath::ticksThatFit() for a chart `widthPx` wide whose tick labels are `pt` points.
[[nodiscard]] int xTicksThatFit(double widthPx, double pt);

/// Where a value goes on an axis, and back. A log axis is a linear axis over log10(value) with
/// labels at the ticks of logTicks(): Qt's QLogValueAxis draws no labels and no title for
/// ranges narrower than 1e-12 (an exact fit's losses of 1e-30 had a bare y axis).
[[nodiscard]] double toAxis(double v, bool log);
[[nodiscard]] double fromAxis(double a, bool log);

/// The drawable points of a series in axis coordinates (log axes: log10 of the value).
[[nodiscard]] QList<QPointF> filtered(const PlotSeries& s, const PlotState& st,
                                      const plotmath::Ranges& r);

/// What makes two states need different charts (series, styles, log axes); states with the
/// same signature differ in their points only, and refresh() suffices.
[[nodiscard]] QStringList signatureOf(const PlotState& st);

[[nodiscard]] bool isDarkPalette(const QPalette& pal);

/// How a chart is drawn. `paper`: the figure for a paper (no title, its font and line sizes).
/// `screenScale`: on screen, the tick labels, axis titles, lines and markers this many times
/// their usual size. `widthPx`: the chart's width, for how many x tick labels fit (0: not
/// known).
struct ChartLook {
    bool dark = false;
    bool forExport = false;
    const PaperStyle* paper = nullptr;
    double screenScale = 1.0;
    double widthPx = 0;
};

/// Fills an empty chart with the axes and series of `st`; returns one handle per displayed
/// series (displayedSeries()) and, in `shown`, the ranges the axes show (nice ends included).
QList<QAbstractSeries*> populate(QChart* chart, const PlotState& st, const ChartLook& look,
                                 plotmath::Ranges* shown = nullptr);

/// Brings a chart that populate() built for a state of the same signature to `st`: new ticks,
/// new points, nothing rebuilt. `xTicks`: the most x tick labels that fit. Returns false when
/// the chart cannot show `st` without a rebuild (another number of series, or an axis of
/// another kind).
[[nodiscard]] bool refresh(QChart* chart, const QList<QAbstractSeries*>& handles,
                           const PlotState& st, int xTicks, plotmath::Ranges* shown);

} // namespace mhla::ui::chartbuild
