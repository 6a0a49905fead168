#include "ui/panels/certificatepanel.h"
#include "core/base/plural.h"
#include "ui/panels/explanations.h"
#include "ui/plot/colormap.h"
#include "ui/plot/plotmath.h"
#include "ui/plot/plotwidget.h"
#include "ui/plot/theme.h"
#include <QCheckBox>
#include <QEvent>
#include <QLabel>
#include <QSplitter>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <limits>

namespace mhla::ui {

namespace {
const QColor& kClampColor = colors::kVermillion;
const QColor& kTauColor = colors::kTau;

QString fmt(double v) {
    if (std::isinf(v)) return QStringLiteral("∞");
    if (std::isnan(v)) return QStringLiteral("—");
    return QString::number(v, 'g', 4);
}

/// One "name value" pair of the numbers line; a line breaks between pairs, never inside one.
QString certificatePair(const QString& name, const QString& value) {
    return QStringLiteral("<span style='white-space:nowrap'>%1&nbsp;<b>%2</b></span>")
        .arg(name, value);
}

/// A floor below every positive value and below tau, for drawing values <= 0 on a log axis.
double logFloor(const QList<QPointF>& pts, double tau) {
    double m = std::numeric_limits<double>::infinity();
    for (const auto& p : pts)
        if (p.y() > 0 && std::isfinite(p.y())) m = std::min(m, p.y());
    if (tau > 0) m = std::min(m, tau);
    if (!std::isfinite(m)) return 1e-16;
    return std::pow(10.0, std::floor(std::log10(m)) - 1);
}
} // namespace

int splitForLogAxis(const QList<QPointF>& points, double floor, QList<QPointF>& positive,
                    QList<QPointF>& clamped) {
    positive.clear();
    clamped.clear();
    for (const auto& p : points) {
        if (!std::isfinite(p.y())) continue;
        if (p.y() > 0) positive << p;
        else clamped << QPointF(p.x(), floor);
    }
    return static_cast<int>(clamped.size());
}

namespace {
struct LogSeries {
    QList<PlotSeries> series; ///< the positive points, then the clamped ones as triangles
    double floor = 0;
    int clamped = 0;
};

/// Points for a log-y plot: values <= the floor are drawn as triangles at the floor, never dropped.
LogSeries logAxisSeries(const QString& name, const QList<QPointF>& pts, double tau,
                        const QColor& color, PlotSeries::Style style) {
    LogSeries out;
    out.floor = logFloor(pts, tau);
    QList<QPointF> pos, clamped;
    out.clamped = splitForLogAxis(pts, out.floor, pos, clamped);
    PlotSeries s;
    s.name = name;
    s.points = pos;
    s.color = color;
    s.style = style;
    PlotSeries c;
    c.name = QObject::tr("≤ 0 (at floor)");
    c.points = clamped;
    c.color = kClampColor;
    c.style = PlotSeries::Style::Triangles;
    c.inLegend = out.clamped > 0;
    out.series << s << c;
    return out;
}
} // namespace

void CertificatePanel::deriveBadgeFont() {
    QFont bf = font();
    bf.setPointSizeF(bf.pointSizeF() * 1.3);
    bf.setBold(true);
    m_badge->setFont(bf);
}

void CertificatePanel::changeEvent(QEvent* e) {
    if (e->type() == QEvent::FontChange && m_badge) deriveBadgeFont();
    QWidget::changeEvent(e);
}

CertificatePanel::CertificatePanel(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("certificatePanel"));
    auto* lay = new QVBoxLayout(this);
    lay->addWidget(explain::makeHelpBox(explain::certificate(), this));
    m_badge = new QLabel(this);
    m_badge->setObjectName(QStringLiteral("certificateBadge"));
    m_badge->setAlignment(Qt::AlignCenter);
    deriveBadgeFont();
    m_badge->setMargin(6);
    // A long badge wraps instead of widening the tab past a 1280 px window.
    m_badge->setWordWrap(true);
    lay->addWidget(m_badge);
    m_numbers = new QLabel(this);
    m_numbers->setObjectName(QStringLiteral("certificateNumbers"));
    m_numbers->setTextFormat(Qt::RichText);
    // A flowing line of "name value" pairs that wraps between pairs (never inside one), so the
    // numbers never widen the tab past a 1280 px window.
    m_numbers->setWordWrap(true);
    m_numbers->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_numbers->setToolTip(
        tr("λ_min, λ_max: extreme eigenvalues of Λ = (1/N) Σ ψψᵀ. κ = λ_max / λ_min. "
           "τ = tolerance · λ_max. Null dimension = #eigenvalues ≤ τ."));
    lay->addWidget(m_numbers);
    m_witness = new QLabel(this);
    m_witness->setObjectName(QStringLiteral("nullWitness"));
    m_witness->setTextFormat(Qt::RichText);
    m_witness->setWordWrap(true);
    m_witness->setVisible(false);
    m_witness->setToolTip(
        tr("When Λ has a null vector v, P̂ + ‖P*‖ e₁vᵀ fits the training data exactly as "
           "well as P̂ but computes a different function: the failure of identifiability."));
    lay->addWidget(m_witness);

