#include "ui/experiment/presets.h"
#include <QFile>
#include <QJsonDocument>

// Resources of a static library must be registered explicitly, from the global namespace.
static void initMhlaResources() { Q_INIT_RESOURCE(mhla); }

namespace mhla::ui {

void initResources() {
    static const bool once = [] {
        initMhlaResources();
        return true;
    }();
    (void)once;
}

namespace {
QJsonObject readJson(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    return QJsonDocument::fromJson(f.readAll()).object();
}
QJsonObject index() {
    initResources();
    return readJson(QStringLiteral(":/presets/index.json"));
}
} // namespace

Preset presetFromIndexEntry(const QJsonObject& o) {
    Preset p;
    p.file = o.value(QStringLiteral("file")).toString();
    p.title = o.value(QStringLiteral("title")).toString();
    p.shortName = o.value(QStringLiteral("short")).toString();
    p.tab = o.value(QStringLiteral("tab")).toString();
    p.explanation = o.value(QStringLiteral("explanation")).toString();
    if (o.contains(QStringLiteral("sweep"))) {
        try {
            p.sweep =
                parseSweep(QJsonObject{{QStringLiteral("sweep"), o.value(QStringLiteral("sweep"))}})
                    .spec;
        } catch (const ConfigError& e) {
            throw ConfigError(QStringLiteral("preset %1: %2")
                                  .arg(p.file, QString::fromUtf8(e.what()))
                                  .toStdString(),
                              e.key());
        }
        if (!p.sweep.axes.empty()) {
            p.sweepKey = p.sweep.axes.front().key;
            p.sweepValues = p.sweep.axes.front().values;
        }
    }
    return p;
}

const QList<Preset>& builtinPresets() {
    static const QList<Preset> presets = [] {
        QList<Preset> out;
        const auto arr = index().value(QStringLiteral("presets")).toArray();
        for (const auto& v : arr) {
            Preset p = presetFromIndexEntry(v.toObject());
            p.experiment = readJson(QStringLiteral(":/presets/") + p.file);
            out << p;
        }
        return out;
    }();
    return presets;
}

QString defaultPresetFile() { return index().value(QStringLiteral("default")).toString(); }

void setDotted(QJsonObject& obj, const QString& key, const QJsonValue& value) {
    const int dot = key.indexOf(u'.');
    if (dot < 0) {
        obj.insert(key, value);
        return;
    }
    const QString head = key.left(dot);
    QJsonObject sub = obj.value(head).toObject();
    setDotted(sub, key.mid(dot + 1), value);
    obj.insert(head, sub);
}

QJsonValue getDotted(const QJsonObject& obj, const QString& key) {
    const int dot = key.indexOf(u'.');
    if (dot < 0) return obj.value(key);
    return getDotted(obj.value(key.left(dot)).toObject(), key.mid(dot + 1));
}

} // namespace mhla::ui
