#pragma once
// The one way to read an experiment: the GUI's Open, `solve`, `figures`, the presets and the
// tests all call loadExperiment().
#include "core/experiment/config.h"
#include <QJsonObject>
#include <QString>
#include <QStringList>

namespace mhla {

/// An experiment as read from a file (and overrides), validated.
struct LoadedExperiment {
    ExperimentConfig config; ///< every default filled in
    QJsonObject json;        ///< the object as read, overrides applied (for round trips)
    QStringList warnings;    ///< e.g. keys in the file that this run does not read
};

/// Reads an experiment file (a regular file of at most 1 MiB, a JSON object with sections
/// task, solver, eval; no repeated keys), applies "section.key=value" overrides in order and
/// validates everything. An override of a key that the resulting run does not read is an
/// error that lists the keys that apply. An empty path starts from the defaults (task.rng
/// included; a file without task.rng reads as kRngWhenAbsent). Relative
/// file paths (task.prompts, task.targets) in the file are resolved against its folder, those
/// from overrides against the working folder; the config holds them absolute.
/// Throws ConfigError; its message starts with the file's name when the file is at fault.
[[nodiscard]] LoadedExperiment loadExperiment(const QString& path,
                                              const QStringList& overrides = {});

/// The same from JSON text already in memory (a preset, a dropped file); `origin` names it in
/// messages.
[[nodiscard]] LoadedExperiment loadExperimentText(const QByteArray& text,
                                                  const QStringList& overrides = {},
                                                  const QString& origin = {});

/// Applies overrides to an experiment object and validates it (what loadExperiment does after
/// reading). Throws ConfigError; an override of a key the run does not read is named as given
/// by `option` ("--set", or "--grid" for a sweep's points).
/// `knownShape`: a dataset task's shape when its data is already in memory (its files are then
/// not read; see TaskConfig::arrays).
[[nodiscard]] LoadedExperiment loadExperimentObject(QJsonObject obj,
                                                    const QStringList& overrides = {},
                                                    const char* option = "--set",
                                                    const DatasetShape* knownShape = nullptr);

/// Keys of the experiment file that a run with this configuration reads, as dotted paths.
[[nodiscard]] QStringList keysReadBy(const ExperimentConfig& cfg);

} // namespace mhla
