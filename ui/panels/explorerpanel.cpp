#include "ui/panels/explorerpanel.h"
#include "core/base/plural.h"
#include "core/run/explorer.h"
#include "core/tasks/tasks.h"
#include "ui/panels/explanations.h"
#include "ui/plot/heatmapwidget.h"
#include "ui/plot/plotwidget.h"
#include "ui/plot/theme.h"
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QSlider>
#include <QSpinBox>
#include <QSplitter>
#include <QThread>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

namespace mhla::ui {

namespace {
constexpr int kSteps = 200; ///< slider ticks per unit of t

QString fmt(double v) {
    if (std::isnan(v)) return QStringLiteral("—");
    return QString::number(v, 'g', 3);
}
} // namespace

ExplorerPanel::ExplorerPanel(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("explorerPanel"));
    auto* lay = new QVBoxLayout(this);
    lay->addWidget(explain::makeHelpBox(explain::explorer(), this));
    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("explorerStatus"));
    m_status->setWordWrap(true);
    m_status->setTextFormat(Qt::RichText);
    m_status->setMinimumWidth(1);
    lay->addWidget(m_status);
    m_noise = new QLabel(this);
    m_noise->setObjectName(QStringLiteral("noiseAnalysis"));
    m_noise->setWordWrap(true);
    m_noise->setTextFormat(Qt::RichText);
    m_noise->setMinimumWidth(1);
    m_noise->setToolTip(
        tr("Label noise σ blurs even a certified fit: E‖P̂ − P*‖² ≈ σ² d_out tr(Λ⁻¹) / N, and the "
           "OOD excess error is σ² d_out tr(Λ⁻¹ Λ_ood) / N. σ² is estimated from the residual "
           "when N > D, else taken from the configuration."));
    lay->addWidget(m_noise);
    m_relations = new QListWidget(this);
    m_relations->setObjectName(QStringLiteral("nullRelations"));
    m_relations->setMinimumWidth(1);
    m_relations->setToolTip(
        tr("Each line is an exact relation Σ_k v_k ψ_k(Z) = 0 that holds on every training "
           "prompt: a direction v with Λv = 0. Choose one to move the fit along it."));
    lay->addWidget(m_relations);

    m_controls = new QWidget(this);
    auto* row = new QHBoxLayout(m_controls);
    row->setContentsMargins(0, 0, 0, 0);
    row->addWidget(new QLabel(tr("Output row i (u = e_i):"), this));
    m_output = new QSpinBox(this);
    m_output->setObjectName(QStringLiteral("nullOutput"));
    m_output->setRange(1, 1);
    row->addWidget(m_output);
    row->addWidget(new QLabel(tr("t:"), this));
    m_slider = new QSlider(Qt::Horizontal, this);
    m_slider->setObjectName(QStringLiteral("nullSlider"));
    m_slider->setRange(static_cast<int>(-kTMax * kSteps), static_cast<int>(kTMax * kSteps));
    m_slider->setValue(0);
    m_slider->setToolTip(tr("P(t) = P̂ + t ‖P*‖ e_i vᵀ: t = 0 is the fit, |t| = 1 moves it by the "
                            "size of the teacher"));
    row->addWidget(m_slider, 1);
    m_tLabel = new QLabel(this);
    m_tLabel->setMinimumWidth(fontMetrics().horizontalAdvance(QStringLiteral("t = −2.000")));
    row->addWidget(m_tLabel);
    lay->addWidget(m_controls);
    m_numbers = new QLabel(this);
    m_numbers->setObjectName(QStringLiteral("nullPathNumbers"));
    m_numbers->setTextFormat(Qt::RichText);
    m_numbers->setWordWrap(true);
    m_numbers->setMinimumWidth(1);
    lay->addWidget(m_numbers);

    auto* split = new QSplitter(Qt::Horizontal, this);
    m_split = split;
    m_plot = new PlotWidget(QStringLiteral("null_path_ood"), split);
    m_plot->setTitle(tr("Moving along a null direction"));
    m_plot->setAxisTitles(tr("t (step in units of ‖P*‖)"), tr("error"));
    m_heads = new HeatmapWidget(QStringLiteral("null_path_heads"), split);
    split->addWidget(m_plot);
    split->addWidget(m_heads);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    split->setSizes({600, 400});
    lay->addWidget(split, 1);
    lay->addStretch(0); // takes the space when the plot is hidden (nothing free)

    connect(m_relations, &QListWidget::currentRowChanged, this, [this] { requestPath(); });
    connect(m_output, &QSpinBox::valueChanged, this, [this] { requestPath(); });
    connect(m_slider, &QSlider::valueChanged, this, [this] { updateAtT(); });
    connect(m_plot, &PlotWidget::exportRequested, this, [this] { Q_EMIT exportRequested(m_plot); });
    connect(this, &ExplorerPanel::exportRequested, this,
            [this](const Figure* f) { requestExport(f); });
    showRun(nullptr);
}

