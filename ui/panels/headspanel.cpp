#include "ui/panels/headspanel.h"
#include "ui/panels/explanations.h"
#include "ui/plot/heatmapwidget.h"
#include "ui/plot/plotwidget.h"
#include "ui/plot/theme.h"
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QVBoxLayout>
#include <cmath>

namespace mhla::ui {

HeadsPanel::HeadsPanel(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("headsPanel"));
    auto* lay = new QVBoxLayout(this);
    lay->addWidget(explain::makeHelpBox(explain::heads(), this));
    auto* row = new QHBoxLayout;
    row->addWidget(new QLabel(tr("Head:"), this));
    m_headBox = new QSpinBox(this);
    m_headBox->setObjectName(QStringLiteral("headSelector"));
    m_headBox->setRange(1, 1);
    m_headBox->setToolTip(
        tr("Canonical head r (ordered by singular value σ_r of unfold(P), largest first)"));
    row->addWidget(m_headBox);
    m_formBox = new QComboBox(this);
    m_formBox->setObjectName(QStringLiteral("headsForm"));
    m_formBox->addItem(tr("minimal heads (min_heads)"));
    m_formBox->addItem(tr("symmetric representative unfold(P)"));
    m_formBox->setToolTip(
        tr("Minimal: the fewest heads that compute the learned function (a rank-min_heads W "
           "with fold(W) = P), beside the teacher's own heads, both in canonical SVD form. "
           "Symmetric: the SVD of unfold(P) and of unfold(P*), which can use many more heads."));
    row->addWidget(m_formBox);
    m_info = new QLabel(this);
    m_info->setObjectName(QStringLiteral("headsInfo"));
    m_info->setWordWrap(true);
    m_info->setMinimumWidth(1);
    row->addStretch(1);
    auto* exportHeads = new QPushButton(tr("Export heads…"), this);
    auto* exportP = new QPushButton(tr("Export P matrix…"), this);
    row->addWidget(exportHeads);
    row->addWidget(exportP);
    lay->addLayout(row);
    lay->addWidget(m_info);
    m_sentence = new QLabel(this);
    m_sentence->setObjectName(QStringLiteral("minHeadsSentence"));
    m_sentence->setWordWrap(true);
    m_sentence->setTextFormat(Qt::PlainText);
    m_sentence->setMinimumWidth(1);
    lay->addWidget(m_sentence);

    auto* split = new QSplitter(Qt::Vertical, this);
    m_heads = new HeatmapWidget(QStringLiteral("heads"), split);
    auto* bottom = new QSplitter(Qt::Horizontal, split);
    m_coeffs = new HeatmapWidget(QStringLiteral("coefficients"), bottom);
    m_sv = new PlotWidget(QStringLiteral("singular_values"), bottom);
    m_sv->setTitle(tr("Singular values of unfold(P)"));
    m_sv->setAxisTitles(tr("r"), tr("σ_r"), TitleText::Typeset);
    m_sv->setLogY(true);
    bottom->addWidget(m_coeffs);
    bottom->addWidget(m_sv);
    bottom->setStretchFactor(0, 3);
    bottom->setStretchFactor(1, 2);
    split->addWidget(m_heads);
    split->addWidget(bottom);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    lay->addWidget(split, 1);
    m_hover = new QLabel(this);
    m_hover->setObjectName(QStringLiteral("heatmapHover"));
    m_hover->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    lay->addWidget(m_hover);

    connect(m_headBox, &QSpinBox::valueChanged, this, &HeadsPanel::refresh);
    connect(m_formBox, &QComboBox::currentIndexChanged, this, [this] {
        if (m_hasResult) showRange();
        refresh();
    });
    connect(m_heads, &HeatmapWidget::hovered, m_hover, &QLabel::setText);
    connect(m_coeffs, &HeatmapWidget::hovered, m_hover, &QLabel::setText);
    connect(exportHeads, &QPushButton::clicked, this, [this] { Q_EMIT exportRequested(m_heads); });
    connect(exportP, &QPushButton::clicked, this, [this] { Q_EMIT exportRequested(m_coeffs); });
    connect(m_sv, &PlotWidget::exportRequested, this, [this] { Q_EMIT exportRequested(m_sv); });
    showRun(nullptr);
    connect(this, &HeadsPanel::exportRequested, this,
            [this](const Figure* f) { requestExport(f); });
}

