#pragma once
// A verdict per claim: the statistic that says whether a sweep reproduces what its paper file
// claims, so that nobody judges a cloud of points by eye. Pure data, no widgets; `mhla-lab
// figures` writes the verdicts into DIR/verdict.txt and DIR/verdict.json and prints them.
//
// The optional "verdicts" array of an experiment file (top level, next to "sweep"):
//
//   "verdicts": [
//     {"claim": TEXT, "kind": "spearman", "x": METRIC, "y": METRIC, "op": "<", "value": -0.5},
//     {"claim": TEXT, "kind": "median", "y": METRIC, "at": {SWEPT_KEY: VALUE}, "op": "<",
//      "value": 1e-12},
//     {"claim": TEXT, "kind": "fraction", "y": METRIC, "at": {...}, "op": ">=", "value": 0.9},
//     {"claim": TEXT, "kind": "ratio", "y": METRIC, "at": {...}, "over": {...}, "op": ">",
//      "value": 10}
//   ]
//
// METRIC is a metric term of the "figures" block (a runs.csv column or a swept key, optionally
// log10(M), -log10(M) or -log10(M + EPS)). "at" and "over" select the runs whose swept keys have
// the given values (a subset of the swept keys; numbers agree to 1e-9 relative); without "at",
// every run counts.
//   spearman  Spearman's rank correlation of x and y over the runs with both finite (ties get
//             their mean rank); the spread is the same statistic per seed (min..max).
//   median    the median of y over the selected runs; the spread is q10..q90.
//   fraction  the fraction of the selected runs whose y is positive (certified: true is 1).
//   ratio     median(y at "at") / median(y at "over"); the spread is the ratio per seed.
// "op" is one of <, <=, >, >=; the claim reproduces when STATISTIC op VALUE holds. A verdict
// whose runs are missing (none selected, or fewer than 3 for spearman) does not reproduce and
// says why.
#include "core/sweep/sweep.h"
#include <QByteArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QString>
#include <utility>
#include <vector>

namespace mhla {

struct SweepVerdictSpec {
    enum class Kind { Spearman, Median, Fraction, Ratio };
    enum class Op { Less, LessEqual, Greater, GreaterEqual };
    QString claim;
    Kind kind = Kind::Median;
    QString x, y;
    std::vector<std::pair<QString, QJsonValue>> at, over;
    Op op = Op::Less;
    double value = 0;
};

struct SweepVerdict {
    QString claim;
    bool reproduces = false;
    QString statistic; ///< "spearman(lambda_min, distance_p)", "median(lambda_min)", ...
    double value = 0;  ///< the statistic (NaN when it could not be computed)
    double spreadLow = 0, spreadHigh = 0; ///< per-seed range or q10..q90 (NaN: none)
    int runs = 0;                         ///< runs that entered the statistic
    QString expected;                     ///< "< -0.5"
    QString reason; ///< why the statistic could not be computed (empty when it was)
    /// One line: "reproduces: CLAIM -- spearman(...) = -0.82 over 510 runs (per seed -0.9 ..
    /// -0.7); expected < -0.5".
    [[nodiscard]] QString line() const;
};

/// Parses and validates a "verdicts" value against the plan (undefined or null: none). Throws
/// ConfigError naming "verdicts[i].member" and what is allowed.
[[nodiscard]] std::vector<SweepVerdictSpec> parseSweepVerdicts(const QJsonValue& verdicts,
                                                               const SweepPlan& plan);

/// The verdict of one claim on the finished runs (results in run order, empty objects for
/// missing runs). Deterministic: depends only on the runs' result.json values.
[[nodiscard]] SweepVerdict evaluateSweepVerdict(const SweepVerdictSpec& spec, const SweepPlan& plan,
                                                const std::vector<QJsonObject>& results);

/// Spearman's rank correlation of paired values (ties: mean ranks); NaN for fewer than 2 pairs
/// or a constant side.
[[nodiscard]] double spearmanRho(const std::vector<double>& x, const std::vector<double>& y);

/// verdict.txt (one line per verdict) and verdict.json (an array of objects with claim,
/// reproduces, statistic, value, spread, runs, expected, reason).
[[nodiscard]] QByteArray verdictsText(const std::vector<SweepVerdict>& verdicts);
[[nodiscard]] QByteArray verdictsJson(const std::vector<SweepVerdict>& verdicts);

} // namespace mhla
