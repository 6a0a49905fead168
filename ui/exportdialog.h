#pragma once
// Asks where and how to export one figure: file (format from its suffix), size in pixels and
// resolution. The caller does the export (and asks before overwriting).
#include <QDialog>
#include <QSize>

class QLineEdit;
class QSpinBox;
class QLabel;

namespace mhla::ui {

class ExportDialog : public QDialog {
    Q_OBJECT
public:
    ExportDialog(const QString& figureTitle, const QString& suggestedPath, const QSize& size,
                 int dpi, QWidget* parent = nullptr);
    QString path() const;
    /// Why the chosen file cannot be written (bad suffix, missing folder), or empty.
    QString problem() const;
    QSize pixelSize() const;
    int dpi() const;

private:
    void updateInfo();
    QLineEdit* m_path = nullptr;
    QSpinBox* m_width = nullptr;
    QSpinBox* m_height = nullptr;
    QSpinBox* m_dpi = nullptr;
    QLabel* m_info = nullptr;
};

} // namespace mhla::ui
