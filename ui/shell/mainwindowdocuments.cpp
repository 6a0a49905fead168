// The main window's documents: experiment files, data files, results folders,
// recent files and drops.
#include "core/algebra/features.h"
#include "core/base/fileio.h"
#include "core/experiment/config.h"
#include "core/records/resultread.h"
#include "ui/experiment/datastatistics.h"
#include "ui/experiment/experimentfile.h"
#include "ui/experiment/experimentpanel.h"
#include "ui/experiment/session.h"
#include "ui/export/exporter.h"
#include "ui/panels/explanations.h"
#include "ui/panels/sweeppanel.h"
#include "ui/plot/elidedlabel.h"
#include "ui/plot/fitscrollarea.h"
#include "ui/plot/heatmapwidget.h"
#include "ui/plot/plotwidget.h"
#include "ui/run/runcontroller.h"
#include "ui/run/runlist.h"
#include "ui/shell/exportdialog.h"
#include "ui/shell/mainwindow.h"
#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QJsonDocument>
#include <QMenu>
#include <QMessageBox>
#include <QMimeData>
#include <QStatusBar>
#include <QTextBrowser>
#include <QUrl>
#include <optional>

namespace mhla::ui {

QString MainWindow::openExperiment(const QString& pathOrFolder) {
    // A results folder (solve --out, Export all) opens its experiment.json.
    QString path = pathOrFolder;
    if (QFileInfo(path).isDir()) {
        path = QDir(pathOrFolder).filePath(QStringLiteral("experiment.json"));
        if (!QFileInfo::exists(path))
            return tr("%1 is not a results folder: it has no experiment.json").arg(pathOrFolder);
    }
    // A failed Open changes nothing: not the form, not the current file, not Open Recent.
    const ExperimentFileRead read = readExperimentFile(path);
    if (!read.usable) return read.error;
    const QString err = m_panel->setExperiment(read.json);
    if (read.hasSweep) m_panel->setFileSweep(read.sweep);
    // The Sweep tab offers the file's own figures (another file takes them away).
    if (auto* sweep = panelOf<SweepPanel>())
        sweep->setFileFigures(read.figures, QFileInfo(path).fileName());
    if (read.valid) m_panel->recognisePreset();
    setCurrentFile(path);
    m_currentFileBytes = read.bytes;
    if (read.valid) {
        m_settings.addRecentFile(QFileInfo(path).absoluteFilePath());
        updateRecentMenu();
    }
    QString note =
        tr("<h3>%1</h3><p>Experiment file loaded. Hover a parameter for its meaning.</p>")
            .arg(QFileInfo(path).fileName().toHtmlEscaped());
    for (const QString& w : read.warnings)
        note += QStringLiteral("<p>%1</p>").arg(w.toHtmlEscaped());
    setExplanation(note);
    return read.valid ? QString() : err.isEmpty() ? read.error : err;
}

QString MainWindow::openData(const QStringList& npyFiles) {
    // Everything is checked before the form changes: the pairing, both headers, the shapes.
    DataFiles files;
    TaskConfig task;
    DatasetShape shape;
    try {
        files = pairDataFiles(npyFiles);
        task.kind = TaskKind::Dataset;
        task.prompts = QFileInfo(files.prompts).absoluteFilePath();
        task.targets =
            files.targets.isEmpty() ? QString() : QFileInfo(files.targets).absoluteFilePath();
        task.validationPrompts = files.validationPrompts;
        task.validationTargets = files.validationTargets;
        shape = readDatasetShape(task);
    } catch (const ConfigError& e) {
        return QString::fromStdString(e.what());
    }
    const QJsonObject obj{
        {QStringLiteral("task"),
         QJsonObject{{QStringLiteral("kind"), QStringLiteral("dataset")},
                     {QStringLiteral("prompts"), task.prompts},
                     {QStringLiteral("targets"), task.targets},
                     {QStringLiteral("validation_prompts"), task.validationPrompts},
                     {QStringLiteral("validation_targets"), task.validationTargets}}}};
    const QString err = m_panel->setExperiment(obj);
    setCurrentFile({}); // the form is a new, unsaved experiment on those files
    const TaskDims& dims = shape.dims;
    const long long D = featureDim(dims.d);
    QString note =
        tr("<h3>Data: %1</h3><p><b>%2</b> prompts of <b>%3</b> tokens × <b>d = %4</b> (the last "
           "token the query): D = %5 cubic features, so the certificate needs N ≥ D; here "
           "N %6 D.</p>")
            .arg(QFileInfo(task.prompts).fileName().toHtmlEscaped())
            .arg(shape.samples)
            .arg(dims.n)
            .arg(dims.d)
            .arg(D)
            .arg(shape.samples >= D ? QStringLiteral("≥") : QStringLiteral("<"));
    note += task.targets.isEmpty()
                ? tr("<p>No targets: Run certifies the prompts (λ_min, the null relations, the "
                     "samples the certificate needs) and fits nothing.</p>")
                : tr("<p>Targets: %1, d_out = %2. Run fits the minimum-norm P and certifies "
                     "it; nothing here has a teacher, so the distance to P* is absent.</p>")
                      .arg(QFileInfo(task.targets).fileName().toHtmlEscaped())
                      .arg(dims.dOut);
    if (shape.validationSamples > 0)
        note += tr("<p>Held out: <b>%1</b> prompts (%2) give the val MSE; λ_min and the fit use "
                   "the training files alone.</p>")
                    .arg(shape.validationSamples)
                    .arg(QFileInfo(task.validationPrompts).fileName().toHtmlEscaped());
    if (!files.note.isEmpty()) note += QStringLiteral("<p>%1</p>").arg(files.note.toHtmlEscaped());
    setExplanation(note);
    m_dataNote = note;
    m_explanation->setHtml(note + DataStatistics::pendingHtml());
    QStringList labels{QFileInfo(task.prompts).fileName()};
    QStringList paths{task.prompts};
    // The held-out set's values too: a scale unlike the training set's shows in its val MSE.
    for (const QString* f : {&task.targets, &task.validationPrompts, &task.validationTargets})
        if (!f->isEmpty()) {
            labels << QFileInfo(*f).fileName();
            paths << *f;
        }
    m_dataStats->start(labels, paths);
    statusBar()->showMessage(
        shape.validationSamples > 0
            ? tr("Opened %1 prompts and %2 held out from %3")
                  .arg(shape.samples)
                  .arg(shape.validationSamples)
                  .arg(task.prompts)
            : tr("Opened %1 prompts from %2").arg(shape.samples).arg(task.prompts),
        6000);
    return err;
}

QString MainWindow::saveExperiment(const QString& path) {
    if (!m_panel->isValid())
        return tr("the experiment has invalid values; fix the marked fields first");
    const QByteArray bytes =
        QJsonDocument(experimentToJson(m_panel->config())).toJson(QJsonDocument::Indented);
    const QString err = writeFileAtomic(path, bytes);
    if (!err.isEmpty()) return err;
    setCurrentFile(path);
    m_currentFileBytes = bytes;
    m_settings.addRecentFile(QFileInfo(path).absoluteFilePath());
    updateRecentMenu();
    return {};
}

QString MainWindow::saveRisk(const QString& path) const {
    return overwriteRisk(path, path == m_currentFile ? m_currentFileBytes : QByteArray());
}

void MainWindow::openInteractive() {
    if (!confirm(tr("Open experiment"), discardEditsQuestion())) return;
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Open experiment"), m_settings.lastDirectory(),
                                     tr("Experiment files (*.json);;All files (*)"));
    if (path.isEmpty()) return;
    m_settings.setLastDirectory(QFileInfo(path).absolutePath());
    const QString err = openExperiment(path);
    if (!err.isEmpty()) QMessageBox::warning(this, tr("Invalid experiment"), err);
}

