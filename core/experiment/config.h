#pragma once
// The experiment file (JSON), shared by the GUI and the command line. Parsing is strict:
// unknown keys, wrong types, out-of-range and non-finite values are errors that name the key,
// the value and what is allowed. Every default is filled in and echoed by toJson().
#include "core/base/process.h"
#include "core/base/rngkind.h"
#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace mhla {

/// Invalid experiment input. what() names the key, the value and what is allowed; key() is
/// the offending dotted key ("task.samples"), empty when the error is not about one key.
class ConfigError : public std::runtime_error {
public:
    /// Control characters in msg (a NUL, an escape sequence in a key) are written as \xHH.
    explicit ConfigError(const std::string& msg, QString key = {})
        : std::runtime_error(escapeControlCharacters(QString::fromStdString(msg)).toStdString()),
          m_key(std::move(key)) {}
    const QString& key() const { return m_key; }

private:
    QString m_key;
};

/// One problem found by validateAll(): the dotted key it is about (empty for the whole file)
/// and the message (which names the key, the value and what is allowed).
struct ConfigIssue {
    QString key;
    QString message;
};

/// Dataset: prompts (and targets) read from .npy files (MATH.md, "Data on disk").
enum class TaskKind { RandomMhla, AssociativeMemory, Automaton, Dataset };
enum class Embedding { OneHot, Orthogonal, Gaussian };
/// How the associative memory draws its orthogonal keys and values (MATH.md §7).
enum class OrthogonalSampler { Haar, QrUnsigned };
/// Variance of random_mhla's prompt entries: 1/T (T = tokens per prompt; the paper's Sec 4.1)
/// or 1.
enum class TokenScale { InverseLength, Unit };
enum class SolverKind { Poly, Mhla, Multilayer, Softmax };
enum class OptimizerKind { Sgd, Adam };
enum class ScheduleKind { Constant, Cosine };
enum class SpectrumMode { Auto, Full, None };
enum class ExploreMode { Auto, Full, None };

/// A dataset task's data held in memory instead of files (mhla_lab.fit): prompts N x n x d and
/// targets N x d_out, float64, C order, every value finite.
struct DatasetArrays {
    std::vector<double> prompts;
    std::vector<double> targets;
    /// the held-out set, N_val x n x d and N_val x d_out (both empty: none)
    std::vector<double> validationPrompts, validationTargets;
};

struct TaskConfig {
    TaskKind kind = TaskKind::AssociativeMemory;
    long long seed = 1;
    /// The generator of every task stream (teacher, train, validation, OOD, execution).
    RngKind rng = RngKind::Philox;
    long long samples = 16384;
    // random_mhla
    int d = 4;
    int tokens = 3;
    int dOut = 4;
    int teacherHeads = 1;
    double noise = 0.0;
    /// Entries N(0, 1/T) (inverse_length, default) or N(0, 1) (unit).
    TokenScale tokenScale = TokenScale::InverseLength;
    /// Causal all-positions targets (MATH.md §1, the paper's Sec 4.1): every position t of a
    /// prompt is a sample (S_t, z_t, y_t = f*(z_1..z_t)); task.samples and eval.val_samples then
    /// count (prompt, position) samples, T per prompt.
    bool causal = false;
    // associative_memory
    int pairs = 2;
    double orthogonalProb = 0.0;
    /// haar: exactly Haar; qr_unsigned: the Q of an unsigned QR of a Gaussian matrix (the
    /// authors' torch.qr; for m = 2 always a reflection).
    OrthogonalSampler orthogonalSampler = OrthogonalSampler::Haar;
    // automaton
    int states = 3;
    int alphabet = 2;
    Embedding embedding = Embedding::OneHot;
    double coverage = 1.0;
    double queryFiller = 0.1;
    int wordLength = 20;
    // dataset
    QString prompts; ///< .npy of shape N x n x d (tokens as rows, the query last)
    /// .npy of shape N x d_out; empty: no targets, the run certifies the prompts and fits
    /// nothing (d_out is then 0)
    QString targets;
    /// A held-out set (optional, both or neither, and only with task.targets): .npy files of
    /// shape N_val x n x d and N_val x d_out, same n, d and d_out as the training files. With
    /// them the run reports val_mse on them (eval.val_samples is set to N_val).
    QString validationPrompts, validationTargets;
    /// The data's N, n, d and d_out as the file headers give them: filled by the parser (not
    /// keys of the file); task.samples is set to N.
    int dataD = 0, dataTokens = 0, dataDOut = 0;
    /// N_val of the held-out set (0: none); eval.val_samples is set to it too.
    long long dataValidationSamples = 0;
    /// The data in memory (not a key): when set, the task reads it instead of the files, which
    /// are then only names in messages and records.
    std::shared_ptr<const DatasetArrays> arrays;
};

