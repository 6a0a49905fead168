#include "ui/shell/resulttabs.h"
#include <algorithm>
#include <vector>

namespace mhla::ui {

FairTabBar::FairTabBar(QWidget* parent) : QTabBar(parent) {
    setElideMode(Qt::ElideRight);
    setUsesScrollButtons(false);
}

QSize FairTabBar::tabSizeHint(int index) const {
    QSize size = QTabBar::tabSizeHint(index);
    if (m_inMinimum) return size;
    // The room: the tab widget's width (the bar's own width follows from these hints).
    const int room = parentWidget() ? parentWidget()->width() : width();
    std::vector<int> natural;
    long long total = 0;
    for (int i = 0; i < count(); ++i) {
        natural.push_back(QTabBar::tabSizeHint(i).width());
        total += natural.back();
    }
    if (room <= 0 || total <= room) return size;
    // The cap c with sum(min(w_i, c)) = room: the widest tabs give up width first.
    std::vector<int> sorted = natural;
    std::sort(sorted.begin(), sorted.end());
    long long below = 0; // the sum of the tabs narrower than the cap
    int cap = 0;
    const auto n = static_cast<long long>(sorted.size());
    for (long long k = 0; k < n; ++k) {
        const long long c = (room - below) / (n - k);
        if (c <= sorted[static_cast<size_t>(k)]) {
            cap = static_cast<int>(c);
            break;
        }
        below += sorted[static_cast<size_t>(k)];
    }
    m_inMinimum = true;
    const int minimum = QTabBar::minimumTabSizeHint(index).width();
    m_inMinimum = false;
    size.setWidth(std::max(minimum, std::min(size.width(), cap)));
    return size;
}

ResultTabs::ResultTabs(QWidget* parent) : QTabWidget(parent) { setTabBar(new FairTabBar(this)); }

} // namespace mhla::ui
