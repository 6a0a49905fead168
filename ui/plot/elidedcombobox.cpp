#include "ui/plot/elidedcombobox.h"
#include <QStyleOptionComboBox>
#include <QStylePainter>
#include <algorithm>

namespace mhla::ui {

ElidedComboBox::ElidedComboBox(QWidget* parent) : QComboBox(parent) {
    connect(this, &QComboBox::currentIndexChanged, this, [this] { updateTip(); });
}

void ElidedComboBox::setBaseToolTip(const QString& tip) {
    m_baseTip = tip;
    updateTip();
}

QString ElidedComboBox::shownText() const {
    QStyleOptionComboBox opt;
    initStyleOption(&opt);
    QRect field =
        style()->subControlRect(QStyle::CC_ComboBox, &opt, QStyle::SC_ComboBoxEditField, this);
    int width = field.width() - 2; // the label's 1 px inset on each side (QCommonStyle)
    if (!opt.currentIcon.isNull()) width -= opt.iconSize.width() + 4;
    return fontMetrics().elidedText(opt.currentText, Qt::ElideRight, std::max(0, width));
}

bool ElidedComboBox::isElided() const { return shownText() != currentText(); }

void ElidedComboBox::paintEvent(QPaintEvent*) {
    QStylePainter p(this);
    QStyleOptionComboBox opt;
    initStyleOption(&opt);
    p.drawComplexControl(QStyle::CC_ComboBox, opt);
    opt.currentText = shownText();
    p.drawControl(QStyle::CE_ComboBoxLabel, opt);
    updateTip(); // the items' texts may have changed since the last resize
}

void ElidedComboBox::resizeEvent(QResizeEvent* e) {
    QComboBox::resizeEvent(e);
    updateTip();
}

void ElidedComboBox::updateTip() {
    const QString tip =
        isElided() ? (m_baseTip.isEmpty() ? currentText() : currentText() + u'\n' + m_baseTip)
                   : m_baseTip;
    if (tip != toolTip()) setToolTip(tip);
}

} // namespace mhla::ui