struct SolverConfig {
    SolverKind kind = SolverKind::Poly;
    // poly
    double ridge = 0.0;
    int heads = 0;               ///< poly: keep the top H heads (0 = all); trainers: H >= 1
    double tolerance = 1e-10;    ///< certificate tolerance, relative to lambda_max
    double rankTolerance = 1e-8; ///< numerical rank of unfold(P), relative to sigma_1
    // trainers (issue: gradient-trained baselines)
    int layers = 2;
    OptimizerKind optimizer = OptimizerKind::Adam;
    double lr = 1e-2;
    double momentum = 0.9;
    int batch = 32;
    int epochs = 50;
    ScheduleKind schedule = ScheduleKind::Cosine;
    double warmup = 0.1;
    double clip = 5.0;        ///< gradient-norm clipping (0 = off)
    double targetLoss = 0.0;  ///< stop when train_mse <= target_loss (0 = off)
    long long seed = 1;       ///< initialisation and shuffling
    int logEvery = 1;         ///< epochs between history points
    bool compareExact = true; ///< also run the exact solver and report the distance to it
};

struct EvalConfig {
    long long valSamples = 4096;
    long long oodSamples = 4096;
    int words = 200;
    SpectrumMode spectrum =
        SpectrumMode::Auto; ///< auto: full spectrum when D <= kAutoSpectrumMaxFeatureDim
    int lambdaTrace = 12;   ///< checkpoints of lambda_min vs samples seen (0 = off)
    /// Identifiability explorer (poly): auto = when D <= 300, full = always, none = off.
    ExploreMode identifiability = ExploreMode::Auto;
};

/// Feature dimensions D up to which the lambda_min-vs-samples trace is recorded (each checkpoint
/// is a dense eigenproblem of size D), and up to which eval.spectrum = auto computes every
/// eigenvalue of Lambda. The one home of both cut-offs: the exact pass, the run-time estimate
/// and the keys' help read them.
constexpr long long kLambdaTraceMaxFeatureDim = 600;
constexpr long long kAutoSpectrumMaxFeatureDim = 1024;
/// Whether a run with eval.spectrum = `mode` computes Lambda's whole spectrum at dimension D.
[[nodiscard]] inline bool computesFullSpectrum(SpectrumMode mode, long long featureDim) {
    return mode == SpectrumMode::Full ||
           (mode == SpectrumMode::Auto && featureDim <= kAutoSpectrumMaxFeatureDim);
}

/// Automaton: transition-table pairs listed in a training prompt, ceil(coverage * s * k),
/// at least 1 (the queried pair is always listed).
[[nodiscard]] int automatonListedPairs(const TaskConfig& task);

/// Prompt dimension d, tokens per prompt n (query included) and output dimension d_out.
struct TaskDims {
    int d = 0, n = 0, dOut = 0;
};
/// The dimensions a task configuration implies (MATH.md §7): a pure function of its keys, so
/// that the experiment room needs no task to know them.
[[nodiscard]] TaskDims taskDims(const TaskConfig& task);
/// What the records of a task kind hold: a teacher P* (distances and ood_rel_mse are defined)
/// and a validation stream (val_mse is defined); without, those numbers are absent from every
/// record. A fact of the kind, so the writers and readers need no task to know it.
struct TaskKindTraits {
    bool teacher = true;
    bool validation = true;
};
/// A dataset has no teacher, and a validation set only when task.validation_prompts is set.
[[nodiscard]] TaskKindTraits taskKindTraits(const TaskConfig& task);

