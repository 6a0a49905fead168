#include "ui/panels/sweeppanel.h"
#include "core/base/plural.h"
#include "core/records/resultio.h"
#include "ui/panels/sweepfigures.h"
#include "ui/plot/elidedcombobox.h"
#include "ui/plot/plotwidget.h"
#include "ui/run/runlist.h"
#include <QComboBox>
#include <QHBoxLayout>
#include <QJsonArray>
#include <QLabel>
#include <QMap>
#include <QSet>
#include <QSignalBlocker>
#include <QVBoxLayout>

namespace mhla::ui {

SweepPanel::SweepPanel(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("sweepPanel"));
    auto* lay = new QVBoxLayout(this);
    auto* row = new QHBoxLayout;
    m_view = new ElidedComboBox(this);
    m_view->setObjectName(QStringLiteral("sweepView"));
    m_view->addItem(tr("Metric against the swept key"), QStringLiteral("band"));
    m_view->addItem(tr("Learning curves (trainers)"), QStringLiteral("curves"));
    m_metric = new ElidedComboBox(this);
    m_metric->setObjectName(QStringLiteral("sweepMetric"));
    m_metric->addItem(tr("automatic"), QString());
    for (const char* m : {"lambda_min", "val_mse", "ood_rel_mse", "train_mse", "distance_p",
                          "distance_p_rel", "certified", "null_dim"})
        m_metric->addItem(QString::fromLatin1(m), QString::fromLatin1(m));
    m_band = new ElidedComboBox(this);
    m_band->setObjectName(QStringLiteral("sweepBand"));
    m_band->addItem(tr("band: 10–90% of seeds"),
                    static_cast<int>(SweepFigureSpec::BandKind::Quantile));
    m_band->addItem(tr("band: ± 1 std"), static_cast<int>(SweepFigureSpec::BandKind::Std));
    m_band->addItem(tr("band: min–max"), static_cast<int>(SweepFigureSpec::BandKind::MinMax));
    m_band->setBaseToolTip(tr("The band over the seeds of each grid point"));
    m_group = new ElidedComboBox(this);
    m_group->setObjectName(QStringLiteral("sweepGroup"));
    m_group->setBaseToolTip(tr("Which runs make the sweep: the runs of one Run (a preset's sweep, "
                               "its seeds), or all visible runs"));
    m_group->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    connect(m_group, &QComboBox::activated, this, [this](int i) {
        m_chosen = m_group->itemData(i).toInt();
        redraw();
    });
    // Each choice at its natural width when there is room, narrower (its text elided) when
    // there is not: at x2 beside the docks the row made the tab wider than the window, and the
    // plot's Export… and last point went under a horizontal scroll bar.
    for (QComboBox* c : {m_group, m_view, m_metric, m_band}) {
        c->setMinimumWidth(c->fontMetrics().horizontalAdvance(QStringLiteral("automatic")));
        row->addWidget(c);
    }
    row->addStretch(1);
    lay->addLayout(row);
    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("sweepStatus"));
    m_status->setWordWrap(true);
    lay->addWidget(m_status);
    m_plot = new PlotWidget(QStringLiteral("sweep"), this);
    lay->addWidget(m_plot, 1);
    for (QComboBox* c : {m_view, m_metric, m_band})
        connect(c, &QComboBox::currentIndexChanged, this, &SweepPanel::redraw);
    connect(m_plot, &PlotWidget::exportRequested, this, [this] { requestExport(m_plot); });
    redraw();
}

QList<const Figure*> SweepPanel::figures() const {
    if (!m_plot->hasData()) return {};
    return {m_plot};
}

QString SweepPanel::status() const { return m_status->text(); }

QList<const RunRecord*> SweepPanel::drawnRuns() const {
    if (m_group->count() == 0 || m_group->currentIndex() < 0) return m_runs;
    const int batch = m_group->currentData().toInt();
    if (batch == kAllRuns) return m_runs;
    QList<const RunRecord*> out;
    for (const RunRecord* r : m_runs)
        if (r->batch == batch) out << r;
    return out;
}

