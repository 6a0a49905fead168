#include "ui/presets.h"
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

const QList<Preset>& builtinPresets() {
    static const QList<Preset> presets = [] {
        QList<Preset> out;
        const auto arr = index().value(QStringLiteral("presets")).toArray();
        for (const auto& v : arr) {
            const auto o = v.toObject();
            Preset p;
            p.file = o.value(QStringLiteral("file")).toString();
            p.title = o.value(QStringLiteral("title")).toString();
            p.shortName = o.value(QStringLiteral("short")).toString();
            p.explanation = o.value(QStringLiteral("explanation")).toString();
            const auto sweep = o.value(QStringLiteral("sweep")).toObject();
            p.sweepKey = sweep.value(QStringLiteral("key")).toString();
            p.sweepValues = sweep.value(QStringLiteral("values")).toArray();
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
