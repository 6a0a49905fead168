#include "ui/exportdialog.h"
#include "ui/exporter.h"
#include "ui/theme.h"
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>

namespace mhla::ui {

ExportDialog::ExportDialog(const QString& figureTitle, const QString& suggestedPath,
                           const QSize& size, int dpi, QWidget* parent)
    : QDialog(parent) {
    setWindowTitle(tr("Export figure — %1").arg(figureTitle));
    auto* form = new QFormLayout(this);
    auto* pathRow = new QHBoxLayout;
    m_path = new QLineEdit(suggestedPath, this);
    m_path->setObjectName(QStringLiteral("exportPath"));
    auto* browse = new QPushButton(tr("Browse…"), this);
    pathRow->addWidget(m_path, 1);
    pathRow->addWidget(browse);
    form->addRow(tr("File (.svg, .pdf, .png, .csv)"), pathRow);
    m_width = new QSpinBox(this);
    m_width->setRange(16, 20000);
    m_width->setValue(size.width());
    m_width->setSuffix(tr(" px"));
    m_height = new QSpinBox(this);
    m_height->setRange(16, 20000);
    m_height->setValue(size.height());
    m_height->setSuffix(tr(" px"));
    m_dpi = new QSpinBox(this);
    m_dpi->setRange(36, 2400);
    m_dpi->setValue(dpi);
    m_dpi->setSuffix(tr(" dpi"));
    form->addRow(tr("Width"), m_width);
    form->addRow(tr("Height"), m_height);
    form->addRow(tr("Resolution"), m_dpi);
    m_info = new QLabel(this);
    m_info->setWordWrap(true);
    form->addRow(m_info);
    auto* bb = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    form->addRow(bb);
    // Problems are shown here and keep the dialog open (a missing folder used to close it).
    connect(bb, &QDialogButtonBox::accepted, this, [this] {
        const QString why = problem();
        if (why.isEmpty()) return accept();
        m_info->setText(QStringLiteral("<span style='color:%1'>%2</span>")
                            .arg(colors::css(colors::kError), why.toHtmlEscaped()));
    });
    connect(bb, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString p = QFileDialog::getSaveFileName(
            this, tr("Export figure"), m_path->text(),
            tr("SVG (*.svg);;PDF (*.pdf);;PNG (*.png);;CSV data (*.csv)"));
        if (!p.isEmpty()) m_path->setText(p);
    });
    for (QSpinBox* s : {m_width, m_height, m_dpi})
        connect(s, &QSpinBox::valueChanged, this, &ExportDialog::updateInfo);
    updateInfo();
}

QString ExportDialog::path() const { return m_path->text().trimmed(); }

QString ExportDialog::problem() const {
    const QString p = path();
    if (p.isEmpty()) return tr("Choose a file name.");
    bool ok = false;
    formatFromPath(p, &ok);
    if (!ok) return tr("Choose a file ending in .svg, .pdf, .png or .csv.");
    const QFileInfo fi(p);
    if (!fi.absoluteDir().exists())
        return tr("The folder %1 does not exist.").arg(fi.absolutePath());
    if (fi.isDir()) return tr("%1 is a folder; add a file name.").arg(p);
    return {};
}
QSize ExportDialog::pixelSize() const { return {m_width->value(), m_height->value()}; }
int ExportDialog::dpi() const { return m_dpi->value(); }

void ExportDialog::updateInfo() {
    const double w = m_width->value() / double(m_dpi->value()),
                 h = m_height->value() / double(m_dpi->value());
    m_info->setText(
        tr("Physical size %1 × %2 in (%3 × %4 cm); SVG and PDF use the same size. A CSV of the data is "
           "written beside the figure; every file carries the experiment, seeds and %5.")
            .arg(w, 0, 'f', 2)
            .arg(h, 0, 'f', 2)
            .arg(w * 2.54, 0, 'f', 1)
            .arg(h * 2.54, 0, 'f', 1)
            .arg(appVersionString()));
}

} // namespace mhla::ui
