#include "ui/plot/elidedcombobox.h"
#include <QEvent>
#include <QStyleOptionComboBox>
#include <QStylePainter>
#include <algorithm>

namespace mhla::ui {

ElidedComboBox::ElidedComboBox(QWidget* parent) : QComboBox(parent) {
    // currentTextChanged also follows a new text of the current item (QComboBox watches its
    // model's dataChanged), and a new current item when rows come or go.
    connect(this, &QComboBox::currentTextChanged, this, [this] { updateShown(); });
}

void ElidedComboBox::setBaseToolTip(const QString& tip) {
    m_baseTip = tip;
    updateShown();
}

void ElidedComboBox::updateShown() {
    QStyleOptionComboBox opt;
    initStyleOption(&opt);
    QRect field =
        style()->subControlRect(QStyle::CC_ComboBox, &opt, QStyle::SC_ComboBoxEditField, this);
    int width = field.width() - 2; // the label's 1 px inset on each side (QCommonStyle)
    if (!opt.currentIcon.isNull()) width -= opt.iconSize.width() + 4;
    const QString shown =
        fontMetrics().elidedText(opt.currentText, Qt::ElideRight, std::max(0, width));
    if (shown != m_shown) {
        m_shown = shown;
        update();
    }
    const QString tip =
        isElided() ? (m_baseTip.isEmpty() ? currentText() : currentText() + u'\n' + m_baseTip)
                   : m_baseTip;
    if (tip != toolTip()) setToolTip(tip);
}

void ElidedComboBox::paintEvent(QPaintEvent*) {
    QStylePainter p(this);
    QStyleOptionComboBox opt;
    initStyleOption(&opt);
    p.drawComplexControl(QStyle::CC_ComboBox, opt);
    opt.currentText = m_shown;
    p.drawControl(QStyle::CE_ComboBoxLabel, opt);
}

void ElidedComboBox::resizeEvent(QResizeEvent* e) {
    QComboBox::resizeEvent(e);
    updateShown();
}

void ElidedComboBox::changeEvent(QEvent* e) {
    QComboBox::changeEvent(e);
    if (e->type() == QEvent::FontChange || e->type() == QEvent::StyleChange) updateShown();
}

} // namespace mhla::ui
