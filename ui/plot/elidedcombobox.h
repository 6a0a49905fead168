#pragma once
// A combo box that may be narrower than its text: the current choice is elided at the end
// ("band: 10–90% of…") instead of cut mid-letter, and its tooltip then gives it in full.
#include <QComboBox>
#include <QString>

namespace mhla::ui {

class ElidedComboBox : public QComboBox {
    Q_OBJECT
public:
    explicit ElidedComboBox(QWidget* parent = nullptr);
    /// The tooltip that says what the choice is for; while the current text is elided the
    /// tooltip is that text, then this.
    void setBaseToolTip(const QString& tip);
    /// True when the current text does not fit and is drawn elided.
    [[nodiscard]] bool isElided() const { return m_shown != currentText(); }

protected:
    void paintEvent(QPaintEvent* e) override;
    void resizeEvent(QResizeEvent* e) override;
    void changeEvent(QEvent* e) override;

private:
    /// Elides the current text to the field's width (kept for painting) and sets the tooltip:
    /// on a change of the text, the width, the font or the style, never while painting.
    void updateShown();
    QString m_baseTip;
    QString m_shown; ///< the current text as drawn
};

} // namespace mhla::ui
