#pragma once
// The maths of plot axes, without widgets: what a series holds, the range an axis shows
// (padding, log decades, the floor of a log axis, empty data), nice tick positions and tick
// labels. PlotWidget draws what these functions decide; tst_gui_plotmath tests them alone.
#include "core/base/displayfloor.h"
#include <QColor>
#include <QFont>
#include <QFontMetricsF>
#include <QList>
#include <QPaintDevice>
#include <QPointF>
#include <QRectF>
#include <QSet>
#include <QString>
#include <optional>

namespace mhla::ui {

/// Marker shapes of PlotSeries::mark (k > 0 takes shape (k - 1) % kMarkShapes): a square, a
/// triangle, a star, a pentagon. A circle is a plain series' marker (mark 0).
enum class MarkShape { Square, Triangle, Star, Pentagon };
inline constexpr int kMarkShapes = 4;
[[nodiscard]] inline MarkShape markShape(int mark) {
    return static_cast<MarkShape>((mark - 1) % kMarkShapes);
}
/// Marks drawn along a line: at most this many, spread evenly over its points.
inline constexpr int kMarksPerLine = 7;

struct PlotSeries {
    /// Floor: hollow diamonds marking values a log axis cannot show as they are, drawn at
    /// its floor (belowFloorSeries(), the sweep figures' values <= 0).
    enum class Style {
        Line,
        Dashed,
        Dotted,
        Markers,
        Triangles,
        LineMarkers,
        Bars,
        HLine,
        Band,
        Floor
    };
    QString name;
    QList<QPointF> points; ///< HLine: one point, its y is the level; Band: the upper edge
    QList<QPointF> lower;  ///< Band: the lower edge (same x as points)
    QColor color;
    Style style = Style::Line;
    bool inLegend = true;
    double width = 2.0;
    /// A second cue beside the colour for a run whose colour another run on screen shares
    /// (more runs on screen than colours): 0 none, k > 0 the marker shape markShape(k), drawn
    /// in place of circles (Markers) or at a few points along a line (Line, LineMarkers), and
    /// on its legend glyph and run-list swatch.
    int mark = 0;
    /// Triangles: the marker's size in pixels at scale 1 (0: the style's own, 11). Runs whose
    /// triangles fall on the same spot (the floor of overlaid spectra) nest them, largest first.
    double markerSize = 0;
    /// A noisy training curve: with smoothing on it is drawn smoothed, the raw curve faint
    /// behind it.
    bool smoothable = false;
    /// False: left out of the autoscaled range (a reference line far below every curve).
    bool inRange = true;
    /// The legend entry this series belongs to (e.g. a run's validation and OOD curves belong
    /// to its training curve's entry): hiding the entry hides them all. Empty: its own name.
    QString group;
    const QString& groupName() const { return group.isEmpty() ? name : group; }