ExplorerPanel::~ExplorerPanel() {
    if (m_cancel) m_cancel->cancel();
    for (QThread* t : m_threads) {
        t->wait();
        delete t;
    }
}

QList<const Figure*> ExplorerPanel::figures() const { return {m_plot, m_heads}; }

double ExplorerPanel::t() const { return static_cast<double>(m_slider->value()) / kSteps; }
void ExplorerPanel::fitRelationsHeight() {
    // The rows' own height, not the font's: at x2 and in presentation mode a height of five
    // font lines showed 3½ of 4 relations.
    const int rows = std::clamp(m_relations->count(), 1, 5);
    const int row = m_relations->count() > 0 ? m_relations->sizeHintForRow(0)
                                             : m_relations->fontMetrics().height() + 4;
    m_relations->setFixedHeight(rows * row + 2 * m_relations->frameWidth() + 2);
}

void ExplorerPanel::changeEvent(QEvent* e) {
    QWidget::changeEvent(e);
    if (e->type() == QEvent::FontChange) fitRelationsHeight();
}

void ExplorerPanel::setT(double t) {
    m_slider->setValue(static_cast<int>(std::lround(t * kSteps)));
}
int ExplorerPanel::relationCount() const { return m_relations->count(); }
QString ExplorerPanel::statusText() const { return m_status->text(); }
QString ExplorerPanel::noiseText() const { return m_noise->text(); }

void ExplorerPanel::setDirection(int k, int output) {
    const QSignalBlocker b(m_output);
    m_output->setValue(output + 1);
    if (m_relations->currentRow() == k) requestPath();
    else m_relations->setCurrentRow(k); // requests the path
}

std::optional<Metrics> ExplorerPanel::currentMetrics() const {
    if (!m_path) return std::nullopt;
    return nullPathMetrics(*m_path, t());
}

