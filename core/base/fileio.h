#pragma once
// Safe file access for everything MHLA Lab reads and writes. Reads accept only regular files
// of bounded size (never a FIFO or a device); writes go to a temporary file in the same folder,
// are checked at every step, and are renamed into place only when complete, so a failed write
// leaves the previous file untouched and nothing is ever written through a symbolic link.
#include <QByteArray>
#include <QString>
#include <QStringList>

namespace mhla {

/// The largest experiment or result file read (a result.json with a long history fits).
constexpr qint64 kMaxReadBytes = 64LL * 1024 * 1024;

/// Reads a regular file of at most maxBytes. On failure returns false and sets *error to a
/// message naming the file and the reason (not a regular file, too large, OS error).
[[nodiscard]] bool readRegularFile(const QString& path, QByteArray* data, QString* error,
                                   qint64 maxBytes = kMaxReadBytes);

/// Writes data to path atomically: a new temporary file in the same folder (created with
/// O_EXCL | O_NOFOLLOW), every write checked, fsync, then rename over path. A symbolic link at
/// path is replaced by the file, never followed. On failure the temporary file is removed,
/// path is unchanged, and the returned message names the file and the OS reason. Returns an
/// empty string on success.
[[nodiscard]] QString writeFileAtomic(const QString& path, const QByteArray& data);

/// Removes the file (or symbolic link) at path; a missing one is no error. Returns an empty
/// string on success, else a message naming the file and the OS reason (e.g. a folder there).
[[nodiscard]] QString removeFile(const QString& path);

/// Removes the temporary files writeFileAtomic() left in dir (".NAME.tmp-PID-N") when process
/// PID no longer runs (killed mid-write); a live writer's are kept. Returns their names.
QStringList removeStaleTemporaries(const QString& dir);

/// Makes sure dir is a usable output folder: creates it (and its parents) if missing; refuses
/// a symbolic link, a non-folder in the way and a folder that cannot be written. Returns an
/// empty string on success, else the reason.
[[nodiscard]] QString prepareOutputFolder(const QString& dir);

/// True when the path's bytes are valid UTF-8 (paths that are not cannot round-trip through
/// QString; they are refused with a clear message instead of being written elsewhere).
[[nodiscard]] bool isUtf8Path(const QByteArray& localPath);

} // namespace mhla
