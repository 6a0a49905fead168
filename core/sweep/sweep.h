#pragma once
// Sweeps: a grid over experiment keys times K seeds, described in the experiment file and run
// by `mhla-lab sweep` (and the GUI). Everything here is pure data; running lives in the caller.
//
// The "sweep" object of an experiment file (optional, top level, next to task/solver/eval):
//
//   "sweep": {
//     "grid":  { "<section.key>": VALUES, ... },   required, at least one key
//     "mode":  "product" | "zip",                  default "product"
//     "seeds": K                                   integer in [1, 1000], default 1
//   }
//
// VALUES is one of
//   - a JSON array of values, each used as the key's value:   [1, 2, 4, 8], ["sgd", "adam"]
//   - "a:b:step"       a, a+step, a+2 step, ... while within b (b itself included when it is
//                      hit up to 1e-9 step); step != 0 and moving from a towards b; a == b
//                      gives [a]. Each value is a + k step rounded to 15 significant digits
//                      ("0:1:0.1" gives 0.3, not 0.30000000000000004).
//   - "logspace(a,b,n)" n values 10^(a + k (b - a)/(n - 1)), k = 0..n-1 (n = 1: 10^a),
//                      rounded to 15 significant digits.
// At most 100000 values per key. Keys are full dotted keys of the experiment file; unknown
// keys, other members of "sweep", bad ranges and mismatched zip lengths are ConfigErrors that
// name the key. The legacy preset form {"key": K, "values": [...]} means {"grid": {K: [...]}}.
//
// Points: "product" takes the Cartesian product with the axes in key order (alphabetical, as
// JSON objects are), the last axis varying fastest; "zip" takes the i-th value of every axis
// (all axes the same length). Runs: run index = point index * K + k for seed k = 0..K-1; seed k
// uses task.seed + k and solver.seed + k (seedVariants). A shard i/n runs the indices with
// index mod n == i.
//
// On the command line (--grid key=VALUES) VALUES is "a:b:step", "logspace(a,b,n)", a JSON array
// "[...]" or a comma-separated list whose items are read as JSON, else as strings
// (solver.heads=1,2,4,8; solver.optimizer=sgd,adam).
#include "core/experiment/config.h"
#include <QJsonArray>
#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <vector>

namespace mhla {

/// The most seeds per point: sweep.seeds, --seeds of solve, sweep and figures, and the GUI's
/// "Repeat over seeds" (one home, so that the command line and the window accept the same).
inline constexpr int kMaxSeeds = 1000;

/// One swept key and its values in order.
struct SweepAxis {
    QString key;       ///< dotted key ("task.orthogonal_prob")
    QJsonArray values; ///< resolved values
    /// From --grid (messages name it so), else from the file's sweep.grid.
    bool fromCommandLine = false;
};

struct SweepSpec {
    enum class Mode { Product, Zip };
    std::vector<SweepAxis> axes; ///< sorted by key; empty: a single point (the base experiment)
    Mode mode = Mode::Product;
    int seeds = 1;