bool MainWindow::saveInteractive(bool saveAs) {
    QString path = m_currentFile;
    if (saveAs || path.isEmpty()) {
        // QFileDialog asks before replacing an existing file.
        path = QFileDialog::getSaveFileName(
            this, tr("Save experiment"),
            QDir(m_settings.lastDirectory()).filePath(QStringLiteral("experiment.json")),
            tr("Experiment files (*.json)"));
        if (path.isEmpty()) return false;
        if (QFileInfo(path).suffix().isEmpty()) path += QStringLiteral(".json");
        m_settings.setLastDirectory(QFileInfo(path).absolutePath());
    }
    if (!m_panel->isValid()) {
        QMessageBox::warning(this, tr("Save failed"),
                             tr("The experiment has invalid values; fix the marked fields first."));
        return false;
    }
    const QString risk = saveRisk(path);
    if (!risk.isEmpty() && QMessageBox::question(this, tr("Replace file?"), risk,
                                                 QMessageBox::Yes | QMessageBox::Cancel,
                                                 QMessageBox::Cancel) != QMessageBox::Yes)
        return false;
    const QString err = saveExperiment(path);
    if (!err.isEmpty()) {
        QMessageBox::warning(this, tr("Save failed"), err);
        return false;
    }
    statusBar()->showMessage(tr("Saved %1").arg(path), 4000);
    return true;
}

