#include "core/base/fileio.h"
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStringDecoder>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

namespace mhla {

namespace {

QString q(const char* s) { return QString::fromUtf8(s); }
QString osError(int err) { return QString::fromLocal8Bit(std::strerror(err)); }

/// Writes all of data to fd, retrying short writes and EINTR. Returns 0 or an errno.
int writeAll(int fd, const char* data, qint64 size) {
    while (size > 0) {
        const ssize_t n = ::write(fd, data, static_cast<size_t>(size));
        if (n < 0) {
            if (errno == EINTR) continue;
            return errno;
        }
        data += n;
        size -= n;
    }
    return 0;
}

} // namespace

bool readRegularFile(const QString& path, QByteArray* data, QString* error, qint64 maxBytes) {
    const QByteArray local = QFile::encodeName(path);
    // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below.
    const int fd = ::open(local.constData(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        *error = q("cannot read \"") + path + q("\": ") + osError(errno);
        return false;
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        *error = q("cannot read \"") + path + q("\": ") + osError(errno);
        ::close(fd);
        return false;
    }
    if (!S_ISREG(st.st_mode)) {
        *error = q("\"") + path +
                 (S_ISDIR(st.st_mode) ? q("\" is a folder")
                                      : q("\" is not a regular file (a device, FIFO or socket)")) +
                 q("; expected a regular file");
        ::close(fd);
        return false;
    }
    if (st.st_size > maxBytes) {
        *error = q("\"") + path + q("\" is ") + QString::number(st.st_size) +
                 q(" bytes; files of at most ") + QString::number(maxBytes) + q(" bytes are read");
        ::close(fd);
        return false;
    }
    QByteArray out;
    out.resize(static_cast<qsizetype>(st.st_size));
    qint64 got = 0;
    while (got < st.st_size) {
        const ssize_t n = ::read(fd, out.data() + got, static_cast<size_t>(st.st_size - got));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            *error = q("cannot read \"") + path + q("\": ") + osError(errno);
            ::close(fd);
            return false;
        }
        if (n == 0) break; // the file shrank while being read
        got += n;
    }
    ::close(fd);
    out.truncate(static_cast<qsizetype>(got));
    *data = std::move(out);
    return true;
}

QString writeFileAtomic(const QString& path, const QByteArray& data) {
    const QFileInfo info(path);
    const QByteArray dir = QFile::encodeName(info.absolutePath());
    const QByteArray target = QFile::encodeName(info.absoluteFilePath());
    struct stat st {};
    if (::lstat(target.constData(), &st) == 0 && S_ISDIR(st.st_mode))
        return q("cannot write \"") + path + q("\": a folder of that name is in the way");
    QByteArray tmp;
    int fd = -1;
    for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
        tmp = dir + "/." + QFile::encodeName(info.fileName()) + ".tmp-" +
              QByteArray::number(static_cast<qlonglong>(::getpid())) + "-" +
              QByteArray::number(attempt);
        fd = ::open(tmp.constData(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0 && errno != EEXIST)
            return q("cannot write \"") + path + q("\": ") + osError(errno);
    }
    if (fd < 0) return q("cannot write \"") + path + q("\": no free temporary name");
    int err = writeAll(fd, data.constData(), data.size());
    if (err == 0 && ::fsync(fd) != 0) err = errno;
    if (::close(fd) != 0 && err == 0) err = errno;
    if (err == 0 && ::rename(tmp.constData(), target.constData()) != 0) err = errno;
    if (err != 0) {
        ::unlink(tmp.constData());
        return q("cannot write \"") + path + q("\": ") + osError(err);
    }
    return {};
}

QString prepareOutputFolder(const QString& dir) {
    const QByteArray local = QFile::encodeName(dir);
    struct stat st {};
    if (::lstat(local.constData(), &st) == 0) {
        if (S_ISLNK(st.st_mode))
            return q("the output folder \"") + dir +
                   q("\" is a symbolic link; give the real folder");
        if (!S_ISDIR(st.st_mode))
            return q("the output folder \"") + dir + q("\" exists and is not a folder");
    } else if (!QDir().mkpath(dir)) {
        // mkpath hides the reason: find the first missing ancestor and try it for the errno.
        QString existing = QFileInfo(dir).absoluteFilePath();
        QStringList missing;
        while (!QFileInfo::exists(existing) && existing != QDir::rootPath()) {
            missing.prepend(existing);
            existing = QFileInfo(existing).absolutePath();
        }
        const int rc =
            missing.isEmpty() ? -1 : ::mkdir(QFile::encodeName(missing.first()).constData(), 0755);
        return q("cannot create the output folder \"") + dir + q("\": ") +
               (rc != 0 ? osError(errno) : q("unknown reason"));
    }
    if (::access(local.constData(), W_OK | X_OK) != 0)
        return q("cannot write into the output folder \"") + dir + q("\": ") + osError(errno);
    return {};
}

bool isUtf8Path(const QByteArray& localPath) {
    QStringDecoder decoder(QStringDecoder::Utf8);
    const QString s = decoder(localPath);
    return !decoder.hasError();
}

} // namespace mhla
