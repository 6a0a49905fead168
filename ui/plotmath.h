#pragma once
// The maths of plot axes, without widgets: what a series holds, the range an axis shows
// (padding, log decades, the floor of a log axis, empty data), nice tick positions and tick
// labels. PlotWidget draws what these functions decide; tst_gui_plotmath tests them alone.
#include <QColor>
#include <QList>
#include <QPointF>
#include <QRectF>
#include <QString>
#include <optional>

namespace mhla::ui {

struct PlotSeries {
    enum class Style { Line, Dashed, Dotted, Markers, Triangles, LineMarkers, Bars, HLine, Band };
    QString name;
    QList<QPointF> points; ///< HLine: one point, its y is the level; Band: the upper edge
    QList<QPointF> lower;  ///< Band: the lower edge (same x as points)
    QColor color;
    Style style = Style::Line;
    bool inLegend = true;
    double width = 2.0;

    static PlotSeries hline(const QString& name, double y, const QColor& c, bool inLegend = true);
};

/// Everything that defines a plot (so that exports can rebuild it at any size).
struct PlotState {
    QString title, xTitle, yTitle;
    QList<PlotSeries> series;
    bool logX = false, logY = false;
    std::optional<QRectF>
        manualRange; ///< x from left to right, y from top() (min) to bottom() (max)
    QString note;
};

namespace plotmath {

/// Qt Charts' log axes break down for ranges far below 1e-20 (they vanish), so positive values
/// below this floor (zero up to round-off) are drawn at the floor and counted in the note.
constexpr double kLogFloor = 1e-20;

/// The ranges an axis pair shows, and what could not be drawn as it is.
struct Ranges {
    double x0 = 0, x1 = 1, y0 = 0, y1 = 1;
    int droppedLogX = 0, droppedLogY = 0, raisedLogY = 0;
};

/// Where a value is drawn on a y axis (values below the floor of a log axis at the floor).
double shownY(double y, bool logY);
/// True when a point can be drawn (finite, positive on log axes).
bool usable(const QPointF& p, bool logX, bool logY);

/// Linear axis range around [lo, hi]: 5 % padding on each side (not below 0 for data that is
/// never negative); a single value gets a symmetric range around it.
void padLinear(double& lo, double& hi);
/// Log axis range around [lo, hi] (both > 0): whole decades, at least two, in steps of
/// decadesPerTick() so that the first and last ticks are the ends.
void padLog(double& lo, double& hi);
/// Decades per major tick so that a log axis has at most ~8 labelled ticks.
int decadesPerTick(double lo, double hi);

/// Ticks of a linear axis: the first tick, the step and the count (all within [lo, hi]).
struct Ticks {
    double first = 0, step = 1;
    int count = 0;
};
/// "Nice" steps (1, 2, 2.5 or 5 times a power of ten) giving at most maxTicks ticks in [lo, hi].
Ticks niceTicks(double lo, double hi, int maxTicks = 7);
/// Widens [lo, hi] outward to multiples of the nice step (what QValueAxis::applyNiceNumbers
/// does, without its habit of jumping far past the data).
void niceRange(double& lo, double& hi, int maxTicks = 7);
/// The range an axis with fixed ticks shows: [lo, hi] widened to multiples of a nice step,
/// choosing among 4..11 ticks the step that widens least. Sets *count to the number of ticks
/// (ends included) and returns the step; a degenerate range is left alone with 2 ticks.
double niceFixedRange(double& lo, double& hi, int* count);
/// A printf format for tick labels of this step that tells neighbouring ticks apart and is
/// never empty: "%.0f" for whole steps, "%.2f" for a step of 0.05, "%.3g" for tiny or huge
/// values.
QString tickFormat(double lo, double hi, double step);
/// The label of a log-axis tick at 10^e: "1e-20", "0.01", "1", "1000", "1e+06".
QString logTickLabel(double value);

/// The ranges of a plot: data (ignoring what a log axis cannot show), padded, or the manual
/// range when one is set. Empty data gives [0, 1] (linear) or [1e-3, 1] (log).
Ranges computeRanges(const PlotState& st);

/// A number at full precision (17 significant digits; round-trips to the same double).
QString exact(double v);

} // namespace plotmath
} // namespace mhla::ui
