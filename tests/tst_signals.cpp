// Signals, descriptors and the locale (issue 26): every fatal signal (INT, TERM, HUP) cancels
// solve and sweep alike and leaves a folder that is one whole run or none; a closed stdout or
// stderr is reserved before any file can take it; numbers are written with the C locale's
// decimal point whatever the user's locale; stale temporaries are removed on resume.
#include "core/base/process.h"
#include "core/base/types.h"
#include "core/records/resultread.h"
#include "testutil.h"
#include <QDir>
#include <QDirIterator>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <clocale>
#include <csignal>
#include <cstdio>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace mhla;

namespace {

using mhla::test::readAll;
using mhla::test::s;

/// Every file of a folder, by name, with its bytes.
QMap<QString, QByteArray> snapshot(const QString& dir) {
    QMap<QString, QByteArray> out;
    for (const QString& n : QDir(dir).entryList(QDir::Files | QDir::Hidden))
        out.insert(n, readAll(QDir(dir).filePath(n)));
    return out;
}

struct Out {
    int code = -1;
    QByteArray out, err;
};

Out run(const QStringList& args, const QProcessEnvironment& env = {}) {
    QProcess p;
    if (!env.isEmpty()) p.setProcessEnvironment(env);
    p.start(s(MHLA_BINARY), args);
    if (!p.waitForFinished(300000)) {
        p.kill();
        p.waitForFinished();
        return {};
    }
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2, p.readAllStandardOutput(),
            p.readAllStandardError()};
}

/// Starts `args`, waits until stderr shows `marker` (the run is under way), sends `signo`, and
/// returns how the process ended.
Out interrupt(const QStringList& args, const QByteArray& marker, int signo, qint64* exitMs) {
    QProcess p;
    p.start(s(MHLA_BINARY), args);
    Out o;
    if (!p.waitForStarted()) return o;
    QElapsedTimer clock;
    clock.start();
    while (!o.err.contains(marker) && clock.elapsed() < 120000 && p.state() == QProcess::Running) {
        p.waitForReadyRead(100);
        o.err += p.readAllStandardError();
    }
    if (p.state() != QProcess::Running) {
        o.code = -3; // ended before the signal could be sent
        return o;
    }
    ::kill(static_cast<pid_t>(p.processId()), signo);
    clock.restart();
    if (!p.waitForFinished(60000)) {
        p.kill();
        p.waitForFinished();
        return o;
    }
    *exitMs = clock.elapsed();
    o.err += p.readAllStandardError();
    o.out = p.readAllStandardOutput();
    o.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2;
    return o;
}

// A poly run of a few seconds here (d = 8: D = 288, 60000 samples), printing progress.
const QStringList kSlow{s("--set"),      s("task.kind=random_mhla"),
                        s("--set"),      s("task.d=8"),
                        s("--set"),      s("task.d_out=2"),
                        s("--set"),      s("task.samples=60000"),
                        s("--progress"), s("--yes")};
const QStringList kQuick{s("--set"), s("task.kind=random_mhla"), s("--set"), s("task.d=3"),
                         s("--set"), s("task.d_out=2"),          s("--set"), s("task.samples=300")};

} // namespace