void ExplorerPanel::showRun(const RunRecord* run) {
    // The same finished run shown again (the window refreshes its tabs often): keep the chosen
    // relation, output row and t.
    const int id = run && run->result ? run->id : -1;
    if (id >= 0 && id == m_runId && m_hasResult) return;
    if (m_runId >= 0 && m_hasResult && m_relations->count() > 0)
        m_choices.insert(
            m_runId, Choice{m_relations->currentRow(), m_output->value() - 1, m_slider->value()});
    m_runId = id;
    ++m_generation; // a path still computing belongs to the previous run
    if (m_cancel) m_cancel->cancel();
    m_hasResult = run && run->result;
    m_path.reset();
    {
        const QSignalBlocker b1(m_relations), b2(m_output), b3(m_slider);
        m_relations->clear();
        m_slider->setValue(0);
        m_output->setRange(1, 1);
    }
    const IdentifiabilityReport* x =
        m_hasResult && run->result->identifiability ? &*run->result->identifiability : nullptr;
    if (m_hasResult) {
        m_result = *run->result;
        m_runName = run->name;
        m_runColor = run->color;
    }
    showNoise(x);
    m_noise->setVisible(!m_noise->text().isEmpty());
    const bool free = x && x->nullRelations && !x->nullRelations->relations.empty();
    // Nothing free (certified, or no report): only the status and the noise line.
    m_relations->setVisible(free);
    m_controls->setVisible(free);
    m_numbers->setVisible(free);
    m_split->setVisible(free);
    m_relations->setEnabled(free);
    m_output->setEnabled(free);
    m_slider->setEnabled(free);
    if (!m_hasResult) m_status->setText(tr("No result yet — choose a preset and press Run."));
    else if (!x)
        m_status->setText(tr("%1: no identifiability report (it comes with the exact solver when "
                             "eval.identifiability = full, or auto and D ≤ 300).")
                              .arg(m_runName));
    else if (m_result.certificate.certified)
        m_status->setText(tr("<b>%1: certified — nothing is left free.</b> Λ has no null "
                             "direction, so every exact fit is P̂ itself: the data pin the "
                             "function down on every prompt.")
                              .arg(m_runName.toHtmlEscaped()));
    else if (!free)
        m_status->setText(tr("%1: not certified, but no null relation was computed.")
                              .arg(m_runName.toHtmlEscaped()));
    else showFreeDirections(*x);
    // Back on a run left before: its relation, output row and t as they were.
    if (const auto c = m_choices.constFind(id); free && c != m_choices.constEnd()) {
        {
            const QSignalBlocker b(m_slider);
            m_slider->setValue(c->slider);
        }
        const int k = std::clamp(c->relation, 0, m_relations->count() - 1);
        const int output = std::clamp(c->output, 0, m_output->maximum() - 1);
        if (k != 0 || output != 0) setDirection(k, output); // computes that path
    }
    showPath();
}

void ExplorerPanel::showNoise(const IdentifiabilityReport* x) {
    if (x && x->noise && x->noise->sigma2 > 1e-24) { // noise-free: sigma^2 at round-off, no line
        const NoiseAnalysis& n = *x->noise;
        QString t =
            tr("<b>Noise:</b> σ² = %1 (%2). Predicted ‖P̂ − P*‖² %3 vs measured %4; "
               "predicted OOD rel %5 vs measured %6%7.")
                .arg(fmt(n.sigma2),
                     n.sigmaSource == "residual" ? tr("from the residual") : tr("configured"),
                     fmt(n.predictedDistanceP2), fmt(n.measuredDistanceP2),
                     fmt(n.predictedOodRelMse), fmt(n.measuredOodRelMse),
                     n.certified ? QString() : tr(" (identified directions only)"));
        if (!n.warning.empty())
            t += QStringLiteral(" <span style='color:%1'>⚠ %2</span>")
                     .arg(colors::kError.name(), QString::fromStdString(n.warning).toHtmlEscaped());
        m_noise->setText(t);
    } else m_noise->clear();
}

void ExplorerPanel::showFreeDirections(const IdentifiabilityReport& report) {
    const IdentifiabilityReport* x = &report;
    const NullRelationsResult& nr = *x->nullRelations;
    m_status->setText(
        tr("<b>%1: %2 left free.</b> Λ has null dimension %3: each relation "
           "below holds on every training prompt (%4 of them with exact rational "
           "coefficients), so P̂ + t%5 e<sub>i</sub>vᵀ fits the data exactly as well as "
           "P̂ for every t.")
            .arg(m_runName.toHtmlEscaped(), countOf(nr.nullDim, tr("direction"), tr("directions")))
            .arg(nr.nullDim)
            .arg(nr.rationalCount)
            .arg(m_result.teacherP.size() > 0 ? tr("‖P*‖") : tr("‖P̂‖")));
    if (!x->nullPath && m_result.dOut == 0)
        m_status->setText(m_status->text() +
                          tr("<br>No targets, so no fit to move: the relations are what the "
                             "prompts leave free."));
    const QSignalBlocker b1(m_relations), b2(m_output);
    for (const NullRelation& rel : nr.relations)
        m_relations->addItem(QString::fromStdString(rel.text));
    m_relations->setCurrentRow(0);
    fitRelationsHeight();
    m_output->setRange(1, std::max(1, m_result.dOut));
    if (!x->oodExecution.empty()) {
        QStringList parts;
        for (const OodExecution& e : x->oodExecution)
            parts << tr("%1: %2 / %3")
                         .arg(QString::fromStdString(e.description).toHtmlEscaped())
                         .arg(e.fit.stepAccuracy, 0, 'f', 3)
                         .arg(e.witness.stepAccuracy, 0, 'f', 3);
        m_status->setText(m_status->text() +
                          tr("<br>Automaton step accuracy, fit / null witness P(1): %1.")
                              .arg(parts.join(QStringLiteral("; "))));
    }
    if (x->nullPath) m_path = *x->nullPath;
}