void MainWindow::setCurrentFile(const QString& path) {
    m_currentFile = path;
    m_currentFileBytes = QByteArray();
    setWindowTitle(path.isEmpty()
                       ? QStringLiteral("MHLA Lab[*]")
                       : QStringLiteral("%1[*] — MHLA Lab").arg(QFileInfo(path).fileName()));
    setWindowModified(false);
}

void MainWindow::updateRecentMenu() {
    m_recentMenu->clear();
    const QStringList files = m_settings.recentFiles();
    for (const QString& f : files) {
        m_recentMenu
            ->addAction(QFileInfo(f).fileName(), this,
                        [this, f] {
                            if (opensIntoForm(f) &&
                                !confirm(tr("Open recent"), discardEditsQuestion()))
                                return;
                            const QString err = openRecent(f);
                            if (!err.isEmpty()) QMessageBox::warning(this, tr("Open recent"), err);
                        })
            ->setToolTip(f);
    }
    m_recentMenu->setEnabled(!files.isEmpty());
}

QString MainWindow::openResults(const QString& dir) {
    QString error;
    const std::optional<ResultFolder> folder = readResultFolder(dir, &error);
    if (!folder) return error;
    const QString abs = QFileInfo(dir).absoluteFilePath();
    addFinishedRun(folder->name, folder->result, abs);
    m_settings.addRecentFile(abs);
    updateRecentMenu();
    const QJsonObject experiment = experimentToJson(folder->result.config);
    // The form shows the loaded run's experiment (ready to rerun or vary) unless it holds
    // unsaved edits, which are never replaced silently. The form is then untitled: Save asks
    // for a name, so the file open before is not overwritten with the run's settings, and the
    // folder is not taken for an experiment file.
    const bool keepForm = isWindowModified();
    if (!keepForm) {
        m_panel->setExperiment(experiment);
        setCurrentFile(QString());
    }
    QString note =
        tr("<h3>%1</h3><p>Results loaded from %2.</p>")
            .arg(folder->name.toHtmlEscaped(), QDir::toNativeSeparators(abs).toHtmlEscaped());
    for (const QString& n : folder->notes)
        note += QStringLiteral("<p>%1.</p>").arg(n.toHtmlEscaped());
    note +=
        tr("<p>Its experiment%1:</p><pre>%2</pre>")
            .arg(keepForm ? tr(" (the form keeps your unsaved edits)") : tr(" (now in the form)"),
                 QString::fromUtf8(QJsonDocument(experiment).toJson(QJsonDocument::Indented))
                     .toHtmlEscaped());
    setExplanation(note);
    statusBar()->showMessage(
        keepForm
            ? tr("Loaded %1; the form keeps your unsaved edits: the run's settings are in "
                 "About this experiment")
                  .arg(QDir::toNativeSeparators(abs))
            : tr("Loaded %1; its experiment is in the form").arg(QDir::toNativeSeparators(abs)),
        keepForm ? 10000 : 4000);
    return {};
}