/// The shape of a dataset task's data: N samples of n tokens of dimension d, targets d_out.
struct DatasetShape {
    long long samples = 0;
    TaskDims dims;
    long long validationSamples = 0; ///< N_val of task.validation_prompts (0: none)
};
/// Reads the headers (only) of task.prompts and task.targets and checks their shapes (prompts
/// N x n x d with N, n >= 1 and d in [1, 64]; targets N x d_out with the same N). Throws
/// ConfigError naming the key, the file, what is wrong and what is allowed. Without
/// task.targets (empty) only the prompts are read: dims.dOut is 0, a certificate-only run.
/// task.validation_prompts and task.validation_targets are read and checked too (both or
/// neither, only with targets, the training files' n, d and d_out).
[[nodiscard]] DatasetShape readDatasetShape(const TaskConfig& task);
/// Which of one or two .npy files are the prompts and which the targets (File > Open data…
/// and files dropped on the window): by their shapes (3-D prompts N x n x d, 2-D targets
/// N x d_out), whatever their names. One prompts file named prompts.npy takes the targets.npy
/// beside it (the layout `mhla-lab export-data` writes), and with it validation_prompts.npy and
/// validation_targets.npy when both are there and fit (else they are left, and `note` says
/// why); `note` says what was taken. Throws ConfigError
/// (key task.prompts or task.targets) naming the file and what is wrong: not .npy, unreadable,
/// two prompt or two target files, targets alone, more than two files.
struct DataFiles {
    QString prompts, targets; ///< targets empty: the prompts alone (certify, fit nothing)
    QString validationPrompts, validationTargets; ///< a held-out set beside them (or empty)
    QString note;                                 ///< how the files were paired, for the user
};
[[nodiscard]] DataFiles pairDataFiles(const QStringList& paths);
/// The same checks on shapes already known (arrays in memory): `promptsName` and `targetsName`
/// name the data in messages; the keys at fault are task.prompts and task.targets. Without
/// `targets` only the prompts are checked (dims.dOut is then 0).
[[nodiscard]] DatasetShape checkDatasetShape(const std::vector<long long>& prompts,
                                             const std::vector<long long>* targets,
                                             const QString& promptsName,
                                             const QString& targetsName);
/// A held-out set's shapes against the training data's `train` (from checkDatasetShape, with
/// targets): prompts N_val x n x d, targets N_val x d_out, N_val >= 1. Returns N_val. Throws
/// ConfigError (key task.validation_prompts or task.validation_targets) naming the data.
[[nodiscard]] long long checkValidationShape(const DatasetShape& train,
                                             const std::vector<long long>& prompts,
                                             const std::vector<long long>& targets,
                                             const QString& promptsName,
                                             const QString& targetsName);

struct ExperimentConfig {
    TaskConfig task;
    SolverConfig solver;
    EvalConfig eval;

    /// Prompt dimension d, number of tokens n and output dimension d_out implied by the task.
    int promptDim() const;
    int tokenCount() const;
    int outputDim() const;
};

/// Parses and validates an experiment object. Throws ConfigError. A dataset task's shape comes
/// from its files' headers (readDatasetShape), or from `knownShape` when given (a finished
/// result, readable without its data files).
[[nodiscard]] ExperimentConfig experimentFromJson(const QJsonObject& obj,
                                                  const DatasetShape* knownShape = nullptr);
/// Parses JSON text (errors for malformed JSON carry the offset). Throws ConfigError.
[[nodiscard]] ExperimentConfig experimentFromJsonText(const QByteArray& text);
/// Parses JSON text into an experiment object without interpreting the keys: malformed JSON,
/// a non-object and repeated keys are errors. Throws ConfigError.
[[nodiscard]] QJsonObject experimentObjectFromJsonText(const QByteArray& text);
/// Reads a file (see loadExperiment() in core/experiment/loader.h, which also returns the
/// warnings). Throws ConfigError (unreadable file, malformed JSON, invalid values).
[[nodiscard]] ExperimentConfig experimentFromFile(const QString& path);
/// Why an integer key's JSON number literal (as written: "9007199254740993.0", "9.1e15")
/// cannot be read exactly, or empty: a fraction that the parser would round away, or a value
/// above 2^53, which a double does not hold exactly. Plain literals in range give empty.
struct KeyInfo;
[[nodiscard]] QString integerLiteralProblem(const KeyInfo& k, QStringView literal);
/// The resolved experiment with every key (defaults filled in).
[[nodiscard]] QJsonObject experimentToJson(const ExperimentConfig& cfg);
/// Applies "dotted.key=value" to an experiment object (value parsed as JSON, else as a string).
/// Throws ConfigError for a malformed assignment; the key itself is checked when parsing.
void applyOverride(QJsonObject& obj, const QString& assignment);
/// Validates the whole configuration (cross-key constraints; not whether this machine can run
/// it: that is admission, core/run/admission.h). Throws ConfigError for the first problem.
void validate(const ExperimentConfig& cfg);
/// Every problem of an experiment object at once (types, ranges, unknown keys, cross-key
/// constraints; not memory, see core/run/admission.h), each with its key: what the GUI marks at the
/// fields. Empty = valid.
[[nodiscard]] std::vector<ConfigIssue> validateAll(const QJsonObject& obj);
/// Keys present in obj that the run it describes does not read (e.g. task.d with the
/// associative memory), as dotted paths. The parser accepts them; callers warn.
[[nodiscard]] QStringList unreadKeys(const QJsonObject& obj, const ExperimentConfig& cfg);
/// A multi-line description of every key, its default and what is allowed (for --help).
[[nodiscard]] QString experimentKeysHelp();

