#pragma once
// Everything a run writes: the result as JSON, and every CSV. One schema per file name,
// whichever command writes it (`solve --out`, `figures`, the GUI's Export all): numbers at 17
// significant digits (they read back to the same double), empty cells for undefined values,
// text quoted when it needs to be, and data only (never a drawn position such as a log-axis
// floor in place of a value).
#include "core/records/csvtable.h"
#include "core/run/result.h"
#include <QByteArray>
#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <vector>

namespace mhla {

/// spectrum.csv: index (0-based, ascending eigenvalues), eigenvalue, below_tolerance.
[[nodiscard]] CsvTable spectrumTable(const ExperimentResult& r);
/// heads.csv: model (learned | teacher), head, matrix (V | Q), row, col, value (0-based).
[[nodiscard]] CsvTable headsTable(const ExperimentResult& r);
/// lambda_trace.csv: samples, lambda_min.
[[nodiscard]] CsvTable lambdaTraceTable(const ExperimentResult& r);
/// history.csv: epoch, step, lr, train_mse, val_mse, ood_rel_mse, distance_p,
/// distance_p_rel, distance_exact_rel.
[[nodiscard]] CsvTable historyTable(const ExperimentResult& r);
/// seeds.csv: task_seed, task_rng (the generator's name), solver_seed, certified, then every
/// scalar metric.
[[nodiscard]] CsvTable seedsTable(const std::vector<ExperimentResult>& runs);

/// The version of the result.json layout (its "format_version" key). Readers refuse a newer
/// one; files written before the key existed are version 1.
/// 2: the embedded config carries task.rng (a format-1 result was drawn with
/// kRngWhenAbsent, which its config, without the key, reads as).
/// 3: a trainer's "heads" is the trained model's own head count (solver.heads); the canonical
/// heads of its folded P, the rows of heads.csv, number "rank". Up to format 2 a trainer's
/// "heads" counted those rows (9 at d = 3 for a model of 1 to 8 heads).
constexpr int kResultFormatVersion = 3;

/// The result as the JSON object printed by `mhla-lab solve` (config embedded).
[[nodiscard]] QJsonObject resultToJson(const ExperimentResult& r);

/// Runs of one experiment over several seeds: the task seed and the solver seed of run k are
/// the configured ones plus k. Throws ConfigError if a seed would leave [0, 2^53].
[[nodiscard]] std::vector<ExperimentConfig> seedVariants(const ExperimentConfig& cfg, int count);
/// Mean and sample standard deviation (divisor n - 1; 0 for a single value) of `v`, which
/// must not be empty: the one formula behind every mean ± std summary (seeds, sweeps, bands).
struct MeanStd {
    double mean = 0;
    double std = 0;
};
[[nodiscard]] MeanStd meanAndStd(const std::vector<double>& v);
/// Mean, sample standard deviation, min and max over runs of every scalar metric (and the
/// fraction of certified runs), for mean ± band summaries.
[[nodiscard]] QJsonObject seedSummaryJson(const std::vector<ExperimentResult>& runs);

/// The names of the data files resultFiles() writes, in its order: result.json,
/// experiment.json, spectrum.csv, heads.csv, lambda_trace.csv, history.csv (the last for
/// trainers only). The one home of these names for every caller that must avoid or list them.
[[nodiscard]] QStringList resultFileNames();
/// The data files of one run, by file name, in the order they are written: result.json,
/// experiment.json, spectrum.csv, heads.csv, lambda_trace.csv, and history.csv for trainers.
/// `resultJson` is the text of result.json (the caller may have built a larger object).
[[nodiscard]] std::vector<std::pair<QString, QByteArray>> resultFiles(const ExperimentResult& r,
                                                                      const QByteArray& resultJson);
/// Writes files into dir, each atomically (core/base/fileio.h). Stops at the first failure and
/// returns its message (naming the file and the OS reason); empty on success. `written`
/// receives the paths written.
[[nodiscard]] QString writeFiles(const QString& dir,
                                 const std::vector<std::pair<QString, QByteArray>>& files,
                                 QStringList* written = nullptr);

/// Writes the files of one run (resultFiles(), plus seeds.csv) into dir so that the folder is
/// at every moment either one whole run or refused by the reader (which needs result.json):
/// the old result.json is removed first, then the old run's files this one does not write
/// (seeds.csv, history.csv) and stale temporaries of killed writers; then every file, each
/// atomically, and result.json last. Returns the first failure's message, empty on success.
[[nodiscard]] QString writeRunFolder(const QString& dir,
                                     std::vector<std::pair<QString, QByteArray>> files);

} // namespace mhla
