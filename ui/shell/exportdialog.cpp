#include "ui/shell/exportdialog.h"
#include "ui/export/exporter.h"
#include "ui/plot/theme.h"
#include <QComboBox>
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
#include <cmath>

namespace mhla::ui {

ExportDialog::ExportDialog(const QString& figureTitle, const QString& suggestedPath,
                           const QSize& size, int dpi, QWidget* parent, bool paperStyles)
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
    m_dpi->setRange(kMinExportDpi, kMaxExportDpi);
    m_dpi->setValue(dpi);
    m_dpi->setSuffix(tr(" dpi"));
    m_style = new QComboBox(this);
    m_style->setObjectName(QStringLiteral("exportStyle"));
    const PaperStyle one = PaperStyle::oneColumn(), two = PaperStyle::twoColumns();
    m_style->addItem(tr("As on screen (title, notes)"));
    m_style->addItem(tr("Paper, one column (%1 × %2 in, %3 pt)")
                         .arg(one.widthInches)
                         .arg(one.heightInches)
                         .arg(one.fontPt));
    m_style->addItem(tr("Paper, two columns (%1 × %2 in, %3 pt)")
                         .arg(two.widthInches)
                         .arg(two.heightInches)
                         .arg(two.fontPt));
    m_style->setEnabled(paperStyles);
    m_style->setToolTip(
        paperStyles ? tr("Paper styles leave out the title (run name) and the notes under the "
                         "plot, use small fonts and thin lines sized for a column, and typeset "
                         "λ_min as λ with a subscript. Width and height follow the style.")
                    : tr("Paper styles are for line plots."));
    form->addRow(tr("Style"), m_style);
    connect(m_style, &QComboBox::currentIndexChanged, this, [this](int i) {
        if (i == 0) return;
        const PaperStyle st = i == 1 ? PaperStyle::oneColumn() : PaperStyle::twoColumns();
        if (m_dpi->value() < 300) m_dpi->setValue(300);
        m_width->setValue(static_cast<int>(std::lround(st.widthInches * m_dpi->value())));
        m_height->setValue(static_cast<int>(std::lround(st.heightInches * m_dpi->value())));
    });
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
std::optional<PaperStyle> ExportDialog::paperStyle() const {
    const QSizeF inches(m_width->value() / double(m_dpi->value()),
                        m_height->value() / double(m_dpi->value()));
    if (m_style->currentIndex() <= 0) return std::nullopt;
    PaperStyle st =
        m_style->currentIndex() == 1 ? PaperStyle::oneColumn() : PaperStyle::twoColumns();
    // The size fields win (a taller one-column figure stays a one-column figure).
    st.widthInches = inches.width();
    st.heightInches = inches.height();
    return st;
}

void ExportDialog::setStyleIndex(int i) { m_style->setCurrentIndex(i); }
int ExportDialog::styleIndex() const { return m_style->currentIndex(); }

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

namespace mhla::ui {

ExportAllDialog::ExportAllDialog(const QString& suggestedFolder, QWidget* parent)
    : QDialog(parent) {
    setWindowTitle(tr("Export all figures and data"));
    auto* form = new QFormLayout(this);
    auto* row = new QHBoxLayout;
    m_path = new QLineEdit(suggestedFolder, this);
    m_path->setObjectName(QStringLiteral("exportAllFolder"));
    auto* browse = new QPushButton(tr("Browse…"), this);
    row->addWidget(m_path, 1);
    row->addWidget(browse);
    form->addRow(tr("Folder"), row);
    m_info = new QLabel(this);
    m_info->setObjectName(QStringLiteral("exportAllInfo"));
    m_info->setWordWrap(true);
    form->addRow(m_info);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    m_ok = buttons->button(QDialogButtonBox::Ok);
    m_ok->setText(tr("Export"));
    form->addRow(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_path, &QLineEdit::textChanged, this, &ExportAllDialog::updateInfo);
    connect(browse, &QPushButton::clicked, this, [this] {
        // Start at the deepest existing folder of what is typed.
        QString start = folder();
        while (!start.isEmpty() && !QFileInfo(start).isDir() && start != QDir::rootPath())
            start = QFileInfo(start).absolutePath();
        const QString dir = QFileDialog::getExistingDirectory(this, windowTitle(), start);
        if (!dir.isEmpty()) m_path->setText(dir);
    });
    setMinimumWidth(460);
    updateInfo();
}

QString ExportAllDialog::folder() const { return m_path->text().trimmed(); }
void ExportAllDialog::setFolder(const QString& f) { m_path->setText(f); }

QString ExportAllDialog::problem() const {
    const QString f = folder();
    if (f.isEmpty()) return tr("Type or choose a folder.");
    const QFileInfo fi(f);
    if (fi.exists() && !fi.isDir()) return tr("%1 is a file, not a folder.").arg(f);
    return {};
}

void ExportAllDialog::updateInfo() {
    const QString p = problem();
    m_ok->setEnabled(p.isEmpty());
    if (!p.isEmpty()) {
        m_info->setText(p);
        return;
    }
    m_info->setText(QFileInfo(folder()).isDir()
                        ? tr("SVG, PDF, PNG and CSV of every figure, the tables, experiment.json "
                             "and result.json go into this folder (you are asked before a file "
                             "is overwritten).")
                        : tr("This folder does not exist yet: it will be created."));
}

} // namespace mhla::ui
