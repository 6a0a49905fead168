#include "ui/panels/automatonpanel.h"
#include "ui/panels/certificatepanel.h"
#include "ui/panels/curvespanel.h"
#include "ui/panels/explorerpanel.h"
#include "ui/panels/headspanel.h"
#include "ui/panels/resultpanel.h"
#include "ui/panels/sweeppanel.h"

namespace mhla::ui {

QList<ResultPanel*> createResultPanels(QWidget* parent) {
    return {new CertificatePanel(parent), new CurvesPanel(parent),    new HeadsPanel(parent),
            new ExplorerPanel(parent),    new AutomatonPanel(parent), new SweepPanel(parent)};
}

} // namespace mhla::ui
