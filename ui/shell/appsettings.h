#pragma once
// The one place that knows QSettings keys. Every persistent preference of the app is a typed
// accessor here; no other file spells a settings key.
#include <QByteArray>
#include <QRect>
#include <QSize>
#include <QString>
#include <QStringList>

namespace mhla::ui {

enum class ThemeChoice { System, Light, Dark };

class AppSettings {
public:
    AppSettings();
    /// Stores everything in this INI file instead of the user's settings (tests, headless runs).
    static void useFile(const QString& iniPath);

    QByteArray windowGeometry() const;
    void setWindowGeometry(const QByteArray& g);
    /// The window's client rectangle when it closed (not maximised): restoreGeometry() moves a
    /// window at the top of the screen down by a title bar's height, which this undoes.
    QRect windowRect() const;
    void setWindowRect(const QRect& r);
    QByteArray windowState() const;
    void setWindowState(const QByteArray& s);

    QStringList recentFiles() const;
    /// Moves `path` to the front of the recent-files list (at most maxRecent entries).
    void addRecentFile(const QString& path);
    void removeRecentFile(const QString& path);
    static constexpr int maxRecent = 8;

    QString lastDirectory() const;
    void setLastDirectory(const QString& dir);

    QSize exportSize() const;
    void setExportSize(const QSize& s);
    int exportDpi() const;
    void setExportDpi(int dpi);
    /// The style last chosen for exporting a plot: 0 as on screen, 1 paper one column, 2 paper
    /// two columns (ExportDialog's order; anything else reads as 0).
    int exportStyle() const;
    void setExportStyle(int style);

    ThemeChoice theme() const;
    void setTheme(ThemeChoice t);

    int lastPreset() const;
    void setLastPreset(int index);

    /// Where the run list is autosaved as a session: "autosave" in the user's data folder
    /// (QStandardPaths::AppDataLocation), or beside the settings file of useFile() (tests,
    /// screenshots), so that no test touches the user's autosave. Never a folder the user chose.
    static QString autosaveFolder();

private:
    QString m_org;
};

} // namespace mhla::ui
