#include "ui/automatonpanel.h"
#include "ui/certificatepanel.h"
#include "ui/curvespanel.h"
#include "ui/explorerpanel.h"
#include "ui/headspanel.h"
#include "ui/resultpanel.h"
#include "ui/sweeppanel.h"

namespace mhla::ui {

QList<ResultPanel*> createResultPanels(QWidget* parent) {
    return {new CertificatePanel(parent), new CurvesPanel(parent),    new HeadsPanel(parent),
            new ExplorerPanel(parent),    new AutomatonPanel(parent), new SweepPanel(parent)};
}

} // namespace mhla::ui
