#include "ui/experimentpanel.h"
#include "core/runner.h"
#include "core/model.h"
#include "ui/presets.h"
#include <QCheckBox>
#include <QComboBox>
#include <QGridLayout>
#include <QDoubleSpinBox>
#include <QKeySequence>
#include <QSpinBox>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QJsonArray>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollArea>
#include <QVBoxLayout>

namespace mhla::ui {

namespace {

enum TaskBits { TRandom = 1, TAssoc = 2, TAuto = 4, TAll = 7 };
enum SolverBits { SPoly = 1, SMhla = 2, SMulti = 4, SSoft = 8, STrain = 14, SAll = 15 };

struct Spec {
    const char* key;
    const char16_t* label;
    int type; // 0 int, 1 double, 2 enum, 3 bool
    int taskMask, solverMask;
    const char16_t* tip;
};

// Every parameter, its applicability, and what it means (tooltips carry meaning, formula,
// range and unit; core remains the authority on what is allowed).
const Spec kSpecs[] = {
    {"task.kind", u"Task", 2, TAll, SAll,
     u"<b>Task</b>: which data the model learns from.<br>random_mhla: labels from a random multi-head linear attention teacher.<br>"
     u"associative_memory: recall the value stored under a key.<br>automaton: look up a DFA's transition table given in the prompt."},
    {"task.seed", u"Task seed", 0, TAll, SAll,
     u"<b>Task seed</b>: seeds the teacher and every data stream (train, validation, OOD, execution). Same seed ⇒ same data, bit for bit. Integer ≥ 0."},
    {"task.samples", u"Training samples N", 0, TAll, SAll,
     u"<b>N</b>: number of training prompts. Λ = (1/N) Σ<sub>s</sub> ψ(Z<sub>s</sub>)ψ(Z<sub>s</sub>)ᵀ is accumulated from them. "
     u"The certificate needs N ≥ D (feature dimension) at the very least. Integer ≥ 1."},
    {"task.d", u"Token dimension d", 0, TRandom, SAll,
     u"<b>d</b>: dimension of each token z<sub>t</sub> ∈ ℝ<sup>d</sup>. Feature dimension D = d²(d+1)/2 (d = 4 → 40, 8 → 288, 16 → 2176). Cost O(N D²) time, O(D²) memory."},
    {"task.tokens", u"Tokens per prompt n", 0, TRandom, SAll,
     u"<b>n</b>: tokens per prompt, the query token z<sub>q</sub> = z<sub>n</sub> included. Prompt entries are N(0, 1/n)."},
    {"task.d_out", u"Output dimension d_out", 0, TRandom, SAll,
     u"<b>d_out</b>: dimension of the output f(Z) = Σ<sub>h</sub> V<sub>h</sub> S(Z) Q<sub>h</sub> z<sub>q</sub> ∈ ℝ<sup>d_out</sup>."},
    {"task.teacher_heads", u"Teacher heads H*", 0, TRandom, SAll,
     u"<b>H*</b>: heads of the random teacher; V*<sub>h</sub>, Q*<sub>h</sub> have i.i.d. N(0, 1/d) entries."},
    {"task.noise", u"Label noise σ", 1, TRandom, SAll,
     u"<b>σ</b>: labels y = f*(Z) + σε with ε ~ N(0, I). σ = 0 is realizable; σ &gt; 0 is the agnostic setting. σ ≥ 0."},
    {"task.pairs", u"Key–value pairs m", 0, TAssoc, SAll,
     u"<b>m</b>: pairs stored in each prompt. Token dimension d = 2m, tokens n = m + 1, output d_out = m."},
    {"task.orthogonal_prob", u"Orthogonal probability p", 1, TAssoc, SAll,
     u"<b>p</b> ∈ [0, 1]: probability that a prompt's keys and values are Haar-random orthogonal matrices (otherwise Gaussian columns scaled to unit length). "
     u"p = 1 makes k<sub>t</sub>ᵀk<sub>j</sub> exactly 0/1 in every prompt and breaks the certificate; lowering p restores it."},
    {"task.states", u"DFA states s", 0, TAuto, SAll,
     u"<b>s</b>: number of states of each random DFA. Value codes have dimension s."},
    {"task.alphabet", u"Alphabet size k", 0, TAuto, SAll,
     u"<b>k</b>: letters of the alphabet; the table has s·k (state, letter) pairs, key codes have dimension s·k, so d = s·k + s."},
    {"task.embedding", u"Embedding", 2, TAuto, SAll,
     u"<b>Codes</b> of keys and values: onehot (never certifiable — most cubic features are identically zero), orthogonal (one-hot rotated by a fresh "
     u"Haar-random rotation per prompt) or gaussian (fresh random unit vectors per prompt; crosstalk makes even the teacher imperfect)."},
    {"task.coverage", u"Table coverage", 1, TAuto, SAll,
     u"<b>Coverage</b> ∈ (0, 1]: fraction of the transition table listed in each training prompt (the queried pair is always included)."},
    {"task.query_filler", u"Query filler σ_f", 1, TAuto, SAll,
     u"<b>σ_f</b>: the query token is [key(q,a); σ_f g] with g ~ N(0, I). Without a filler (σ_f = 0) no encoding can be certified. σ_f ≥ 0."},
    {"task.word_length", u"Word length L", 0, TAuto, SAll,
     u"<b>L</b>: letters per word when executing the DFA (one table query per letter)."},

    {"solver.kind", u"Solver", 2, TAll, SAll,
     u"<b>Solver</b>: poly = the exact polynomial-time algorithm (solve P Λ = C, then heads from the SVD of unfold(P)); "
     u"mhla = H-head MHLA trained by SGD/Adam; multilayer = L causal linear-attention layers; softmax = a softmax Transformer block."},
    {"solver.ridge", u"Ridge ρ", 1, TAll, SPoly,
     u"<b>ρ</b> ≥ 0: P = C (Λ + ρ I)⁻¹. 0 = exact: Cholesky when certified, minimum-norm solution otherwise."},
    {"solver.heads", u"Heads H", 0, TAll, SAll,
     u"<b>H</b>: poly — keep the top H heads of the SVD of unfold(P) (0 = all of the numerical rank; fewer changes the function); "
     u"trainers — number of heads of the trained model (≥ 1)."},
    {"solver.tolerance", u"Certificate tolerance τ/λ_max", 1, TAll, SAll,
     u"<b>Relative tolerance</b>: certified ⇔ λ<sub>min</sub>(Λ) &gt; τ with τ = tolerance · λ<sub>max</sub>. Null dimension = #eigenvalues ≤ τ. Default 1e-10."},
    {"solver.rank_tolerance", u"Rank tolerance", 1, TAll, SPoly,
     u"<b>Rank tolerance</b>: the number of heads is the number of singular values of unfold(P) above rank_tolerance · σ<sub>1</sub>."},
    {"solver.layers", u"Layers L", 0, TAll, SMulti,
     u"<b>L</b>: causal linear-attention layers with residual connections; the last reads out the query token."},
    {"solver.optimizer", u"Optimizer", 2, TAll, STrain,
     u"<b>Optimizer</b> of the MSE: sgd (with momentum) or adam."},
    {"solver.lr", u"Learning rate η", 1, TAll, STrain, u"<b>η</b> &gt; 0: step size (peak value of the schedule)."},
    {"solver.momentum", u"Momentum β", 1, TAll, STrain, u"<b>β</b> ∈ [0, 1): SGD momentum (Adam's β₁)."},
    {"solver.batch", u"Batch size B", 0, TAll, STrain, u"<b>B</b>: prompts per minibatch step."},
    {"solver.epochs", u"Epochs", 0, TAll, STrain, u"<b>Epochs</b>: passes over the N training prompts."},
    {"solver.schedule", u"LR schedule", 2, TAll, STrain,
     u"<b>Schedule</b>: constant, or cosine decay after a linear warm-up."},
    {"solver.warmup", u"Warm-up fraction", 1, TAll, STrain, u"<b>Warm-up</b> ∈ [0, 1): fraction of all steps with a linear ramp of η."},
    {"solver.clip", u"Gradient clip", 1, TAll, STrain, u"<b>Clip</b>: gradient-norm clipping threshold (0 = off)."},
    {"solver.target_loss", u"Target loss", 1, TAll, STrain, u"<b>Target</b>: stop when train MSE ≤ target (0 = off)."},
    {"solver.seed", u"Solver seed", 0, TAll, STrain,
     u"<b>Solver seed</b>: initialisation (N(0, 1/d)) and shuffling of the trainer. Same seed ⇒ same run."},
    {"solver.log_every", u"Log every (epochs)", 0, TAll, STrain, u"Epochs between points of the training curves."},
    {"solver.compare_exact", u"Compare with exact solver", 3, TAll, STrain,
     u"Also run the exact solver on the same data: its losses are drawn as dashed reference lines and the distance ‖P − P_exact‖/‖P_exact‖ is tracked."},

    {"eval.val_samples", u"Validation samples", 0, TAll, SAll,
     u"Fresh prompts of the task distribution for val_mse = mean (ŷ − y)²."},
    {"eval.ood_samples", u"OOD samples", 0, TAll, SAll,
     u"Generic prompts (i.i.d. N(0,1) entries) for ood_rel_mse = E‖f̂(Z) − f*(Z)‖² / E‖f*(Z)‖². Certified ⇒ ≈ 0."},
    {"eval.words", u"Words executed", 0, TAuto, SAll, u"Random words run on fresh DFAs to measure step and word accuracy."},
    {"eval.spectrum", u"Spectrum of Λ", 2, TAll, SAll,
     u"Eigenvalues of Λ to compute: auto (all when D ≤ 1024), full, none (certificate only)."},
    {"eval.lambda_trace", u"λ_min checkpoints", 0, TAll, SAll,
     u"Checkpoints of λ<sub>min</sub>(Λ) over the first k samples, showing the certificate appear (0 = off)."},
};

int taskBit(const QString& kind) {
    if (kind == toString(TaskKind::RandomMhla)) return TRandom;
    if (kind == toString(TaskKind::AssociativeMemory)) return TAssoc;
    if (kind == toString(TaskKind::Automaton)) return TAuto;
    return TAll;
}

int solverBit(const QString& kind) {
    if (kind == toString(SolverKind::Poly)) return SPoly;
    if (kind == toString(SolverKind::Mhla)) return SMhla;
    if (kind == toString(SolverKind::Multilayer)) return SMulti;
    if (kind == toString(SolverKind::Softmax)) return SSoft;
    return SAll;
}

QStringList enumOptions(const QString& key) {
    if (key == u"task.kind")
        return {toString(TaskKind::AssociativeMemory), toString(TaskKind::RandomMhla), toString(TaskKind::Automaton)};
    if (key == u"task.embedding")
        return {toString(Embedding::OneHot), toString(Embedding::Orthogonal), toString(Embedding::Gaussian)};
    if (key == u"solver.kind")
        return {toString(SolverKind::Poly), toString(SolverKind::Mhla), toString(SolverKind::Multilayer),
                toString(SolverKind::Softmax)};
    if (key == u"solver.optimizer") return {toString(OptimizerKind::Sgd), toString(OptimizerKind::Adam)};
    if (key == u"solver.schedule") return {toString(ScheduleKind::Constant), toString(ScheduleKind::Cosine)};
    if (key == u"eval.spectrum")
        return {toString(SpectrumMode::Auto), toString(SpectrumMode::Full), toString(SpectrumMode::None)};
    return {};
}

QString numberText(const QJsonValue& v) {
    if (v.isDouble()) {
        const double x = v.toDouble();
        if (x == static_cast<double>(static_cast<long long>(x)) && std::abs(x) < 1e15)
            return QString::number(static_cast<long long>(x));
        return QString::number(x, 'g', 12);
    }
    if (v.isString()) return v.toString();
    return v.toVariant().toString();
}

} // namespace

ExperimentPanel::ExperimentPanel(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("experimentPanel"));
    m_defaults = experimentToJson(ExperimentConfig{});
    buildForm();
    setExperiment(m_defaults);
}