/// Which runs read a key: a bit per task kind, per solver kind and (for trainers) per
/// optimizer; `exactOnly` keys are read only when the exact solver runs (poly, or a trainer
/// with solver.compare_exact).
struct Applicability {
    static constexpr unsigned kAllTasks = 0b1111, kAllSolvers = 0b1111, kAllOptimizers = 0b11;
    static constexpr unsigned kTrainers = 0b1110;
    unsigned tasks = kAllTasks;           ///< bit 1 << int(TaskKind)
    unsigned solvers = kAllSolvers;       ///< bit 1 << int(SolverKind)
    unsigned optimizers = kAllOptimizers; ///< bit 1 << int(OptimizerKind); trainers only
    bool exactOnly = false;

    /// True when a run with this configuration reads the key.
    bool reads(const ExperimentConfig& cfg) const;
    /// "all", "random_mhla", "trainers", "trainers with optimizer sgd", "poly or compare_exact"...
    QString text() const;
};

/// Description of one key of the experiment file: the single source of the JSON names,
/// types, ranges, defaults, labels, help texts and applicability. The parser, --help, the
/// GUI form (fields, labels, tooltips, visibility) and the error messages all read it.
struct KeyInfo {
    /// Path: a file name (a string; relative paths are resolved by the loader).
    enum class Type { Integer, Real, Bool, Choice, Path };
    QString section; ///< "task", "solver" or "eval"
    QString key;     ///< JSON key inside the section
    Type type;
    double min, max; ///< inclusive bounds for Integer/Real (unless the *Open flags)
    bool minOpen = false, maxOpen = false;
    QStringList choices; ///< Choice: allowed strings, in enum order
    Applicability applies;
    QString label;   ///< the form's label, with its symbol ("Training samples N")
    QString help;    ///< plain-text meaning and formula (--help)
    QString tooltip; ///< rich-text meaning, formula and unit (GUI); see tooltipHtml()
    std::function<double(const ExperimentConfig&)> get; ///< Choice: the index
    std::function<void(ExperimentConfig&, double)> set;
    /// Path keys: the value is a string (get/set are not used).
    std::function<QString(const ExperimentConfig&)> getText;
    std::function<void(ExperimentConfig&, const QString&)> setText;

    QString path() const { return section + QLatin1Char('.') + key; }
    /// The GUI tooltip: the rich text, what is allowed and where the key applies.
    QString tooltipHtml() const;
    /// "an integer in [1, 64]", "a number > 0", "one of onehot, orthogonal, gaussian".
    QString allowed() const;
    /// The value of this key in cfg as JSON.
    QJsonValue value(const ExperimentConfig& cfg) const;
};
/// Every key of the experiment file, in file order.
[[nodiscard]] const std::vector<KeyInfo>& experimentKeys();
/// The key with this dotted path ("task.samples"), or null.
[[nodiscard]] const KeyInfo* findExperimentKey(const QString& dottedPath);
/// A number as the user wrote it: integers without a decimal point, others in the shortest
/// form that reads back to the same double (1000.0000000000001 stays so).
[[nodiscard]] QString numberText(double v);

[[nodiscard]] QString toString(TaskKind);
[[nodiscard]] QString toString(Embedding);
[[nodiscard]] QString toString(OrthogonalSampler);
[[nodiscard]] QString toString(TokenScale);
[[nodiscard]] QString toString(RngKind);
/// The generator an experiment object without task.rng means: the one every experiment and
/// result written before the key existed was drawn with, so that they reproduce bit for bit.
constexpr RngKind kRngWhenAbsent = RngKind::XoshiroZiggurat;
[[nodiscard]] QString toString(SolverKind);
[[nodiscard]] QString toString(OptimizerKind);
[[nodiscard]] QString toString(ScheduleKind);
[[nodiscard]] QString toString(SpectrumMode);
[[nodiscard]] QString toString(ExploreMode);

} // namespace mhla