    static PlotSeries hline(const QString& name, double y, const QColor& c, bool inLegend = true);
};

/// How an axis title is shown. Literal: as written (key and metric names such as
/// "task.orthogonal_prob"); Typeset: "_x" subscripts of names written to be typeset ("λ_min").
enum class TitleText { Literal, Typeset };

/// Everything that defines a plot (so that exports can rebuild it at any size).
struct PlotState {
    QString title, xTitle, yTitle;
    TitleText titleText = TitleText::Literal, xTitleText = TitleText::Literal,
              yTitleText = TitleText::Literal;
    /// Non-empty (and a linear y axis): the y values are the categories 0..n-1 (states), drawn
    /// from -0.5 to n-0.5 with one tick per category labelled with its name.
    QStringList yCategories;
    /// Non-empty (and a linear x axis): the x values are the categories 0..n-1 (the values of a
    /// swept choice key), drawn from -0.5 to n-0.5 with one tick per category labelled with its
    /// name, so no marker sits on the frame.
    QStringList xCategories;
    QList<PlotSeries> series;
    bool logX = false, logY = false;
    /// x counts something (epochs): a linear x axis is ticked at whole numbers (never 2.5).
    bool wholeX = false;
    std::optional<QRectF>
        manualRange; ///< x from left to right, y from top() (min) to bottom() (max)
    QString note;
    /// Groups (PlotSeries::groupName) the user hid with a click on their legend entry; they
    /// stay in the legend.
    QSet<QString> hidden;
    /// TensorBoard-style smoothing weight in [0, 1) of smoothable series (0 = raw).
    double smoothing = 0;
};

namespace plotmath {

/// Qt Charts' log axes break down for ranges far below 1e-20 (they vanish), so positive values
/// below this floor (zero up to round-off) are drawn at the floor, marked there
/// (belowFloorSeries) and counted in the note.
constexpr double kLogFloor = kLogDisplayFloor;

/// The ranges an axis pair shows, and what could not be drawn as it is.
struct Ranges {
    double x0 = 0, x1 = 1, y0 = 0, y1 = 1;
    int droppedLogX = 0, droppedLogY = 0, raisedLogY = 0;
    /// A linear x axis widened past its nice tick range so that markers at its ends are not
    /// cut by the frame: its ticks are placed inside [x0, x1] (dynamic ticks), not at its ends.
    bool xTicksInside = false;
};

/// Where a value is drawn on a y axis (values below the floor of a log axis at the floor).
double shownY(double y, bool logY);
/// True when a point can be drawn (finite, positive on log axes).
bool usable(const QPointF& p, bool logX, bool logY);

/// Linear axis range around [lo, hi]: 5 % padding on each side (not below 0 for data that is
/// never negative); a single value gets a symmetric range around it.
void padLinear(double& lo, double& hi);
/// Log axis range around [lo, hi] (both > 0) that ends near the data, as linear axes do: a
/// margin of `margin` times the span on each side in log space (0: the data's own ends); a
/// single value gets the decade around it. Not rounded to whole decades (1e-5..1 for data in
/// 3e-5..0.2 left most of the plot empty); logTicks() labels whatever range results.
void padLog(double& lo, double& hi, double margin = 0.05);
/// Decades per major tick so that a log axis has at most ~8 labelled ticks.
int decadesPerTick(double lo, double hi);

/// Ticks of a linear axis: the first tick, the step and the count (all within [lo, hi]).
struct Ticks {
    double first = 0, step = 1;
    int count = 0;
};
/// "Nice" steps (1, 2, 2.5 or 5 times a power of ten) giving at most maxTicks ticks in [lo, hi].
/// `wholeSteps` (an axis of indices): the step is a whole number, 1 at least (never 2.5 or 0.5).
Ticks niceTicks(double lo, double hi, int maxTicks = 7, bool wholeSteps = false);
/// Widens [lo, hi] outward to multiples of the nice step (what QValueAxis::applyNiceNumbers
/// does, without its habit of jumping far past the data).
void niceRange(double& lo, double& hi, int maxTicks = 7);
/// The range an axis with fixed ticks shows: [lo, hi] widened to multiples of a nice step,
/// choosing among 4..maxTicks ticks (maxTicks in [3, 11]) the step that widens least. Sets
/// *count to the number of ticks (ends included) and returns the step; a degenerate range is
/// left alone with 2 ticks. `wholeSteps` as for niceTicks().
double niceFixedRange(double& lo, double& hi, int* count, int maxTicks = 11,
                      bool wholeSteps = false);
/// How many tick labels fit side by side on a horizontal axis of a chart `widthPx` wide (the
/// vertical axis's labels included) when one label is about `labelPx` wide (four digits of the
/// labels' font), each with 0.6 of its width free beside it. In [3, 11]; 11 when the width is
/// not known (0).
int ticksThatFit(double widthPx, double labelPx);
/// A printf format for tick labels of this step that tells neighbouring ticks apart and is
/// never empty: "%.0f" for whole steps, "%.2f" for a step of 0.05, "%.3g" for tiny or huge
/// values.
QString tickFormat(double lo, double hi, double step);
/// A tick of a log axis drawn as a linear axis over log10(value) (Qt's own log axis draws no
/// labels for ranges narrower than 1e-12, e.g. an exact fit's 1e-30 losses).
struct LogTick {
    double exponent = 0; ///< log10 of the value
    QString label;
};
/// Ticks of a log axis over [lo, hi] (both > 0): every decadesPerTick()-th decade when the
/// range holds at least two; else 1, 2, 5 × 10^e (`wide`, a horizontal axis with room for more
/// labels: 1, 2, 4, 8 × 10^e when that gives three or more ticks and 1, 2, 5 fewer than four),
/// then 1…9 × 10^e; else the two ends. Labels are distinct readable numbers.
QList<LogTick> logTicks(double lo, double hi, bool wide = false);

/// The label of a log-axis tick at 10^e: "10⁻²⁰", "0.01", "1", "1000", "10⁶" (decimals from
/// 0.001 to 10000, else 10 with a superscript exponent, as a paper typesets it).
QString logTickLabel(double value);

/// The ranges of a plot: data (ignoring what a log axis cannot show and hidden series), y
/// padded (log: in log space), x as it is, or the manual range when one is set. Empty
/// data gives [0, 1] (linear) or [1e-3, 1] (log).
Ranges computeRanges(const PlotState& st);

/// TensorBoard's smoothing: an exponential moving average with weight w in [0, 1), debiased
/// (s_k = m_k / (1 - w^k) with m_k = w m_{k-1} + (1 - w) y_k) so the start is not pulled to 0.
/// On a log y axis it averages log10(y) (an exponential decay stays a straight line); points
/// that the axis cannot show are skipped. w <= 0 returns the points unchanged.
QList<QPointF> emaSmooth(const QList<QPointF>& points, double weight, bool logY);

/// The series a plot draws: hidden ones left out; with smoothing, each smoothable series as
/// its raw curve (faint, thin, outside the legend) followed by the smoothed curve; last, on a
/// log y axis, belowFloorSeries() when a point lies below the floor.
QList<PlotSeries> displayedSeries(const PlotState& st);
/// The legend name of the marks of values below kLogFloor ("below 1e-20, drawn at 1e-20").
[[nodiscard]] QString belowFloorName();
/// On a log y axis: a Floor series (black hollow diamonds, in the legend as belowFloorName())
/// at (x, kLogFloor) for every drawn point of a point or line series with 0 < y < kLogFloor,
/// so that a value drawn at the floor is marked in the figure itself (a paper figure carries
/// no note). Empty points when there is none.
[[nodiscard]] PlotSeries belowFloorSeries(const PlotState& st);

/// One legend entry per group (PlotSeries::groupName; the first listed series of a group gives
/// colour and style).
struct LegendEntry {
    QString name;
    QString group; ///< what a click hides or shows (PlotSeries::groupName)
    QColor color;
    PlotSeries::Style style = PlotSeries::Style::Line;
    int mark = 0;          ///< PlotSeries::mark of the entry's first series
    bool hidden = false;   ///< hidden by the user: drawn faded, a click shows it again
    bool offScale = false; ///< no point of it lies inside the axes shown
    bool operator==(const LegendEntry&) const = default;
};
QList<LegendEntry> legendEntries(const PlotState& st, const Ranges& shown);

/// The axis range [lo, hi] zoomed by `factor` (< 1 zooms in) about `anchor`, which stays
/// where it is on screen; on a log axis in log space. Returns false (range unchanged) when
/// the result would be degenerate or not finite.
bool zoomRange(double& lo, double& hi, double anchor, double factor, bool log);
/// The axis range [lo, hi] moved so that the value under the cursor at `from` goes to `to`
/// (a drag); on a log axis in log space.
bool panRange(double& lo, double& hi, double from, double to, bool log);

/// The value at fraction f (0 = lo, 1 = hi) of an axis showing [lo, hi] (log: geometric).
double valueAtFraction(double f, double lo, double hi, bool log);

/// Sizes of a figure for a paper: no title or captions, fonts and lines for the column width.
struct PaperStyle {
    double widthInches = 3.4, heightInches = 2.4; ///< one column of a two-column paper
    double fontPt = 8;                            ///< axis labels, titles and legend
    double lineScale = 0.6;                       ///< series pen widths relative to the screen
    static PaperStyle oneColumn() { return {}; }
    static PaperStyle twoColumns() { return {7.0, 2.8, 9, 0.7}; }
};

/// Plain text with "_x" subscripts ("λ_min(Λ)", "σ_r", "‖P̂ − P*‖_F") as HTML with <sub> tags,
/// everything else escaped: "λ<sub>min</sub>(Λ)". Only a "_" after a one-letter symbol or a
/// sign starts a subscript: names in text ("certificate_samples", "task.orthogonal_prob",
/// "distance_p_rel") stay as they are.
QString typesetSubscripts(const QString& plain);
/// An axis title as the HTML an axis shows: escaped, with subscripts only when Typeset.
QString axisTitleHtml(const QString& title, TitleText kind);

/// A title fitted into `room` pixels (a short plot at scale 2 cut "MSE · OOD" to "MSE · O…"):
/// the font shrunk, down to 75 % of its size and not below 7 pt, until the title fits; else the
/// title shortened with "…" at that size (`elided`: the full text belongs in a tooltip). Axis
/// titles, chart titles and heatmap titles; `device` (not null) measures as that paint device
/// does (an export's resolution).
struct FittedTitle {
    QString html; ///< rich text (axis and chart titles)
    QString text; ///< the same as plain text (titles drawn with QPainter::drawText)
    QFont font;
    bool elided = false;
};
FittedTitle fitTitle(const QString& title, TitleText kind, const QFont& font, double room,
                     const QPaintDevice* device = nullptr);

/// QFontMetricsF::elidedText that does not cut a word: the text elided as Qt does (Right or
/// Middle), then the cut moved to the nearest word boundary (a space or one of "·,=/()_.")
/// when that keeps at least half of the kept part (a legend shows "#13 mhla · …heads=2" rather
/// than "#13 mhla · rand…eads=2"). Never wider than Qt's text.
[[nodiscard]] QString elideAtWords(const QString& text, const QFontMetricsF& fm, double width,
                                   Qt::TextElideMode mode);

/// Plain text cut into runs of normal text and "_x" subscripts (the subscripts of
/// typesetSubscripts, without the "_"), for text drawn with QPainter: "‖P − P*‖_F" is
/// {"‖P − P*‖", false}, {"F", true}.
struct TextRun {
    QString text;
    bool subscript = false;
    bool operator==(const TextRun&) const = default;
};
QList<TextRun> subscriptRuns(const QString& plain);

/// A number at full precision (17 significant digits; round-trips to the same double).
QString exact(double v);

} // namespace plotmath

using plotmath::PaperStyle;

} // namespace mhla::ui