void ExperimentPanel::buildForm() {
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(4, 4, 4, 4);

    auto* presetRow = new QHBoxLayout;
    presetRow->addWidget(new QLabel(tr("Preset:"), this));
    m_presetCombo = new QComboBox(this);
    m_presetCombo->setObjectName(QStringLiteral("presetCombo"));
    m_presetCombo->setToolTip(tr("Ready-made experiments that run in a second. Loading one replaces every field."));
    m_presetCombo->addItem(tr("(custom)"));
    for (const auto& p : builtinPresets()) m_presetCombo->addItem(p.title);
    m_presetCombo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_presetCombo->setMinimumContentsLength(18);
    presetRow->addWidget(m_presetCombo, 1);
    outer->addLayout(presetRow);
    connect(m_presetCombo, &QComboBox::activated, this, [this](int i) {
        if (i > 0) loadPreset(i - 1);
    });
    m_sweepCheck = new QCheckBox(this);
    m_sweepCheck->setObjectName(QStringLiteral("sweepCheck"));
    m_sweepCheck->setVisible(false);
    m_sweepCheck->setToolTip(tr("Run once per value and overlay the runs"));
    outer->addWidget(m_sweepCheck);
    auto* seedsRow = new QHBoxLayout;
    auto* seedsLabel = new QLabel(tr("Repeat over seeds"), this);
    m_seedsSpin = new QSpinBox(this);
    m_seedsSpin->setObjectName(QStringLiteral("seedsSpin"));
    m_seedsSpin->setRange(1, 50);
    m_seedsSpin->setValue(1);
    m_seedsSpin->setToolTip(tr("Queue K runs with task.seed and solver.seed + 0 … K−1 (new data, new "
                               "initialisation). The Curves tab draws them as a mean with a min–max band; "
                               "the command line does the same with mhla-lab solve --seeds K."));
    seedsLabel->setBuddy(m_seedsSpin);
    seedsLabel->setToolTip(m_seedsSpin->toolTip());
    seedsRow->addWidget(seedsLabel);
    seedsRow->addWidget(m_seedsSpin);
    seedsRow->addStretch(1);
    outer->addLayout(seedsRow);

    auto* scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    auto* inner = new QWidget(scroll);
    auto* innerLay = new QVBoxLayout(inner);
    innerLay->setContentsMargins(0, 0, 0, 0);
    // A two-column grid per group, not a QFormLayout: Qt 6.4.2's QFormLayout writes out of
    // bounds in setGeometry() once rows have been hidden and an error label in a row is shown
    // (found with valgrind; tst_gui_mainwindow::switchingPresetsThenEditingIsSafe).
    QMap<QString, QGridLayout*> forms;
    for (const auto& [group, title] : {std::pair{"task", tr("Task")}, std::pair{"solver", tr("Solver")},
                                       std::pair{"eval", tr("Evaluation")}}) {
        auto* box = new QGroupBox(title, inner);
        auto* form = new QGridLayout(box);
        form->setColumnStretch(1, 1);
        form->setVerticalSpacing(3);
        forms.insert(QString::fromLatin1(group), form);
        innerLay->addWidget(box);
    }
    innerLay->addStretch(1);
    scroll->setWidget(inner);
    outer->addWidget(scroll, 1);

    for (const Spec& s : kSpecs) {
        Field f;
        f.key = QString::fromLatin1(s.key);
        f.type = static_cast<Field::Type>(s.type);
        f.taskMask = s.taskMask;
        f.solverMask = s.solverMask;
        f.form = forms.value(f.key.section(u'.', 0, 0));
        const QString tip = QString::fromUtf16(s.tip);
        f.row = new QWidget(inner);
        auto* v = new QVBoxLayout(f.row);
        v->setContentsMargins(0, 0, 0, 0);
        v->setSpacing(1);
        QWidget* input = nullptr;
        switch (f.type) {
        case Field::Type::Int:
        case Field::Type::Double:
            f.edit = new QLineEdit(f.row);
            connect(f.edit, &QLineEdit::textChanged, this, &ExperimentPanel::revalidate);
            input = f.edit;
            break;
        case Field::Type::Enum:
            f.combo = new QComboBox(f.row);
            f.combo->addItems(enumOptions(f.key));
            connect(f.combo, &QComboBox::currentIndexChanged, this, [this] {
                updateVisibility();
                revalidate();
            });
            input = f.combo;
            break;
        case Field::Type::Bool:
            f.check = new QCheckBox(f.row);
            connect(f.check, &QCheckBox::toggled, this, &ExperimentPanel::revalidate);
            input = f.check;
            break;
        }
        input->setObjectName(QStringLiteral("field_") + f.key);
        input->setToolTip(tip);
        v->addWidget(input);
        f.error = new QLabel(f.row);
        f.error->setObjectName(QStringLiteral("error_") + f.key);
        f.error->setWordWrap(true);
        f.error->setStyleSheet(QStringLiteral("color: #d55e00;"));
        f.error->setVisible(false);
        v->addWidget(f.error);
        auto* label = new QLabel(QString::fromUtf16(s.label), inner);
        label->setToolTip(tip);
        label->setBuddy(input);
        const int r = f.form->rowCount();
        f.form->addWidget(label, r, 0, Qt::AlignRight | Qt::AlignTop);
        f.form->addWidget(f.row, r, 1);
        f.label = label;
        m_fields << f;
    }

    m_derived = new QLabel(this);
    m_derived->setObjectName(QStringLiteral("derivedLabel"));
    m_derived->setWordWrap(true);
    m_derived->setToolTip(tr("Dimensions implied by the task: token dimension d, tokens n, output d_out and "
                             "feature dimension D = d²(d+1)/2."));
    outer->addWidget(m_derived);
    m_generalLabel = new QLabel(this);
    m_generalLabel->setObjectName(QStringLiteral("generalError"));
    m_generalLabel->setWordWrap(true);
    m_generalLabel->setStyleSheet(QStringLiteral("color: #d55e00;"));
    m_generalLabel->setVisible(false);
    outer->addWidget(m_generalLabel);

    auto* buttons = new QHBoxLayout;
    m_run = new QPushButton(tr("Run"), this);
    m_run->setObjectName(QStringLiteral("runButton"));
    m_run->setToolTip(tr("Run the experiment (Ctrl+R)"));
    m_stop = new QPushButton(tr("Stop"), this);
    m_stop->setObjectName(QStringLiteral("stopButton"));
    m_stop->setToolTip(tr("Cancel the running experiment at once (Esc)"));
    m_reset = new QPushButton(tr("Reset"), this);
    m_reset->setObjectName(QStringLiteral("resetButton"));
    m_reset->setToolTip(tr("Clear every run and run the current experiment again from the start: "
                           "same seeds ⇒ the same run (Ctrl+Shift+R)"));
    buttons->addWidget(m_run);
    buttons->addWidget(m_stop);
    buttons->addWidget(m_reset);
    outer->addLayout(buttons);

    // Live training control (trainers): applies to the running run at its next epoch/minibatch.
    auto* live = new QHBoxLayout;
    m_pause = new QPushButton(tr("Pause"), this);
    m_pause->setObjectName(QStringLiteral("pauseButton"));
    m_pause->setCheckable(true);
    m_pause->setToolTip(tr("Pause training between epochs; press again to resume (Ctrl+P)"));
    m_pause->setShortcut(QKeySequence(QStringLiteral("Ctrl+P")));
    m_step = new QPushButton(tr("Step"), this);
    m_step->setObjectName(QStringLiteral("stepButton"));
    m_step->setToolTip(tr("While paused: train exactly one more epoch (Ctrl+T)"));
    m_step->setShortcut(QKeySequence(QStringLiteral("Ctrl+T")));
    auto* lrLabel = new QLabel(tr("η ×"), this);
    m_lrScale = new QDoubleSpinBox(this);
    m_lrScale->setObjectName(QStringLiteral("lrScaleSpin"));
    m_lrScale->setRange(0.001, 1000.0);
    m_lrScale->setDecimals(3);
    m_lrScale->setValue(1.0);
    m_lrScale->setStepType(QAbstractSpinBox::AdaptiveDecimalStepType);
    m_lrScale->setToolTip(tr("Multiplies the scheduled learning rate of the running training from its next "
                             "minibatch on, without restarting; the history records the rate used."));
    lrLabel->setBuddy(m_lrScale);
    lrLabel->setToolTip(m_lrScale->toolTip());
    live->addWidget(m_pause);
    live->addWidget(m_step);
    live->addWidget(lrLabel);
    live->addWidget(m_lrScale);
    outer->addLayout(live);
    connect(m_pause, &QPushButton::toggled, this, [this](bool on) {
        m_step->setEnabled(on);
        Q_EMIT pauseToggled(on);
    });
    connect(m_step, &QPushButton::clicked, this, &ExperimentPanel::stepRequested);
    connect(m_lrScale, &QDoubleSpinBox::valueChanged, this, &ExperimentPanel::learningRateScaleChanged);
    m_step->setEnabled(false);
    connect(m_run, &QPushButton::clicked, this, &ExperimentPanel::runRequested);
    connect(m_stop, &QPushButton::clicked, this, &ExperimentPanel::stopRequested);
    connect(m_reset, &QPushButton::clicked, this, &ExperimentPanel::resetRequested);
    connect(m_sweepCheck, &QCheckBox::toggled, this, &ExperimentPanel::edited);
}

