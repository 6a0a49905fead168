#include "ui/curvespanel.h"
#include "ui/explanations.h"
#include "ui/plotwidget.h"
#include <QSplitter>
#include <QVBoxLayout>
#include <cmath>
#include <limits>
#include <set>

namespace mhla::ui {

namespace {
const QColor kExactColor(100, 100, 100);

PlotSeries curve(const QString& name, const QColor& c, PlotSeries::Style st, const std::vector<HistoryPoint>& h,
                 double HistoryPoint::*field, bool inLegend = false) {
    PlotSeries s;
    s.name = name;
    s.inLegend = inLegend;
    s.color = c;
    s.style = st;
    for (const auto& p : h)
        if (std::isfinite(p.*field)) s.points << QPointF(p.epoch, p.*field);
    return s;
}
} // namespace

CurvesPanel::CurvesPanel(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("curvesPanel"));
    auto* lay = new QVBoxLayout(this);
    lay->addWidget(explain::makeHelpBox(explain::curves(), this));
    auto* split = new QSplitter(Qt::Vertical, this);
    m_loss = new PlotWidget(QStringLiteral("loss"), split);
    m_loss->setTitle(tr("Loss vs epochs"));
    m_loss->setAxisTitles(tr("epoch"), tr("MSE  /  OOD relative error"));
    m_loss->setLogY(true);
    m_distance = new PlotWidget(QStringLiteral("distance"), split);
    m_distance->setTitle(tr("Distance to the teacher vs epochs"));
    m_distance->setAxisTitles(tr("epoch"), tr("‖P̂ − P*‖_F / ‖P*‖_F"));
    m_distance->setLogY(true);
    split->addWidget(m_loss);
    split->addWidget(m_distance);
    lay->addWidget(split, 1);
    connect(m_loss, &PlotWidget::exportRequested, this, [this] { Q_EMIT exportRequested(m_loss); });
    connect(m_distance, &PlotWidget::exportRequested, this, [this] { Q_EMIT exportRequested(m_distance); });
}

QList<const Figure*> CurvesPanel::figures() const { return {m_loss, m_distance}; }

void CurvesPanel::showRuns(const QList<const RunRecord*>& runs) {
    QList<PlotSeries> loss, dist, lossRefs, distRefs;
    std::set<std::pair<QString, double>> refsSeen;
    auto addRef = [&](QList<PlotSeries>& list, const QString& name, double v, const QColor& c) {
        if (!std::isfinite(v)) return;
        if (!refsSeen.insert({name, v}).second) return; // the same exact solution for runs on the same data
        list << PlotSeries::hline(name, v, c);
    };
    bool anyHistory = false;
    for (const RunRecord* r : runs) {
        const auto& h = r->history();
        const bool trainer = r->config.solver.kind != SolverKind::Poly;
        if (trainer || !h.empty()) {
            anyHistory = anyHistory || !h.empty();
            loss << curve(r->name, r->color, PlotSeries::Style::Line, h, &HistoryPoint::trainMse, true);
            loss << curve(r->name + tr(" val"), r->color, PlotSeries::Style::Dashed, h, &HistoryPoint::valMse);
            loss << curve(r->name + tr(" OOD rel"), r->color, PlotSeries::Style::Dotted, h, &HistoryPoint::oodRelMse);
            dist << curve(r->name, r->color, PlotSeries::Style::Line, h, &HistoryPoint::distancePRel, true);
            dist << curve(r->name + tr(" to exact"), r->color, PlotSeries::Style::Dashed, h,
                          &HistoryPoint::distanceExactRel);
            if (r->result && r->result->exactMetrics) {
                const Metrics& m = *r->result->exactMetrics;
                addRef(lossRefs, tr("exact: train"), m.trainMse, kExactColor);
                addRef(lossRefs, tr("exact: val"), m.valMse, kExactColor.lighter(130));
                addRef(distRefs, tr("exact: to teacher"), m.distancePRel, kExactColor);
            }
        } else if (r->result) {
            const Metrics& m = r->result->metrics;
            addRef(loss, r->name + tr(" (exact) train MSE"), m.trainMse, r->color);
            addRef(loss, r->name + tr(" (exact) val MSE"), m.valMse, r->color);
            addRef(dist, r->name + tr(" (exact) to teacher"), m.distancePRel, r->color);
        }
    }
    // Reference lines far below every curve (an exact fit at round-off level) would squash the
    // curves into the top of a log axis: draw them at the bottom and say so in their name.
    auto offScale = [](QList<PlotSeries>& list) {
        double lo = std::numeric_limits<double>::infinity();
        for (const auto& s : list)
            if (s.style != PlotSeries::Style::HLine)
                for (const auto& p : s.points)
                    if (p.y() > 0) lo = std::min(lo, p.y());
        if (!std::isfinite(lo)) return;
        const double floor = lo * 1e-3;
        for (auto& s : list)
            if (s.style == PlotSeries::Style::HLine && !s.points.isEmpty() && s.points.first().y() < floor) {
                s.name += QStringLiteral(" %1 (off scale)").arg(QString::number(s.points.first().y(), 'g', 3));
                s.points.first().setY(floor);
            }
    };
    loss += lossRefs;
    dist += distRefs;
    offScale(loss);
    offScale(dist);
    m_loss->setSeries(loss);
    m_distance->setSeries(dist);
    const QString note = anyHistory || runs.isEmpty()
                             ? QString()
                             : tr("Exact-solver runs have no epochs: their values are drawn as horizontal lines. "
                                  "Choose solver mhla, multilayer or softmax (or the SGD preset) for training curves.");
    m_loss->setNote(anyHistory ? tr("Solid: training MSE; dashed: validation MSE; dotted: OOD relative error "
                                    "(one colour per run). Grey dashed: the exact solver on the same data.")
                               : note);
    m_distance->setNote(anyHistory ? tr("Solid: distance to the teacher ‖P̂ − P*‖/‖P*‖; dashed: distance to the exact "
                                        "solver's P on the same data.")
                                   : note);
}

} // namespace mhla::ui
