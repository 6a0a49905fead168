#include "ui/plot/elidedlabel.h"
#include "ui/plot/plotlegend.h"
#include <QPainter>
#include <QStyle>

namespace mhla::ui {

ElidedLabel::ElidedLabel(QWidget* parent) : QFrame(parent) {
    setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
}

void ElidedLabel::setText(const QString& text) {
    if (text == m_text) return;
    m_text = text;
    updateGeometry();
    updateTip();
    update();
}

void ElidedLabel::setTypeset(bool on) {
    if (on == m_typeset) return;
    m_typeset = on;
    update();
}

bool ElidedLabel::isElided() const {
    return fontMetrics().horizontalAdvance(m_text) > contentsRect().width();
}

QSize ElidedLabel::sizeHint() const {
    const QFontMetrics fm = fontMetrics();
    return QSize(std::min(fm.horizontalAdvance(m_text) + 4, 400), fm.height() + 2);
}

QSize ElidedLabel::minimumSizeHint() const { return QSize(20, fontMetrics().height() + 2); }

void ElidedLabel::paintEvent(QPaintEvent* e) {
    QFrame::paintEvent(e);
    QPainter p(this);
    const QRect r = contentsRect();
    p.setPen(
        palette().color(isEnabled() ? QPalette::Active : QPalette::Disabled, QPalette::WindowText));
    if (m_typeset && !isElided()) drawTypeset(p, r, m_text);
    else
        p.drawText(r, Qt::AlignLeft | Qt::AlignVCenter,
                   fontMetrics().elidedText(m_text, Qt::ElideRight, r.width()));
}

void ElidedLabel::resizeEvent(QResizeEvent* e) {
    QFrame::resizeEvent(e);
    updateTip();
}

void ElidedLabel::updateTip() { setToolTip(isElided() ? m_text : QString()); }

} // namespace mhla::ui