QJsonValue ExperimentPanel::fieldValue(const Field& f) const {
    switch (f.type) {
    case Field::Type::Int: {
        const QString t = f.edit->text().trimmed();
        bool ok = false;
        const qlonglong i = t.toLongLong(&ok);
        if (ok) return QJsonValue(i);
        const double x = t.toDouble(&ok);
        if (ok) return QJsonValue(x);
        return QJsonValue(t);
    }
    case Field::Type::Double: {
        const QString t = f.edit->text().trimmed();
        bool ok = false;
        const double x = t.toDouble(&ok);
        if (ok) return QJsonValue(x);
        return QJsonValue(t);
    }
    case Field::Type::Enum: return QJsonValue(f.combo->currentText());
    case Field::Type::Bool: return QJsonValue(f.check->isChecked());
    }
    return {};
}

void ExperimentPanel::setFieldValue(Field& f, const QJsonValue& v) {
    switch (f.type) {
    case Field::Type::Int:
    case Field::Type::Double: f.edit->setText(numberText(v)); break;
    case Field::Type::Enum: {
        const int i = f.combo->findText(v.toString());
        if (i >= 0) f.combo->setCurrentIndex(i);
        break;
    }
    case Field::Type::Bool: f.check->setChecked(v.toBool()); break;
    }
}

