#include "ui/experiment/experimentfile.h"
#include "core/base/fileio.h"
#include "core/experiment/config.h"
#include "core/experiment/loader.h"
#include <QCoreApplication>
#include <QFileInfo>

namespace mhla::ui {

namespace {
QString tr(const char* s) { return QCoreApplication::translate("mhla::ui::ExperimentFile", s); }

/// The file's JSON object when it is a sweep file (a "sweep", "figures" or "verdicts" beside the
/// experiment), with its bytes in *raw; nullopt for anything else.
std::optional<QJsonObject> sweepFileObject(const QString& path, QByteArray* raw) {
    QString readError;
    if (!readRegularFile(path, raw, &readError)) return std::nullopt;
    QJsonObject obj;
    try {
        obj = experimentObjectFromJsonText(*raw);
    } catch (const ConfigError&) {
        return std::nullopt;
    }
    if (!obj.contains(QStringLiteral("sweep")) && !obj.contains(QStringLiteral("figures")) &&
        !obj.contains(QStringLiteral("verdicts")))
        return std::nullopt;
    return obj;
}

/// A sweep file: its base goes into the form and its grid becomes the sweep that Run starts;
/// all of it valid or nothing.
ExperimentFileRead readSweepFile(const QString& path, const QJsonObject& obj,
                                 const QByteArray& raw) {
    ExperimentFileRead out;
    try {
        const SweepFile sf = parseSweep(obj);
        const SweepPlan plan = planSweep(sf.base, sf.spec);
        // The form shows the first point (the base alone may lack a swept key, e.g.
        // solver.heads for a trainer); Run replaces the swept keys point by point.
        QJsonObject first = sf.base;
        if (!plan.points.empty())
            for (const QString& o : plan.points.front().overrides()) applyOverride(first, o);
        out.json = loadExperimentObject(first).json;
        out.sweep = sf.spec;
        out.figures = sf.figures;
        out.hasSweep = sf.hasSweep;
        out.usable = out.valid = true;
        out.bytes = raw;
        if (sf.hasSweep)
            out.warnings << tr("This file describes a sweep of %1 runs (%2 points × %3 "
                               "seeds); Run starts them and the Sweep tab draws them.")
                                .arg(plan.runs.size())
                                .arg(plan.points.size())
                                .arg(sf.spec.seeds);
    } catch (const ConfigError& e) {
        out.error = path + QStringLiteral(": ") + QString::fromUtf8(e.what());
    }
    return out;
}

/// An invalid experiment file whose every problem is a bad value of a known key: one the user
/// can fix in the form (usable, its JSON shown). Anything else is not an experiment file, and
/// the window stays as it is (no bytes kept).
void keepIfFixable(ExperimentFileRead& out) {
    QJsonObject obj;
    try {
        obj = experimentObjectFromJsonText(out.bytes);
    } catch (const ConfigError&) {
        out.bytes.clear();
        return;
    }
    for (const ConfigIssue& issue : validateAll(obj)) {
        if (!findExperimentKey(issue.key)) {
            out.bytes.clear();
            return;
        }
    }
    out.usable = true;
    out.json = obj;
}

} // namespace

ExperimentFileRead readExperimentFile(const QString& path) {
    QByteArray raw;
    if (const std::optional<QJsonObject> sweep = sweepFileObject(path, &raw))
        return readSweepFile(path, *sweep, raw);
    ExperimentFileRead out;
    try {
        const LoadedExperiment le = loadExperiment(path);
        out.usable = out.valid = true;
        out.json = le.json;
        out.warnings = le.warnings;
    } catch (const ConfigError& e) {
        out.error = QString::fromStdString(e.what());
    }
    QString readError;
    if (!readRegularFile(path, &out.bytes, &readError)) {
        out.usable = out.valid = false;
        if (out.error.isEmpty()) out.error = readError;
        out.bytes.clear();
        return out;
    }
    if (!out.valid) keepIfFixable(out);
    return out;
}

QString overwriteRisk(const QString& path, const QByteArray& knownBytes) {
    const QFileInfo fi(path);
    if (!fi.exists() && !fi.isSymLink()) return {};
    const QString name = fi.fileName();
    QByteArray data;
    QString error;
    if (!readRegularFile(path, &data, &error))
        return tr("%1 exists but cannot be read as a file (%2). Replace it?").arg(name, error);
    // A sweep file: the form holds one experiment, so saving would drop the grid (and the
    // figures), even when the window read this very file.
    try {
        const QJsonObject whole = experimentObjectFromJsonText(data);
        QStringList dropped;
        for (const char* k : {"sweep", "figures", "verdicts"})
            if (whole.contains(QString::fromLatin1(k))) dropped << QString::fromLatin1(k);
        if (!dropped.isEmpty())
            return tr("%1 describes a sweep; saving the form writes one experiment and drops its "
                      "\"%2\". Replace it?")
                .arg(name, dropped.join(QStringLiteral("\", \"")));
    } catch (const ConfigError&) {
    }
    if (!knownBytes.isNull() && data == knownBytes) return {};
    QJsonObject obj;
    try {
        obj = experimentObjectFromJsonText(data);
    } catch (const ConfigError& e) {
        return tr("%1 is not an experiment file (%2). Saving replaces all of its content. Replace it?")
            .arg(name, QString::fromStdString(e.what()));
    }
    QStringList unknown;
    for (const ConfigIssue& issue : validateAll(obj))
        if (!findExperimentKey(issue.key)) unknown << issue.key;
    if (!unknown.isEmpty()) {
        const bool experiment =
            obj.contains(QStringLiteral("task")) || obj.contains(QStringLiteral("solver"));
        if (!experiment)
            return tr("%1 is not an experiment file (it has %2). Saving replaces all of its content. Replace it?")
                .arg(name, unknown.join(QStringLiteral(", ")));
        return tr("%1 has content that saving would drop: %2. Replace it?")
            .arg(name, unknown.join(QStringLiteral(", ")));
    }
    if (!knownBytes.isNull())
        return tr("%1 changed on disk since it was opened or saved here. Replace it?").arg(name);
    return {};
}

} // namespace mhla::ui
