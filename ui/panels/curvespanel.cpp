#include "ui/panels/curvespanel.h"
#include "core/sweep/sweep.h"
#include "ui/panels/explanations.h"
#include "ui/plot/plotwidget.h"
#include "ui/plot/theme.h"
#include <QCheckBox>
#include <QHBoxLayout>
#include <QJsonDocument>
#include <QLabel>
#include <QRegularExpression>
#include <QSlider>
#include <QSplitter>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

namespace mhla::ui {

namespace {
const QColor& kExactColor = colors::kExactReference;

/// One of run r's history curves. Its head curve (train loss, distance) is the run's legend
/// entry and carries its mark; the others (name + suffix) hide with it, through its group.
PlotSeries curve(const RunRecord* r, const QString& suffix, PlotSeries::Style st,
                 double HistoryPoint::*field, bool head) {
    PlotSeries s;
    s.name = r->name + suffix;
    if (!head) s.group = r->name; // a click on the run's legend entry hides all its curves
    s.inLegend = head;
    s.mark = head ? r->mark : 0;
    s.color = r->color;
    s.style = st;
    s.smoothable = true;
    for (const auto& p : r->history())
        if (std::isfinite(p.*field)) s.points << QPointF(p.epoch, p.*field);
    return s;
}
/// Runs of one experiment that differ only in their seeds share this key.
QString seedGroupKey(const ExperimentConfig& cfg) {
    QJsonObject o = experimentToJson(cfg);
    QJsonObject task = o.value(QStringLiteral("task")).toObject(),
                solver = o.value(QStringLiteral("solver")).toObject();
    task.remove(QStringLiteral("seed"));
    solver.remove(QStringLiteral("seed"));
    o.insert(QStringLiteral("task"), task);
    o.insert(QStringLiteral("solver"), solver);
    return QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Compact));
}

/// Median line and min–max band of one history field over runs, at the epochs every run logged:
/// the statistic the sweep figures draw for a "minmax" band (core/sweep/sweepfigure.h), so that
/// one band name means one thing in the app.
std::pair<PlotSeries, PlotSeries> medianAndBand(const QList<const RunRecord*>& group,
                                                double HistoryPoint::*field, const QString& name,
                                                const QColor& c, PlotSeries::Style style) {
    std::map<int, std::vector<double>> byEpoch;
    for (const RunRecord* r : group)
        for (const auto& p : r->history())
            if (std::isfinite(p.*field)) byEpoch[p.epoch].push_back(p.*field);
    PlotSeries median, band;
    median.name = name + QObject::tr(" median");
    median.color = c;
    median.style = style;
    median.width = 2.5;
    median.smoothable = true;
    band.name = name + QObject::tr(" min–max");
    band.color = c;
    band.style = PlotSeries::Style::Band;
    band.inLegend = false;
    for (auto& [epoch, v] : byEpoch) {
        if (v.size() != static_cast<size_t>(group.size())) continue; // not logged by every run
        std::sort(v.begin(), v.end());
        median.points << QPointF(epoch, sortedQuantile(v, 0.5));
        band.points << QPointF(epoch, v.back());
        band.lower << QPointF(epoch, v.front());
    }
    return {median, band};
}
/// The series of the Curves tab while they are collected: curves, reference lines (the exact
/// solver's values), and the span of series each run or seed group added, so that the legend
/// lists them in run order (#5, #6, #7, #8), also while queued runs without data yet wait
/// behind the running one.
struct CurveLists {
    QList<PlotSeries> loss, dist, lossRefs, distRefs;
    bool anyHistory = false;

    /// A horizontal reference line, once per name and value (runs on the same data share
    /// their exact solution); one legend entry per kind ("exact: train" once, not per run).
    void addRef(QList<PlotSeries>& list, const QString& name, double v, const QColor& c) {
        if (!std::isfinite(v)) return;
        if (!m_refsSeen.insert({name, v}).second) return;
        list << PlotSeries::hline(name, v, c, m_legendNames.insert(name).second);
    }
    void beginSpan(qsizetype order) {
        m_spans.push_back({order, loss.size(), loss.size(), dist.size(), dist.size()});
    }
    void endSpan() {
        m_spans.back().lossTo = loss.size();
        m_spans.back().distTo = dist.size();
    }
    /// The curves in run order, the reference lines after them.
    void putInRunOrder() {
        std::stable_sort(m_spans.begin(), m_spans.end(),
                         [](const Span& a, const Span& b) { return a.order < b.order; });
        QList<PlotSeries> lossInOrder, distInOrder;
        for (const Span& sp : m_spans) {
            lossInOrder += loss.mid(sp.lossFrom, sp.lossTo - sp.lossFrom);
            distInOrder += dist.mid(sp.distFrom, sp.distTo - sp.distFrom);
        }
        loss = lossInOrder + lossRefs;
        dist = distInOrder + distRefs;
    }

private:
    struct Span {
        qsizetype order, lossFrom, lossTo, distFrom, distTo;
    };
    std::vector<Span> m_spans;
    std::set<std::pair<QString, double>> m_refsSeen;
    std::set<QString> m_legendNames;
};

