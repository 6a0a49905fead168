#include "ui/shell/appsettings.h"
#include <QDir>
#include <QFileInfo>
#include <QSettings>
#include <QStandardPaths>
#include <memory>

namespace mhla::ui {

namespace {
// Every key, once.
const QString kGeometry = QStringLiteral("window/geometry");
const QString kRect = QStringLiteral("window/rect");
const QString kState = QStringLiteral("window/state");
const QString kRecent = QStringLiteral("files/recent");
const QString kLastDir = QStringLiteral("files/lastDirectory");
const QString kExportSize = QStringLiteral("export/size");
const QString kExportDpi = QStringLiteral("export/dpi");
const QString kExportStyle = QStringLiteral("export/style");
const QString kTheme = QStringLiteral("view/theme");
const QString kPreset = QStringLiteral("experiment/lastPreset");

QString& overridePath() {
    static QString path;
    return path;
}

std::unique_ptr<QSettings> openStore() {
    if (!overridePath().isEmpty())
        return std::make_unique<QSettings>(overridePath(), QSettings::IniFormat);
    return std::make_unique<QSettings>(QStringLiteral("MHLA Lab"), QStringLiteral("mhla-lab"));
}
} // namespace

void AppSettings::useFile(const QString& iniPath) { overridePath() = iniPath; }

QString AppSettings::autosaveFolder() {
    const QString base = overridePath().isEmpty()
                             ? QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)
                             : QFileInfo(overridePath()).absolutePath();
    return QDir(base).filePath(QStringLiteral("autosave"));
}

AppSettings::AppSettings() = default;

QByteArray AppSettings::windowGeometry() const {
    return openStore()->value(kGeometry).toByteArray();
}
void AppSettings::setWindowGeometry(const QByteArray& g) { openStore()->setValue(kGeometry, g); }
QRect AppSettings::windowRect() const { return openStore()->value(kRect).toRect(); }
void AppSettings::setWindowRect(const QRect& r) { openStore()->setValue(kRect, r); }
QByteArray AppSettings::windowState() const { return openStore()->value(kState).toByteArray(); }
void AppSettings::setWindowState(const QByteArray& s) { openStore()->setValue(kState, s); }

QStringList AppSettings::recentFiles() const { return openStore()->value(kRecent).toStringList(); }
void AppSettings::addRecentFile(const QString& path) {
    QStringList l = recentFiles();
    l.removeAll(path);
    l.prepend(path);
    while (l.size() > maxRecent) l.removeLast();
    openStore()->setValue(kRecent, l);
}
void AppSettings::removeRecentFile(const QString& path) {
    QStringList l = recentFiles();
    l.removeAll(path);
    openStore()->setValue(kRecent, l);
}

QString AppSettings::lastDirectory() const {
    return openStore()->value(kLastDir, QDir::homePath()).toString();
}
void AppSettings::setLastDirectory(const QString& dir) { openStore()->setValue(kLastDir, dir); }

QSize AppSettings::exportSize() const {
    const QSize s = openStore()->value(kExportSize, QSize(1600, 1000)).toSize();
    return s.isValid() ? s : QSize(1600, 1000);
}
void AppSettings::setExportSize(const QSize& s) { openStore()->setValue(kExportSize, s); }
int AppSettings::exportDpi() const { return openStore()->value(kExportDpi, 200).toInt(); }
void AppSettings::setExportDpi(int dpi) { openStore()->setValue(kExportDpi, dpi); }

int AppSettings::exportStyle() const {
    const int s = openStore()->value(kExportStyle, 0).toInt();
    return s >= 0 && s <= 2 ? s : 0;
}
void AppSettings::setExportStyle(int style) { openStore()->setValue(kExportStyle, style); }

ThemeChoice AppSettings::theme() const {
    const int t = openStore()->value(kTheme, 0).toInt();
    return t == 1 ? ThemeChoice::Light : t == 2 ? ThemeChoice::Dark : ThemeChoice::System;
}
void AppSettings::setTheme(ThemeChoice t) { openStore()->setValue(kTheme, static_cast<int>(t)); }

int AppSettings::lastPreset() const { return openStore()->value(kPreset, 0).toInt(); }
void AppSettings::setLastPreset(int index) { openStore()->setValue(kPreset, index); }

} // namespace mhla::ui