void ExplorerPanel::requestPath() {
    if (!m_hasResult || !m_result.identifiability || !m_result.identifiability->nullRelations)
        return;
    const IdentifiabilityReport& x = *m_result.identifiability;
    const int k = m_relations->currentRow();
    const int output = m_output->value() - 1;
    if (k < 0 || k >= static_cast<int>(x.nullRelations->relations.size())) return;
    const int gen = ++m_generation;
    if (m_cancel) m_cancel->cancel();
    if (k == 0 && output == 0 && x.nullPath) { // the run's own path
        m_path = *x.nullPath;
        showPath();
        return;
    }
    m_path.reset();
    m_cancel = std::make_shared<CancelToken>();
    auto out = std::make_shared<std::optional<NullPath>>();
    auto token = m_cancel;
    const ExperimentConfig cfg = m_result.config;
    const Mat P = x.fitP;
    const Vec v = x.nullRelations->relations[static_cast<size_t>(k)].vector;
    QThread* th = QThread::create([cfg, P, v, output, token, out] {
        try {
            const auto task = makeTask(cfg.task);
            RunContext ctx;
            ctx.cancel = token.get();
            *out = nullPath(*task, cfg, P, v, output, ctx);
        } catch (...) { // cancelled or refused: nothing to show
        }
    });
    ++m_pending;
    m_threads << th;
    connect(th, &QThread::finished, this, [this, th, out, gen] {
        m_threads.removeOne(th);
        th->deleteLater();
        --m_pending;
        if (gen != m_generation) return;
        m_path = *out;
        showPath();
        Q_EMIT pathReady();
    });
    m_status->setToolTip(tr("computing the path…"));
    m_numbers->setText(
        tr("computing the path along relation %1, output %2…").arg(k + 1).arg(output + 1));
    th->start();
}

void ExplorerPanel::showPath() {
    if (!m_path) {
        m_plot->clear();
        m_plot->setNote({});
        m_heads->setPanels({}, 3);
        m_heads->setTitle(tr("Heads of P(t)"));
        if (!busy()) m_numbers->clear();
        m_tLabel->setText(QStringLiteral("t = %1").arg(t(), 0, 'f', 3));
        return;
    }
    updateAtT();
}

