#include "ui/experiment/experimentpanel.h"
#include "core/algebra/model.h"
#include "core/records/resultio.h"
#include "core/run/admission.h"
#include "core/run/runner.h"
#include "core/sweep/sweep.h"
#include "ui/experiment/presets.h"
#include "ui/plot/theme.h"
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QJsonArray>
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

QString valueText(const QJsonValue& v) {
    if (v.isDouble()) return numberText(v.toDouble());
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
    m_presetCombo->setToolTip(
        tr("Ready-made experiments that run in a second. Loading one replaces every field."));
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

    for (const KeyInfo& k : experimentKeys()) {
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
        f.form = forms.value(k.section);
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
        m_fields << f;
    }

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
    setRunning(false);
    connect(m_run, &QPushButton::clicked, this, &ExperimentPanel::runRequested);
    connect(m_stop, &QPushButton::clicked, this, &ExperimentPanel::stopRequested);
    connect(m_reset, &QPushButton::clicked, this, &ExperimentPanel::resetRequested);
    // The sweep changes the planned runs, which revalidate() checks (and it emits edited()).
    connect(m_sweepCheck, &QCheckBox::toggled, this, &ExperimentPanel::revalidate);
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
    case Field::Type::Text: return QJsonValue(f.edit->text().trimmed());
    }
    return {};
}

void ExperimentPanel::setFieldValue(Field& f, const QJsonValue& v) {
    switch (f.type) {
    case Field::Type::Int:
    case Field::Type::Double:
    case Field::Type::Text: f.edit->setText(valueText(v)); break;
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
        for (const QString& group :
             {QStringLiteral("task"), QStringLiteral("solver"), QStringLiteral("eval")}) {
            const QJsonObject g = obj.value(group).toObject();
            for (auto it = g.begin(); it != g.end(); ++it)
                setDotted(resolved, group + u'.' + it.key(), it.value());
        }
    }
    m_loading = true;
    for (Field& f : m_fields) {
        const QJsonValue v = getDotted(resolved, f.key);
        if (!v.isUndefined()) setFieldValue(f, v);
    }
    m_loading = false;
    m_preset = -1;
    m_fileSweep = SweepSpec();
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
    if (!p.sweep.axes.empty()) showSweepCheck(p.sweep);
    updatePresetMark();
    Q_EMIT presetLoaded(index);
}

ExperimentConfig ExperimentPanel::config() const { return experimentFromJson(experimentJson()); }

void ExperimentPanel::showSweepCheck(const SweepSpec& spec) {
    QStringList shownParts, tipParts;
    qsizetype runs = 1;
    for (const SweepAxis& a : spec.axes) {
        QStringList vals;
        for (const auto& v : a.values) vals << valueText(v);
        // Short enough for the dock at 1280×720; the whole story is in the tooltip.
        QString shown = vals.join(QStringLiteral(", "));
        if (shown.size() > 20) shown = vals.first() + QStringLiteral(", …, ") + vals.last();
        shownParts << QStringLiteral("%1 = %2").arg(a.key.section(u'.', 1), shown);
        const KeyInfo* k = findExperimentKey(a.key);
        tipParts << QStringLiteral("%1 (%2 = %3)")
                        .arg(k ? k->label : a.key, a.key, vals.join(QStringLiteral(", ")));
        runs = spec.mode == SweepSpec::Mode::Zip ? a.values.size() : runs * a.values.size();
    }
    m_sweepCheck->setText(tr("Sweep %1").arg(shownParts.join(QStringLiteral("; "))));
    m_sweepCheck->setToolTip(tr("Run once per point of %1 and overlay the %2 runs")
                                 .arg(tipParts.join(tr(" and ")))
                                 .arg(runs));
    m_sweepCheck->setVisible(true);
    m_sweepCheck->setChecked(true);
}

void ExperimentPanel::recognisePreset() {
    if (!m_valid) return;
    const auto& presets = builtinPresets();
    const QJsonObject sweep = m_fileSweep.toJson();
    for (int i = 0; i < presets.size(); ++i)
        if (presets[i].sweep.toJson() == sweep && changedFrom(i).isEmpty()) {
            m_preset = i;
            m_presetCombo->setCurrentIndex(i + 1);
            updatePresetMark();
            return;
        }
}

void ExperimentPanel::setFileSweep(const SweepSpec& spec) {
    m_fileSweep = spec;
    if (spec.axes.empty()) return;
    showSweepCheck(spec);
    m_seedsSpin->setValue(spec.seeds);
}

