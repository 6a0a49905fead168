#pragma once
// A scroll area for a tab of figures: its widget takes the whole viewport, and the figures in
// it shrink to their minimum before a scroll bar appears. QScrollArea's resizable mode sizes a
// widget with wrapped text by its *preferred* height for the width, so a tab of two plots with
// captions scrolled as soon as the captions grew (presentation mode at 1366×768) although
// everything fitted at the plots' minimum height.
#include <QScrollArea>

namespace mhla::ui {

class FitScrollArea : public QScrollArea {
    Q_OBJECT
public:
    explicit FitScrollArea(QWidget* parent = nullptr);
    /// Takes `w` (as QScrollArea::setWidget) and sizes it from now on.
    void setFittedWidget(QWidget* w);
    /// The height the widget needs at `width`: its layout's minimum height for that width (every
    /// wrapped label whole, every figure at its minimum), at least its minimum size.
    int neededHeight(int width) const;

protected:
    void resizeEvent(QResizeEvent* e) override;
    bool eventFilter(QObject* watched, QEvent* e) override;

private:
    void fit();
    bool m_fitting = false;
};

} // namespace mhla::ui
