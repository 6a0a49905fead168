#pragma once
// A one-line label that never widens its window: it takes the width it is given, elides its
// text at the end when it does not fit, and then shows the whole text as its tooltip.
#include <QFrame>
#include <QString>

namespace mhla::ui {

class ElidedLabel : public QFrame {
    Q_OBJECT
public:
    explicit ElidedLabel(QWidget* parent = nullptr);
    void setText(const QString& text);
    QString text() const { return m_text; }
    void clear() { setText({}); }
    /// Draw "_x" as a subscript ("λ_min") when the text fits (elided text is drawn plain).
    void setTypeset(bool on);
    bool typeset() const { return m_typeset; }
    /// True when the text does not fit and is shown elided.
    bool isElided() const;
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* e) override;
    void resizeEvent(QResizeEvent* e) override;

private:
    void updateTip();
    QString m_text;
    bool m_typeset = false;
};

} // namespace mhla::ui