    /// The resolved "sweep" object (explicit value lists): what sweep.json records.
    QJsonObject toJson() const;
    /// Replaces or adds one axis (keeps key order).
    void setAxis(SweepAxis axis);
};

/// An experiment file split into its base experiment and its sweep.
struct SweepFile {
    QJsonObject base; ///< the file without "sweep"
    SweepSpec spec;   ///< empty axes and seeds 1 when the file has no "sweep"
    bool hasSweep = false;
    /// The file's "figures" value (what `mhla-lab figures` draws for a sweep; see
    /// core/sweep/sweepfigure.h), removed from base; undefined when absent. Not part of the runs.
    QJsonValue figures;
    /// The file's "verdicts" value (the statistic per claim; see core/sweep/sweepverdict.h),
    /// removed from base; undefined when absent.
    QJsonValue verdicts;
};

/// Strips "sweep" (and "figures", "verdicts") from an experiment file object and parses it
/// strictly. Throws ConfigError naming the offending key ("sweep.grid.task.pairs",
/// "sweep.mode"...).
[[nodiscard]] SweepFile parseSweep(const QJsonObject& experimentFileObject);
/// Resolves VALUES (see above) for `key`; `where` names it in errors. Throws ConfigError.
[[nodiscard]] QJsonArray parseSweepValues(const QString& key, const QJsonValue& values,
                                          const QString& where);
/// Parses a command-line "key=VALUES" into an axis. Throws ConfigError.
[[nodiscard]] SweepAxis parseGridAssignment(const QString& assignment);

/// One grid point: the value of each swept key.
struct SweepPoint {
    int index = 0;
    std::vector<std::pair<QString, QJsonValue>> values; ///< in axis order
    /// "key=value" overrides for loadExperimentObject (values as JSON).
    QStringList overrides() const;
    /// "orthogonal_prob=0.25_heads=2": short keys, filesystem-safe, at most 80 characters.
    QString slug() const;
    /// "task.orthogonal_prob=0.25, solver.heads=2" for messages.
    QString label() const;
};
/// Every point of the grid. Throws ConfigError (zip lengths differ, more than 1e6 points).
[[nodiscard]] std::vector<SweepPoint> sweepPoints(const SweepSpec& spec);
/// The number of points of the grid, counted without building them (saturates above 1e6 + 1,
/// so any grid is counted in microseconds). Throws ConfigError (zip lengths differ).
long long sweepPointCount(const SweepSpec& spec);

/// One run of a sweep: a point and a seed.
struct SweepRun {
    int index = 0; ///< point * seeds + seed
    int point = 0;
    int seed = 0; ///< k in 0..seeds-1
    ExperimentConfig config;
    QString folder; ///< "0007-orthogonal_prob=0.25-s8" (index, slug, task seed)
};

/// Runs `sweep` and `figures` plan without --yes (more is refused before any run is validated).
constexpr long long kSweepRunsWithoutYes = 1000;

/// A planned sweep: every run, validated before anything runs.
struct SweepPlan {
    QJsonObject base; ///< base experiment object, overrides applied
    SweepSpec spec;
    std::vector<SweepPoint> points;
    std::vector<SweepRun> runs;
    /// The experiment file that reproduces the sweep exactly (base + resolved "sweep"):
    /// the bytes of DIR/sweep.json.
    QByteArray sweepJson() const;
};
/// Applies `overrides` to the base, then each point through the same override mechanism, and
/// validates every run. A point invalid for the task is a ConfigError naming the point. The
/// run count is checked first, before any point is built or validated: more than 1e6 runs, or
/// more than `maxRuns` (> 0), is a ConfigError with key "--yes" (for maxRuns) or "sweep.grid".
[[nodiscard]] SweepPlan planSweep(const QJsonObject& base, const SweepSpec& spec,
                                  const QStringList& overrides = {}, long long maxRuns = 0);

/// Column names of runs.csv after the run, point and swept-key columns.
[[nodiscard]] QStringList sweepMetricColumns();
/// runs.csv from the result.json objects of the runs, in run order (missing runs are skipped).
/// Deterministic: the same bytes for any --jobs, any sharding, any machine (no timings).
[[nodiscard]] QByteArray sweepRunsCsv(const SweepPlan& plan,
                                      const std::vector<QJsonObject>& results);
/// summary.csv: per point and numeric metric: mean, std (sample), median, q10, q90 (linear
/// interpolation between order statistics), min, max, runs (finite values).
[[nodiscard]] QByteArray sweepSummaryCsv(const SweepPlan& plan,
                                         const std::vector<QJsonObject>& results);
/// timings.csv: run, folder, wall_ms (from each result's timings_ms.total).
[[nodiscard]] QByteArray sweepTimingsCsv(const SweepPlan& plan,
                                         const std::vector<QJsonObject>& results);

/// The value of a runs.csv metric column (sweepMetricColumns()) in a run's result.json:
/// undefined when the run has none. Booleans (certified) are JSON booleans.
[[nodiscard]] QJsonValue sweepMetric(const QJsonObject& result, const QString& column);

/// Quantile q in [0, 1] of sorted values (linear interpolation, as numpy's default).
[[nodiscard]] double sortedQuantile(const std::vector<double>& sorted, double q);

} // namespace mhla
