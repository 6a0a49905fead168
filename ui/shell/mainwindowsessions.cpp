// The main window's sessions: saving and opening every run, and the autosave.
#include "core/algebra/features.h"
#include "core/base/plural.h"
#include "core/experiment/config.h"
#include "ui/experiment/datastatistics.h"
#include "ui/experiment/experimentpanel.h"
#include "ui/experiment/session.h"
#include "ui/export/exporter.h"
#include "ui/panels/curvespanel.h"
#include "ui/panels/headspanel.h"
#include "ui/plot/elidedlabel.h"
#include "ui/plot/plotwidget.h"
#include "ui/run/runcontroller.h"
#include "ui/run/runlist.h"
#include "ui/shell/exportdialog.h"
#include "ui/shell/mainwindow.h"
#include <QApplication>
#include <QDateTime>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>
#include <QPointer>
#include <QPushButton>
#include <QStatusBar>
#include <QThreadPool>
#include <algorithm>
#include <map>
#include <optional>

namespace mhla::ui {

std::vector<SessionRun> MainWindow::sessionRuns() const {
    std::vector<SessionRun> runs;
    for (const RunRecord* r : m_runs->allRuns())
        if (r->result && r->state == RunRecord::State::Finished)
            runs.push_back(SessionRun{r->name, r->color, r->visible, *r->result, {}, r->batch});
    return runs;
}

QString MainWindow::saveSession(const QString& dir) {
    std::vector<SessionRun> runs = sessionRuns();
    const int skipped = m_runs->count() - static_cast<int>(runs.size());
    if (const QString err =
            writeSession(dir, std::move(runs), nullptr, SessionView{m_curves->smoothing()});
        !err.isEmpty())
        return err;
    statusBar()->showMessage(
        skipped > 0 ? (skipped == 1 ? tr("Session saved to %1 (1 run without a result left out)")
                                    : tr("Session saved to %1 (%n runs without a result left out)",
                                         nullptr, skipped))
                          .arg(QDir::toNativeSeparators(dir))
                    : tr("Session saved to %1").arg(QDir::toNativeSeparators(dir)),
        6000);
    return {};
}

QString MainWindow::openSession(const QString& dir, bool replace, QStringList* skipped) {
    QString error;
    QStringList left;
    SessionView view;
    std::optional<std::vector<SessionRun>> runs = readSession(dir, &error, &left, &view);
    if (!runs) return error;
    loadSession(dir, *runs, view, replace, left.size());
    if (skipped) *skipped = left;
    return {};
}

void MainWindow::loadSession(const QString& dir, const std::vector<SessionRun>& runs,
                             const SessionView& view, bool replace, qsizetype skipped) {
    if (replace) {
        stopRuns();
        m_runs->clear();
    }
    const QString abs = QFileInfo(dir).absoluteFilePath();
    addSessionRuns(runs, abs);
    if (view.smoothing) m_curves->setSmoothing(*view.smoothing);
    m_settings.addRecentFile(abs);
    updateRecentMenu();
    const qsizetype n = static_cast<qsizetype>(runs.size());
    QString text =
        tr("Opened session %1 (%2)")
            .arg(
                QDir::toNativeSeparators(abs),
                skipped > 0
                    ? tr("%1 of %2 runs; %3 could not be read").arg(n).arg(n + skipped).arg(skipped)
                    : countOf(n, tr("run"), tr("runs")));
    statusBar()->showMessage(text, skipped > 0 ? 15000 : 6000);
}

int MainWindow::addSessionRuns(const std::vector<SessionRun>& runs, const QString& loadedFrom) {
    int last = 0;
    // The run list's signals wait until every run is in: each one redrew every overlay panel
    // over all runs so far, so opening a session took time quadratic in its runs (issue 26
    // item 7: 100 / 200 / 400 runs took 3.0 / 17.7 / > 61 s). One redraw at the end.
    std::optional<QSignalBlocker> batch(m_runs);
    std::map<int, int> batches; // the session's batch numbers -> new ones in this window
    for (const SessionRun& s : runs) {
        RunRecord& r = m_runs->add(s.name, s.result.config);
        if (s.batch > 0) {
            auto [it, fresh] = batches.try_emplace(s.batch, 0);
            if (fresh) it->second = m_runs->newBatch();
            r.batch = it->second;
        }
        r.name = s.name;                    // as saved (add() numbers new runs)
        m_runs->preferColor(r.id, s.color); // its saved colour unless another run on screen has it
        m_runs->setRunVisible(r.id, s.visible);
        if (!s.visible) r.color = s.color;
        r.result = s.result;
        r.state = RunRecord::State::Finished;
        if (!loadedFrom.isEmpty()) r.loadedFrom = QDir(loadedFrom).filePath(s.folder);
        m_runs->refresh(r.id);
        last = r.id;
    }
    batch.reset();
    Q_EMIT m_runs->runsChanged(); // the overlays and the autosave, once
    m_runs->select(last);
    refreshCurrent();
    return last;
}

QString MainWindow::autosaveOffer() const {
    if (m_offerDir.isEmpty()) return {};
    return m_offerCount == 1
               ? tr("Restore the 1 run from the last session?")
               : tr("Restore the %n runs from the last session?", nullptr, m_offerCount);
}

QString MainWindow::restoreAutosave() {
    if (m_offerDir.isEmpty()) return tr("there is no session to restore");
    QString error;
    const std::optional<std::vector<SessionRun>> runs = readSession(m_offerDir, &error);
    if (!runs) return error;
    addSessionRuns(*runs, {});
    statusBar()->showMessage(runs->size() == 1 ? tr("Restored 1 run from the last session")
                                               : tr("Restored %n runs from the last session",
                                                    nullptr, static_cast<int>(runs->size())),
                             6000);
    declineAutosave(); // answered
    m_autosaveArmed = true;
    scheduleAutosave();
    return {};
}

void MainWindow::declineAutosave() {
    m_offerDir.clear();
    m_offerCount = 0;
    m_restoreBar->setVisible(false);
}

void MainWindow::scheduleAutosave() {
    m_autosaveDue = true;
    m_autosaveTimer.start();
}

namespace {
/// Writes runs as the session in `folder`, replacing it only once the new one is whole:
/// written beside it (folder.new), then swapped in by renames. No runs: the folder goes.
QString writeAutosave(const QString& folder, std::vector<SessionRun> runs) {
    const QString fresh = folder + QStringLiteral(".new"), old = folder + QStringLiteral(".old");
    QDir(fresh).removeRecursively();
    QDir(old).removeRecursively();
    if (!runs.empty())
        if (const QString err = writeSession(fresh, std::move(runs)); !err.isEmpty()) {
            QDir(fresh).removeRecursively();
            return err;
        }
    if (QFileInfo::exists(folder) && !QDir().rename(folder, old))
        return QObject::tr("cannot replace the autosave %1").arg(QDir::toNativeSeparators(folder));
    if (QFileInfo::exists(fresh) && !QDir().rename(fresh, folder))
        return QObject::tr("cannot move the autosave into %1")
            .arg(QDir::toNativeSeparators(folder));
    QDir(old).removeRecursively();
    return {};
}
} // namespace

void MainWindow::keepOfferedAside() {
    // The runs still offered are not replaced by this window's: they move beside the autosave
    // and the bar keeps offering them from there.
    const QString folder = AppSettings::autosaveFolder();
    if (m_offerDir != folder) return;
    const QString aside = folder + QStringLiteral(".previous");
    QDir(aside).removeRecursively();
    if (QDir().rename(folder, aside)) m_offerDir = aside;
}

void MainWindow::startAutosave() {
    if (!m_autosaveDue) return;
    if (m_autosaveBusy) return; // started again when the running write ends
    m_autosaveDue = false;
    keepOfferedAside();
    m_autosaveBusy = true;
    const QString folder = AppSettings::autosaveFolder();
    QPointer<MainWindow> self(this);
    QThreadPool::globalInstance()->start([self, folder, runs = sessionRuns()]() mutable {
        const QString err = writeAutosave(folder, std::move(runs));
        QMetaObject::invokeMethod(
            qApp,
            [self, err] {
                if (!self) return;
                self->m_autosaveBusy = false;
                Q_EMIT self->autosaved(err);
                if (self->m_autosaveDue) self->startAutosave();
            },
            Qt::QueuedConnection);
    });
}

QString MainWindow::autosaveNow() {
    m_autosaveTimer.stop();
    m_autosaveDue = false;
    QThreadPool::globalInstance()->waitForDone(); // a write under way ends first
    keepOfferedAside();
    const QString err = writeAutosave(AppSettings::autosaveFolder(), sessionRuns());
    Q_EMIT autosaved(err);
    return err;
}

void MainWindow::saveSessionInteractive() {
    bool any = false;
    for (const RunRecord* r : m_runs->allRuns()) any = any || r->result.has_value();
    if (!any) {
        QMessageBox::information(this, tr("Save session"),
                                 tr("There is no finished run to save yet."));
        return;
    }
    // A save dialog, not a folder picker: a folder picker cannot name a folder that does not
    // exist yet, which is what a new session wants. The suggested name is new in the last
    // folder used; an existing folder typed in is checked by sessionFolderRisk below.
    const QDir base(m_settings.lastDirectory());
    const QString stem = QStringLiteral("mhla-session-") +
                         QDateTime::currentDateTime().toString(QStringLiteral("yyyy-MM-dd-HHmm"));
    QString suggested = stem;
    for (int k = 2; base.exists(suggested); ++k) suggested = stem + QStringLiteral("-%1").arg(k);
    QFileDialog dialog(this, tr("Save the session as a folder (a new name, or an empty folder)"),
                       base.path());
    dialog.setObjectName(QStringLiteral("saveSessionDialog"));
    dialog.setAcceptMode(QFileDialog::AcceptSave);
    dialog.setFileMode(QFileDialog::AnyFile);
    dialog.setOption(QFileDialog::DontConfirmOverwrite); // sessionFolderRisk asks instead
    dialog.setLabelText(QFileDialog::FileName, tr("Folder:"));
    dialog.selectFile(suggested);
    if (dialog.exec() != QDialog::Accepted || dialog.selectedFiles().isEmpty()) return;
    const QString dir = QDir::cleanPath(dialog.selectedFiles().constFirst());
    if (dir.isEmpty()) return;
    m_settings.setLastDirectory(QFileInfo(dir).absolutePath());
    if (const QString risk = sessionFolderRisk(dir);
        !risk.isEmpty() && QMessageBox::question(this, tr("Save session"), risk,
                                                 QMessageBox::Yes | QMessageBox::Cancel,
                                                 QMessageBox::Cancel) != QMessageBox::Yes)
        return;
    if (const QString err = saveSession(dir); !err.isEmpty())
        QMessageBox::warning(this, tr("Save session failed"), err);
}

void MainWindow::openSessionInteractive() {
    const QString dir = QFileDialog::getExistingDirectory(
        this, tr("Open a session folder (session.json)"), m_settings.lastDirectory());
    if (dir.isEmpty()) return;
    m_settings.setLastDirectory(QFileInfo(dir).absolutePath());
    // The folder is read before anything is asked: a folder that is not a session says so at
    // once, and the question can count the runs it brings.
    QString error;
    QStringList skipped;
    SessionView view;
    const std::optional<std::vector<SessionRun>> runs = readSession(dir, &error, &skipped, &view);
    if (!runs) {
        QMessageBox::warning(this, tr("Open session"), error);
        return;
    }
    bool replace = false;
    if (m_runs->count() > 0) {
        const QString brings = countOf(static_cast<long long>(runs->size()), tr("run"), tr("runs"));
        QMessageBox box(QMessageBox::Question, tr("Open session"),
                        m_runs->count() == 1
                            ? tr("There is 1 run in this window. Add the session's %1 to it, "
                                 "or replace it?")
                                  .arg(brings)
                            : tr("There are %1 runs in this window. Add the session's %2 to "
                                 "them, or replace them?")
                                  .arg(m_runs->count())
                                  .arg(brings),
                        QMessageBox::Cancel, this);
        QPushButton* add = box.addButton(tr("Add"), QMessageBox::AcceptRole);
        QPushButton* repl = box.addButton(tr("Replace"), QMessageBox::DestructiveRole);
        box.setDefaultButton(add);
        box.exec();
        if (box.clickedButton() != add && box.clickedButton() != repl) return;
        replace = box.clickedButton() == repl;
    }
    loadSession(dir, *runs, view, replace, skipped.size());
    if (!skipped.isEmpty()) {
        constexpr int kListed = 5;
        QString text = tr("%1 of the session could not be read and %2 left out; the others are "
                          "open.")
                           .arg(countOf(skipped.size(), tr("run"), tr("runs")),
                                skipped.size() == 1 ? tr("was") : tr("were"));
        for (qsizetype i = 0; i < std::min<qsizetype>(skipped.size(), kListed); ++i)
            text += QStringLiteral("\n\n") + skipped[i];
        if (skipped.size() > kListed)
            text += QStringLiteral("\n") + tr("… and %1 more").arg(skipped.size() - kListed);
        QMessageBox::warning(this, tr("Open session"), text);
    }
}

} // namespace mhla::ui
