// Helpers shared by the tst_gui_* suites that drive a MainWindow on the offscreen platform.
#pragma once

#include "ui/run/runcontroller.h"
#include "ui/shell/appsettings.h"
#include "ui/shell/mainwindow.h"
#include <QAbstractButton>
#include <QApplication>
#include <QDialog>
#include <QElapsedTimer>
#include <QMessageBox>
#include <QSignalSpy>
#include <QSize>
#include <QStandardPaths>
#include <QString>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

namespace mhla::ui::test {

/// Test-mode standard paths and a settings file inside `dir`, so that no suite reads or writes
/// the user's settings. False if `dir` could not be created.
inline bool useTestSettings(const QTemporaryDir& dir) {
    QStandardPaths::setTestModeEnabled(true);
    if (!dir.isValid()) return false;
    AppSettings::useFile(dir.filePath(QStringLiteral("settings.ini")));
    return true;
}

/// Shows `w` as a test drives it: closing quits without asking, resized to `size` when valid,
/// shown; false if the window was not exposed within QTest's default wait.
inline bool showForTest(MainWindow& w, QSize size = {}) {
    w.setQuitWithoutAsking(true);
    if (size.isValid()) w.resize(size);
    w.show();
    return QTest::qWaitForWindowExposed(&w);
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

/// Answers the window's modal dialogs while it lives: the first QMessageBox with `button`
/// (its text is kept in asked()), every later dialog (a file dialog, another question) is
/// rejected and its class name kept in others(). Polls every 20 ms.
class DialogAnswerer {
public:
    explicit DialogAnswerer(QMessageBox::StandardButton button) : m_button(button) {
        m_timer.setInterval(20);
        QObject::connect(&m_timer, &QTimer::timeout, [this] {
            auto* dialog = qobject_cast<QDialog*>(QApplication::activeModalWidget());
            if (!dialog) return;
            auto* box = qobject_cast<QMessageBox*>(dialog);
            if (box && m_asked.isNull()) {
                m_asked = box->text();
                if (QAbstractButton* b = box->button(m_button)) b->click();
                else box->reject();
                return;
            }
            m_others << QString::fromLatin1(dialog->metaObject()->className());
            dialog->reject();
        });
        m_timer.start();
    }
    /// The question answered (null: none was asked).
    const QString& asked() const { return m_asked; }
    const QStringList& others() const { return m_others; }

private:
    QMessageBox::StandardButton m_button;
    QTimer m_timer;
    QString m_asked;
    QStringList m_others;
};

} // namespace mhla::ui::test
