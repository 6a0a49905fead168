#include "ui/experiment/session.h"
#include "core/base/fileio.h"
#include "core/base/text.h"
#include "core/records/resultio.h"
#include "core/records/resultread.h"
#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <cmath>

namespace mhla::ui {

namespace {

const QString kSessionFile = QStringLiteral("session.json");

/// "run-03-random-mhla-d-4": the run's position and a readable, portable form of its name.
QString subfolderName(int index, const QString& name) {
    QString slug = name.toLower();
    slug.replace(QRegularExpression(q("[^a-z0-9]+")), q("-"));
    slug = slug.mid(0, 40);
    while (slug.startsWith(QLatin1Char('-'))) slug.remove(0, 1);
    while (slug.endsWith(QLatin1Char('-'))) slug.chop(1);
    const QString n = QStringLiteral("run-%1").arg(index + 1, 2, 10, QLatin1Char('0'));
    return slug.isEmpty() ? n : n + QLatin1Char('-') + slug;
}

/// A JSON value as written in the file (for messages).
QString jsonText(const QJsonValue& v) {
    return QString::fromUtf8(
        QJsonDocument(QJsonArray{v}).toJson(QJsonDocument::Compact).chopped(1).mid(1));
}

/// Empty when `version` is the integer kSessionFormatVersion, as the writer writes it; else the
/// message. A string "999", 1.5 or a missing key is not a version this reader can trust (it
/// used to read as 1).
QString checkSessionVersion(const QString& path, const QJsonValue& version) {
    const double v = version.toDouble(-1);
    if (version.isDouble() && v == std::floor(v) && v > kSessionFormatVersion && v < 1e15)
        return QObject::tr("%1: key \"format_version\": %2 was written by a newer MHLA Lab; "
                           "this version reads format %3 and older")
            .arg(path)
            .arg(static_cast<long long>(v))
            .arg(kSessionFormatVersion);
    if (!version.isDouble() || v != kSessionFormatVersion)
        return QObject::tr("%1: key \"format_version\": %2 is not allowed; allowed: the "
                           "integer %3 (the format this version writes)")
            .arg(path, version.isUndefined() ? QObject::tr("missing") : jsonText(version))
            .arg(kSessionFormatVersion);
    return {};
}

/// The view settings (optional; a value that is there must be one this version can show).
/// Empty on success, else the message.
QString readSessionView(const QString& path, const QJsonValue& v, SessionView* shown) {
    if (v.isUndefined()) return {};
    if (!v.isObject()) return QObject::tr("%1: key \"view\": expected an object").arg(path);
    const QJsonValue s = v.toObject().value(q("smoothing"));
    if (s.isUndefined()) return {};
    if (!s.isDouble() || !(s.toDouble() >= 0) || !(s.toDouble() <= kMaxSessionSmoothing))
        return QObject::tr("%1: key \"view.smoothing\": %2 is not allowed; allowed: "
                           "a number in [0, %3]")
            .arg(path, jsonText(s))
            .arg(kMaxSessionSmoothing);
    shown->smoothing = s.toDouble();
    return {};
}

/// Empty when one entry of "runs" names a subfolder, a name, visibility, a colour and (since
/// "batch" came later, optionally) its group; else the message.
QString checkRunEntry(const QString& where, const QJsonObject& r) {
    const QString folder = r.value(q("folder")).toString();
    if (folder.isEmpty() || folder.contains(QLatin1Char('/')) ||
        folder.contains(QLatin1Char('\\')) || folder.startsWith(QLatin1Char('.')))
        return QObject::tr("%1: \"folder\" must name a subfolder of the session (got \"%2\")")
            .arg(where, folder);
    if (!r.value(q("name")).isString() || !r.value(q("visible")).isBool())
        return QObject::tr("%1: expected \"name\" (a string) and \"visible\" (true or false)")
            .arg(where);
    if (!QColor(r.value(q("color")).toString()).isValid())
        return QObject::tr("%1: \"color\" must be a colour such as \"#0072b2\"").arg(where);
    const QJsonValue batch = r.value(q("batch"));
    if (!batch.isUndefined() &&
        (!batch.isDouble() || batch.toDouble() < 0 || batch.toDouble() > 1e9 ||
         batch.toDouble() != std::floor(batch.toDouble())))
        return QObject::tr("%1: \"batch\" must be an integer in [0, 1000000000] (the group of "
                           "runs made by one Run)")
            .arg(where);
    return {};
}

} // namespace

bool isSessionFolder(const QString& dir) {
    return QFileInfo(QDir(dir).filePath(kSessionFile)).isFile();
}

std::optional<int> sessionRunCount(const QString& dir) {
    if (!isSessionFolder(dir)) return std::nullopt;
    QByteArray bytes;
    QString error;
    if (!readRegularFile(QDir(dir).filePath(kSessionFile), &bytes, &error)) return std::nullopt;
    const QJsonDocument doc = QJsonDocument::fromJson(bytes);
    if (!doc.isObject() || !doc.object().value(q("runs")).isArray()) return std::nullopt;
    return static_cast<int>(doc.object().value(q("runs")).toArray().size());
}

QString sessionFolderRisk(const QString& dir) {
    const QFileInfo fi(dir);
    if (!fi.exists()) return {};
    if (!fi.isDir()) return QObject::tr("%1 is a file, not a folder.").arg(dir);
    if (QDir(dir).isEmpty(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden | QDir::System))
        return {};
    if (isSessionFolder(dir))
        return QObject::tr("%1 already holds a saved session. Replace it?")
            .arg(QDir::toNativeSeparators(dir));
    return QObject::tr("%1 is not empty and is not a session folder. Save the session into it "
                       "anyway? Files with the same names (session.json, run-NN-… folders) "
                       "would be replaced.")
        .arg(QDir::toNativeSeparators(dir));
}

QString writeSession(const QString& dir, std::vector<SessionRun> runs, QStringList* written,
                     const SessionView& view) {
    if (runs.empty()) return QObject::tr("there is no finished run to save");
    if (runs.size() > static_cast<size_t>(kMaxSessionRuns))
        return QObject::tr("%1 runs; a session holds at most %2 (remove some runs first)")
            .arg(runs.size())
            .arg(kMaxSessionRuns);
    if (const QString e = prepareOutputFolder(dir); !e.isEmpty()) return e;
    QJsonArray list;
    for (int i = 0; i < static_cast<int>(runs.size()); ++i) {
        SessionRun& run = runs[static_cast<size_t>(i)];
        run.folder = subfolderName(i, run.name);
        const QString sub = QDir(dir).filePath(run.folder);
        if (const QString e = prepareOutputFolder(sub); !e.isEmpty()) return e;
        const QByteArray json = QJsonDocument(resultToJson(run.result)).toJson();
        if (const QString e = writeFiles(sub, resultFiles(run.result, json), written); !e.isEmpty())
            return e;
        list.append(QJsonObject{{q("folder"), run.folder},
                                {q("name"), run.name},
                                {q("visible"), run.visible},
                                {q("color"), run.color.name(QColor::HexRgb)},
                                {q("batch"), run.batch}});
    }
    QJsonObject session{{q("format_version"), kSessionFormatVersion},
                        {q("mhla_lab_version"), q(MHLA_VERSION)},
                        {q("runs"), list}};
    QJsonObject viewJson;
    if (view.smoothing) viewJson.insert(q("smoothing"), *view.smoothing);
    if (!viewJson.isEmpty()) session.insert(q("view"), viewJson);
    // session.json last: a session that failed half-way is not a session.
    const QString path = QDir(dir).filePath(kSessionFile);
    if (const QString e = writeFileAtomic(path, QJsonDocument(session).toJson()); !e.isEmpty())
        return e;
    if (written) *written << path;
    return {};
}

std::optional<std::vector<SessionRun>> readSession(const QString& dir, QString* error,
                                                   QStringList* skipped, SessionView* view) {
    const QString path = QDir::toNativeSeparators(QDir(dir).filePath(kSessionFile));
    auto fail = [error](const QString& m) {
        if (error) *error = m;
        return std::nullopt;
    };
    if (!QFileInfo(dir).isDir())
        return fail(QObject::tr("%1: not a folder (expected a session folder holding session.json)")
                        .arg(QDir::toNativeSeparators(dir)));
    if (!isSessionFolder(dir))
        return fail(QObject::tr("%1: missing (a session folder is written by File ▸ Save session)")
                        .arg(path));
    QByteArray bytes;
    QString readError;
    if (!readRegularFile(QDir(dir).filePath(kSessionFile), &bytes, &readError))
        return fail(readError);
    QJsonParseError pe;
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &pe);
    if (pe.error != QJsonParseError::NoError)
        return fail(QObject::tr("%1 line %2: not valid JSON (%3)")
                        .arg(path)
                        .arg(bytes.left(pe.offset).count('\n') + 1)
                        .arg(pe.errorString()));
    const QJsonObject o = doc.object();
    if (!doc.isObject() || !o.value(q("runs")).isArray())
        return fail(QObject::tr("%1: expected an object with a \"runs\" array").arg(path));
    if (const QString e = checkSessionVersion(path, o.value(q("format_version"))); !e.isEmpty())
        return fail(e);
    SessionView shown;
    if (const QString e = readSessionView(path, o.value(q("view")), &shown); !e.isEmpty())
        return fail(e);
    // Every count before anything is read: at most kMaxSessionRuns runs, each folder named once.
    const QJsonArray runList = o.value(q("runs")).toArray();
    if (runList.size() > kMaxSessionRuns)
        return fail(QObject::tr("%1: key \"runs\": %2 runs; allowed: at most %3")
                        .arg(path)
                        .arg(runList.size())
                        .arg(kMaxSessionRuns));
    std::vector<SessionRun> out;
    out.reserve(static_cast<size_t>(runList.size()));
    const QJsonArray& runs = runList;
    for (qsizetype i = 0; i < runs.size(); ++i) {
        const QJsonObject r = runs[i].toObject();
        const QString where = QStringLiteral("%1: runs[%2]").arg(path).arg(i);
        if (const QString e = checkRunEntry(where, r); !e.isEmpty()) return fail(e);
        const QString folder = r.value(q("folder")).toString();
        const QColor color(r.value(q("color")).toString());
        const QJsonValue batch = r.value(q("batch"));
        QString runError;
        std::optional<ResultFolder> res = readResultFolder(QDir(dir).filePath(folder), &runError);
        if (!res && !skipped) return fail(runError);
        if (!res) {
            *skipped << runError;
            continue;
        }
        out.push_back(SessionRun{r.value(q("name")).toString(), color,
                                 r.value(q("visible")).toBool(), std::move(res->result), folder,
                                 batch.toInt(0)});
    }
    if (out.empty() && skipped && !skipped->isEmpty())
        return fail(QObject::tr("%1: none of its %2 runs could be read; the first: %3")
                        .arg(path)
                        .arg(runs.size())
                        .arg(skipped->first()));
    if (out.empty()) return fail(QObject::tr("%1: the session has no runs").arg(path));
    if (view) *view = shown;
    return out;
}

} // namespace mhla::ui
