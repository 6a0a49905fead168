#pragma once
// What every result tab is to the rest of the app: a widget with a tab name that shows the
// selected run (and, for overlay panels, all visible runs), and the figures and tables it can
// export. The main window builds its tabs, the View menu, "Export figure" and "Export all" from
// the one list in createResultPanels(); the headless `figures` command uses the same list
// without a window. Adding a panel touches the panel and that list.
#include "ui/export/figure.h"
#include <QList>
#include <QString>
#include <functional>

class QWidget;

namespace mhla::ui {

struct RunRecord;

class ResultPanel {
public:
    virtual ~ResultPanel() = default;
    /// Stable id ("certificate"), used by showTab() and --tab.
    virtual QString panelId() const = 0;
    /// The tab's title ("Certificate").
    virtual QString tabName() const = 0;
    virtual QWidget* widget() = 0;
    /// Shows the selected run (nullptr clears).
    virtual void showRun(const RunRecord* run) = 0;
    /// The visible runs, for panels that overlay runs (default: ignored).
    virtual void showRuns(const QList<const RunRecord*>& runs) { (void)runs; }
    /// A running run delivered new points (training history or the lambda_min trace).
    virtual void liveUpdate(const RunRecord* run, const QList<const RunRecord*>& visible,
                            bool isCurrent) {
        (void)run, (void)visible, (void)isCurrent;
    }
    /// True: the tab is one screen of figures, which shrink to their minimum before the tab
    /// scrolls (FitScrollArea). False: a long page that scrolls at its preferred size.
    virtual bool fitsWindow() const { return true; }
    /// True when this panel's figures show every visible run (not only the selected one).
    virtual bool overlaysRuns() const { return false; }
    /// When overlaysRuns(): the ids of the runs its figures draw now (a filter may leave some
    /// visible runs out); what an export's metadata lists.
    virtual QList<int> drawnRunIds() const { return {}; }
    virtual QList<const Figure*> figures() const { return {}; }
    virtual QList<ExportTable> tables() const { return {}; }

    /// Called with a figure when the user asks to export it from the panel.
    void setExportHandler(std::function<void(const Figure*)> h) { m_onExport = std::move(h); }
    /// Called when a display option of the panel changed and the runs must be shown again.
    void setRefreshHandler(std::function<void()> h) { m_onRefresh = std::move(h); }

protected:
    void requestExport(const Figure* f) const {
        if (m_onExport) m_onExport(f);
    }
    void requestRefresh() const {
        if (m_onRefresh) m_onRefresh();
    }

private:
    std::function<void(const Figure*)> m_onExport;
    std::function<void()> m_onRefresh;
};

/// The result panels, in tab order (the one list).
QList<ResultPanel*> createResultPanels(QWidget* parent);

} // namespace mhla::ui
