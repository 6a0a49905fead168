#pragma once
// Opening and saving experiment files from the window without losing data: what Open may put
// into the form, and why saving over a file needs the user's confirmation. No widgets here, so
// the decisions are testable; the window asks the questions.
#include "core/sweep/sweep.h"
#include <QByteArray>
#include <QJsonObject>
#include <QString>
#include <QStringList>

namespace mhla::ui {

struct ExperimentFileRead {
    /// True when the form may show the file: a valid experiment, or an experiment file whose
    /// only problems are values of known keys (shown marked at their fields, to be fixed).
    bool usable = false;
    /// True when core accepts the file as it is.
    bool valid = false;
    QJsonObject json;     ///< the experiment object as read (when usable)
    QByteArray bytes;     ///< the file's bytes (when usable), to notice later changes on disk
    QString error;        ///< core's message naming the file (when not valid)
    QStringList warnings; ///< e.g. keys that this run does not read
    /// An experiment file with a "sweep" (resources/paper/*.json): json is its base
    /// experiment at the grid's first point and sweep the parsed grid (core's parseSweep;
    /// every point validated).
    bool hasSweep = false;
    SweepSpec sweep;
    /// The sweep file's "figures" (undefined when it has none): what the Sweep tab offers to
    /// draw, as `mhla-lab figures` draws them.
    QJsonValue figures;
};

/// Reads an experiment file through core's loader (a file with a "sweep": its base and sweep).
/// Anything that is not an experiment file (unreadable, not JSON, repeated keys, unknown keys, a
/// result.json) is not usable, so a failed Open changes nothing.
ExperimentFileRead readExperimentFile(const QString& path);

/// Why saving an experiment over `path` needs confirmation, or an empty string when it does
/// not: the file is not an experiment file (e.g. a result.json), has keys that saving would
/// drop, cannot be read, or changed on disk since the window read or wrote `knownBytes`
/// (pass a null QByteArray when the window has not read this file).
QString overwriteRisk(const QString& path, const QByteArray& knownBytes = {});

} // namespace mhla::ui
