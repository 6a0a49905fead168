// core/fileio: reads accept only bounded regular files; writes are atomic, never follow a
// symbolic link, and a failed write (a full disk) leaves the old file and no temporary file.
#include "core/base/fileio.h"
#include "testutil.h"
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace mhla;

namespace {
using mhla::test::s;
QByteArray readAll(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("<unreadable>");
}
void writePlain(const QString& path, const QByteArray& data) {
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    QCOMPARE(f.write(data), data.size());
}
/// Names in dir other than the expected ones (temporary leftovers).
QStringList leftovers(const QString& dir, const QStringList& expected) {
    QStringList out;
    for (const QString& n :
         QDir(dir).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot | QDir::System))
        if (!expected.contains(n)) out << n;
    return out;
}

/// A 64 KiB tmpfs mounted at dir (root only); unmounted by the destructor.
struct SmallTmpfs {
    QString dir;
    bool mounted = false;
    QString why;
    explicit SmallTmpfs(const QString& d) : dir(d) {
        if (::geteuid() != 0) {
            why = s("not root: cannot mount a 64 KiB tmpfs to fill the disk");
            return;
        }
        QDir().mkpath(dir);
        if (::mount("tmpfs", QFile::encodeName(dir).constData(), "tmpfs", 0, "size=64k") != 0) {
            why =
                s("mount -t tmpfs -o size=64k failed: ") + QString::fromLocal8Bit(strerror(errno));
            return;
        }
        mounted = true;
    }
    ~SmallTmpfs() {
        if (mounted) ::umount2(QFile::encodeName(dir).constData(), MNT_DETACH);
    }
};
} // namespace

class TestFileIo : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_tmp;

