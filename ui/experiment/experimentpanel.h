#pragma once
#include "core/sweep/sweep.h"
// The experiment panel: presets, every task / solver / evaluation parameter with its range,
// unit and meaning, validation through core (the field is marked with core's reason and Run
// is disabled until it is fixed), and the Run / Stop / Reset buttons.
#include "core/experiment/config.h"
#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QWidget>
#include <functional>

class QComboBox;
class QCheckBox;
class QGridLayout;
class QSpinBox;
class QDoubleSpinBox;
class QPushButton;
class QLabel;
class QLineEdit;
class QPushButton;
class QTextBrowser;
class QVBoxLayout;

namespace mhla::ui {

class ExperimentPanel : public QWidget {
    Q_OBJECT
public:
    struct NamedConfig {
        QString name;
        ExperimentConfig config;
    };

    explicit ExperimentPanel(QWidget* parent = nullptr);

    /// Fills every field from an experiment object (missing keys take core's defaults).
    /// Returns core's error message if the object itself is invalid (fields are still filled).
    QString setExperiment(const QJsonObject& obj);
    /// The experiment as entered (not validated).
    QJsonObject experimentJson() const;
    /// True when core accepts the experiment.
    bool isValid() const { return m_valid; }
    /// Core's messages per field key ("task.samples") for the invalid fields; each message
    /// names the field by its label ("Training samples N: …").
    QMap<QString, QString> fieldErrors() const { return m_errors; }
    /// A message not tied to a field (e.g. memory), empty if none.
    QString generalError() const { return m_general; }
    /// The validated config. Precondition: isValid().
    ExperimentConfig config() const;
    /// The runs Run starts, planned by core's planSweep as `mhla-lab sweep` plans them: one per
    /// point of the active sweep (or the experiment alone) times the seeds box. Empty when a run
    /// would be invalid (isValid() is then false and generalError() says which).
    QList<NamedConfig> jobs() const;
    /// Why jobs() is empty (core's message naming the point or the seeds), or empty.
    QString planProblem() const;

    /// Loads built-in preset i (index into builtinPresets()).
    void loadPreset(int index);
    /// Asked before the preset box replaces the form (the window asks about unsaved edits);
    /// false keeps the form and puts the box back. Unset: the box always loads.
    void setPresetGuard(std::function<bool()> mayReplace) { m_presetGuard = std::move(mayReplace); }
    /// The sweep of an opened sweep file (after setExperiment with its base): shown as the
    /// sweep check box, run by jobs() while checked; the seeds box takes its seeds.
    void setFileSweep(const SweepSpec& spec);
    /// After an experiment file is loaded (setExperiment, setFileSweep): when it holds exactly
    /// a built-in preset's experiment and sweep, the preset box shows that preset (its edits
    /// are then marked and revertible, and runs take its name) instead of "(custom)".
    void recognisePreset();
    int currentPreset() const { return m_preset; }
    /// Shows the state of the run controller (enables Run / Stop / Reset, and the live controls
    /// only while a run that trains is going: `trains`; they go back to "running at η × 1" when
    /// nothing runs).
    void setRunning(bool running, bool trains = false);
    /// Puts Pause and η × back to "running at scale 1" without signalling (a new run started).
    void resetLiveControls();

Q_SIGNALS:
    void runRequested();
    void stopRequested();
    void resetRequested();
    /// Live training control: pause between epochs, one epoch while paused, learning-rate scale.
    void pauseToggled(bool paused);
    void stepRequested();
    void learningRateScaleChanged(double scale);
    void validityChanged(bool valid);
    void presetLoaded(int index);
    void edited();

private:
    struct Field {
        const KeyInfo* info = nullptr; ///< core's description: label, tooltip, range, applicability
        QString key;                   ///< dotted path ("task.samples")
        enum class Type { Int, Double, Enum, Bool, Text } type = Type::Int;
        QGridLayout* form = nullptr;
        QWidget* row = nullptr;
        QLabel* label = nullptr;
        QLineEdit* edit = nullptr;
        QComboBox* combo = nullptr;
        QCheckBox* check = nullptr;
        QLabel* error = nullptr;
    };
    /// The widgets, built once from the key table (experimentform.cpp).
    void buildForm();
    void buildPresetRow(QVBoxLayout* outer);
    void buildSeedsRow(QVBoxLayout* outer);
    void buildFields(QVBoxLayout* outer);
    [[nodiscard]] Field makeField(const KeyInfo& k, QGridLayout* form, QWidget* inner);
    void buildRunControls(QVBoxLayout* outer);
    void revalidate();
    void updateVisibility();
    void updateDerived();
    void updatePresetMark();

public:
    /// Fields whose values differ from the loaded preset's, as "key=value" (empty: unmodified or
    /// no preset).
    QStringList changedFromPreset() const { return changedFrom(m_preset); }
    /// The same against built-in preset `preset` (empty when there is no such preset).
    QStringList changedFrom(int preset) const;

private:
    QJsonValue fieldValue(const Field& f) const;
    void setFieldValue(Field& f, const QJsonValue& v);
    /// The sweep Run runs: the preset's or the opened file's, while its check box is on.
    const SweepSpec* activeSweep() const;
    /// The runs of jobs() as core plans them (planSweep): throws ConfigError naming a bad point.
    SweepPlan plan() const;
    void markField(Field& f, const QString& message);
    Field* fieldForKey(const QString& key);
    static QString messageForField(const Field& f, const QString& message);
    ExperimentConfig selectorConfig() const;

    QList<Field> m_fields;
    QJsonObject m_defaults;
    QComboBox* m_presetCombo = nullptr;
    std::function<bool()> m_presetGuard; ///< setPresetGuard()
    QSpinBox* m_seedsSpin = nullptr;
    QPushButton* m_pause = nullptr;
    QPushButton* m_step = nullptr;
    QDoubleSpinBox* m_lrScale = nullptr;
    QCheckBox* m_sweepCheck = nullptr;
    SweepSpec m_fileSweep; ///< an opened sweep file's grid (empty axes: none)
    void showSweepCheck(const SweepSpec& spec);
    QLabel* m_derived = nullptr;
    QLabel* m_generalLabel = nullptr;
    QPushButton* m_run = nullptr;
    QPushButton* m_stop = nullptr;
    QPushButton* m_reset = nullptr;
    QPushButton* m_revert = nullptr;
    bool m_valid = false;
    bool m_running = false;
    bool m_trains = false; ///< the running run trains (has epochs to pause)
    bool m_loading = false;
    bool m_resettingControls = false;
    int m_preset = -1;
    QMap<QString, QString> m_errors;
    QString m_general;
};

} // namespace mhla::ui