QJsonObject ExperimentPanel::experimentJson() const {
    QJsonObject o;
    for (const Field& f : m_fields) setDotted(o, f.key, fieldValue(f));
    return o;
}

QString ExperimentPanel::setExperiment(const QJsonObject& obj) {
    QString error;
    QJsonObject resolved;
    try {
        resolved = experimentToJson(experimentFromJson(obj));
    } catch (const ConfigError& e) {
        error = QString::fromStdString(e.what());
        resolved = m_defaults;
        // Keep what the file says so that the user sees (and can fix) the offending value.
        for (const QString& group : {QStringLiteral("task"), QStringLiteral("solver"), QStringLiteral("eval")}) {
            const QJsonObject g = obj.value(group).toObject();
            for (auto it = g.begin(); it != g.end(); ++it) setDotted(resolved, group + u'.' + it.key(), it.value());
        }
    }
    m_loading = true;
    for (Field& f : m_fields) {
        const QJsonValue v = getDotted(resolved, f.key);
        if (!v.isUndefined()) setFieldValue(f, v);
    }
    m_loading = false;
    m_preset = -1;
    m_presetCombo->setCurrentIndex(0);
    m_sweepCheck->setVisible(false);
    m_sweepCheck->setChecked(false);
    updateVisibility();
    revalidate();
    return error;
}