    m_overlayCheck = new QCheckBox(tr("Overlay the spectra of all visible runs"), this);
    m_overlayCheck->setObjectName(QStringLiteral("spectrumOverlayCheck"));
    m_overlayCheck->setToolTip(
        tr("Draw the eigenvalues of Λ of every visible run on one log axis, each in its "
           "run's colour: e.g. Gaussian keys (all above τ) against orthogonal keys (a "
           "null space at the floor)."));
    connect(m_overlayCheck, &QCheckBox::toggled, this, &CertificatePanel::displayChanged);
    lay->addWidget(m_overlayCheck);
    auto* split = new QSplitter(Qt::Horizontal, this);
    m_spectrum = new PlotWidget(QStringLiteral("spectrum"), split);
    m_spectrum->setTitle(tr("Eigenvalues of Λ"));
    m_spectrum->setAxisTitles(tr("index (ascending)"), tr("eigenvalue"));
    m_spectrum->setLogY(true);
    m_trace = new PlotWidget(QStringLiteral("lambda_trace"), split);
    m_trace->setTitle(tr("λₘᵢₙ(Λ) vs samples seen"));
    m_trace->setAxisTitles(tr("samples seen k"), tr("λ_min of Λ (first k)"), TitleText::Typeset);
    m_trace->setLogX(true);
    m_trace->setLogY(true);
    split->addWidget(m_spectrum);
    split->addWidget(m_trace);
    lay->addWidget(split, 1);
    connect(m_spectrum, &PlotWidget::exportRequested, this,
            [this] { Q_EMIT exportRequested(m_spectrum); });
    connect(m_trace, &PlotWidget::exportRequested, this,
            [this] { Q_EMIT exportRequested(m_trace); });
    showRun(nullptr);
    connect(this, &CertificatePanel::exportRequested, this,
            [this](const Figure* f) { requestExport(f); });
    connect(this, &CertificatePanel::displayChanged, this, [this] { requestRefresh(); });
}

QString CertificatePanel::badgeText() const { return m_badge->text(); }

bool CertificatePanel::overlaySpectra() const { return m_overlayCheck->isChecked(); }
void CertificatePanel::setOverlaySpectra(bool on) { m_overlayCheck->setChecked(on); }

void CertificatePanel::setComparisonRuns(const QList<const RunRecord*>& runs) {
    m_comparison.clear();
    for (const RunRecord* r : runs) {
        if (!r->result || r->result->certificate.spectrum.size() == 0) continue;
        SpectrumCopy c;
        c.name = r->name;
        c.color = r->color;
        c.mark = r->mark;
        c.tau = r->result->certificate.tolerance;
        const Vec& ev = r->result->certificate.spectrum;
        for (Index i = 0; i < ev.size(); ++i)
            c.points << QPointF(static_cast<double>(i + 1), ev(i));
        m_comparison << c;
    }
    if (m_overlayCheck->isChecked()) renderOverlay();
}