QList<const Figure*> HeadsPanel::figures() const { return {m_heads, m_coeffs, m_sv}; }

void HeadsPanel::setHead(int h) { m_headBox->setValue(h + 1); }
int HeadsPanel::head() const { return m_headBox->value() - 1; }
void HeadsPanel::setMinimalForm(bool on) { m_formBox->setCurrentIndex(on ? 0 : 1); }
bool HeadsPanel::minimalForm() const {
    return m_formBox->currentIndex() == 0 && m_hasResult && m_result.identifiability &&
           m_result.identifiability->minHeads &&
           m_result.identifiability->minHeads->heads.count() > 0;
}
QString HeadsPanel::rankSentence() const { return m_sentence->text(); }

QString minHeadsSentence(const ExperimentResult& r) {
    if (!r.identifiability || !r.identifiability->minHeads) return {};
    const MinHeadsResult& m = *r.identifiability->minHeads;
    if (m.minHeads <= 0) return {};
    const QString heads =
        m.minHeads == 1 ? QObject::tr("1 head") : QObject::tr("%1 heads").arg(m.minHeads);
    QString s;
    if (m.unfoldRank > m.minHeads)
        s = QObject::tr("unfold(P) has rank %1, but the function needs only %2: W is fixed only up "
                        "to ker(fold) (blocks that are antisymmetric in (a, b)), and the symmetric "
                        "representative spreads the heads over more singular directions.")
                .arg(m.unfoldRank)
                .arg(heads);
    else
        s = QObject::tr("unfold(P) has rank %1 and the function needs %2: here the symmetric "
                        "representative is already minimal.")
                .arg(m.unfoldRank)
                .arg(heads);
    if (!m.exact)
        s += QObject::tr(" (No refit reproduced P to round-off: %1 is the best rank found, not a "
                         "bound.)")
                 .arg(m.minHeads);
    else if (m.minHeads > 1 && std::isfinite(m.lowerRankBestErrorRel))
        s += QObject::tr(" (A refit with %1 reproduces P: at most that many, proven. With %2 "
                         "head%3 the best refit error is %4: evidence, not proof, that fewer "
                         "fail.)")
                 .arg(heads)
                 .arg(m.minHeads - 1)
                 .arg(m.minHeads - 1 == 1 ? QString() : QStringLiteral("s"))
                 .arg(m.lowerRankBestErrorRel, 0, 'g', 2);
    if (m.exact && m.searchMinHeads > m.minHeads)
        s += QObject::tr(" The search without the teacher's heads found %1.").arg(m.searchMinHeads);
    return s;
}

void HeadsPanel::showRange() {
    int n = 1;
    if (minimalForm())
        n = std::max({1, m_result.identifiability->minHeads->heads.count(),
                      m_result.identifiability->teacherMinimalHeads.count()});
    else n = std::max({1, m_result.heads.heads.count(), m_result.teacherHeads.heads.count()});
    const QSignalBlocker b(m_headBox);
    m_headBox->setRange(1, n);
}

void HeadsPanel::showRun(const RunRecord* run) {
    m_hasResult = run && run->result;
    if (m_hasResult) {
        m_result = *run->result;
        m_runName = run->name;
        m_runColor = run->color;
        showRange();
    }
    m_formBox->setEnabled(m_hasResult && m_result.identifiability.has_value());
    m_sentence->setText(m_hasResult ? minHeadsSentence(m_result) : QString());
    m_sentence->setVisible(!m_sentence->text().isEmpty());
    refresh();
}

