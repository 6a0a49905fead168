#pragma once
// Helpers every test suite may share (issue 22: each suite had its own copy): UTF-8 literals as
// QString, and running the mhla-lab binary the build made (MHLA_BINARY, set for every suite by
// tests/CMakeLists.txt) with its exit code and output.
#include <QByteArray>
#include <QProcess>
#include <QString>
#include <QStringList>

namespace mhla::test {

/// A UTF-8 string literal as a QString (the suites' messages hold λ, ≤, …).
inline QString s(const char* t) { return QString::fromUtf8(t); }

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
