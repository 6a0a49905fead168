#pragma once
// The built-in presets (resources/presets/index.json in the qrc): experiment files that run
// instantly, with a title, an explanation and optionally a sweep of one key (several runs
// overlaid).
#include "core/sweep/sweep.h"
#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QString>

namespace mhla::ui {

struct Preset {
    QString file; ///< file name in :/presets/
    QString title;
    QString shortName; ///< used in run names
    QString tab; ///< the id of the result tab that shows its point ("certificate"), shown on load
    QString explanation; ///< rich text
    /// The preset's sweep, parsed by core's parseSweep (the same grammar as an experiment
    /// file's "sweep"; the index's short form {"key": K, "values": [...]} is one axis). Empty
    /// axes when the preset has none.
    SweepSpec sweep;
    QString sweepKey;       ///< the first swept key ("solver.heads"), empty if none
    QJsonArray sweepValues; ///< its values
    QJsonObject experiment; ///< the experiment file's JSON
};

/// A preset's index entry parsed (title, short name, explanation, sweep); throws ConfigError
/// naming the preset's file when its "sweep" is invalid.
Preset presetFromIndexEntry(const QJsonObject& entry);

/// Registers the app's resources (presets, icon); idempotent.
void initResources();
/// Every built-in preset, in menu order (loaded once from the resources).
const QList<Preset>& builtinPresets();
/// File name of the default preset (the README's `figures` example).
QString defaultPresetFile();
/// Sets a dotted key ("task.samples") of an experiment object.
void setDotted(QJsonObject& obj, const QString& key, const QJsonValue& value);
/// Reads a dotted key.
QJsonValue getDotted(const QJsonObject& obj, const QString& key);

} // namespace mhla::ui
