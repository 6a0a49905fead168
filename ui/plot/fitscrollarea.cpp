#include "ui/plot/fitscrollarea.h"
#include <QEvent>
#include <QLayout>
#include <QScrollBar>
#include <QStyle>
#include <algorithm>

namespace mhla::ui {

FitScrollArea::FitScrollArea(QWidget* parent) : QScrollArea(parent) {
    // Sized here, not by QScrollArea (see the header).
    setWidgetResizable(false);
}

void FitScrollArea::setFittedWidget(QWidget* w) {
    setWidget(w); // QScrollArea filters the widget's events from now on: eventFilter()
    fit();
}

int FitScrollArea::neededHeight(int width) const {
    const QWidget* w = widget();
    if (!w) return 0;
    int h = std::max(w->minimumSizeHint().height(), w->minimumHeight());
    if (const QLayout* lay = w->layout(); lay && lay->hasHeightForWidth())
        h = std::max(h, lay->totalMinimumHeightForWidth(width));
    return h;
}

void FitScrollArea::fit() {
    QWidget* w = widget();
    if (!w || m_fitting) return;
    m_fitting = true;
    const QSize room = maximumViewportSize(); // the viewport without scroll bars
    const int bar = style()->pixelMetric(QStyle::PM_ScrollBarExtent, nullptr, this);
    const int minWidth = std::max(w->minimumSizeHint().width(), w->minimumWidth());
    int width = std::max(room.width(), minWidth);
    const int roomHeight = room.height() - (width > room.width() ? bar : 0);
    int height = neededHeight(width);
    if (height > roomHeight) {
        // A vertical scroll bar takes its width from the viewport.
        width = std::max(room.width() - bar, minWidth);
        height = neededHeight(width);
    }
    w->resize(width, std::max(height, roomHeight));
    m_fitting = false;
}

void FitScrollArea::resizeEvent(QResizeEvent* e) {
    QScrollArea::resizeEvent(e);
    fit();
}

bool FitScrollArea::eventFilter(QObject* watched, QEvent* e) {
    // The widget's contents changed what it needs (a caption, a font, a shown row).
    if (watched == widget() && e->type() == QEvent::LayoutRequest) fit();
    return QScrollArea::eventFilter(watched, e);
}

} // namespace mhla::ui
