#pragma once
// What `mhla-lab figures` (and the GUI's Sweep tab) draws for a sweep, and the reduction of a
// sweep's runs to plotted series. Pure data, no widgets: the ui turns SweepFigureData into a
// plot; the CSV written beside the figure is SweepFigureData::csv.
//
// The optional "figures" array of an experiment file (top level, next to "sweep"):
//
//   "figures": [
//     {"kind": "band", "y": METRIC, "x": SWEPT_KEY, "band": "quantile", "overlay": METRIC},
//     {"kind": "scatter", "x": METRIC, "y": METRIC, "colour": SWEPT_KEY, "overlay": METRIC},
//     {"kind": "curves", "y": HISTORY_FIELD, "x": "epoch", "band": "minmax"}
//   ]
//
// Members of every figure: "kind" (required), "name" (file base name, [A-Za-z0-9_-], default
// "sweep_<kind>_<y>"), "title", "log_x", "log_y" (booleans; default: a log axis when every
// value is positive and they span a factor of 8 or more).
//   band     a metric against a swept key: one line per combination of the other swept keys
//            (its centre) with a band over the seeds. "x" defaults to the first swept key
//            with numeric values; string values (a choice key) are categories on the x axis
//            (drawn at 0, 1, 2, ..., labelled with the values). "band": "quantile" (median,
//            q10..q90; default) | "std" (mean +- std) | "minmax" (median, min..max) | "none"
//            (median). "overlay" (optional metric) adds its median per x over every run, in
//            black (e.g. exact.val_mse: the exact solver on the same data).
//   scatter  one marker per run, metric against metric; "colour" (optional swept key) gives
//            one series per value; "overlay" (optional metric) adds the same runs' overlay
//            metric against the same x (e.g. exact.distance_p: the exact solver).
//   curves   trainers' learning curves: HISTORY_FIELD (train_mse, val_mse, ood_rel_mse,
//            distance_p, distance_p_rel, distance_exact_rel) against "epoch" (default) or
//            "step", one line per grid point with a band over its seeds ("band" as above).
// METRIC is a runs.csv column (sweepMetricColumns(): lambda_min, val_mse, distance_p, exact.*,
// ...) or a swept key, optionally as "log10(M)", "-log10(M)" or, the paper's axis for
// lambda_min, "-log10(M + EPS)" with a positive EPS such as 1e-10 (M below 0, round-off of a
// value that is 0, counts as 0, so a run with lambda_min <= 0 lands at -log10(EPS)). Unknown
// members, kinds, metrics, keys and bands are ConfigErrors naming "figures[i].member" and what
// is allowed.
//
// Nothing that carries a claim is dropped. On a log y axis a value <= 0 (lambda_min of a
// non-identifiable task) is drawn at a floor a decade below the smallest positive value, with
// its own marker (SweepPlotSeries::Style::Floor) and a note that counts the runs; the CSV keeps
// the exact values. When the runs report "certified", runs that are not certified are drawn
// as triangles (scatter: their own series "<name> · not certified"; band: a triangle on the
// centre where some seeds are not certified) and the note counts them.
//
// Without "figures" (or with "figures": null) a sweep gets defaults (defaultSweepFigures): a
// band of the headline metric (lambda_min for the exact solver, val_mse for trainers) against
// the first numeric swept key, and the trainers' val_mse curves.
#include "core/sweep/sweep.h"
#include <QByteArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QString>
#include <QStringList>
#include <optional>
#include <vector>

namespace mhla {

struct SweepFigureSpec {
    enum class Kind { Band, Scatter, Curves };
    enum class BandKind { Quantile, Std, MinMax, None };
    Kind kind = Kind::Band;
    QString name, title;
    QString x, y;
    QString colour;  ///< scatter: swept key (empty: one series)
    QString overlay; ///< scatter, band: metric drawn against the same x (black)
    BandKind band = BandKind::Quantile;
    std::optional<bool> logX, logY; ///< unset: automatic
};

/// Parses and validates a "figures" value against the plan (swept keys, metrics). An undefined
/// or null value (a file without a "figures" block) gives defaultSweepFigures(plan). Throws
/// ConfigError naming "figures[i].member".
[[nodiscard]] std::vector<SweepFigureSpec> parseSweepFigures(const QJsonValue& figures,
                                                             const SweepPlan& plan);
/// The figures drawn when the file names none.
[[nodiscard]] std::vector<SweepFigureSpec> defaultSweepFigures(const SweepPlan& plan);

/// One plotted series. Band: y is the upper edge and lower the lower edge. ErrorBar: one
/// vertical segment from (x[0], y[0]) to (x[1], y[1]) (the band at a categorical x). Floor:
/// markers at the floor of a log axis for values that it cannot show (<= 0). Triangles:
/// markers of runs that are not certified.
struct SweepPlotSeries {
    enum class Style { Line, Markers, Band, ErrorBar, Floor, Triangles };
    QString name;
    Style style = Style::Line;
    std::vector<double> x, y, lower;
    int colour = 0; ///< index of the series' colour (its group); -1: black (a reference)
    bool inLegend = true;
};

struct SweepFigureData {
    QString name, title, xTitle, yTitle, note;
    /// A band against a swept choice key (strings): its values, drawn at x = 0, 1, ... on a
    /// categorical axis. Empty: a numeric x.
    QStringList xCategories;
    bool logX = false, logY = false;
    /// Log y: where values <= 0 are drawn (a decade below the smallest positive value, not
    /// below kLogDisplayFloor); 0 when no value is <= 0.
    double floorY = 0;
    int runsAtFloor = 0;      ///< runs with a value <= 0 drawn at floorY
    int runsNotCertified = 0; ///< runs drawn as not certified (0 when no run reports it)
    std::vector<SweepPlotSeries> series;
    QByteArray csv;   ///< the reduced data (header line first)
    int runsUsed = 0; ///< runs that contributed at least one finite value
    bool empty() const { return runsUsed == 0; }
};

/// Reduces the finished runs (results in run order, empty objects for missing runs) to the
/// figure's series and CSV. Deterministic: depends only on the runs' result.json values.
/// Throws ConfigError when the runs cannot give the figure (curves without trainer runs).
[[nodiscard]] SweepFigureData reduceSweepFigure(const SweepFigureSpec& spec, const SweepPlan& plan,
                                                const std::vector<QJsonObject>& results);

/// A plan that describes runs made elsewhere (the GUI's runs of a preset's sweep times seeds):
/// the axes are the keys whose values differ between the configs (task.seed and solver.seed
/// excepted: those are the seeds), sorted; values and points in order of first appearance; each
/// config is one run, its seed its rank among the runs of its point. Runs of configs that differ
/// in seeds only share one point.
[[nodiscard]] SweepPlan sweepPlanFromConfigs(const std::vector<ExperimentConfig>& configs);

/// The value of a metric term (METRIC above) for one run: NaN when the run has none.
[[nodiscard]] double sweepTermValue(const QString& term, const SweepPlan& plan, const SweepRun& run,
                                    const QJsonObject& result);
/// Throws ConfigError naming `where` unless `term` is a metric term of the plan.
void checkSweepTerm(const QString& term, const SweepPlan& plan, const QString& where);

/// The centre, lower and upper edge of a band over values (finite, any order).
struct BandStats {
    double centre = 0, lower = 0, upper = 0;
    int count = 0;
};
[[nodiscard]] BandStats bandStats(std::vector<double> values, SweepFigureSpec::BandKind kind);

} // namespace mhla
