#include "core/base/fileio.h"
#include "core/base/text.h"
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QStringDecoder>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace mhla {

namespace {

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

/// The one spelling of writeFileAtomic()'s temporary names: ".NAME.tmp-PID-N".
QByteArray temporaryName(const QByteArray& name, pid_t pid, int attempt) {
    return "." + name + ".tmp-" + QByteArray::number(static_cast<qlonglong>(pid)) + "-" +
           QByteArray::number(attempt);
}

/// The writer's PID if name is one of temporaryName()'s, else 0.
pid_t temporaryWriter(const QByteArray& name) {
    static const QRegularExpression re(QStringLiteral("^\\..+\\.tmp-([0-9]{1,10})-[0-9]{1,3}$"));
    const QRegularExpressionMatch m = re.match(QString::fromLatin1(name));
    if (!m.hasMatch()) return 0;
    const long long pid = m.captured(1).toLongLong();
    return pid > 0 && pid <= 0x7fffffff ? static_cast<pid_t>(pid) : 0;
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
        tmp = dir + "/" + temporaryName(QFile::encodeName(info.fileName()), ::getpid(), attempt);
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

QString removeFile(const QString& path) {
    if (::unlink(QFile::encodeName(path).constData()) != 0 && errno != ENOENT)
        return q("cannot remove \"") + path + q("\": ") + osError(errno);
    return {};
}

QStringList removeStaleTemporaries(const QString& dir) {
    QStringList removed;
    DIR* d = ::opendir(QFile::encodeName(dir).constData());
    if (!d) return removed;
    std::vector<QByteArray> names;
    while (const dirent* e = ::readdir(d)) names.emplace_back(e->d_name);
    ::closedir(d);
    const QByteArray base = QFile::encodeName(dir) + "/";
    for (const QByteArray& name : names) {
        const pid_t pid = temporaryWriter(name);
        if (pid == 0 || pid == ::getpid() || ::kill(pid, 0) == 0 || errno != ESRCH) continue;
        if (::unlink((base + name).constData()) == 0) removed << QFile::decodeName(name);
    }
    return removed;
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