void ExperimentPanel::loadPreset(int index) {
    const auto& presets = builtinPresets();
    if (index < 0 || index >= presets.size()) return;
    const Preset& p = presets[index];
    setExperiment(p.experiment);
    m_preset = index;
    m_presetCombo->setCurrentIndex(index + 1);
    if (!p.sweepKey.isEmpty()) {
        QStringList vals;
        for (const auto& v : p.sweepValues) vals << numberText(v);
        m_sweepCheck->setText(tr("Run as sweep: %1 = %2 (%3 runs overlaid)")
                                  .arg(p.sweepKey, vals.join(QStringLiteral(", ")))
                                  .arg(p.sweepValues.size()));
        m_sweepCheck->setVisible(true);
        m_sweepCheck->setChecked(true);
    }
    Q_EMIT presetLoaded(index);
}

ExperimentConfig ExperimentPanel::config() const { return experimentFromJson(experimentJson()); }

QList<ExperimentPanel::NamedConfig> ExperimentPanel::baseJobs() const {
    QList<NamedConfig> out;
    const QJsonObject base = experimentJson();
    const QString kind = getDotted(base, QStringLiteral("solver.kind")).toString();
    const QString task = getDotted(base, QStringLiteral("task.kind")).toString();
    QString baseName = kind + QStringLiteral(" · ") + task;
    const auto& presets = builtinPresets();
    if (m_preset >= 0 && m_preset < presets.size()) {
        const Preset& p = presets[m_preset];
        baseName = p.shortName;
        if (!m_sweepCheck->isHidden() && m_sweepCheck->isChecked() && !p.sweepKey.isEmpty()) {
            for (const auto& v : p.sweepValues) {
                QJsonObject o = base;
                setDotted(o, p.sweepKey, v);
                try {
                    const ExperimentConfig cfg = experimentFromJson(o);
                    validate(cfg);
                    out << NamedConfig{QStringLiteral("%1 · %2=%3").arg(baseName, p.sweepKey.section(u'.', 1), numberText(v)), cfg};
                } catch (const ConfigError&) {
                    // An invalid sweep value is skipped; the base experiment was validated.
                }
            }
            return out;
        }
    }
    out << NamedConfig{baseName, config()};
    return out;
}