const SweepSpec* ExperimentPanel::activeSweep() const {
    const auto& presets = builtinPresets();
    const SweepSpec* sweep = m_preset >= 0 && m_preset < presets.size()
                                 ? &presets[m_preset].sweep
                                 : (m_fileSweep.axes.empty() ? nullptr : &m_fileSweep);
    return sweep && !m_sweepCheck->isHidden() && m_sweepCheck->isChecked() ? sweep : nullptr;
}

SweepPlan ExperimentPanel::plan() const {
    // Core's one job planner, as `mhla-lab sweep` plans: every point (none without a sweep)
    // times the seeds box, each run validated and admitted; a bad point is a ConfigError that
    // names it (the GUI used to skip it silently).
    SweepSpec spec; // no axes: the experiment alone
    if (const SweepSpec* sweep = activeSweep()) spec = *sweep;
    spec.seeds = m_seedsSpin->value();
    return planSweep(experimentJson(), spec);
}

QString ExperimentPanel::planProblem() const {
    try {
        (void)plan();
        return {};
    } catch (const ConfigError& e) {
        return QString::fromUtf8(e.what());
    }
}

QList<ExperimentPanel::NamedConfig> ExperimentPanel::jobs() const {
    SweepPlan p;
    try {
        p = plan();
    } catch (const ConfigError&) {
        return {}; // revalidate() shows why, and Run is disabled
    }
    // "solver kind · task kind" of an experiment object (each run's own, when they are swept).
    const auto kindsName = [](const QJsonObject& o) {
        return getDotted(o, QStringLiteral("solver.kind")).toString() + QStringLiteral(" · ") +
               getDotted(o, QStringLiteral("task.kind")).toString();
    };
    QString baseName = kindsName(p.base);
    const auto& presets = builtinPresets();
    const bool fromPreset = m_preset >= 0 && m_preset < presets.size();
    if (fromPreset) {
        baseName = presets[m_preset].shortName;
        // The name says what was edited ("#10 Random MHLA d=4" for a d = 14 run misled).
        const QStringList changed = changedFromPreset();
        if (!changed.isEmpty())
            baseName += QStringLiteral(" (%1)").arg(
                changed.size() > 3
                    ? changed.mid(0, 3).join(QStringLiteral(", ")) + QStringLiteral(", …")
                    : changed.join(QStringLiteral(", ")));
    }
    QList<NamedConfig> out;
    for (const SweepRun& run : p.runs) {
        const SweepPoint& pt = p.points[static_cast<size_t>(run.point)];
        QJsonObject o = p.base;
        QStringList parts;
        for (const auto& [key, v] : pt.values) {
            setDotted(o, key, v);
            // Without a preset the name starts with the run's own kinds (not the form's): a
            // swept solver.kind or task.kind is said there.
            if (!fromPreset &&
                (key == QStringLiteral("solver.kind") || key == QStringLiteral("task.kind")))
                continue;
            parts << QStringLiteral("%1=%2").arg(key.section(u'.', 1), valueText(v));
        }
        QString name = fromPreset ? baseName : kindsName(o);
        if (!parts.isEmpty()) name += QStringLiteral(" · ") + parts.join(QStringLiteral(", "));
        if (p.spec.seeds > 1) name += QStringLiteral(" · seed %1").arg(run.config.task.seed);
        out << NamedConfig{name, run.config};
    }
    return out;
}

void ExperimentPanel::markField(Field& f, const QString& message) {
    m_errors.insert(f.key, message);
    f.error->setText(message);
    f.error->setVisible(true);
    QWidget* input = f.edit    ? static_cast<QWidget*>(f.edit)
                     : f.combo ? static_cast<QWidget*>(f.combo)
                               : f.check;
    input->setStyleSheet(QStringLiteral("border: 2px solid %1; border-radius: 3px;")
                             .arg(colors::css(colors::kError)));
}

ExperimentPanel::Field* ExperimentPanel::fieldForKey(const QString& key) {
    for (Field& f : m_fields)
        if (f.key == key) return &f;
    return nullptr;
}

QString ExperimentPanel::messageForField(const Field& f, const QString& message) {
    // Core's messages start with the dotted key ("task.samples: 0 is out of range ..."); the
    // form shows the field's label instead.
    const QString prefix = f.key + QStringLiteral(": ");
    if (message.startsWith(prefix))
        return f.info->label + QStringLiteral(": ") + message.mid(prefix.size());
    return message;
}

