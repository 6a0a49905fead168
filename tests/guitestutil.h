// Helpers shared by the tst_gui_* suites that drive a MainWindow on the offscreen platform.
#pragma once

#include "ui/shell/appsettings.h"
#include "ui/shell/mainwindow.h"
#include "ui/run/runcontroller.h"
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QString>
#include <QTemporaryDir>

namespace mhla::ui::test {

/// Test-mode standard paths and a settings file inside `dir`, so that no suite reads or writes
/// the user's settings. False if `dir` could not be created.
inline bool useTestSettings(const QTemporaryDir& dir) {
    QStandardPaths::setTestModeEnabled(true);
    if (!dir.isValid()) return false;
    AppSettings::useFile(dir.filePath(QStringLiteral("settings.ini")));
    return true;
}

/// Waits until `w`'s run controller is idle; false if it is still busy after `timeoutMs`.
inline bool waitIdle(MainWindow& w, int timeoutMs = 60000) {
    RunController* c = w.controller();
    if (!c->isBusy()) return true;
    QSignalSpy spy(c, &RunController::idle);
    QElapsedTimer t;
    t.start();
    while (c->isBusy() && t.elapsed() < timeoutMs) spy.wait(200);
    return !c->isBusy();
}

} // namespace mhla::ui::test
