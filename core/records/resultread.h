#pragma once
// The reader of a results folder, as written by `mhla-lab solve --out DIR` and the GUI's
// "Export all" (core/records/resultio.h): result.json with its embedded experiment, spectrum.csv,
// heads.csv, lambda_trace.csv and, for trainers, history.csv. Every number that is written
// reads back to the same double (17 significant digits in the CSVs, shortest round-trip form in
// the JSON). What is not written is not invented: the automaton's example word, the
// identifiability report and the folded coefficients are not in the folder (P and P* are
// rebuilt from heads.csv, see ResultFolder::notes).
#include "core/run/result.h"
#include <QString>
#include <QStringList>
#include <optional>

namespace mhla {

/// A run read back from a results folder.
struct ResultFolder {
    ExperimentResult result;
    QString name;      ///< a display name: the folder's name
    QStringList notes; ///< what the folder does not hold and how it was made up for
};

/// Reads the results folder dir. On failure returns nothing and sets *error to a message that
/// names the file, the line (CSV) or the key (JSON), what is wrong and what is allowed.
[[nodiscard]] std::optional<ResultFolder> readResultFolder(const QString& dir, QString* error);

/// True when dir holds a result.json (it looks like a results folder, whether or not it reads).
[[nodiscard]] bool isResultFolder(const QString& dir);

} // namespace mhla