void SweepPanel::updateGroups() {
    // The groups: every batch with two runs or more among the given runs, in run order.
    QMap<int, QList<const RunRecord*>> byBatch;
    for (const RunRecord* r : m_runs) byBatch[r->batch] << r;
    QList<int> groups;
    for (auto it = byBatch.cbegin(); it != byBatch.cend(); ++it)
        if (it.value().size() >= 2) groups << it.key();
    const QSignalBlocker block(m_group);
    m_group->clear();
    // One group that holds every run, or none: nothing to choose.
    const bool choice = !groups.isEmpty() && !(groups.size() == 1 && byBatch.size() == 1);
    m_group->setVisible(choice);
    if (!choice) return;
    for (const int b : groups) {
        const QList<const RunRecord*>& rs = byBatch[b];
        const QString runs = countOf(rs.size(), tr("run"), tr("runs"));
        m_group->addItem(
            b == 0 ? tr("Runs opened one by one (%1)").arg(runs)
                   : tr("Runs #%1–#%2 (%3)").arg(rs.front()->id).arg(rs.back()->id).arg(runs),
            b);
    }
    m_group->addItem(tr("All visible runs (%1)").arg(countOf(m_runs.size(), tr("run"), tr("runs"))),
                     kAllRuns);
    // A new Run makes its sweep the one drawn, as a choice made before it is about older runs.
    const int newest = groups.back();
    if (newest != m_newest) {
        m_newest = newest;
        m_chosen = kAllRuns - 1;
    }
    const int want = m_chosen >= kAllRuns ? m_chosen : newest;
    const int at = m_group->findData(want);
    m_group->setCurrentIndex(at >= 0 ? at : m_group->findData(newest));
}

void SweepPanel::showRuns(const QList<const RunRecord*>& runs) {
    m_runs = runs;
    QSet<int> ids;
    for (const RunRecord* r : runs) {
        ids.insert(r->id);
        if (r->result && !m_results.contains(r->id))
            m_results.insert(r->id, resultToJson(*r->result));
    }
    for (auto it = m_results.begin(); it != m_results.end();)
        it = ids.contains(it.key()) ? std::next(it) : m_results.erase(it);
    updateGroups();
    redraw();
}

void SweepPanel::redraw() {
    m_data = SweepFigureData();
    m_plot->clear();
    m_plot->setNote({}); // an empty sweep keeps no note of the figure before it
    // A file's figure says its own metric and band.
    const bool fileView = m_view->currentData().toString().startsWith(QStringLiteral("file:"));
    m_metric->setEnabled(!fileView);
    m_band->setEnabled(!fileView);
    std::vector<ExperimentConfig> configs;
    std::vector<QJsonObject> results;
    int finished = 0;
    const QList<const RunRecord*> drawn = drawnRuns();
    for (const RunRecord* r : drawn) {
        configs.push_back(r->config);
        results.push_back(m_results.value(r->id));
        finished += !results.back().isEmpty();
    }
    const SweepPlan plan = sweepPlanFromConfigs(configs);
    QSet<int> batches;
    for (const RunRecord* r : drawn) batches.insert(r->batch);
    QStringList differing;
    for (const SweepAxis& a : plan.spec.axes) differing << a.key;
    // Runs made by different Run clicks are a sweep when they differ in one key (a sweep made
    // by hand); runs that differ in several (other tasks, other settings) are not one: drawn
    // against the first of their keys they made a figure, and an exported sweep.pdf, of
    // unrelated runs. One Run's grid may sweep several keys.
    const bool unrelated = batches.size() > 1 && differing.size() > 1;
    // The line above the plot says why it is empty; the plot does not add "No data yet".
    m_plot->setEmptyNote((plan.spec.axes.empty() || unrelated) && !drawn.isEmpty()
                             ? tr("Nothing to draw: no single swept key (see above).")
                             : QString());
    if (unrelated) {
        const int shown = 4;
        QString keys = differing.mid(0, shown).join(QStringLiteral(", "));
        if (differing.size() > shown) keys += tr(" and %1 more").arg(differing.size() - shown);
        m_status->setText(tr("These %1 runs differ in %2 keys (%3): a sweep figure needs runs "
                             "that differ in one key, or the runs of one Run (choose them "
                             "above, or hide runs in the run list).")
                              .arg(drawn.size())
                              .arg(differing.size())
                              .arg(keys));
        return;
    }
    if (plan.spec.axes.empty()) {
        m_status->setText(
            drawn.isEmpty()
                ? tr("No runs yet. Run a preset with a sweep (e.g. “More heads”) or several runs "
                     "that differ in one key: this tab draws the metric against that key with "
                     "a band over the seeds.")
            : drawn.size() == 1
                ? tr("One run: a sweep figure needs several runs that differ in one key (a "
                     "preset's sweep, or runs made one by one).")
                : tr("The visible runs differ in their seeds only: a sweep figure needs runs "
                     "that differ in a key (a preset's sweep)."));
        return;
    }
    QString fileProblem;
    const SweepFigureSpec spec = chosenSpec(plan, &fileProblem);
    const bool curves = spec.kind == SweepFigureSpec::Kind::Curves;
    QString text = tr("%1 of %2 runs finished; swept: %3; %4 per point.")
                       .arg(finished)
                       .arg(drawn.size())
                       .arg(differing.join(QStringLiteral(", ")),
                            countOf(plan.spec.seeds, tr("seed"), tr("seeds")));
    if (!fileProblem.isEmpty()) text += QStringLiteral(" ") + fileProblem;
    // One seed per point has no band to choose.
    m_band->setEnabled(!fileView && plan.spec.seeds > 1);
    try {
        if (curves) {
            bool trainer = false;
            for (const ExperimentConfig& c : configs)
                trainer = trainer || c.solver.kind != SolverKind::Poly;
            if (!trainer) {
                m_status->setText(text + tr(" Learning curves need trainer runs."));
                return;
            }
        }
        m_data = reduceSweepFigure(spec, plan, results);
    } catch (const ConfigError& e) {
        m_status->setText(text + QStringLiteral(" ") + QString::fromUtf8(e.what()));
        return;
    }
    m_status->setText(text);
    if (!m_data.empty()) showSweepFigure(m_plot, m_data);
}

