// The main window's figure export: one figure, every figure, the clipboard.
#include "core/experiment/config.h"
#include "ui/experiment/experimentpanel.h"
#include "ui/export/exporter.h"
#include "ui/panels/automatonpanel.h"
#include "ui/panels/certificatepanel.h"
#include "ui/panels/curvespanel.h"
#include "ui/panels/headspanel.h"
#include "ui/plot/elidedlabel.h"
#include "ui/plot/heatmapwidget.h"
#include "ui/plot/plotwidget.h"
#include "ui/run/runcontroller.h"
#include "ui/run/runlist.h"
#include "ui/shell/exportdialog.h"
#include "ui/shell/mainwindow.h"
#include <QDir>
#include <QFileInfo>
#include <QMessageBox>
#include <QStatusBar>
#include <optional>

namespace mhla::ui {

QList<const Figure*> MainWindow::figures() const {
    QList<const Figure*> out;
    for (const ResultPanel* panel : m_resultPanels) out += panel->figures();
    return out;
}

ExportMetadata MainWindow::exportMetadata(const QString& title, const Figure* figure) const {
    ExportMetadata m;
    m.title = title;
    bool overlay = !figure;
    std::optional<QList<int>> drawn; // the overlaying panel's runs: those its filter kept
    for (const ResultPanel* panel : m_resultPanels)
        if (figure && panel->overlaysRuns() && panel->figures().contains(figure)) {
            overlay = true;
            drawn = panel->drawnRunIds();
        }
    if (overlay)
        for (const RunRecord* r : m_runs->visibleRuns())
            if (!drawn || drawn->contains(r->id))
                m.runs << qMakePair(r->name, experimentToJson(r->config));
    if (m.runs.isEmpty())
        if (const RunRecord* r = m_runs->current())
            m.runs << qMakePair(r->name, experimentToJson(r->config));
    return m;
}

QList<ExportTable> MainWindow::tables() const {
    QList<ExportTable> out;
    for (const ResultPanel* panel : m_resultPanels) out += panel->tables();
    return out;
}

QString MainWindow::exportAllTo(const QString& dir, bool overwrite, QStringList* written,
                                QStringList* existing) {
    const RunRecord* cur = m_runs->current();
    if (!cur || !cur->result) return tr("there is no finished run to export");
    auto metaFor = [this](const Figure& f) { return exportMetadata(f.figureTitle(), &f); };
    ExportMetadata tableMeta;
    tableMeta.runs << qMakePair(cur->name, experimentToJson(cur->config));
    return exportAll(figures(), tables(), dir, *cur->result, metaFor, tableMeta,
                     m_settings.exportSize(), m_settings.exportDpi(), overwrite, written, existing);
}

void MainWindow::exportFigureInteractive(const Figure* f) {
    if (!f || !f->hasData()) {
        statusBar()->showMessage(tr("Nothing to export yet: run an experiment first"), 4000);
        return;
    }
    const QString suggested =
        QDir(m_settings.lastDirectory()).filePath(f->figureName() + QStringLiteral(".svg"));
    const auto* plot = dynamic_cast<const PlotWidget*>(f);
    ExportDialog dlg(f->figureTitle(), suggested, m_settings.exportSize(), m_settings.exportDpi(),
                     this, plot != nullptr);
    // The style last chosen for a plot, as the size and resolution are remembered.
    if (plot) dlg.setStyleIndex(m_settings.exportStyle());
    if (dlg.exec() != QDialog::Accepted) return;
    if (plot) m_settings.setExportStyle(dlg.styleIndex());
    const QString path = dlg.path();
    bool ok = false;
    const ExportFormat fmt = formatFromPath(path, &ok);
    if (!ok) {
        QMessageBox::warning(this, tr("Export"),
                             tr("Choose a file ending in .svg, .pdf, .png or .csv."));
        return;
    }
    const QFileInfo fi(path);
    const QString csvPath = csvPathFor(path);
    QStringList clash;
    if (fi.exists()) clash << fi.fileName();
    // The CSV beside the figure is asked about only when it is not one this app wrote (loss.png
    // after loss.svg rewrites the same data).
    if (fmt != ExportFormat::Csv && QFileInfo::exists(csvPath) && !isOurCsv(csvPath))
        clash << QFileInfo(csvPath).fileName();
    if (!clash.isEmpty() &&
        QMessageBox::question(this, tr("Overwrite?"),
                              tr("Overwrite %1?").arg(clash.join(QStringLiteral(", ")))) !=
            QMessageBox::Yes)
        return;
    const std::optional<PaperStyle> paper = dlg.paperStyle();
    if (!paper) m_settings.setExportSize(dlg.pixelSize()); // a paper size is the style's
    m_settings.setExportDpi(dlg.dpi());
    m_settings.setLastDirectory(fi.absolutePath());
    QString err;
    if (paper && plot) {
        const PaperFigure pf(*plot, *paper);
        err = exportFigure(pf, path, fmt, dlg.pixelSize(), dlg.dpi(),
                           exportMetadata(f->figureTitle(), f));
    } else {
        err = exportFigure(*f, path, fmt, dlg.pixelSize(), dlg.dpi(),
                           exportMetadata(f->figureTitle(), f));
    }
    if (!err.isEmpty()) QMessageBox::warning(this, tr("Export failed"), err);
    else statusBar()->showMessage(tr("Exported %1").arg(path), 5000);
}

void MainWindow::exportAllInteractive() {
    // A folder that does not exist yet is created (the system folder dialog refuses one).
    ExportAllDialog dlg(m_settings.lastDirectory(), this);
    if (dlg.exec() != QDialog::Accepted) return;
    const QString dir = QFileInfo(dlg.folder()).absoluteFilePath();
    m_settings.setLastDirectory(dir);
    QStringList written, existing;
    QString err = exportAllTo(dir, false, &written, &existing);
    if (!err.isEmpty() && !existing.isEmpty()) {
        if (QMessageBox::question(
                this, tr("Overwrite?"),
                existing.size() == 1
                    ? tr("%1 already exists in %2. Overwrite it?").arg(existing.first(), dir)
                    : tr("%1 files already exist in %2 (e.g. %3). Overwrite them?")
                          .arg(existing.size())
                          .arg(dir, existing.first())) != QMessageBox::Yes)
            return;
        written.clear();
        err = exportAllTo(dir, true, &written);
    }
    if (!err.isEmpty()) QMessageBox::warning(this, tr("Export failed"), err);
    else statusBar()->showMessage(tr("Wrote %1 files to %2").arg(written.size()).arg(dir), 6000);
}

QString MainWindow::copyCurrentFigure(bool paper) {
    const int tab = m_tabs->currentIndex();
    const QList<const Figure*> figs = tab >= 0 && tab < m_resultPanels.size()
                                          ? m_resultPanels[tab]->figures()
                                          : QList<const Figure*>{};
    for (const Figure* f : figs) {
        if (!f->hasData()) continue;
        const auto* plot = dynamic_cast<const PlotWidget*>(f);
        if (paper && plot) {
            const PaperFigure pf(*plot, PaperStyle::oneColumn());
            return copyFigureToClipboard(pf, pf.pixelSize(300), 300);
        }
        return copyFigureToClipboard(*f, m_settings.exportSize(), m_settings.exportDpi());
    }
    return tr("Nothing to copy on this tab yet");
}

} // namespace mhla::ui