QString MainWindow::openPath(const QString& path) {
    if (QFileInfo(path).isDir() && isSessionFolder(path)) return openSession(path, false);
    if (QFileInfo(path).isDir() && isResultFolder(path)) return openResults(path);
    if (path.endsWith(u".npy", Qt::CaseInsensitive) || path.endsWith(u".npz", Qt::CaseInsensitive))
        return openData({path});
    return openExperiment(path);
}

QString MainWindow::openRecent(const QString& path) {
    QString err = QFileInfo::exists(path) ? openPath(path) : tr("%1 no longer exists.").arg(path);
    // A file that no longer opens cleanly leaves Open Recent (it went in only when it did).
    if (!err.isEmpty()) {
        m_settings.removeRecentFile(path);
        updateRecentMenu();
    }
    return err;
}

QString MainWindow::droppedPath(const QMimeData* mime) {
    if (!mime || !mime->hasUrls() || mime->urls().size() != 1) return {};
    const QUrl url = mime->urls().first();
    if (!url.isLocalFile()) return {};
    const QFileInfo fi(url.toLocalFile());
    if (fi.isDir() || (fi.isFile() && fi.suffix().compare(u"json", Qt::CaseInsensitive) == 0))
        return fi.absoluteFilePath();
    return {};
}

QStringList MainWindow::droppedData(const QMimeData* mime) {
    if (!mime || !mime->hasUrls() || mime->urls().isEmpty() || mime->urls().size() > 2) return {};
    QStringList out;
    for (const QUrl& url : mime->urls()) {
        const QFileInfo fi(url.toLocalFile());
        const bool npz = fi.suffix().compare(u"npz", Qt::CaseInsensitive) == 0;
        if (!url.isLocalFile() || !fi.isFile() ||
            (fi.suffix().compare(u"npy", Qt::CaseInsensitive) != 0 && !npz) ||
            (npz && mime->urls().size() != 1))
            return {};
        out << fi.absoluteFilePath();
    }
    return out;
}

QString MainWindow::openDropped(const QMimeData* mime) {
    if (const QStringList data = droppedData(mime); !data.isEmpty()) {
        m_settings.setLastDirectory(QFileInfo(data.first()).absolutePath());
        return openData(data);
    }
    const QString path = droppedPath(mime);
    if (path.isEmpty())
        return tr("drop one experiment file (.json), one results folder, one or two .npy "
                  "files (prompts, and optionally targets), or one .npz archive");
    m_settings.setLastDirectory(QFileInfo(path).absolutePath());
    return openPath(path);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* e) {
    if (!droppedPath(e->mimeData()).isEmpty() || !droppedData(e->mimeData()).isEmpty())
        e->acceptProposedAction();
    else e->ignore();
}

void MainWindow::dropEvent(QDropEvent* e) {
    const QString path = droppedPath(e->mimeData());
    const bool data = !droppedData(e->mimeData()).isEmpty();
    if (path.isEmpty() && !data) {
        e->ignore();
        return;
    }
    if ((data || opensIntoForm(path)) && !confirm(tr("Open"), discardEditsQuestion())) {
        e->ignore();
        return;
    }
    e->acceptProposedAction(); // after the question: its event loop leaves the event ignored
    const QString err = openDropped(e->mimeData());
    if (!err.isEmpty()) QMessageBox::warning(this, tr("Could not open"), err);
}

} // namespace mhla::ui