void HeadsPanel::refresh() {
    if (!m_hasResult || m_result.dOut == 0) {
        m_heads->setTitle(tr("Heads"));
        m_heads->setPanels({}, 3);
        m_coeffs->setTitle(tr("Folded coefficients"));
        m_coeffs->setPanels({}, 1);
        m_sv->clear();
        m_info->setText(!m_hasResult
                            ? tr("no result yet")
                            : tr("no heads: the data has no targets, so nothing was fitted (its "
                                 "certificate is on the Certificate tab)"));
        return;
    }
    const ExperimentResult& r = m_result;
    const bool minimal = minimalForm();
    Heads L = minimal ? r.identifiability->minHeads->heads : r.heads.heads;
    const Heads& T = minimal ? r.identifiability->teacherMinimalHeads : r.teacherHeads.heads;
    if (minimal) alignSigns(L, T);
    // Data from files has no teacher: only the learned heads (and P̂ alone below).
    const bool teacherKnown = r.teacherP.size() > 0;
    showHead(L, T, minimal, teacherKnown);
    showCoefficients(teacherKnown);
    showSingularValues();
    showInfo(teacherKnown);
}

void HeadsPanel::alignSigns(Heads& L, const Heads& T) {
    // A head is fixed only up to (V, Q) -> (-V, -Q): each learned head takes its teacher's sign.
    for (int k = 0; k < std::min(L.count(), T.count()); ++k) {
        const auto K = static_cast<size_t>(k);
        if (L.V[K].size() != T.V[K].size() || L.Q[K].size() != T.Q[K].size()) continue;
        const double dot =
            (L.V[K].array() * T.V[K].array()).sum() + (L.Q[K].array() * T.Q[K].array()).sum();
        if (dot < 0) {
            L.V[K] = -L.V[K];
            L.Q[K] = -L.Q[K];
        }
    }
}

void HeadsPanel::showHead(const Heads& L, const Heads& T, bool minimal, bool teacherKnown) {
    const ExperimentResult& r = m_result;
    const int h = head();
    const QString learnedName = minimal ? tr("minimal") : tr("learned");
    const QString teacherName = minimal ? tr("teacher (W*)") : tr("teacher");
    auto pick = [](const std::vector<Mat>& v, int i) {
        return i < static_cast<int>(v.size()) ? v[i] : Mat();
    };
    const Mat tv = pick(T.V, h), tq = pick(T.Q, h), lv = pick(L.V, h), lq = pick(L.Q, h);
    // A difference only where both models have head h (a missing head is not a zero head).
    auto diff = [](const Mat& a, const Mat& b) -> Mat {
        if (a.size() == 0 || b.size() == 0 || a.rows() != b.rows() || a.cols() != b.cols())
            return {};
        return a - b;
    };
    const QString none = tr("no head %1 (rank %2)");
    QList<HeatmapPanel> panels;
    const QString rn = QStringLiteral("i"), cn = QStringLiteral("a");
    const QString qr = QStringLiteral("b"), qc = QStringLiteral("c");
    if (teacherKnown)
        panels << HeatmapPanel{tr("%1 V%2").arg(teacherName).arg(h + 1), tv, rn, cn,
                               none.arg(h + 1).arg(T.count())};
    panels << HeatmapPanel{tr("%1 V%2").arg(learnedName).arg(h + 1), lv, rn, cn,
                           none.arg(h + 1).arg(L.count())};
    if (teacherKnown) {
        panels << HeatmapPanel{tr("%1 − teacher V%2").arg(learnedName).arg(h + 1), diff(lv, tv), rn,
                               cn, tr("head %1 missing on one side").arg(h + 1)};
        panels << HeatmapPanel{tr("%1 Q%2").arg(teacherName).arg(h + 1), tq, qr, qc,
                               none.arg(h + 1).arg(T.count())};
    }
    panels << HeatmapPanel{tr("%1 Q%2").arg(learnedName).arg(h + 1), lq, qr, qc,
                           none.arg(h + 1).arg(L.count())};
    if (teacherKnown)
        panels << HeatmapPanel{tr("%1 − teacher Q%2").arg(learnedName).arg(h + 1), diff(lq, tq), qr,
                               qc, tr("head %1 missing on one side").arg(h + 1)};
    const QString source = teacherKnown ? QString() : tr(" — no teacher (data from files)");
    m_heads->setTitle(
        minimal && teacherKnown
            ? tr("Minimal head %1 of %2 beside the teacher's (canonical SVD form) — %3")
                  .arg(h + 1)
                  .arg(r.identifiability->minHeads->minHeads)
                  .arg(m_runName)
        : minimal ? tr("Minimal head %1 of %2 (canonical SVD form) — %3%4")
                        .arg(h + 1)
                        .arg(r.identifiability->minHeads->minHeads)
                        .arg(m_runName, source)
                  : tr("Head %1 in canonical SVD form (V: d_out × d, Q: d × d) — %2%3")
                        .arg(h + 1)
                        .arg(m_runName, source));
    m_heads->setPanels(panels, teacherKnown ? 3 : 2);
}

