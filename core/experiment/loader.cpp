#include "core/experiment/loader.h"
#include "core/base/fileio.h"
#include "core/base/text.h"
#include <QDir>
#include <QFileInfo>

namespace mhla {

namespace {
constexpr qint64 kMaxExperimentBytes = 1024 * 1024;

/// Makes the relative values of the Path keys (task.prompts, ...) absolute against baseDir.
void resolvePathKeys(QJsonObject& obj, const QString& baseDir) {
    for (const KeyInfo& k : experimentKeys()) {
        if (k.type != KeyInfo::Type::Path || !obj.value(k.section).isObject()) continue;
        QJsonObject sec = obj.value(k.section).toObject();
        const QJsonValue v = sec.value(k.key);
        if (!v.isString() || v.toString().trimmed().isEmpty() ||
            QFileInfo(v.toString()).isAbsolute())
            continue;
        sec.insert(k.key, QDir::cleanPath(QDir(baseDir).absoluteFilePath(v.toString())));
        obj.insert(k.section, sec);
    }
}
} // namespace

QStringList keysReadBy(const ExperimentConfig& cfg) {
    QStringList out;
    for (const KeyInfo& k : experimentKeys())
        if (k.applies.reads(cfg)) out << k.path();
    return out;
}

LoadedExperiment loadExperimentObject(QJsonObject obj, const QStringList& overrides,
                                      const char* option, const DatasetShape* knownShape) {
    QStringList overridden;
    for (const QString& a : overrides) {
        applyOverride(obj, a);
        overridden << a.left(a.indexOf(QLatin1Char('='))).trimmed();
    }
    // Relative paths left (from --set, or text without a file) name files in the working folder.
    resolvePathKeys(obj, QDir::currentPath());
    LoadedExperiment out;
    out.config = experimentFromJson(obj, knownShape);
    out.json = obj;
    for (const QString& path : overridden) {
        const KeyInfo* k = findExperimentKey(path);
        if (k && !k->applies.reads(out.config))
            throw ConfigError((q(option) + q(" ") + path + q(": this run (task.kind ") +
                               toString(out.config.task.kind) + q(", solver.kind ") +
                               toString(out.config.solver.kind) +
                               q(") does not read this key; it applies to ") + k->applies.text() +
                               q(". Keys this run reads: ") + keysReadBy(out.config).join(q(", ")))
                                  .toStdString(),
                              path);
    }
    for (const QString& path : unreadKeys(obj, out.config))
        out.warnings << path + q(" is set but not read by this run (task.kind ") +
                            toString(out.config.task.kind) + q(", solver.kind ") +
                            toString(out.config.solver.kind) + q(")");
    return out;
}

LoadedExperiment loadExperimentText(const QByteArray& text, const QStringList& overrides,
                                    const QString& origin) {
    try {
        return loadExperimentObject(experimentObjectFromJsonText(text), overrides);
    } catch (const ConfigError& e) {
        if (origin.isEmpty()) throw;
        throw ConfigError((origin + q(": ")).toStdString() + e.what(), e.key());
    }
}

LoadedExperiment loadExperiment(const QString& path, const QStringList& overrides) {
    // No file: a new experiment, on today's default generator (a file without task.rng is an
    // older one and reads as kRngWhenAbsent).
    if (path.isEmpty())
        return loadExperimentObject(
            QJsonObject{{q("task"), QJsonObject{{q("rng"), toString(TaskConfig{}.rng)}}}},
            overrides);
    QByteArray text;
    QString error;
    if (!readRegularFile(path, &text, &error, kMaxExperimentBytes))
        throw ConfigError(q("the experiment file: ").toStdString() + error.toStdString());
    try {
        // Relative paths in the file name files beside it.
        QJsonObject obj = experimentObjectFromJsonText(text);
        resolvePathKeys(obj, QFileInfo(path).absolutePath());
        return loadExperimentObject(obj, overrides);
    } catch (const ConfigError& e) {
        throw ConfigError((path + q(": ")).toStdString() + e.what(), e.key());
    }
}

ExperimentConfig experimentFromFile(const QString& path) { return loadExperiment(path).config; }

} // namespace mhla