class TestSignals : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void fatalSignalsAreIntTermHup() {
        QCOMPARE(fatalSignals(), (std::array<int, 3>{SIGINT, SIGTERM, SIGHUP}));
    }

    // In process: each fatal signal sets the token instead of ending the process, and the
    // previous disposition comes back afterwards.
    void signalsCancelTheToken_data() {
        QTest::addColumn<int>("signo");
        QTest::newRow("SIGINT") << int(SIGINT);
        QTest::newRow("SIGTERM") << int(SIGTERM);
        QTest::newRow("SIGHUP") << int(SIGHUP);
    }
    void signalsCancelTheToken() {
        QFETCH(int, signo);
        struct sigaction before {};
        ::sigaction(signo, nullptr, &before);
        CancelToken token;
        {
            const CancelOnSignals guard(&token);
            QCOMPARE(guard.received(), 0);
            ::raise(signo);
            QVERIFY(token.isCancelled());
            QCOMPARE(guard.received(), signo);
        }
        struct sigaction after {};
        ::sigaction(signo, nullptr, &after);
        QCOMPARE(reinterpret_cast<void*>(after.sa_handler),
                 reinterpret_cast<void*>(before.sa_handler));
    }

    // In process: a closed descriptor 1 or 2 is given /dev/null, so the next file opened
    // cannot become "stdout".
    void closedStandardDescriptorsAreReserved() {
        const int saved1 = ::dup(1), saved2 = ::dup(2);
        QVERIFY(saved1 > 2 && saved2 > 2);
        std::fflush(stdout);
        std::fflush(stderr);
        ::close(1);
        ::close(2);
        const bool ok = reserveStandardDescriptors();
        struct stat st1 {
        }, st2{}, null{};
        const int f1 = ::fstat(1, &st1), f2 = ::fstat(2, &st2);
        ::stat("/dev/null", &null);
        QTemporaryDir tmp;
        const int fd = ::open(QFile::encodeName(QDir(tmp.path()).filePath(s("x"))).constData(),
                              O_WRONLY | O_CREAT, 0600);
        ::dup2(saved1, 1);
        ::dup2(saved2, 2);
        ::close(saved1);
        ::close(saved2);
        if (fd >= 0) ::close(fd);
        QVERIFY(ok);
        QCOMPARE(f1, 0);
        QCOMPARE(f2, 0);
        QCOMPARE(st1.st_rdev, null.st_rdev);
        QCOMPARE(st2.st_rdev, null.st_rdev);
        QVERIFY2(fd > 2, qPrintable(QString::number(fd)));
        QVERIFY(reserveStandardDescriptors()); // all open: nothing to do
    }

    // `solve --out D --force` interrupted by any fatal signal: exit 130 and D still holds the
    // earlier run, byte for byte, with no temporary left (before: TERM and HUP killed it
    // between files, leaving result.json of one run beside the CSVs of another).
    void solveKeepsTheFolderWhole_data() { signalsCancelTheToken_data(); }
    void solveKeepsTheFolderWhole() {
        QFETCH(int, signo);
        QTemporaryDir tmp;
        const QString out = QDir(tmp.path()).filePath(s("D"));
        const Out first = run(QStringList{s("solve"), s("--out"), out} + kQuick);
        QVERIFY2(first.code == 0, first.err.constData());
        const auto before = snapshot(out);
        qint64 ms = -1;
        const Out o = interrupt(
            QStringList{s("solve"), s("--out"), out, s("--force"), s("--set"), s("task.seed=7")} +
                kSlow,
            "[", signo, &ms);
        if (o.code == -3) QSKIP("the run ended before the signal could be sent");
        QVERIFY2(o.code == 130, qPrintable(QString::number(o.code) + s(" ") + s(o.err.right(400))));
        QVERIFY2(o.err.contains("cancelled"), o.err.right(400).constData());
        QVERIFY2(ms < 10000, qPrintable(QString::number(ms)));
        QCOMPARE(snapshot(out).keys(), before.keys());
        QVERIFY(snapshot(out) == before);
        QString error;
        QVERIFY2(readResultFolder(out, &error), qPrintable(error));
    }

    // `sweep` under each fatal signal: exit 130; every run folder is whole or has no
    // result.json; a rerun resumes and completes.
    void sweepCancelsAlike_data() { signalsCancelTheToken_data(); }
    void sweepCancelsAlike() {
        QFETCH(int, signo);
        QTemporaryDir tmp;
        const QString out = QDir(tmp.path()).filePath(s("S"));
        qint64 ms = -1;
        const QStringList args{s("sweep"),
                               s("--out"),
                               out,
                               s("--grid"),
                               s("task.seed=1:40:1"),
                               s("--set"),
                               s("task.kind=random_mhla"),
                               s("--set"),
                               s("task.d=6"),
                               s("--set"),
                               s("task.samples=8000"),
                               s("--jobs"),
                               s("2")};
        const Out o = interrupt(args, "[1/", signo, &ms);
        if (o.code == -3) QSKIP("the sweep ended before the signal could be sent");
        QVERIFY2(o.code == 130, qPrintable(QString::number(o.code) + s(" ") + s(o.err.right(400))));
        QVERIFY2(o.err.contains("cancelled"), o.err.right(400).constData());
        QDirIterator it(QDir(out).filePath(s("runs")), QDir::Dirs | QDir::NoDotAndDotDot);
        while (it.hasNext()) {
            const QString dir = it.next();
            if (!QFile::exists(QDir(dir).filePath(s("result.json")))) continue;
            QString error;
            QVERIFY2(readResultFolder(dir, &error), qPrintable(error));
        }
    }

    // A killed writer's temporary in a pending run folder is removed when the sweep resumes.
    void resumeRemovesStaleTemporaries() {
        QTemporaryDir tmp;
        const QString out = QDir(tmp.path()).filePath(s("S"));
        const QStringList args = QStringList{s("sweep"),  s("--out"),         out,
                                             s("--grid"), s("task.seed=1,2"), s("--quiet")} +
                                 kQuick;
        const Out first = run(args);
        QVERIFY2(first.code == 0, first.err.constData());
        const QStringList runs = QDir(QDir(out).filePath(s("runs")))
                                     .entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
        QCOMPARE(runs.size(), 2);
        const QString dir = QDir(QDir(out).filePath(s("runs"))).filePath(runs.first());
        QVERIFY(QFile::remove(QDir(dir).filePath(s("result.json"))));
        const QString stale = QDir(dir).filePath(s(".heads.csv.tmp-2147483646-0"));
        const QString staleTop = QDir(out).filePath(s(".runs.csv.tmp-2147483646-1"));
        for (const QString& f : {stale, staleTop}) {
            QFile file(f);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write("[17/40] half a line");
        }
        const Out again = run(args);
        QVERIFY2(again.code == 0, again.err.constData());
        QVERIFY(!QFile::exists(stale));
        QVERIFY(!QFile::exists(staleTop));
        QString error;
        QVERIFY2(readResultFolder(dir, &error), qPrintable(error));
    }

    // The user's numeric locale never reaches a file or a message. With de_DE.UTF-8 (built
    // into a private LOCPATH with localedef when the machine has the sources), printf would
    // write "0,0041"; the CLI sets LC_NUMERIC back to C after Qt's setlocale(LC_ALL, "").
    void numbersIgnoreTheLocale_data() {
        QTest::addColumn<QString>("variable");
        QTest::newRow("LC_ALL") << s("LC_ALL");
        QTest::newRow("LC_NUMERIC") << s("LC_NUMERIC");
    }
    void numbersIgnoreTheLocale() {
        QFETCH(QString, variable);
        const QString locpath = germanLocale();
        if (locpath.isEmpty()) QSKIP(qPrintable(m_noLocale));
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove(s("LC_ALL"));
        env.insert(s("LOCPATH"), locpath);
        env.insert(variable, s("de_DE.UTF-8"));
        // The locale works: a C program in it writes a decimal comma.
        QProcess printf;
        printf.setProcessEnvironment(env);
        printf.start(s("/usr/bin/printf"), {s("%.4f"), s("0.0041")});
        QVERIFY(printf.waitForFinished());
        QCOMPARE(printf.readAllStandardOutput(), QByteArray("0,0041"));

        QTemporaryDir tmp;
        const QString out = QDir(tmp.path()).filePath(s("D"));
        const Out o = run(QStringList{s("solve"), s("--progress"), s("--out"), out} + kQuick, env);
        QVERIFY2(o.code == 0, o.err.constData());
        // Progress lines are printf-formatted: "lambda_min 1.234e-02".
        static const QRegularExpression comma(s("\\d,\\d"));
        QVERIFY2(o.err.contains("lambda_min"), o.err.constData());
        QVERIFY2(!comma.match(s(o.err)).hasMatch(), o.err.constData());
        // No JSON string (notes, warnings, the estimate) holds a decimal comma.
        static const QRegularExpression commaInString(s("\"[^\"\\n]*\\d,\\d[^\"\\n]*\""));
        for (const QByteArray& text : {o.out, readAll(QDir(out).filePath(s("result.json")))}) {
            const auto m = commaInString.match(s(text));
            QVERIFY2(!m.hasMatch(), qPrintable(m.captured()));
        }
    }

    // In process: useCNumericLocale() resets only LC_NUMERIC.
    void useCNumericLocaleKeepsTheRest() {
        const QString locpath = germanLocale();
        if (locpath.isEmpty()) QSKIP(qPrintable(m_noLocale));
        const QByteArray numeric = std::setlocale(LC_NUMERIC, nullptr);
        const QByteArray ctype = std::setlocale(LC_CTYPE, nullptr);
        qputenv("LOCPATH", QFile::encodeName(locpath));
        const bool have = std::setlocale(LC_ALL, "de_DE.UTF-8") != nullptr;
        char text[32];
        std::snprintf(text, sizeof text, "%.4f", 0.0041);
        const QByteArray german = text;
        useCNumericLocale();
        std::snprintf(text, sizeof text, "%.4f", 0.0041);
        const QByteArray after = text;
        const QByteArray ctypeAfter = std::setlocale(LC_CTYPE, nullptr);
        std::setlocale(LC_NUMERIC, numeric.constData());
        std::setlocale(LC_CTYPE, ctype.constData());
        qunsetenv("LOCPATH");
        QVERIFY(have);
        QCOMPARE(german, QByteArray("0,0041"));
        QCOMPARE(after, QByteArray("0.0041"));
        QCOMPARE(ctypeAfter, QByteArray("de_DE.UTF-8"));
    }

    void escapeControlCharactersEscapesAll_data() {
        QTest::addColumn<QString>("in");
        QTest::addColumn<QString>("out");
        QTest::newRow("plain") << s("task.samples: 3") << s("task.samples: 3");
        QTest::newRow("NUL") << QString::fromUtf16(u"sam\u0000ples", 8) << s("sam\\x00ples");
        QTest::newRow("ESC") << s("\x1b[2Jred") << s("\\x1B[2Jred");
        QTest::newRow("newline, CR") << s("a\nb\rc") << s("a\\x0Ab\\x0Dc");
        QTest::newRow("tab kept") << s("a\tb") << s("a\tb");
        QTest::newRow("DEL and C1") << QString::fromUtf16(u"a\u007fb\u009bc") << s("a\\x7Fb\\x9Bc");
        QTest::newRow("non-ASCII kept")
            << QString::fromUtf16(u"λ_min ≥ τ") << QString::fromUtf16(u"λ_min ≥ τ");
    }
    void escapeControlCharactersEscapesAll() {
        QFETCH(QString, in);
        QFETCH(QString, out);
        QCOMPARE(escapeControlCharacters(in), out);
    }

private:
    /// A LOCPATH holding de_DE.UTF-8, built once with localedef from the machine's locale
    /// sources; empty (and m_noLocale says why) when it cannot be built.
    QString germanLocale() {
        if (m_localeTried) return m_locpath;
        m_localeTried = true;
        const QString localedef = QStandardPaths::findExecutable(s("localedef"));
        if (localedef.isEmpty() || !QFile::exists(s("/usr/share/i18n/locales/de_DE"))) {
            m_noLocale = s("no de_DE locale source (install the Debian package `locales`)");
            return {};
        }
        QProcess p;
        p.start(localedef, {s("-i"), s("de_DE"), s("-f"), s("UTF-8"),
                            QDir(m_localeDir.path()).filePath(s("de_DE.UTF-8"))});
        if (!p.waitForFinished(120000) || p.exitCode() > 1) { // 1: warnings only
            m_noLocale = s("localedef de_DE.UTF-8 failed: ") + s(p.readAllStandardError());
            return {};
        }
        m_locpath = m_localeDir.path();
        return m_locpath;
    }
    QTemporaryDir m_localeDir;
    QString m_locpath, m_noLocale;
    bool m_localeTried = false;
};

QTEST_GUILESS_MAIN(TestSignals)
#include "tst_signals.moc"