/// Seed groups: runs of one experiment that differ only in their seeds (two or more with
/// history and two or more seed pairs). Every other run goes to `single`.
std::vector<QList<const RunRecord*>> seedGroups(const QList<const RunRecord*>& runs,
                                                QList<const RunRecord*>* single) {
    std::vector<std::pair<QString, QList<const RunRecord*>>> byKey;
    for (const RunRecord* r : runs) {
        if (r->history().empty()) {
            *single << r;
            continue;
        }
        const QString key = seedGroupKey(r->config);
        auto it =
            std::find_if(byKey.begin(), byKey.end(), [&](const auto& g) { return g.first == key; });
        if (it == byKey.end()) byKey.push_back({key, {r}});
        else it->second << r;
    }
    std::vector<QList<const RunRecord*>> groups;
    for (auto& [key, g] : byKey) {
        std::set<std::pair<long long, long long>> seeds;
        for (const RunRecord* r : g) seeds.insert({r->config.task.seed, r->config.solver.seed});
        if (g.size() < 2 || seeds.size() < 2) *single += g; // repeats of the very same run
        else groups.push_back(g);
    }
    return groups;
}

/// A seed group drawn once, as median and band, in the colour of its first run; each seed has
/// its own data and so its own exact solution: one reference line at their mean.
void addSeedGroup(CurveLists& out, const QList<const RunRecord*>& g) {
    out.anyHistory = true;
    static const QRegularExpression seedSuffix(QStringLiteral(" · seed \\d+$"));
    QString base = g.first()->name;
    base.remove(seedSuffix);
    base += CurvesPanel::tr(" (%n seeds)", nullptr, static_cast<int>(g.size()));
    const QColor c = g.first()->color;
    auto [tm, tb] = medianAndBand(g, &HistoryPoint::trainMse, base, c, PlotSeries::Style::Line);
    auto [vm, vb] = medianAndBand(g, &HistoryPoint::valMse, base + CurvesPanel::tr(" val"), c,
                                  PlotSeries::Style::Dashed);
    auto [om, ob] = medianAndBand(g, &HistoryPoint::oodRelMse, base + CurvesPanel::tr(" OOD rel"),
                                  c, PlotSeries::Style::Dotted);
    auto [dm, db] = medianAndBand(g, &HistoryPoint::distancePRel, base, c, PlotSeries::Style::Line);
    auto [em, eb] =
        medianAndBand(g, &HistoryPoint::distanceExactRel, base + CurvesPanel::tr(" to exact"), c,
                      PlotSeries::Style::Dashed);
    vm.inLegend = om.inLegend = em.inLegend = false;
    tm.mark = dm.mark = g.first()->mark;
    // The band and the other medians hide and show with the group's legend entry.
    tb.group = vm.group = om.group = tm.name;
    db.group = em.group = dm.name;
    out.loss << tb << tm << vm << om;
    out.dist << db << dm;
    if (!em.points.isEmpty()) out.dist << em;
    Metrics exact;
    int nExact = 0;
    for (const RunRecord* r : g)
        if (r->result && r->result->exactMetrics) {
            exact.trainMse += r->result->exactMetrics->trainMse;
            exact.valMse += r->result->exactMetrics->valMse;
            exact.distancePRel += r->result->exactMetrics->distancePRel;
            ++nExact;
        }
    if (nExact == 0) return;
    const QString of = CurvesPanel::tr(" (mean of %n seeds)", nullptr, nExact);
    out.addRef(out.lossRefs, CurvesPanel::tr("exact: train") + of, exact.trainMse / nExact,
               kExactColor);
    out.addRef(out.lossRefs, CurvesPanel::tr("exact: val") + of, exact.valMse / nExact,
               kExactColor.lighter(130));
    out.addRef(out.distRefs, CurvesPanel::tr("exact: to teacher") + of, exact.distancePRel / nExact,
               kExactColor);
}