void CertificatePanel::renderOverlay() {
    QList<PlotSeries> series;
    int clamped = 0;
    // Runs with eigenvalues <= 0 put their triangles on the same spots of the floor: each next
    // run's are smaller and drawn on top, so every run's triangle shows around the next one's.
    double floorTriangle = 17;
    for (const SpectrumCopy& c : m_comparison) {
        const LogSeries ls =
            logAxisSeries(c.name, c.points, c.tau, c.color, PlotSeries::Style::Markers);
        series << ls.series.first();
        series.last().mark = c.mark;
        PlotSeries atFloor = ls.series.last();
        atFloor.name = c.name + tr(" ≤ 0 (at floor)");
        atFloor.color = c.color;
        atFloor.inLegend = false;
        if (!atFloor.points.isEmpty()) {
            atFloor.markerSize = floorTriangle;
            floorTriangle = std::max(5.0, floorTriangle - 4);
        }
        series << atFloor;
        clamped += ls.clamped;
        if (c.tau > 0) {
            PlotSeries tau = PlotSeries::hline(tr("τ of %1").arg(c.name), c.tau, c.color);
            tau.inLegend = false;
            series << tau;
        }
    }
    m_spectrum->setTitle(m_comparison.size() == 1
                             ? tr("Eigenvalues of Λ — 1 visible run")
                             : tr("Eigenvalues of Λ — %n visible runs", nullptr,
                                  static_cast<int>(m_comparison.size())));
    m_spectrum->setSeries(series);
    m_spectrum->setNote(
        m_comparison.isEmpty()
            ? tr("No visible run has a spectrum (eval.spectrum = none, or D too large for auto).")
            : tr("Each run in its colour; dashed lines: each run's τ.") +
                  (clamped > 0
                       ? u' ' + tr("Eigenvalues ≤ 0 (%1) are drawn as triangles at the "
                                   "floor of the log axis.")
                                    .arg(countOf(clamped, tr("eigenvalue"), tr("eigenvalues")))
                       : QString()));
}

QList<const Figure*> CertificatePanel::figures() const { return {m_spectrum, m_trace}; }

void CertificatePanel::setBadge(const QString& text, const QColor& bg) {
    m_badge->setText(text);
    m_badge->setStyleSheet(
        QStringLiteral("QLabel { background: %1; color: %2; border-radius: 6px; }")
            .arg(bg.name(),
                 bg.lightness() > 150 ? QStringLiteral("black") : QStringLiteral("white")));
}

void CertificatePanel::updateLive(const RunRecord* run) {
    if (!run) return;
    QList<QPointF> pts;
    for (const auto& [k, l] : run->trace()) pts << QPointF(static_cast<double>(k), l);
    const double tau = run->result ? run->result->certificate.tolerance : 0;
    const LogSeries ls =
        logAxisSeries(tr("λₘᵢₙ"), pts, tau, run->color, PlotSeries::Style::LineMarkers);
    const double floor = ls.floor;
    const int nClamped = ls.clamped;
    QList<PlotSeries> series = ls.series;
    if (tau > 0) series << PlotSeries::hline(tr("τ (final Λ)"), tau, kTauColor);
    const QString identNote =
        run->result ? addCertificateSamples(*run->result, floor, series) : QString();
    m_trace->setTitle(tr("λₘᵢₙ(Λ) vs samples seen — %1").arg(run->name));
    m_trace->setSeries(series);
    QString note =
        nClamped > 0
            ? tr("Checkpoints with λₘᵢₙ ≤ 0 (singular Λ; %1) are drawn as triangles at %2, the "
                 "floor of the log axis.")
                  .arg(countOf(nClamped, tr("checkpoint"), tr("checkpoints")),
                       plotmath::logTickLabel(floor))
            : QString();
    if (!identNote.isEmpty())
        note = note.isEmpty() ? identNote : identNote + QLatin1Char(' ') + note;
    m_trace->setNote(note);
}