void HeadsPanel::showCoefficients(bool teacherKnown) {
    const ExperimentResult& r = m_result;
    QList<HeatmapPanel> cp;
    const QString pr = QStringLiteral("output i"), pc = QStringLiteral("feature (a,b),c");
    if (teacherKnown) cp << HeatmapPanel{tr("P* (teacher)"), r.teacherP, pr, pc, {}};
    cp << HeatmapPanel{tr("P̂ (learned)"), r.P, pr, pc, tr("this model has no folded coefficients")};
    Mat dP;
    if (r.P.size() && r.P.rows() == r.teacherP.rows() && r.P.cols() == r.teacherP.cols())
        dP = r.P - r.teacherP;
    if (teacherKnown) cp << HeatmapPanel{tr("P̂ − P*"), dP, pr, pc, tr("no learned P")};
    m_coeffs->setTitle(tr("Folded coefficients (d_out × D) — %1").arg(m_runName));
    m_coeffs->setPanels(cp, 1);
}

void HeadsPanel::showSingularValues() {
    const ExperimentResult& r = m_result;
    QList<PlotSeries> sv;
    PlotSeries ls;
    ls.name = tr("learned σᵣ");
    ls.color = m_runColor;
    ls.style = PlotSeries::Style::Bars;
    for (Index i = 0; i < r.heads.singularValues.size(); ++i)
        ls.points << QPointF(i + 1, r.heads.singularValues(i));
    PlotSeries ts;
    ts.name = tr("teacher σᵣ");
    ts.color = colors::kBlack;
    ts.style = PlotSeries::Style::Markers;
    for (Index i = 0; i < r.teacherHeads.singularValues.size(); ++i)
        ts.points << QPointF(i + 1, r.teacherHeads.singularValues(i));
    sv << ls << ts;
    if (r.identifiability && r.identifiability->minHeads &&
        r.identifiability->minHeads->headSingularValues.size() > 0) {
        PlotSeries ms;
        ms.name = tr("minimal W σᵣ");
        ms.color = colors::kBluishGreen;
        ms.style = PlotSeries::Style::Triangles;
        const Vec& m = r.identifiability->minHeads->headSingularValues;
        for (Index i = 0; i < m.size(); ++i) ms.points << QPointF(i + 1, m(i));
        sv << ms;
    }
    if (r.heads.singularValues.size() > 0 && r.heads.singularValues(0) > 0)
        sv << PlotSeries::hline(tr("rank threshold"),
                                r.config.solver.rankTolerance * r.heads.singularValues(0),
                                colors::kExactReference);
    m_sv->setTitle(tr("Singular values of unfold(P) — %1").arg(m_runName));
    m_sv->setSeries(sv);
}

void HeadsPanel::showInfo(bool teacherKnown) {
    const ExperimentResult& r = m_result;
    if (!teacherKnown)
        m_info->setText(
            r.identifiability && r.identifiability->minHeads
                ? tr("rank of unfold(P) %1 · min_heads %2 · no teacher (data from files)")
                      .arg(r.heads.rank)
                      .arg(r.identifiability->minHeads->minHeads)
                : tr("rank of unfold(P) %1 · no teacher (data from files)").arg(r.heads.rank));
    else if (r.identifiability && r.identifiability->minHeads)
        m_info->setText(tr("rank of unfold(P) %1 · min_heads %2 · teacher heads %3")
                            .arg(r.heads.rank)
                            .arg(r.identifiability->minHeads->minHeads)
                            .arg(r.identifiability->teacherMinimalHeads.count()));
    else
        m_info->setText(
            tr("learned rank %1, teacher rank %2; one colour scale per figure (see its colour bar)")
                .arg(r.heads.rank)
                .arg(r.teacherHeads.rank));
}

} // namespace mhla::ui
