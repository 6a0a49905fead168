#pragma once
// Asks where and how to export one figure: file (format from its suffix), size in pixels and
// resolution. The caller does the export (and asks before overwriting).
#include "ui/plot/plotmath.h"
#include <QDialog>
#include <QSize>
#include <optional>

class QComboBox;
class QLineEdit;
class QSpinBox;
class QLabel;
class QPushButton;

namespace mhla::ui {

class ExportDialog : public QDialog {
    Q_OBJECT
public:
    /// `paperStyles`: the figure is a plot, so the paper styles (one or two columns) are offered.
    ExportDialog(const QString& figureTitle, const QString& suggestedPath, const QSize& size,
                 int dpi, QWidget* parent = nullptr, bool paperStyles = false);
    /// The paper style chosen, or nullopt for "as on screen".
    std::optional<PaperStyle> paperStyle() const;
    /// 0 = as on screen, 1 = paper one column, 2 = paper two columns.
    void setStyleIndex(int i);
    int styleIndex() const;
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
    QComboBox* m_style = nullptr;
};

} // namespace mhla::ui

namespace mhla::ui {

/// Asks for the folder of "Export all": a path that may not exist yet (it is created), typed
/// or picked with Browse… (the system folder dialog accepts only existing folders).
class ExportAllDialog : public QDialog {
    Q_OBJECT
public:
    explicit ExportAllDialog(const QString& suggestedFolder, QWidget* parent = nullptr);
    QString folder() const;
    void setFolder(const QString& folder);
    /// Why this folder cannot be used (empty, a file in the way), or empty; a missing folder
    /// is fine.
    QString problem() const;

private:
    void updateInfo();
    QLineEdit* m_path = nullptr;
    QLabel* m_info = nullptr;
    QPushButton* m_ok = nullptr;
};

} // namespace mhla::ui