QList<ExperimentPanel::NamedConfig> ExperimentPanel::jobs() const {
    const QList<NamedConfig> base = baseJobs();
    const int seeds = m_seedsSpin->value();
    if (seeds <= 1) return base;
    QList<NamedConfig> out;
    for (const NamedConfig& job : base) {
        try {
            for (const ExperimentConfig& c : seedVariants(job.config, seeds))
                out << NamedConfig{QStringLiteral("%1 · seed %2").arg(job.name).arg(c.task.seed), c};
        } catch (const ConfigError&) {
            out << job; // seeds too close to 2^53 to repeat: run the experiment once
        }
    }
    return out;
}

void ExperimentPanel::markField(Field& f, const QString& message) {
    m_errors.insert(f.key, message);
    f.error->setText(message);
    f.error->setVisible(true);
    QWidget* input = f.edit ? static_cast<QWidget*>(f.edit) : f.combo ? static_cast<QWidget*>(f.combo) : f.check;
    input->setStyleSheet(QStringLiteral("border: 2px solid #d55e00; border-radius: 3px;"));
}

ExperimentPanel::Field* ExperimentPanel::fieldForMessage(const QString& message) {
    // Longest key first so that "task.d_out" wins over "task.d".
    QList<Field*> byLength;
    for (Field& f : m_fields) byLength << &f;
    std::sort(byLength.begin(), byLength.end(), [](Field* a, Field* b) { return a->key.size() > b->key.size(); });
    // Core's messages start with the key they are about ("task.samples: 0 is out of range ...").
    for (Field* f : byLength)
        if (message.startsWith(f->key + u':')) return f;
    for (Field* f : byLength) {
        const QRegularExpression re(QStringLiteral("(?<![\\w.])") + QRegularExpression::escape(f->key) +
                                    QStringLiteral("(?![\\w])"));
        if (re.match(message).hasMatch()) return f;
    }
    for (Field* f : byLength) {
        const QString bare = f->key.section(u'.', 1);
        if (bare.size() < 3) continue;
        const QRegularExpression re(QStringLiteral("(?<![\\w.])") + QRegularExpression::escape(bare) +
                                    QStringLiteral("(?![\\w])"));
        if (re.match(message).hasMatch() && message.contains(f->key.section(u'.', 0, 0))) return f;
    }
    for (Field* f : byLength) {
        const QString bare = f->key.section(u'.', 1);
        if (bare.size() < 3) continue;
        const QRegularExpression re(QStringLiteral("(?<![\\w.])") + QRegularExpression::escape(bare) +
                                    QStringLiteral("(?![\\w])"));
        if (re.match(message).hasMatch()) return f;
    }
    return nullptr;
}

