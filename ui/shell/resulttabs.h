#pragma once
// The result tabs: every tab one click away however narrow the window. Where the names do not
// fit, the longest are shortened first, down to the width of the others (water-filling), and
// end in "…" with the whole name in the tooltip; a short name ("Sweep") keeps its letters.
// Qt's own squeeze takes the same few letters from every tab ("He…", "Swe…"), and its scroll
// arrows hid the last tabs at x2 on a projector.
#include <QTabBar>
#include <QTabWidget>

namespace mhla::ui {

class FairTabBar : public QTabBar {
public:
    explicit FairTabBar(QWidget* parent = nullptr);

protected:
    QSize tabSizeHint(int index) const override;

private:
    /// QTabBar::minimumTabSizeHint() calls tabSizeHint() itself: that call gets the natural size.
    mutable bool m_inMinimum = false;
};

class ResultTabs : public QTabWidget {
public:
    explicit ResultTabs(QWidget* parent = nullptr);
};

} // namespace mhla::ui