void ExplorerPanel::updateAtT() {
    const double tt = t();
    m_tLabel->setText(QStringLiteral("t = %1").arg(tt, 0, 'f', 3));
    if (!m_path) return;
    const NullPath& p = *m_path;
    const int k = m_relations->currentRow() + 1;
    const int out = m_output->value();

    // The whole curve (cheap: quadratics in t) and the current point.
    PlotSeries ood, train, dist, here;
    // Without a teacher (data from files) the curve is how far P(t) computes from P̂ itself on
    // generic prompts, and there is no distance to P*.
    ood.name = p.againstFit ? tr("relative difference from P̂ on generic prompts")
                            : tr("OOD relative error");
    ood.color = m_runColor.isValid() ? m_runColor : colors::kBlue;
    train.name = tr("training MSE (stays at round-off)");
    train.color = colors::kBlack;
    train.style = PlotSeries::Style::Dashed;
    dist.name = tr("‖P(t) − P*‖ / ‖P*‖");
    dist.color = colors::kOrange;
    dist.style = PlotSeries::Style::Dotted;
    here.name = tr("t = %1").arg(tt, 0, 'f', 2);
    here.color = colors::kVermillion;
    here.style = PlotSeries::Style::Markers;
    for (int i = -50; i <= 50; ++i) {
        const double s = kTMax * i / 50.0;
        const Metrics m = nullPathMetrics(p, s);
        ood.points << QPointF(s, m.oodRelMse);
        train.points << QPointF(s, m.trainMse);
        dist.points << QPointF(s, m.distancePRel);
    }
    const Metrics m = nullPathMetrics(p, tt);
    here.points << QPointF(tt, m.oodRelMse);
    m_plot->setTitle(tr("Along null relation %1, output %2 — %3").arg(k).arg(out).arg(m_runName));
    m_plot->setAxisTitles(p.againstFit ? tr("t (step in units of ‖P̂‖)")
                                       : tr("t (step in units of ‖P*‖)"),
                          tr("error"));
    if (p.againstFit) m_plot->setSeries({ood, train, here});
    else m_plot->setSeries({ood, train, dist, here});
    m_plot->setNote(tr("Every P(t) fits the training data as well as P̂: the training MSE is "
                       "%1 at t = 0 and at most %2 on the whole path.")
                        .arg(fmt(p.atZero.trainMse))
                        .arg(fmt(std::max(nullPathMetrics(p, -kTMax).trainMse,
                                          nullPathMetrics(p, kTMax).trainMse))));
    if (p.againstFit)
        m_numbers->setText(tr("t = <b>%1</b>: train MSE <b>%2</b> · off the data P(t) differs "
                              "from P̂ by <b>%3</b> (relative, generic prompts) · no teacher, so "
                              "no distance to P*")
                               .arg(tt, 0, 'f', 2)
                               .arg(fmt(m.trainMse), fmt(m.oodRelMse)));
    else
        m_numbers->setText(
            tr("t = <b>%1</b>: train MSE <b>%2</b> · val MSE <b>%3</b> · OOD rel <b>%4</b> (fit "
               "%5) · ‖P(t) − P*‖/‖P*‖ <b>%6</b>")
                .arg(tt, 0, 'f', 2)
                .arg(fmt(m.trainMse), fmt(m.valMse), fmt(m.oodRelMse), fmt(p.atZero.oodRelMse),
                     fmt(m.distancePRel)));

    // Heads of P(t): the top canonical head of unfold(P(t)) beside the teacher's in the same
    // form (the top canonical head of unfold(P*)), so that where P(t) = P* the two are equal.
    // The teacher's minimal heads (the Heads tab) are another form of the same function: set
    // beside them, a fit equal to the teacher looked different (issue 23's walk).
    const int d = m_result.d;
    const HeadDecomposition h = headsFromP(nullPathP(p, tt), d, 1);
    const Heads& teacher = m_result.teacherHeads.heads;
    auto pick = [](const std::vector<Mat>& v, size_t i) { return i < v.size() ? v[i] : Mat(); };
    const QString rn = QStringLiteral("i"), cn = QStringLiteral("a");
    const QString qr = QStringLiteral("b"), qc = QStringLiteral("c");
    QList<HeatmapPanel> panels;
    // Data from files has no teacher head to set beside P(t)'s.
    if (!p.againstFit)
        panels << HeatmapPanel{tr("teacher V1"), pick(teacher.V, 0), rn, cn, tr("no teacher head")};
    panels << HeatmapPanel{tr("V1 of P(t)"), pick(h.heads.V, 0), rn, cn, tr("no head")};
    if (!p.againstFit)
        panels << HeatmapPanel{tr("teacher Q1"), pick(teacher.Q, 0), qr, qc, tr("no teacher head")};
    panels << HeatmapPanel{tr("Q1 of P(t)"), pick(h.heads.Q, 0), qr, qc, tr("no head")};
    m_heads->setTitle(
        tr("Head 1 of P(t), canonical SVD form, t = %1 — %2").arg(tt, 0, 'f', 2).arg(m_runName));
    m_heads->setPanels(panels, p.againstFit ? 1 : 2);
}

} // namespace mhla::ui
