#pragma once
// Running a planned sweep into a folder (DIR/runs/<folder>/ per run, result.json last), resume,
// and the sweep's tables. Shared by `mhla-lab sweep` and `mhla-lab figures` on a sweep file.
#include "core/base/types.h"
#include "core/run/estimate.h"
#include "core/sweep/sweep.h"
#include <QJsonObject>
#include <QJsonValue>
#include <QString>
#include <QStringList>
#include <functional>
#include <vector>

namespace mhla {

/// The plan of a sweep from an experiment file (empty path: the defaults), command-line grid
/// assignments, a seed count (0: the file's) and overrides. `*figures` receives the file's
/// "figures" value and `*verdicts` its "verdicts" (undefined when absent). Throws ConfigError
/// naming the file and key; more than `maxRuns` (> 0) runs is one with key "--yes", thrown
/// before any run is validated.
[[nodiscard]] SweepPlan planSweepFile(const QString& config, const QStringList& grids, int seeds,
                                      const QStringList& sets, QJsonValue* figures = nullptr,
                                      long long maxRuns = 0, QJsonValue* verdicts = nullptr);

/// DIR/runs/<run folder>.
[[nodiscard]] QString sweepRunDir(const QString& dir, const SweepRun& run);
/// The run's result.json when complete and of this run (same resolved config), else empty.
[[nodiscard]] QJsonObject finishedSweepResult(const QString& dir, const SweepRun& run);
/// Writes DIR/sweep.json, or checks that DIR's equals it. Returns an error or empty.
[[nodiscard]] QString claimSweepFolder(const QString& dir, const SweepPlan& plan);
/// Reads every finished run (empty objects for missing ones, in run order).
[[nodiscard]] std::vector<QJsonObject> readSweepResults(const QString& dir, const SweepPlan& plan,
                                                        int* missing);
/// runs.csv, summary.csv and timings.csv from the finished runs. Returns an error or empty.
[[nodiscard]] QString writeSweepTables(const QString& dir, const SweepPlan& plan,
                                       const std::vector<QJsonObject>& results);

/// One finished (or failed) run, reported as it completes.
struct SweepProgress {
    int done = 0, total = 0; ///< of the runs this call runs
    const SweepRun* run = nullptr;
    QJsonObject result; ///< empty when the run failed
    QString message;    ///< "certified, lambda_min ..." or "failed: ..."
    bool failed = false;
    double elapsedSeconds = 0, etaSeconds = 0;
};

struct SweepExecution {
    int jobs = 1;              ///< runs in parallel; results do not depend on it
    int shard = 0, shards = 1; ///< runs with index mod shards == shard
    CancelToken* cancel = nullptr;
    /// Called once per run, from the worker threads but never two at a time.
    std::function<void(const SweepProgress&)> onRunDone;
};

struct SweepOutcome {
    int mine = 0;        ///< runs of this shard
    int alreadyDone = 0; ///< skipped (resume)
    int ran = 0, failed = 0;
    bool cancelled = false;
};

/// What running the unfinished runs of a shard would take: the estimate of those runs, --jobs at
/// a time (time summed over them, memory jobs x the largest run), and what keeps this machine
/// from running them (jobs x the largest peak over 80% of RAM: key "--jobs" when one run fits).
/// The same 10-minute/--yes rule as solve applies to estimate (longRunRefusal).
struct SweepAdmission {
    int mine = 0, pending = 0;
    BatchEstimate estimate;
    std::vector<ConfigIssue> issues;
};
[[nodiscard]] SweepAdmission admitSweep(const SweepPlan& plan, const QString& dir,
                                        const SweepExecution& ex);

/// Runs the unfinished runs of the shard into DIR (claimSweepFolder first).
[[nodiscard]] SweepOutcome executeSweep(const SweepPlan& plan, const QString& dir,
                                        const SweepExecution& ex);

} // namespace mhla
