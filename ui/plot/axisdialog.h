#pragma once
// The "Axes…" dialog of a plot: four limits, checked before it closes (numbers, minimum below
// maximum, positive limits on log axes).
#include <QDialog>
#include <QRectF>

class QLabel;
class QLineEdit;

namespace mhla::ui {

class AxisDialog : public QDialog {
    Q_OBJECT
public:
    /// `current`: x from left() to right(), y from top() (min) to bottom() (max).
    AxisDialog(const QString& plotTitle, const QRectF& current, bool logX, bool logY,
               QWidget* parent = nullptr);
    /// The accepted range, in the same layout as `current`.
    QRectF range() const;
    /// Why the limits cannot be used, or an empty string (also shown in the dialog).
    QString check() const;

private:
    QLineEdit* m_x0;
    QLineEdit* m_x1;
    QLineEdit* m_y0;
    QLineEdit* m_y1;
    QLabel* m_error;
    bool m_logX, m_logY;
};

} // namespace mhla::ui
