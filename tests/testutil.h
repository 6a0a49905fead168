#pragma once
// Helpers every test suite may share (issue 22: each suite had its own copy): UTF-8 literals as
// QString, a relative tolerance compare, reading a file, and running the mhla-lab binary the
// build made (MHLA_BINARY, set for every suite by tests/CMakeLists.txt) with its exit code and
// output.
#include <QByteArray>
#include <QFile>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <algorithm>
#include <cmath>

namespace mhla::test {

/// A UTF-8 string literal as a QString (the suites' messages hold λ, ≤, …).
inline QString s(const char* t) { return QString::fromUtf8(t); }

/// Whether a and b agree to `rel` relative to the larger of them, and to `rel` absolutely near
/// zero: |a - b| <= rel * max(1, |a|, |b|). Two NaNs agree (a value missing on both sides).
inline bool near(double a, double b, double rel = 1e-12) {
    if (std::isnan(a) && std::isnan(b)) return true;
    return std::abs(a - b) <= rel * std::max({1.0, std::abs(a), std::abs(b)});
}

/// The bytes of the file at `path`; empty when it cannot be read.
inline QByteArray readAll(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

/// What a run of the binary returned: the exit code (-1 after a time-out, -2 after a crash),
/// standard output and standard error.
struct Outcome {
    int code;
    QByteArray out, err;
};

/// Runs `mhla-lab args...` and waits at most timeoutMs (then kills it: code -1).
inline Outcome runBinary(const QStringList& args, int timeoutMs = 120000) {
    QProcess p;
    p.start(QStringLiteral(MHLA_BINARY), args);
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished(5000);
        return {-1, {}, "timeout"};
    }
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2, p.readAllStandardOutput(),
            p.readAllStandardError()};
}

} // namespace mhla::test