SweepFigureSpec SweepPanel::chosenSpec(const SweepPlan& plan, QString* problem) const {
    const QString view = m_view->currentData().toString();
    const bool fromFile = view.startsWith(QStringLiteral("file:"));
    if (fromFile) {
        try {
            const std::vector<SweepFigureSpec> specs = parseSweepFigures(m_fileFigures, plan);
            const size_t k = view.mid(5).toULongLong();
            if (k < specs.size()) return specs[k];
        } catch (const ConfigError& e) {
            *problem = tr("The figures of %1 do not fit these runs (%2): the default figure is "
                          "drawn.")
                           .arg(m_fileSource, QString::fromUtf8(e.what()));
        }
    }
    SweepFigureSpec spec = defaultSweepFigures(plan).front();
    if (view == QStringLiteral("curves")) {
        spec.kind = SweepFigureSpec::Kind::Curves;
        spec.x = QStringLiteral("epoch");
        spec.y = QStringLiteral("val_mse");
    }
    const QString metric = m_metric->currentData().toString();
    if (!metric.isEmpty()) spec.y = metric;
    spec.band = static_cast<SweepFigureSpec::BandKind>(m_band->currentData().toInt());
    spec.name = QStringLiteral("sweep");
    return spec;
}

void SweepPanel::setFileFigures(const QJsonValue& figures, const QString& source) {
    m_fileFigures = figures.isArray() ? figures : QJsonValue();
    m_fileSource = source;
    const QSignalBlocker block(m_view);
    const QString was = m_view->currentData().toString();
    for (int i = m_view->count() - 1; i >= 0; --i)
        if (m_view->itemData(i).toString().startsWith(QStringLiteral("file:")))
            m_view->removeItem(i);
    const QJsonArray list = m_fileFigures.toArray();
    for (qsizetype i = 0; i < list.size(); ++i) {
        const QJsonObject o = list[i].toObject();
        // The figure's name (its files' name) in the box, short enough for it; its title,
        // which the plot shows, in the item's tooltip.
        const QString title = o.value(QStringLiteral("title")).toString();
        QString what = o.value(QStringLiteral("name")).toString();
        if (what.isEmpty()) what = title;
        if (what.isEmpty())
            what = tr("%1 of %2")
                       .arg(o.value(QStringLiteral("kind")).toString(),
                            o.value(QStringLiteral("y")).toString());
        m_view->insertItem(static_cast<int>(i), tr("%1: %2").arg(source, what),
                           QStringLiteral("file:") + QString::number(i));
        if (!title.isEmpty()) m_view->setItemData(static_cast<int>(i), title, Qt::ToolTipRole);
    }
    // The file's first figure is what its author drew first; without figures the view chosen
    // before stays (the first view when it was a file's).
    m_view->setCurrentIndex(list.isEmpty() ? std::max(0, m_view->findData(was)) : 0);
    m_view->setToolTip(list.isEmpty() ? QString()
                                      : tr("The figures of %1 are drawn as mhla-lab figures "
                                           "draws them; the other views are the tab's own.")
                                            .arg(source));
    redraw();
}

} // namespace mhla::ui
