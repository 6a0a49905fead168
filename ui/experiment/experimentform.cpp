// The experiment panel's widgets, built once from the key table: the preset row, the seeds,
// one row per key in its group (Task, Solver, Evaluation), the run buttons and the live
// training controls. What the widgets mean (values, validation, presets, sweeps) is
// experimentpanel.cpp's.
#include "ui/experiment/experimentpanel.h"
#include "ui/experiment/presets.h"
#include "ui/plot/elidedcombobox.h"
#include "ui/plot/theme.h"
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QKeySequence>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>

namespace mhla::ui {

namespace {

/// Heads a trainer gets when the solver is switched from poly with H = 0 ("all", which no
/// trainer accepts): the smallest value every trainer accepts.
constexpr int kTrainerHeadsAfterPoly = 1;

} // namespace

void ExperimentPanel::buildForm() {
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(4, 4, 4, 4);
    buildPresetRow(outer);
    buildSeedsRow(outer);
    buildFields(outer);
    buildRunControls(outer);
    setRunning(false);
}

void ExperimentPanel::buildPresetRow(QVBoxLayout* outer) {
    auto* presetRow = new QHBoxLayout;
    presetRow->addWidget(new QLabel(tr("Preset:"), this));
    // A long title is elided ("Noise vs identifiability (σ = 0.0…"), whole in the tooltip.
    auto* presets = new ElidedComboBox(this);
    presets->setBaseToolTip(
        tr("Ready-made experiments that run in a second. Loading one replaces every field."));
    m_presetCombo = presets;
    m_presetCombo->setObjectName(QStringLiteral("presetCombo"));
    m_presetCombo->addItem(tr("(custom)"));
    for (const auto& p : builtinPresets()) m_presetCombo->addItem(p.title);
    m_presetCombo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_presetCombo->setMinimumContentsLength(18);
    presetRow->addWidget(m_presetCombo, 1);
    m_revert = new QPushButton(tr("Revert"), this);
    m_revert->setObjectName(QStringLiteral("revertPresetButton"));
    m_revert->setToolTip(tr("Put every field back to the preset's values"));
    m_revert->setEnabled(false);
    presetRow->addWidget(m_revert);
    outer->addLayout(presetRow);
    connect(m_revert, &QPushButton::clicked, this, [this] {
        if (m_preset >= 0) loadPreset(m_preset);
    });
    connect(m_presetCombo, &QComboBox::activated, this, [this](int i) {
        if (i <= 0) return;
        if (m_presetGuard && !m_presetGuard()) {
            // Kept: the box shows the form's preset again (or "(custom)").
            const QSignalBlocker block(m_presetCombo);
            m_presetCombo->setCurrentIndex(m_preset + 1);
            return;
        }
        loadPreset(i - 1);
    });
}

void ExperimentPanel::buildSeedsRow(QVBoxLayout* outer) {
    m_sweepCheck = new QCheckBox(this);
    m_sweepCheck->setObjectName(QStringLiteral("sweepCheck"));
    m_sweepCheck->setVisible(false);
    m_sweepCheck->setToolTip(tr("Run once per value and overlay the runs"));
    outer->addWidget(m_sweepCheck);
    auto* seedsRow = new QHBoxLayout;
    auto* seedsLabel = new QLabel(tr("Repeat over seeds"), this);
    m_seedsSpin = new QSpinBox(this);
    m_seedsSpin->setObjectName(QStringLiteral("seedsSpin"));
    m_seedsSpin->setRange(1, kMaxSeeds);
    m_seedsSpin->setValue(1);
    m_seedsSpin->setToolTip(
        tr("Queue K runs with task.seed and solver.seed + 0 … K−1 (new data, new "
           "initialisation). The Curves tab draws them as a median with a min–max band; "
           "the command line does the same with mhla-lab solve --seeds K."));
    seedsLabel->setBuddy(m_seedsSpin);
    seedsLabel->setToolTip(m_seedsSpin->toolTip());
    seedsRow->addWidget(seedsLabel);
    seedsRow->addWidget(m_seedsSpin);
    seedsRow->addStretch(1);
    outer->addLayout(seedsRow);

    // The sweep changes the planned runs, which revalidate() checks (and it emits edited()).
    connect(m_sweepCheck, &QCheckBox::toggled, this, &ExperimentPanel::revalidate);
}

void ExperimentPanel::buildFields(QVBoxLayout* outer) {
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
    for (const auto& [group, title] :
         {std::pair{"task", tr("Task")}, std::pair{"solver", tr("Solver")},
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

    for (const KeyInfo& k : experimentKeys())
        m_fields << makeField(k, forms.value(k.section), inner);

    // poly reads H = 0 as "all heads"; a trainer refuses it. Switching the solver by hand from
    // poly to a trainer gives it a valid H instead of a form that cannot run (a loaded file
    // keeps its values, marked).
    if (Field* kind = fieldForKey(QStringLiteral("solver.kind")))
        if (Field* heads = fieldForKey(QStringLiteral("solver.heads")))
            connect(kind->combo, &QComboBox::currentIndexChanged, this,
                    [this, edit = heads->edit](int i) {
                        if (m_loading || static_cast<SolverKind>(i) == SolverKind::Poly) return;
                        if (edit->text().trimmed() == QStringLiteral("0"))
                            edit->setText(QString::number(kTrainerHeadsAfterPoly));
                    });

    m_derived = new QLabel(this);
    m_derived->setObjectName(QStringLiteral("derivedLabel"));
    m_derived->setWordWrap(true);
    m_derived->setToolTip(
        tr("Dimensions implied by the task: token dimension d, tokens n, output d_out and "
           "feature dimension D = d²(d+1)/2."));
    outer->addWidget(m_derived);
    m_generalLabel = new QLabel(this);
    m_generalLabel->setObjectName(QStringLiteral("generalError"));
    m_generalLabel->setWordWrap(true);
    m_generalLabel->setStyleSheet(QStringLiteral("color: %1;").arg(colors::css(colors::kError)));
    m_generalLabel->setVisible(false);
    outer->addWidget(m_generalLabel);
}

ExperimentPanel::Field ExperimentPanel::makeField(const KeyInfo& k, QGridLayout* form,
                                                  QWidget* inner) {
    Field f;
    f.info = &k;
    f.key = k.path();
    switch (k.type) {
    case KeyInfo::Type::Integer: f.type = Field::Type::Int; break;
    case KeyInfo::Type::Real: f.type = Field::Type::Double; break;
    case KeyInfo::Type::Choice: f.type = Field::Type::Enum; break;
    case KeyInfo::Type::Bool: f.type = Field::Type::Bool; break;
    case KeyInfo::Type::Path: f.type = Field::Type::Text; break;
    }
    f.form = form;
    const QString tip = k.tooltipHtml();
    f.row = new QWidget(inner);
    auto* v = new QVBoxLayout(f.row);
    v->setContentsMargins(0, 0, 0, 0);
    v->setSpacing(1);
    QWidget* input = nullptr;
    switch (f.type) {
    case Field::Type::Int:
    case Field::Type::Double:
    case Field::Type::Text:
        f.edit = new QLineEdit(f.row);
        connect(f.edit, &QLineEdit::textChanged, this, &ExperimentPanel::revalidate);
        input = f.edit;
        break;
    case Field::Type::Enum:
        f.combo = new QComboBox(f.row);
        f.combo->addItems(k.choices); // enum order: the index is the value core stores
        connect(f.combo, &QComboBox::currentIndexChanged, this, [this] {
            updateVisibility();
            revalidate();
        });
        input = f.combo;
        break;
    case Field::Type::Bool:
        f.check = new QCheckBox(f.row);
        connect(f.check, &QCheckBox::toggled, this, [this] {
            updateVisibility(); // solver.compare_exact decides whether exact-only keys are read
            revalidate();
        });
        input = f.check;
        break;
    }
    input->setObjectName(QStringLiteral("field_") + f.key);
    input->setToolTip(tip);
    v->addWidget(input);
    f.error = new QLabel(f.row);
    f.error->setObjectName(QStringLiteral("error_") + f.key);
    f.error->setWordWrap(true);
    f.error->setStyleSheet(QStringLiteral("color: %1;").arg(colors::css(colors::kError)));
    f.error->setVisible(false);
    v->addWidget(f.error);
    auto* label = new QLabel(k.label, inner);
    label->setObjectName(QStringLiteral("label_") + f.key);
    label->setWordWrap(true);
    label->setToolTip(tip);
    label->setBuddy(input);
    const int r = f.form->rowCount();
    f.form->addWidget(label, r, 0, Qt::AlignRight | Qt::AlignTop);
    f.form->addWidget(f.row, r, 1);
    f.label = label;
    return f;
}

void ExperimentPanel::buildRunControls(QVBoxLayout* outer) {
    auto* buttons = new QHBoxLayout;
    m_run = new QPushButton(tr("Run"), this);
    m_run->setObjectName(QStringLiteral("runButton"));
    m_run->setToolTip(tr("Run the experiment (Ctrl+R)"));
    m_stop = new QPushButton(tr("Stop"), this);
    m_stop->setObjectName(QStringLiteral("stopButton"));
    m_stop->setToolTip(tr("Cancel the running experiment at once (Esc)"));
    m_reset = new QPushButton(tr("Clear runs and rerun"), this);
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
    m_lrScale->setToolTip(
        tr("Multiplies the scheduled learning rate of the running training from its next "
           "minibatch on, without restarting; the history records the rate used."));
    lrLabel->setBuddy(m_lrScale);
    lrLabel->setToolTip(m_lrScale->toolTip());
    live->addWidget(m_pause);
    live->addWidget(m_step);
    live->addWidget(lrLabel);
    live->addWidget(m_lrScale);
    outer->addLayout(live);
    connect(m_pause, &QPushButton::toggled, this, [this](bool on) {
        m_pause->setText(on ? tr("Resume") : tr("Pause"));
        m_pause->setShortcut(
            QKeySequence(QStringLiteral("Ctrl+P"))); // setText() replaces the shortcut
        m_step->setEnabled(on && m_trains);
        if (!m_resettingControls) Q_EMIT pauseToggled(on);
    });
    connect(m_step, &QPushButton::clicked, this, &ExperimentPanel::stepRequested);
    connect(m_lrScale, &QDoubleSpinBox::valueChanged, this, [this](double v) {
        if (!m_resettingControls) Q_EMIT learningRateScaleChanged(v);
    });
    connect(m_run, &QPushButton::clicked, this, &ExperimentPanel::runRequested);
    connect(m_stop, &QPushButton::clicked, this, &ExperimentPanel::stopRequested);
    connect(m_reset, &QPushButton::clicked, this, &ExperimentPanel::resetRequested);
}

} // namespace mhla::ui