void ExperimentPanel::revalidate() {
    if (m_loading) return;
    const bool wasValid = m_valid;
    m_errors.clear();
    m_general.clear();
    for (Field& f : m_fields) {
        f.error->setVisible(false);
        f.error->clear();
        QWidget* input = f.edit    ? static_cast<QWidget*>(f.edit)
                         : f.combo ? static_cast<QWidget*>(f.combo)
                                   : f.check;
        input->setStyleSheet(QString());
    }
    // Every problem at once, each with the key it is about (core's structured issues).
    QStringList general;
    std::vector<ConfigIssue> issues = validateAll(experimentJson());
    if (issues.empty()) issues = admissionIssues(experimentFromJson(experimentJson()));
    for (const ConfigIssue& issue : issues) {
        Field* f = fieldForKey(issue.key);
        if (f && !m_errors.contains(f->key)) {
            const QString text = messageForField(*f, issue.message);
            markField(*f, text);
            if (f->row->isHidden()) general << text; // a key this run does not read, still invalid
        } else if (!f) {
            general << issue.message;
        }
    }
    if (issues.empty() && general.isEmpty() && activeSweep())
        if (const QString why = planProblem(); !why.isEmpty())
            general << why; // e.g. "sweep point 3 (task.d=70): …"
    m_general = general.join(u'\n');
    m_valid = m_errors.isEmpty() && m_general.isEmpty();
    m_generalLabel->setText(m_general);
    m_generalLabel->setVisible(!m_general.isEmpty());
    if (!m_valid && !m_errors.isEmpty())
        m_run->setToolTip((m_errors.size() == 1
                               ? tr("Fix the marked field first: %1")
                               : tr("Fix the %1 marked fields first: %2").arg(m_errors.size()))
                              .arg(m_errors.first()));
    else if (!m_valid) m_run->setToolTip(tr("Cannot run: %1").arg(m_general));
    else m_run->setToolTip(tr("Run the experiment (Ctrl+R)"));
    updateDerived();
    updatePresetMark();
    setRunning(m_running, m_trains);
    if (wasValid != m_valid) Q_EMIT validityChanged(m_valid);
    Q_EMIT edited();
}

ExperimentConfig ExperimentPanel::selectorConfig() const {
    // Applicability depends only on the choices and switches (task kind, solver kind,
    // optimizer, compare_exact), which are always valid: take them from the form.
    ExperimentConfig cfg;
    for (const Field& f : m_fields) {
        if (f.combo) f.info->set(cfg, f.combo->currentIndex());
        else if (f.check) f.info->set(cfg, f.check->isChecked() ? 1.0 : 0.0);
    }
    return cfg;
}

void ExperimentPanel::updateVisibility() {
    const ExperimentConfig cfg = selectorConfig();
    for (Field& f : m_fields) {
        const bool visible = f.info->applies.reads(cfg);
        f.label->setVisible(visible);
        f.row->setVisible(visible);
    }
}

QStringList ExperimentPanel::changedFrom(int index) const {
    const auto& presets = builtinPresets();
    if (index < 0 || index >= presets.size()) return {};
    QJsonObject preset;
    try {
        preset = experimentToJson(experimentFromJson(presets[index].experiment));
    } catch (const ConfigError&) {
        return {};
    }
    QStringList out;
    for (const Field& f : m_fields) {
        const QString now = valueText(fieldValue(f)), was = valueText(getDotted(preset, f.key));
        if (now != was) out << QStringLiteral("%1=%2").arg(f.key.section(u'.', 1), now);
    }
    return out;
}

void ExperimentPanel::updatePresetMark() {
    const auto& presets = builtinPresets();
    const bool modified = !changedFromPreset().isEmpty();
    for (int i = 0; i < presets.size(); ++i)
        m_presetCombo->setItemText(i + 1, i == m_preset && modified
                                              ? tr("%1 (modified)").arg(presets[i].title)
                                              : presets[i].title);
    m_revert->setEnabled(m_preset >= 0 && modified);
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

void ExperimentPanel::resetLiveControls() {
    m_resettingControls = true;
    m_pause->setChecked(false);
    m_lrScale->setValue(1.0);
    m_resettingControls = false;
}

void ExperimentPanel::setRunning(bool running, bool trains) {
    m_running = running;
    m_trains = running && trains;
    if (!m_trains) resetLiveControls();
    m_pause->setEnabled(m_trains);
    m_lrScale->setEnabled(m_trains);
    m_step->setEnabled(m_trains && m_pause->isChecked());
    m_pause->setToolTip(running && !trains
                            ? tr("The exact solver runs no epochs: there is nothing to pause")
                            : tr("Pause training between epochs; press again to resume (Ctrl+P)"));
    m_run->setEnabled(m_valid);
    m_stop->setEnabled(running);
    m_reset->setEnabled(m_valid);
}

} // namespace mhla::ui