private Q_SLOTS:
    void writeCreatesAndReplaces() {
        const QString p = m_tmp.filePath(s("a.txt"));
        QCOMPARE(writeFileAtomic(p, "one"), QString());
        QCOMPARE(readAll(p), QByteArray("one"));
        QCOMPARE(writeFileAtomic(p, "two, longer"), QString());
        QCOMPARE(readAll(p), QByteArray("two, longer"));
        QCOMPARE(leftovers(m_tmp.path(), {s("a.txt")}), QStringList());
    }

    // A symbolic link planted where a result goes is replaced by the file, never followed.
    void symlinkIsReplacedNotFollowed() {
        QTemporaryDir t;
        const QString outside = t.filePath(s("outside.txt"));
        writePlain(outside, "precious");
        QVERIFY(QDir().mkdir(t.filePath(s("out"))));
        const QString link = t.filePath(s("out/spectrum.csv"));
        QVERIFY(QFile::link(s("../outside.txt"), link));
        QCOMPARE(writeFileAtomic(link, "index,eigenvalue\n"), QString());
        QCOMPARE(readAll(outside), QByteArray("precious"));
        struct stat st {};
        QCOMPARE(::lstat(QFile::encodeName(link).constData(), &st), 0);
        QVERIFY(S_ISREG(st.st_mode));
        QCOMPARE(readAll(link), QByteArray("index,eigenvalue\n"));
    }

    void danglingSymlinkCreatesNothingElsewhere() {
        QTemporaryDir t;
        QVERIFY(QDir().mkdir(t.filePath(s("out"))));
        const QString link = t.filePath(s("out/heads.csv"));
        QVERIFY(QFile::link(t.filePath(s("elsewhere.txt")), link));
        QCOMPARE(writeFileAtomic(link, "x"), QString());
        QVERIFY(!QFile::exists(t.filePath(s("elsewhere.txt"))));
        QCOMPARE(readAll(link), QByteArray("x"));
    }

    void writeIntoMissingFolderFailsWithReason() {
        const QString msg = writeFileAtomic(m_tmp.filePath(s("no/such/dir/f.txt")), "x");
        QVERIFY2(msg.contains(s("No such file or directory")), qPrintable(msg));
        QVERIFY2(msg.contains(s("f.txt")), qPrintable(msg));
    }

    void folderInTheWayIsRefused() {
        QVERIFY(QDir().mkdir(m_tmp.filePath(s("adir"))));
        const QString msg = writeFileAtomic(m_tmp.filePath(s("adir")), "x");
        QVERIFY2(!msg.isEmpty(), "a folder was overwritten");
    }

    // Disk full: the old file stays intact and no temporary file is left.
    void fullDiskKeepsOldFileAndLeavesNoTemporary() {
        QTemporaryDir t;
        SmallTmpfs fs(t.filePath(s("small")));
        if (!fs.mounted) QSKIP(qPrintable(fs.why));
        const QString p = QDir(fs.dir).filePath(s("result.json"));
        QCOMPARE(writeFileAtomic(p, "old contents"), QString());
        const QByteArray big(256 * 1024, 'x');
        const QString msg = writeFileAtomic(p, big);
        QVERIFY2(msg.contains(s("No space left on device")), qPrintable(msg));
        QVERIFY2(msg.contains(s("result.json")), qPrintable(msg));
        QCOMPARE(readAll(p), QByteArray("old contents"));
        QCOMPARE(leftovers(fs.dir, {s("result.json")}), QStringList());
        // And a new file on the full disk does not appear at all.
        const QString fresh = QDir(fs.dir).filePath(s("spectrum.csv"));
        QVERIFY(!writeFileAtomic(fresh, big).isEmpty());
        QVERIFY(!QFile::exists(fresh));
        QCOMPARE(leftovers(fs.dir, {s("result.json")}), QStringList());
    }

    void readsRegularFiles() {
        const QString p = m_tmp.filePath(s("r.json"));
        writePlain(p, "{}");
        QByteArray data;
        QString err;
        QVERIFY(readRegularFile(p, &data, &err));
        QCOMPARE(data, QByteArray("{}"));
    }

    void readRefuses_data() {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("mustContain");
        QTest::newRow("device") << s("/dev/zero") << s("not a regular file");
        QTest::newRow("folder") << s("dir") << s("folder");
        QTest::newRow("fifo") << s("fifo") << s("not a regular file");
        QTest::newRow("too large") << s("large") << s("at most");
        QTest::newRow("missing") << s("missing") << s("No such file");
    }
    void readRefuses() {
        QFETCH(QString, kind);
        QFETCH(QString, mustContain);
        QTemporaryDir t;
        QString path = kind;
        if (kind == s("dir")) {
            path = t.path();
        } else if (kind == s("fifo")) {
            path = t.filePath(s("fifo"));
            QCOMPARE(::mkfifo(QFile::encodeName(path).constData(), 0600), 0);
        } else if (kind == s("large")) {
            path = t.filePath(s("large.json"));
            writePlain(path, QByteArray(2000, ' '));
        } else if (kind == s("missing")) {
            path = t.filePath(s("missing.json"));
        }
        QByteArray data;
        QString err;
        // FIFO: must return at once (no writer), not block.
        QVERIFY(!readRegularFile(path, &data, &err, 1000));
        QVERIFY2(err.contains(mustContain), qPrintable(err));
        QVERIFY2(err.contains(path), qPrintable(err));
    }

    void outputFolderChecks() {
        QTemporaryDir t;
        QCOMPARE(prepareOutputFolder(t.filePath(s("new/nested"))), QString());
        QVERIFY(QFileInfo(t.filePath(s("new/nested"))).isDir());
        writePlain(t.filePath(s("plain")), "x");
        QVERIFY(prepareOutputFolder(t.filePath(s("plain"))).contains(s("not a folder")));
        const QString sub = prepareOutputFolder(t.filePath(s("plain/sub")));
        QVERIFY2(sub.contains(s("Not a directory")), qPrintable(sub));
        QVERIFY(QFile::link(t.filePath(s("new")), t.filePath(s("link"))));
        QVERIFY(prepareOutputFolder(t.filePath(s("link"))).contains(s("symbolic link")));
        const QString proc = prepareOutputFolder(s("/proc/mhla-lab-test"));
        QVERIFY2(!proc.isEmpty() && proc.contains(s(":")), qPrintable(proc));
        if (::geteuid() != 0) {
            QVERIFY(QDir().mkdir(t.filePath(s("ro"))));
            QVERIFY(QFile::setPermissions(t.filePath(s("ro")),
                                          QFileDevice::ReadOwner | QFileDevice::ExeOwner));
            const QString ro = prepareOutputFolder(t.filePath(s("ro/x")));
            QVERIFY2(ro.contains(s("Permission denied")), qPrintable(ro));
        }
    }

    // Temporaries of a killed writer (issue 26) are removed on resume; a live writer's, ours and
    // files that merely look alike are kept.
    void staleTemporariesAreRemoved() {
        QTemporaryDir tmp;
        const QString dir = tmp.path();
        // No process has PID 2^31 - 2 (pid_max is at most 2^22 on Linux).
        const QString dead = s(".heads.csv.tmp-2147483646-0");
        const QString mine = s(".heads.csv.tmp-") + QString::number(::getpid()) + s("-0");
        const QString live = s(".spectrum.csv.tmp-1-3"); // init: always running
        for (const QString& n : {dead, mine, live, s("heads.csv"), s(".notes.tmp-x-1"),
                                 s("result.json.tmp-2147483646-0")})
            writePlain(QDir(dir).filePath(n), "x");
        QCOMPARE(removeStaleTemporaries(dir), QStringList{dead});
        QCOMPARE(leftovers(dir, {mine, live, s("heads.csv"), s(".notes.tmp-x-1"),
                                 s("result.json.tmp-2147483646-0")}),
                 QStringList());
        QVERIFY(!QFile::exists(QDir(dir).filePath(dead)));
        QCOMPARE(removeStaleTemporaries(QDir(dir).filePath(s("missing"))), QStringList());
    }

    void removeFileRemovesOrExplains() {
        QTemporaryDir tmp;
        const QString f = QDir(tmp.path()).filePath(s("a.json"));
        writePlain(f, "x");
        QCOMPARE(removeFile(f), QString());
        QVERIFY(!QFile::exists(f));
        QCOMPARE(removeFile(f), QString()); // already gone: no error
        QVERIFY(QDir(tmp.path()).mkdir(s("dir.json")));
        const QString e = removeFile(QDir(tmp.path()).filePath(s("dir.json")));
        QVERIFY2(e.contains(s("cannot remove")) && e.contains(s("dir.json")), qPrintable(e));
    }

    void utf8Paths() {
        QVERIFY(isUtf8Path("plain/ascii"));
        QVERIFY(isUtf8Path("caf\xc3\xa9"));
        QVERIFY(!isUtf8Path("od\xff"));
    }
};

QTEST_GUILESS_MAIN(TestFileIo)
#include "tst_fileio.moc"
