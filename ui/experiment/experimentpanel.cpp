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
#include <QJsonArray>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>

namespace mhla::ui {

namespace {

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
