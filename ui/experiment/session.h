#pragma once
// A session: every finished run of a window, saved as one folder. Each run gets a subfolder
// that is itself a results folder (the one result writer of core/records/resultio.h, so it also
// opens with File ▸ Open results… or `mhla-lab DIR`), and session.json keeps the order, the names,
// the visibility and the colours. Functions return errors; they never show a dialog.
#include "core/run/result.h"
#include <QColor>
#include <QString>
#include <QStringList>
#include <optional>
#include <vector>

namespace mhla::ui {

/// The version of session.json; readers refuse a newer one, and anything but this integer.
constexpr int kSessionFormatVersion = 1;
/// Runs a session may hold (readSession refuses more before reading any).
constexpr int kMaxSessionRuns = 10000;

struct SessionRun {
    QString name;
    QColor color;
    bool visible = true;
    ExperimentResult result;
    QString folder; ///< subfolder name inside the session folder (set by save and read)
    int batch = 0;  ///< RunRecord::batch: runs of one sweep share it (0: none)
};

/// How the window showed the runs, saved beside them (session.json's "view"). Every field is
/// optional: a session without it leaves the window's setting as it is.
struct SessionView {
    std::optional<double>
        smoothing; ///< the Curves tab's smoothing weight, in [0, kMaxSessionSmoothing]
};
/// The largest smoothing weight a session may hold (the Curves tab's slider's end).
constexpr double kMaxSessionSmoothing = 0.99;

/// Why writing a session into dir needs the user's confirmation: a folder that holds files and
/// is not a session ("… is not empty and is not a session folder"), or a session that would be
/// replaced. Empty when dir is missing or empty (nothing is lost).
QString sessionFolderRisk(const QString& dir);

/// Writes runs into dir (created if needed): run-01-<name>/ … and session.json, each file
/// atomically. Subfolders of an earlier session that are not rewritten are left alone (only
/// session.json says which runs belong). Returns an error naming the file, or empty.
QString writeSession(const QString& dir, std::vector<SessionRun> runs,
                     QStringList* written = nullptr, const SessionView& view = {});

/// Reads a session folder. On failure returns nothing and sets *error (naming the file and the
/// line or key). session.json itself must read whole. Without `skipped` every run must read too
/// (a session that is half there is an error); with it, a run whose folder does not read (gone,
/// damaged) is left out and its error appended to *skipped, and only a session none of whose runs
/// reads fails. `view`, if given, receives the saved view settings.
std::optional<std::vector<SessionRun>> readSession(const QString& dir, QString* error,
                                                   QStringList* skipped = nullptr,
                                                   SessionView* view = nullptr);

/// How many runs dir's session.json lists (without reading the runs), or nothing when it is not
/// a readable session.json.
std::optional<int> sessionRunCount(const QString& dir);

/// True when dir holds a session.json.
bool isSessionFolder(const QString& dir);

} // namespace mhla::ui