/// One run: a trainer's curves (and its exact references), or an exact run's values as
/// horizontal lines.
void addSingleRun(CurveLists& out, const RunRecord* r) {
    const auto& h = r->history();
    const bool trainer = r->config.solver.kind != SolverKind::Poly;
    if (trainer || !h.empty()) {
        out.anyHistory = out.anyHistory || !h.empty();
        out.loss << curve(r, {}, PlotSeries::Style::Line, &HistoryPoint::trainMse, true);
        out.loss << curve(r, CurvesPanel::tr(" val"), PlotSeries::Style::Dashed,
                          &HistoryPoint::valMse, false);
        out.loss << curve(r, CurvesPanel::tr(" OOD rel"), PlotSeries::Style::Dotted,
                          &HistoryPoint::oodRelMse, false);
        out.dist << curve(r, {}, PlotSeries::Style::Line, &HistoryPoint::distancePRel, true);
        out.dist << curve(r, CurvesPanel::tr(" to exact"), PlotSeries::Style::Dashed,
                          &HistoryPoint::distanceExactRel, false);
        if (r->result && r->result->exactMetrics) {
            const Metrics& m = *r->result->exactMetrics;
            out.addRef(out.lossRefs, CurvesPanel::tr("exact: train"), m.trainMse, kExactColor);
            out.addRef(out.lossRefs, CurvesPanel::tr("exact: val"), m.valMse,
                       kExactColor.lighter(130));
            out.addRef(out.distRefs, CurvesPanel::tr("exact: to teacher"), m.distancePRel,
                       kExactColor);
        }
    } else if (r->result) {
        const Metrics& m = r->result->metrics;
        // One legend entry per exact run (its train and validation lines share colour and
        // style; the hover names each): a click on it hides both.
        const QString entry = r->name + CurvesPanel::tr(" (exact)");
        QList<PlotSeries>& loss = out.loss;
        out.addRef(loss, entry + CurvesPanel::tr(" train MSE"), m.trainMse, r->color);
        out.addRef(loss, entry + CurvesPanel::tr(" val MSE"), m.valMse, r->color);
        for (int i = static_cast<int>(loss.size()) - 2; i < loss.size(); ++i)
            if (i >= 0 && loss[i].name.startsWith(entry)) {
                loss[i].group = entry;
                loss[i].inLegend = loss[i].name.startsWith(entry + CurvesPanel::tr(" train MSE"));
            }
        out.addRef(out.dist, entry + CurvesPanel::tr(" to teacher"), m.distancePRel, r->color);
    }
}

/// Reference lines far below every curve (an exact fit at round-off level) would squash the
/// curves into the top of a log axis: they keep their value (in the CSV and the hover) but do
/// not stretch the axes; the legend marks them "off scale" while they are out of view.
void markOffScale(QList<PlotSeries>& list) {
    double lo = std::numeric_limits<double>::infinity();
    for (const auto& s : list)
        if (s.style != PlotSeries::Style::HLine)
            for (const auto& p : s.points)
                if (p.y() > 0) lo = std::min(lo, p.y());
    if (!std::isfinite(lo)) return;
    const double floor = lo * 1e-3;
    for (auto& s : list)
        if (s.style == PlotSeries::Style::HLine && !s.points.isEmpty() &&
            s.points.first().y() < floor) {
            s.name += QStringLiteral(" = %1").arg(QString::number(s.points.first().y(), 'g', 3));
            s.inRange = false;
        }
}

} // namespace