QString certificateSamplesNote(const ExperimentResult& r) {
    if (!r.identifiability) return {};
    const CertificateSamplesResult& c = r.identifiability->certificateSamples;
    if (c.certificateSamples > 0)
        return QObject::tr("The certificate holds from N = %1 samples on (D = %2)%3.")
            .arg(c.certificateSamples)
            .arg(c.featureDim)
            .arg(c.certificateSamples == c.featureDim
                     ? QObject::tr(": exactly D, the fewest possible")
                     : QString());
    if (c.structural) {
        QString relation;
        if (r.identifiability->nullRelations &&
            !r.identifiability->nullRelations->relations.empty())
            relation = QObject::tr(" (e.g. %1 on every prompt)")
                           .arg(QString::fromStdString(
                               r.identifiability->nullRelations->relations.front().text));
        long long from = 0, to = 0;
        for (const SampleCheckpoint& k : c.checkpoints)
            if (k.nullDim == c.structuralNullDim) {
                if (from == 0) from = k.samples;
                to = k.samples;
            }
        return QObject::tr("The certificate never comes: the null dimension stays %1 at every N "
                           "the search tried, from %2 to %3. The null space comes from the "
                           "task's distribution%4, so more data will not fix it.")
            .arg(c.structuralNullDim)
            .arg(from)
            .arg(to)
            .arg(relation);
    }
    return QObject::tr("No certificate within %1 samples (the search's budget).").arg(c.budget);
}

QString CertificatePanel::addCertificateSamples(const ExperimentResult& r, double floor,
                                                QList<PlotSeries>& series) const {
    if (!r.identifiability) return {};
    const CertificateSamplesResult& c = r.identifiability->certificateSamples;
    if (c.certificateSamples > 0) {
        double top = floor;
        for (const PlotSeries& s : series)
            for (const QPointF& p : s.points) top = std::max(top, p.y());
        double at = std::numeric_limits<double>::quiet_NaN();
        for (const SampleCheckpoint& k : c.checkpoints)
            if (k.samples == c.certificateSamples) at = k.lambdaMin;
        const double x = static_cast<double>(c.certificateSamples);
        PlotSeries line;
        line.name = tr("certificate_samples = %1").arg(c.certificateSamples);
        line.color = colors::kBluishGreen;
        line.style = PlotSeries::Style::Dashed;
        line.points << QPointF(x, floor) << QPointF(x, top);
        series << line;
        if (at > 0) {
            PlotSeries dot;
            dot.name = tr("λₘᵢₙ at certificate_samples");
            dot.color = colors::kBluishGreen;
            dot.style = PlotSeries::Style::Markers;
            dot.inLegend = false;
            dot.points << QPointF(x, at);
            series << dot;
        }
    }
    return certificateSamplesNote(r);
}

void CertificatePanel::showRun(const RunRecord* run) {
    if (!run) {
        setBadge(tr("no result yet — choose a preset and press Run"),
                 palette().color(QPalette::AlternateBase));
        m_numbers->clear();
        m_witness->setVisible(false);
        m_spectrum->clear();
        m_trace->clear();
        m_spectrum->setNote({});
        m_trace->setNote({});
        return;
    }
    updateLive(run);
    if (!run->result) return showWithoutResult(run);
    showCertificate(*run->result);
    showSpectrum(run, run->result->certificate);
}

void CertificatePanel::showWithoutResult(const RunRecord* run) {
    if (run->state == RunRecord::State::Running || run->state == RunRecord::State::Queued)
        setBadge(tr("%1: running…").arg(run->name), palette().color(QPalette::AlternateBase));
    else
        setBadge(tr("%1: %2").arg(run->name, run->stateText()),
                 palette().color(QPalette::AlternateBase));
    m_numbers->clear();
    m_witness->setVisible(false);
    // Nothing of an earlier run stays on screen while this one has no result.
    m_spectrum->setTitle(tr("Eigenvalues of Λ — %1 (%2)").arg(run->name, run->stateText()));
    m_spectrum->clear();
    m_spectrum->setNote({});
    if (run->trace().empty()) {
        m_trace->setTitle(tr("λₘᵢₙ(Λ) vs samples seen — %1 (%2)").arg(run->name, run->stateText()));
        m_trace->clear();
        m_trace->setNote({});
    }
}