void ExperimentPanel::revalidate() {
    if (m_loading) return;
    const bool wasValid = m_valid;
    m_errors.clear();
    m_general.clear();
    for (Field& f : m_fields) {
        f.error->setVisible(false);
        f.error->clear();
        QWidget* input = f.edit ? static_cast<QWidget*>(f.edit) : f.combo ? static_cast<QWidget*>(f.combo) : f.check;
        input->setStyleSheet(QString());
    }
    // Core reports one error at a time: mark the field it names, put that field back to its
    // default in a scratch copy, and ask again, so that every bad field is marked at once.
    QJsonObject work = experimentJson();
    for (int iter = 0; iter <= m_fields.size(); ++iter) {
        try {
            validate(experimentFromJson(work));
            break;
        } catch (const ConfigError& e) {
            const QString msg = QString::fromStdString(e.what());
            Field* f = fieldForMessage(msg);
            if (!f || m_errors.contains(f->key)) {
                m_general = msg;
                break;
            }
            markField(*f, msg);
            setDotted(work, f->key, getDotted(m_defaults, f->key));
        }
    }
    m_valid = m_errors.isEmpty() && m_general.isEmpty();
    m_generalLabel->setText(m_general);
    m_generalLabel->setVisible(!m_general.isEmpty());
    if (!m_valid && m_general.isEmpty())
        m_run->setToolTip(tr("Fix the marked field(s) first: %1").arg(m_errors.first()));
    else if (!m_valid)
        m_run->setToolTip(tr("Cannot run: %1").arg(m_general));
    else
        m_run->setToolTip(tr("Run the experiment (Ctrl+R)"));
    updateDerived();
    setRunning(m_running);
    if (wasValid != m_valid) Q_EMIT validityChanged(m_valid);
    Q_EMIT edited();
}

void ExperimentPanel::updateVisibility() {
    const QJsonObject o = experimentJson();
    const int tb = taskBit(getDotted(o, QStringLiteral("task.kind")).toString());
    const int sb = solverBit(getDotted(o, QStringLiteral("solver.kind")).toString());
    for (Field& f : m_fields) {
        const bool visible = (f.taskMask & tb) && (f.solverMask & sb);
        f.label->setVisible(visible);
        f.row->setVisible(visible);
    }
}

void ExperimentPanel::updateDerived() {
    if (!m_valid) {
        m_derived->setText(QString());
        return;
    }
    const ExperimentConfig cfg = config();
    const int d = cfg.promptDim();
    m_derived->setText(tr("d = %1, n = %2, d_out = %3, D = d²(d+1)/2 = %4 features")
                           .arg(d)
                           .arg(cfg.tokenCount())
                           .arg(cfg.outputDim())
                           .arg(featureDim(d)));
}

void ExperimentPanel::setRunning(bool running) {
    m_running = running;
    m_run->setEnabled(m_valid);
    m_stop->setEnabled(running);
    m_reset->setEnabled(m_valid);
}

} // namespace mhla::ui