CurvesPanel::CurvesPanel(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("curvesPanel"));
    auto* lay = new QVBoxLayout(this);
    lay->addWidget(explain::makeHelpBox(explain::curves(), this));
    m_bandCheck = new QCheckBox(tr("Median and min–max band over seeds"), this);
    m_bandCheck->setObjectName(QStringLiteral("seedBandCheck"));
    m_bandCheck->setToolTip(
        tr("Runs that differ only in their seeds (task.seed and solver.seed) are drawn as one "
           "median curve with a shaded band from the smallest to the largest "
           "value at each epoch. Queue such runs with Seeds > 1 in the experiment panel."));
    m_bandCheck->setChecked(true);
    connect(m_bandCheck, &QCheckBox::toggled, this, &CurvesPanel::displayChanged);
    // One row for both display options: the plots keep the height (their axis titles fit).
    auto* smoothRow = new QHBoxLayout;
    smoothRow->addWidget(m_bandCheck);
    smoothRow->addSpacing(12);
    auto* smoothLabel = new QLabel(tr("Smoothing"), this);
    m_smoothSlider = new QSlider(Qt::Horizontal, this);
    m_smoothSlider->setObjectName(QStringLiteral("smoothingSlider"));
    m_smoothSlider->setRange(0, 99);
    m_smoothSlider->setMaximumWidth(200);
    m_smoothSlider->setMinimumWidth(60);
    const QString smoothTip =
        tr("TensorBoard-style smoothing of the training curves: an exponential moving average "
           "s_k = w·s_(k−1) + (1−w)·y_k, debiased at the start (on a log axis it averages "
           "log y). The raw curve stays faint behind. 0 = raw. Reference lines are never "
           "smoothed. Figures export as shown; their CSV files hold the raw values.");
    m_smoothSlider->setToolTip(smoothTip);
    smoothLabel->setToolTip(smoothTip);
    m_smoothValue = new QLabel(this);
    m_smoothValue->setObjectName(QStringLiteral("smoothingValue"));
    m_smoothValue->setMinimumWidth(
        m_smoothValue->fontMetrics().horizontalAdvance(QStringLiteral("0.00 ")));
    smoothRow->addWidget(smoothLabel);
    smoothRow->addWidget(m_smoothSlider, 1);
    smoothRow->addWidget(m_smoothValue);
    lay->addLayout(smoothRow);
    // Shown only when ticked runs of other tasks exist (the row costs no width or height in
    // the usual case, and the window keeps fitting 1280x720 at scale 2).
    m_otherTasksRow = new QWidget(this);
    m_otherTasksRow->setObjectName(QStringLiteral("otherTasksRow"));
    auto* otherRow = new QHBoxLayout(m_otherTasksRow);
    otherRow->setContentsMargins(0, 0, 0, 0);
    m_allTasksCheck = new QCheckBox(m_otherTasksRow);
    m_allTasksCheck->setObjectName(QStringLiteral("allTasksCheck"));
    m_allTasksCheck->setToolTip(
        tr("Off: only runs comparable with the selected run are overlaid (same task and output "
           "dimension, so the same loss). On: every ticked run, whatever its task."));
    connect(m_allTasksCheck, &QCheckBox::toggled, this, &CurvesPanel::displayChanged);
    otherRow->addWidget(m_allTasksCheck, 1);
    m_otherTasksRow->setVisible(false);
    lay->addWidget(m_otherTasksRow);
    auto* split = m_split = new QSplitter(Qt::Vertical, this);
    split->setObjectName(QStringLiteral("curvesSplitter"));
    m_loss = new PlotWidget(QStringLiteral("loss"), split);
    m_loss->setTitle(tr("Loss vs epochs"));
    m_loss->setAxisTitles(tr("epoch"), tr("MSE · OOD"));
    m_loss->setLogY(true);
    m_loss->setWholeX(true);
    m_distance = new PlotWidget(QStringLiteral("distance"), split);
    m_distance->setTitle(tr("Distance to the teacher vs epochs"));
    m_distance->setAxisTitles(tr("epoch"), tr("distance"));
    m_distance->setLogY(true);
    m_distance->setWholeX(true);
    split->addWidget(m_loss);
    split->addWidget(m_distance);
    lay->addWidget(split, 1);
    connect(m_loss, &PlotWidget::exportRequested, this, [this] { Q_EMIT exportRequested(m_loss); });
    connect(m_distance, &PlotWidget::exportRequested, this,
            [this] { Q_EMIT exportRequested(m_distance); });
    connect(this, &CurvesPanel::exportRequested, this,
            [this](const Figure* f) { requestExport(f); });
    connect(this, &CurvesPanel::displayChanged, this, [this] { requestRefresh(); });
    connect(m_smoothSlider, &QSlider::valueChanged, this, [this](int v) {
        const double w = v / 100.0;
        m_smoothValue->setText(QString::number(w, 'f', 2));
        m_loss->setSmoothing(w);
        m_distance->setSmoothing(w);
    });
    m_smoothValue->setText(QStringLiteral("0.00"));
}