void CertificatePanel::showCertificate(const ExperimentResult& r) {
    const Certificate& c = r.certificate;
    if (c.method.empty())
        setBadge(tr("certificate not computed (the trainer ran with solver.compare_exact = false)"),
                 palette().color(QPalette::AlternateBase));
    else if (c.certified)
        setBadge(tr("✔ certified identifiable  (λₘᵢₙ = %1 > τ = %2)")
                     .arg(fmt(c.lambdaMin), fmt(c.tolerance)),
                 colors::kGood);
    else
        setBadge(tr("✖ not certified  (λₘᵢₙ = %1 ≤ τ = %2; null dimension %3)")
                     .arg(fmt(c.lambdaMin), fmt(c.tolerance))
                     .arg(c.nullDim),
                 colors::kError);
    QStringList pairs;
    auto cell = [&pairs](const QString& k, const QString& v) { pairs << certificatePair(k, v); };
    cell(tr("λ<sub>min</sub>"), fmt(c.lambdaMin));
    cell(tr("λ<sub>max</sub>"), fmt(c.lambdaMax));
    cell(tr("condition κ"), fmt(c.condition));
    cell(tr("τ"), fmt(c.tolerance));
    cell(tr("null dim"), QString::number(c.nullDim));
    cell(tr("D"), QString::number(r.featureDim));
    cell(tr("N"), QString::number(r.samples));
    cell(tr("eig."), QString::fromStdString(c.method));
    if (r.dOut == 0) {
        // Prompts without targets: the certificate is the whole result.
        cell(tr("fit"), tr("none (no targets)"));
    } else {
        cell(tr("solve"), QString::fromStdString(r.solveMethod));
        cell(tr("train MSE"), fmt(r.metrics.trainMse));
        cell(tr("val MSE"), fmt(r.metrics.valMse));
        cell(tr("OOD rel"), fmt(r.metrics.oodRelMse));
        cell(tr("‖P̂−P*‖/‖P*‖"), fmt(r.metrics.distancePRel));
    }
    const QString numbers = pairs.join(QStringLiteral(" &nbsp;·&nbsp; "));
    if (r.nullWitness) {
        // Not certified: another least-squares solution P + ‖P*‖ e₁vᵀ (Λv = 0) makes the
        // failure concrete: the same training fit, a different function elsewhere.
        m_witness->setText(
            tr("Another exact fit, P̂ + ‖P*‖ e<sub>1</sub>vᵀ with Λv = 0: train MSE <b>%1</b>, "
               "OOD rel <b>%2</b> — the data cannot tell it from P̂.")
                .arg(fmt(r.nullWitness->trainMse), fmt(r.nullWitness->oodRelMse)));
    }
    // Certified beside a large error (label noise): unique is not the same as accurate.
    const bool noisy = c.certified && !r.nullWitness && r.config.task.noise > 0 &&
                       r.config.task.kind == TaskKind::RandomMhla;
    if (noisy)
        m_witness->setText(
            tr("Certified means the fit is <i>unique</i>, not that it is exact: the labels carry "
               "noise (σ = %1), and the one least-squares fit is off by it — OOD rel <b>%2</b>, "
               "which falls as N grows.")
                .arg(fmt(r.config.task.noise), fmt(r.metrics.oodRelMse)));
    m_witness->setVisible(r.nullWitness.has_value() || noisy);
    m_numbers->setText(numbers);
}

void CertificatePanel::showSpectrum(const RunRecord* run, const Certificate& c) {
    QList<QPointF> pts;
    for (Index i = 0; i < c.spectrum.size(); ++i)
        pts << QPointF(static_cast<double>(i + 1), c.spectrum(i));
    const LogSeries ls = logAxisSeries(tr("eigenvalue > 0"), pts, c.tolerance, run->color,
                                       PlotSeries::Style::Markers);
    const double floor = ls.floor;
    const int nClamped = ls.clamped;
    QList<PlotSeries> series = ls.series;
    if (c.tolerance > 0)
        series << PlotSeries::hline(tr("τ = %1").arg(fmt(c.tolerance)), c.tolerance, kTauColor);
    m_spectrum->setTitle(tr("Eigenvalues of Λ — %1").arg(run->name));
    m_spectrum->setSeries(series);
    QString note;
    if (c.spectrum.size() == 0)
        note = tr(
            "The full spectrum was not computed (eval.spectrum = none, or D too large for auto).");
    else if (nClamped > 0)
        note = tr("Eigenvalues ≤ 0 (%1) are drawn as triangles at %2, the floor of the log axis (a "
                  "log axis cannot show them).")
                   .arg(countOf(nClamped, tr("eigenvalue"), tr("eigenvalues")),
                        plotmath::logTickLabel(floor));
    m_spectrum->setNote(note);
}

} // namespace mhla::ui