double CurvesPanel::smoothing() const { return m_smoothSlider->value() / 100.0; }
void CurvesPanel::setSmoothing(double weight) {
    m_smoothSlider->setValue(static_cast<int>(std::lround(std::clamp(weight, 0.0, 0.99) * 100)));
}

QList<const Figure*> CurvesPanel::figures() const { return {m_loss, m_distance}; }

bool CurvesPanel::seedBands() const { return m_bandCheck->isChecked(); }
void CurvesPanel::setSeedBands(bool on) { m_bandCheck->setChecked(on); }

bool CurvesPanel::showAllTasks() const { return m_allTasksCheck->isChecked(); }
void CurvesPanel::setShowAllTasks(bool on) { m_allTasksCheck->setChecked(on); }

bool CurvesPanel::comparable(const ExperimentConfig& a, const ExperimentConfig& b) {
    return a.task.kind == b.task.kind && a.outputDim() == b.outputDim();
}

void CurvesPanel::showRun(const RunRecord* run) {
    if (run) m_reference = run->config;
    else m_reference.reset();
}

void CurvesPanel::showRuns(const QList<const RunRecord*>& allRuns) {
    QList<const RunRecord*> runs;
    int otherTasks = 0;
    for (const RunRecord* r : allRuns) {
        const bool same = !m_reference || comparable(*m_reference, r->config);
        if (same || m_allTasksCheck->isChecked()) runs << r;
        if (!same) ++otherTasks;
    }
    m_drawnRunIds.clear();
    for (const RunRecord* r : runs)
        if (r->config.solver.kind != SolverKind::Poly || !r->history().empty() || r->result)
            m_drawnRunIds << r->id;
    m_allTasksCheck->setText(otherTasks == 1
                                 ? tr("Overlay 1 run of another task")
                                 : tr("Overlay %n runs of other tasks", nullptr, otherTasks));
    m_otherTasksRow->setVisible(otherTasks > 0 || m_allTasksCheck->isChecked());

    CurveLists lists;
    QList<const RunRecord*> single;
    if (m_bandCheck->isChecked())
        for (const auto& g : seedGroups(runs, &single)) {
            lists.beginSpan(runs.indexOf(g.first()));
            addSeedGroup(lists, g);
            lists.endSpan();
        }
    else single = runs;
    for (const RunRecord* r : single) {
        lists.beginSpan(runs.indexOf(r));
        addSingleRun(lists, r);
        lists.endSpan();
    }
    lists.putInRunOrder();
    markOffScale(lists.loss);
    markOffScale(lists.dist);
    showCurves(lists.loss, lists.dist, lists.anyHistory, !runs.isEmpty());
}

void CurvesPanel::showCurves(const QList<PlotSeries>& loss, const QList<PlotSeries>& dist,
                             bool anyHistory, bool anyRun) {
    // Exact-solver runs have no epochs: the x axis says so instead of pretending to count them.
    const QString xTitle =
        anyHistory || !anyRun ? tr("epoch") : tr("(no epochs: exact-solver values)");
    m_loss->setAxisTitles(xTitle, tr("MSE · OOD"));
    m_distance->setAxisTitles(xTitle, tr("distance"));
    m_loss->setSeries(loss);
    m_distance->setSeries(dist);
    const QString note =
        anyHistory || !anyRun
            ? QString()
            : tr("Exact-solver runs have no epochs: their values are horizontal lines. Solver "
                 "mhla, multilayer or softmax (or the SGD preset) draws training curves.");
    m_loss->setNote(
        anyHistory ? tr("Solid: training MSE; dashed: validation MSE; dotted: OOD relative error "
                        "(one colour per run). Grey dashed: the exact solver on the same data.")
                   : note);
    m_distance->setNote(
        anyHistory
            ? tr("Solid: distance to the teacher ‖P̂ − P*‖/‖P*‖; dashed: distance to the exact "
                 "solver's P on the same data.")
            : QString()); // the loss plot's note says it for both
}

void CurvesPanel::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    // Stacked, each plot of a 1366 x 640 full-screen tab got ~110 px of height under its tool
    // row, legend and caption (issue 23's walk, presentation mode); side by side each gets most
    // of the height. A panel beside the docks (~700 x 600) keeps them stacked.
    constexpr double kSideBySideAspect = 1.6;
    const Qt::Orientation want =
        width() >= kSideBySideAspect * height() ? Qt::Horizontal : Qt::Vertical;
    if (m_split && m_split->orientation() != want) m_split->setOrientation(want);
}

} // namespace mhla::ui
