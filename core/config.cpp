#include "core/config.h"
#include "core/features.h"
#include "core/model.h"
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>
#include <algorithm>
#include <cmath>
#include <limits>

namespace mhla {

namespace {

QString q(const char* s) { return QString::fromUtf8(s); }
std::string str(const QString& s) { return s.toStdString(); }
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kMaxExactInt = 9007199254740992.0; // 2^53

QString numberText(double v) {
    if (std::floor(v) == v && std::abs(v) < 1e15) return QString::number(static_cast<long long>(v));
    return QString::number(v, 'g', 12);
}

QString describe(const QJsonValue& v) {
    switch (v.type()) {
    case QJsonValue::Null: return q("null");
    case QJsonValue::Bool: return v.toBool() ? q("true") : q("false");
    case QJsonValue::Double: return numberText(v.toDouble());
    case QJsonValue::String: return q("a string (\"") + v.toString() + q("\")");
    case QJsonValue::Array: return q("an array");
    case QJsonValue::Object: return q("an object");
    default: return q("an undefined value");
    }
}

using T = KeyInfo::Type;
struct Accessor {
    std::function<double(const ExperimentConfig&)> get;
    std::function<void(ExperimentConfig&, double)> set;
};

KeyInfo intKey(const char* section, const char* key, double min, double max, const char* applies,
               const char* help, Accessor a) {
    return KeyInfo{q(section), q(key), T::Integer, min, max, false, false, {}, q(applies), q(help),
                   std::move(a.get), std::move(a.set)};
}
KeyInfo realKey(const char* section, const char* key, double min, double max, bool minOpen,
                bool maxOpen, const char* applies, const char* help,
                Accessor a) {
    return KeyInfo{q(section), q(key), T::Real, min, max, minOpen, maxOpen, {}, q(applies), q(help),
                   std::move(a.get), std::move(a.set)};
}
KeyInfo choiceKey(const char* section, const char* key, QStringList choices, const char* applies,
                  const char* help, Accessor a) {
    return KeyInfo{q(section), q(key), T::Choice, 0, 0, false, false, std::move(choices), q(applies),
                   q(help), std::move(a.get), std::move(a.set)};
}
KeyInfo boolKey(const char* section, const char* key, const char* applies, const char* help,
                Accessor a) {
    return KeyInfo{q(section), q(key), T::Bool, 0, 1, false, false, {}, q(applies), q(help),
                   std::move(a.get), std::move(a.set)};
}

/// Getter and setter of one field of one section, as doubles (choices as their index).
template <typename S, typename F> Accessor field(S ExperimentConfig::*section, F S::*member) {
    return {[=](const ExperimentConfig& c) { return static_cast<double>(c.*section.*member); },
            [=](ExperimentConfig& c, double v) {
                (c.*section).*member = static_cast<F>(static_cast<long long>(v));
            }};
}
template <typename S> Accessor field(S ExperimentConfig::*section, double S::*member) {
    return {[=](const ExperimentConfig& c) { return c.*section.*member; },
            [=](ExperimentConfig& c, double v) { (c.*section).*member = v; }};
}

std::vector<KeyInfo> buildKeys() {
    const QStringList tasks{q("random_mhla"), q("associative_memory"), q("automaton")};
    const QStringList embeddings{q("onehot"), q("orthogonal"), q("gaussian")};
    const QStringList solvers{q("poly"), q("mhla"), q("multilayer"), q("softmax")};
    const QStringList optimizers{q("sgd"), q("adam")};
    const QStringList schedules{q("constant"), q("cosine")};
    const QStringList spectra{q("auto"), q("full"), q("none")};
    return {
        choiceKey("task", "kind", tasks, "all",
                  "Which synthetic task generates the prompts Z (d x n) and labels y.",
                  field(&ExperimentConfig::task, &TaskConfig::kind)),
        intKey("task", "seed", 0, kMaxExactInt, "all",
               "Seed of the teacher and of every sample (sample i of a stream is a function of "
               "(seed, stream, i) only).",
               field(&ExperimentConfig::task, &TaskConfig::seed)),
        intKey("task", "samples", 1, 1e10, "all", "Training samples N (Lambda = (1/N) sum psi psi^T).",
               field(&ExperimentConfig::task, &TaskConfig::samples)),
        intKey("task", "d", 1, 64, "random_mhla", "Token dimension d (feature dimension D = d^2(d+1)/2).",
               field(&ExperimentConfig::task, &TaskConfig::d)),
        intKey("task", "tokens", 1, 100000, "random_mhla", "Tokens per prompt n, query token included.",
               field(&ExperimentConfig::task, &TaskConfig::tokens)),
        intKey("task", "d_out", 1, 4096, "random_mhla", "Output dimension d_out.",
               field(&ExperimentConfig::task, &TaskConfig::dOut)),
        intKey("task", "teacher_heads", 1, 4096, "random_mhla",
               "Heads H* of the random teacher, entries of V*_h, Q*_h ~ N(0, 1/d).",
               field(&ExperimentConfig::task, &TaskConfig::teacherHeads)),
        realKey("task", "noise", 0, 1e6, false, false, "random_mhla",
                "Label noise sigma: y = f*(Z) + sigma eps, eps ~ N(0, I) (0 = realizable).",
                field(&ExperimentConfig::task, &TaskConfig::noise)),
        intKey("task", "pairs", 1, 32, "associative_memory",
               "Key-value pairs m (d = 2m, n = m + 1, d_out = m).", field(&ExperimentConfig::task, &TaskConfig::pairs)),
        realKey("task", "orthogonal_prob", 0, 1, false, false, "associative_memory",
                "Probability p that a prompt's keys and values are Haar-orthogonal (p = 1: the "
                "certificate fails).",
                field(&ExperimentConfig::task, &TaskConfig::orthogonalProb)),
        intKey("task", "states", 2, 32, "automaton", "DFA states s.", field(&ExperimentConfig::task, &TaskConfig::states)),
        intKey("task", "alphabet", 1, 32, "automaton", "Alphabet size k (s*k table entries).",
               field(&ExperimentConfig::task, &TaskConfig::alphabet)),
        choiceKey("task", "embedding", embeddings, "automaton",
                  "Codes of keys and values: one-hot, one-hot rotated by fresh Haar matrices, or "
                  "fresh random unit vectors.",
                  field(&ExperimentConfig::task, &TaskConfig::embedding)),
        realKey("task", "coverage", 0, 1, true, false, "automaton",
                "Fraction of the transition table listed in a training prompt (the queried pair "
                "is always listed).",
                field(&ExperimentConfig::task, &TaskConfig::coverage)),
        realKey("task", "query_filler", 0, 1e6, false, false, "automaton",
                "sigma_f: the query token is [key(q,a); sigma_f g], g ~ N(0, I).",
                field(&ExperimentConfig::task, &TaskConfig::queryFiller)),
        intKey("task", "word_length", 1, 100000, "automaton",
               "Length L of the words executed at evaluation.", field(&ExperimentConfig::task, &TaskConfig::wordLength)),

        choiceKey("solver", "kind", solvers, "all",
                  "poly: the polynomial-time least-squares solver; mhla, multilayer, softmax: "
                  "gradient-trained baselines.",
                  field(&ExperimentConfig::solver, &SolverConfig::kind)),
        realKey("solver", "ridge", 0, 1e12, false, false, "poly",
                "Ridge rho: P = C (Lambda + rho I)^-1 (0 = exact least squares).",
                field(&ExperimentConfig::solver, &SolverConfig::ridge)),
        intKey("solver", "heads", 0, 1 << 20, "all",
               "poly: keep the top H heads of the SVD of unfold(P) (0 = all); trainers: heads per "
               "layer (>= 1; softmax: at most d, head width d/H when H divides d, else d).",
               field(&ExperimentConfig::solver, &SolverConfig::heads)),
        realKey("solver", "tolerance", 0, 1, true, true, "all",
                "Certificate tolerance relative to lambda_max: tau = tolerance * lambda_max.",
                field(&ExperimentConfig::solver, &SolverConfig::tolerance)),
        realKey("solver", "rank_tolerance", 0, 1, true, true, "all",
                "Numerical rank of unfold(P): singular values > rank_tolerance * sigma_1.",
                field(&ExperimentConfig::solver, &SolverConfig::rankTolerance)),
        intKey("solver", "layers", 1, 64, "multilayer", "Linear-attention layers L.",
               field(&ExperimentConfig::solver, &SolverConfig::layers)),
        choiceKey("solver", "optimizer", optimizers, "trainers", "SGD with momentum, or Adam.",
                  field(&ExperimentConfig::solver, &SolverConfig::optimizer)),
        realKey("solver", "lr", 0, 1e6, true, false, "trainers", "Peak learning rate.",
                field(&ExperimentConfig::solver, &SolverConfig::lr)),
        realKey("solver", "momentum", 0, 1, false, true, "trainers", "SGD momentum.",
                field(&ExperimentConfig::solver, &SolverConfig::momentum)),
        intKey("solver", "batch", 1, 1e9, "trainers", "Minibatch size (at most task.samples).",
               field(&ExperimentConfig::solver, &SolverConfig::batch)),
        intKey("solver", "epochs", 1, 1e7, "trainers", "Maximum number of epochs.",
               field(&ExperimentConfig::solver, &SolverConfig::epochs)),
        choiceKey("solver", "schedule", schedules, "trainers",
                  "Learning-rate schedule: constant, or cosine decay after a linear warm-up.",
                  field(&ExperimentConfig::solver, &SolverConfig::schedule)),
        realKey("solver", "warmup", 0, 1, false, false, "trainers",
                "Warm-up as a fraction of all steps.", field(&ExperimentConfig::solver, &SolverConfig::warmup)),
        realKey("solver", "clip", 0, 1e12, false, false, "trainers",
                "Gradient-norm clipping threshold (0 = off).", field(&ExperimentConfig::solver, &SolverConfig::clip)),
        realKey("solver", "target_loss", 0, 1e12, false, false, "trainers",
                "Stop when train_mse <= target_loss (0 = off).", field(&ExperimentConfig::solver, &SolverConfig::targetLoss)),
        intKey("solver", "seed", 0, kMaxExactInt, "trainers", "Seed of initialisation and shuffling.",
               field(&ExperimentConfig::solver, &SolverConfig::seed)),
        intKey("solver", "log_every", 1, 1e7, "trainers", "Epochs between history points.",
               field(&ExperimentConfig::solver, &SolverConfig::logEvery)),
        boolKey("solver", "compare_exact", "trainers",
                "Also run the exact solver on the same data and report the distance to it.",
                field(&ExperimentConfig::solver, &SolverConfig::compareExact)),

        intKey("eval", "val_samples", 1, 1e9, "all", "Fresh samples of the task for val_mse.",
               field(&ExperimentConfig::eval, &EvalConfig::valSamples)),
        intKey("eval", "ood_samples", 1, 1e9, "all",
               "Generic prompts (N(0,1) entries) for ood_rel_mse = E|f - f*|^2 / E|f*|^2.",
               field(&ExperimentConfig::eval, &EvalConfig::oodSamples)),
        intKey("eval", "words", 1, 1e7, "automaton", "Words executed on fresh DFAs.",
               field(&ExperimentConfig::eval, &EvalConfig::words)),
        choiceKey("eval", "spectrum", spectra, "all",
                  "Eigenvalues of Lambda: auto = all when D <= 1024, full = always, none = only "
                  "lambda_min and lambda_max.",
                  field(&ExperimentConfig::eval, &EvalConfig::spectrum)),
        intKey("eval", "lambda_trace", 0, 100, "all",
               "Checkpoints of lambda_min against samples seen (0 = off; skipped when D > 600).",
               field(&ExperimentConfig::eval, &EvalConfig::lambdaTrace)),
    };
}

const KeyInfo* findKey(const QString& section, const QString& key) {
    for (const auto& k : experimentKeys())
        if (k.section == section && k.key == key) return &k;
    return nullptr;
}

QString knownKeys(const QString& section) {
    QStringList names;
    for (const auto& k : experimentKeys())
        if (k.section == section) names << k.key;
    return names.join(q(", "));
}

void setFromJson(const KeyInfo& k, const QJsonValue& v, ExperimentConfig& cfg) {
    const QString where = k.path() + q(": ");
    switch (k.type) {
    case T::Bool:
        if (!v.isBool())
            throw ConfigError(str(where + describe(v) + q(" is not allowed; expected true or false")));
        k.set(cfg, v.toBool() ? 1.0 : 0.0);
        return;
    case T::Choice: {
        if (!v.isString())
            throw ConfigError(str(where + describe(v) + q(" is not allowed; expected ") + k.allowed()));
        const int idx = static_cast<int>(k.choices.indexOf(v.toString()));
        if (idx < 0)
            throw ConfigError(str(where + q("\"") + v.toString() + q("\" is not allowed; expected ") +
                                  k.allowed()));
        k.set(cfg, idx);
        return;
    }
    case T::Integer:
    case T::Real: {
        if (!v.isDouble())
            throw ConfigError(str(where + describe(v) + q(" is not allowed; expected ") + k.allowed()));
        const double x = v.toDouble();
        if (!std::isfinite(x))
            throw ConfigError(str(where + q("NaN and infinite values are not allowed; expected ") +
                                  k.allowed()));
        if (k.type == T::Integer && std::floor(x) != x)
            throw ConfigError(str(where + numberText(x) + q(" is not an integer; expected ") + k.allowed()));
        const bool below = k.minOpen ? x <= k.min : x < k.min;
        const bool above = k.maxOpen ? x >= k.max : x > k.max;
        if (below || above)
            throw ConfigError(str(where + numberText(x) + q(" is out of range; expected ") + k.allowed()));
        k.set(cfg, x);
        return;
    }
    }
}

} // namespace

QString KeyInfo::allowed() const {
    switch (type) {
    case Type::Bool: return q("true or false");
    case Type::Choice: return q("one of ") + choices.join(q(", "));
    case Type::Integer:
        if (max >= 1e9) return q("an integer >= ") + numberText(min);
        return q("an integer in [") + numberText(min) + q(", ") + numberText(max) + q("]");
    case Type::Real: {
        const QString lo = (minOpen ? q("(") : q("[")) + numberText(min);
        if (max >= 1e6 && !maxOpen) return q("a number ") + (minOpen ? q("> ") : q(">= ")) + numberText(min);
        return q("a number in ") + lo + q(", ") + numberText(max) + (maxOpen ? q(")") : q("]"));
    }
    }
    return {};
}

QJsonValue KeyInfo::value(const ExperimentConfig& cfg) const {
    const double v = get(cfg);
    switch (type) {
    case Type::Bool: return QJsonValue(v != 0.0);
    case Type::Choice: return QJsonValue(choices.value(static_cast<int>(v)));
    case Type::Integer: return QJsonValue(static_cast<qint64>(v));
    case Type::Real: return QJsonValue(v);
    }
    return {};
}

const std::vector<KeyInfo>& experimentKeys() {
    static const std::vector<KeyInfo> keys = buildKeys();
    return keys;
}

int ExperimentConfig::promptDim() const {
    switch (task.kind) {
    case TaskKind::RandomMhla: return task.d;
    case TaskKind::AssociativeMemory: return 2 * task.pairs;
    case TaskKind::Automaton: return task.states * task.alphabet + task.states;
    }
    return 0;
}

int ExperimentConfig::tokenCount() const {
    switch (task.kind) {
    case TaskKind::RandomMhla: return task.tokens;
    case TaskKind::AssociativeMemory: return task.pairs + 1;
    case TaskKind::Automaton: return automatonListedPairs(task) + 1;
    }
    return 0;
}

int automatonListedPairs(const TaskConfig& task) {
    const int total = task.states * task.alphabet;
    // The 1e-12 keeps ceil(0.5 * 6) at 3 despite round-off in coverage * total.
    const int listed = static_cast<int>(std::ceil(task.coverage * total - 1e-12));
    return std::clamp(listed, 1, total);
}

int ExperimentConfig::outputDim() const {
    switch (task.kind) {
    case TaskKind::RandomMhla: return task.dOut;
    case TaskKind::AssociativeMemory: return task.pairs;
    case TaskKind::Automaton: return task.states;
    }
    return 0;
}

void validate(const ExperimentConfig& cfg) {
    const int d = cfg.promptDim();
    const int dOut = cfg.outputDim();
    const bool trainer = cfg.solver.kind != SolverKind::Poly;
    if (trainer && cfg.solver.heads < 1)
        throw ConfigError(str(q("solver.heads: 0 is not allowed for solver.kind \"") +
                              toString(cfg.solver.kind) + q("\"; expected an integer >= 1")));
    if (trainer && cfg.solver.batch > cfg.task.samples)
        throw ConfigError(str(q("solver.batch: ") + QString::number(cfg.solver.batch) +
                              q(" is larger than the data set (task.samples = ") +
                              QString::number(cfg.task.samples) +
                              q("); expected an integer in [1, task.samples]")));
    if (cfg.solver.kind == SolverKind::Softmax && cfg.solver.heads > d)
        throw ConfigError(str(q("solver.heads: ") + QString::number(cfg.solver.heads) +
                              q(" heads do not fit a softmax block of width d = ") +
                              QString::number(d) + q("; expected an integer in [1, d]")));

    // Memory: the solve needs O(D^2); refuse what this machine cannot hold, with the estimate.
    const double ram = physicalMemoryBytes();
    const bool needsExact = !trainer || cfg.solver.compareExact;
    double bytes = needsExact ? estimateSolveBytes(d, dOut, static_cast<int>(kAccumulationBlock)) : 0.0;
    if (trainer) // trainers keep the training and validation prompts in memory
        bytes += 8.0 * static_cast<double>(cfg.task.samples + cfg.eval.valSamples) *
                 (static_cast<double>(d) * cfg.tokenCount() + dOut);
    if (ram > 0 && bytes > 0.8 * ram) {
        const double gib = 1024.0 * 1024.0 * 1024.0;
        QString what = q("d = ") + QString::number(d) + q(" (feature dimension D = ") +
                       QString::number(featureDim(d)) + q(")");
        if (cfg.task.kind == TaskKind::AssociativeMemory) what = q("task.pairs = ") + QString::number(cfg.task.pairs) + q(", ") + what;
        if (cfg.task.kind == TaskKind::Automaton)
            what = q("task.states = ") + QString::number(cfg.task.states) + q(", task.alphabet = ") +
                   QString::number(cfg.task.alphabet) + q(", ") + what;
        throw ConfigError(str(what + q(" needs about ") + QString::number(bytes / gib, 'f', 1) +
                              q(" GiB of memory; this machine has ") +
                              QString::number(ram / gib, 'f', 1) +
                              q(" GiB. Allowed: sizes whose estimate fits in 80% of RAM.")));
    }
}

ExperimentConfig experimentFromJson(const QJsonObject& obj) {
    ExperimentConfig cfg;
    for (auto it = obj.begin(); it != obj.end(); ++it) {
        const QString section = it.key();
        if (section != q("task") && section != q("solver") && section != q("eval"))
            throw ConfigError(str(q("unknown key \"") + section +
                                  q("\" at the top level; allowed: task, solver, eval")));
        if (!it.value().isObject())
            throw ConfigError(str(section + q(": ") + describe(it.value()) +
                                  q(" is not allowed; expected an object")));
        const QJsonObject sec = it.value().toObject();
        for (auto kt = sec.begin(); kt != sec.end(); ++kt) {
            const KeyInfo* k = findKey(section, kt.key());
            if (!k)
                throw ConfigError(str(q("unknown key \"") + section + q(".") + kt.key() +
                                      q("\"; the keys of ") + section + q(" are: ") + knownKeys(section)));
            setFromJson(*k, kt.value(), cfg);
        }
    }
    validate(cfg);
    return cfg;
}

ExperimentConfig experimentFromJsonText(const QByteArray& text) {
    QJsonParseError err;
    const QJsonDocument doc = QJsonDocument::fromJson(text, &err);
    if (err.error != QJsonParseError::NoError)
        throw ConfigError(str(q("malformed JSON at offset ") + QString::number(err.offset) + q(": ") +
                              err.errorString()));
    if (!doc.isObject()) throw ConfigError("the experiment must be a JSON object");
    return experimentFromJson(doc.object());
}

ExperimentConfig experimentFromFile(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        throw ConfigError(str(q("cannot read the experiment file \"") + path + q("\": ") + f.errorString()));
    try {
        return experimentFromJsonText(f.readAll());
    } catch (const ConfigError& e) {
        throw ConfigError(str(path) + ": " + e.what());
    }
}

QJsonObject experimentToJson(const ExperimentConfig& cfg) {
    QJsonObject task, solver, eval;
    for (const auto& k : experimentKeys()) {
        QJsonObject& sec = k.section == q("task") ? task : k.section == q("solver") ? solver : eval;
        sec.insert(k.key, k.value(cfg));
    }
    return QJsonObject{{q("task"), task}, {q("solver"), solver}, {q("eval"), eval}};
}

void applyOverride(QJsonObject& obj, const QString& assignment) {
    const qsizetype eq = assignment.indexOf(QLatin1Char('='));
    if (eq <= 0)
        throw ConfigError(str(q("--set \"") + assignment +
                              q("\": expected dotted.key=value, e.g. task.samples=1000")));
    const QString path = assignment.left(eq).trimmed();
    const QString text = assignment.mid(eq + 1).trimmed();
    const QStringList parts = path.split(QLatin1Char('.'));
    if (parts.size() != 2 || parts[0].isEmpty() || parts[1].isEmpty())
        throw ConfigError(str(q("--set \"") + assignment +
                              q("\": the key must be section.key with section task, solver or eval")));
    const QString lower = text.toLower();
    if (lower == q("nan") || lower == q("inf") || lower == q("-inf") || lower == q("infinity") ||
        lower == q("+inf") || lower == q("-infinity"))
        throw ConfigError(str(path + q(": ") + text + q(" is not allowed; NaN and infinite values are never allowed")));
    QJsonValue value;
    QJsonParseError err;
    const QJsonDocument doc = QJsonDocument::fromJson((q("[") + text + q("]")).toUtf8(), &err);
    if (err.error == QJsonParseError::NoError && doc.isArray() && doc.array().size() == 1)
        value = doc.array().at(0);
    else
        value = QJsonValue(text);
    QJsonObject section = obj.value(parts[0]).toObject();
    if (obj.contains(parts[0]) && !obj.value(parts[0]).isObject())
        throw ConfigError(str(parts[0] + q(": expected an object")));
    section.insert(parts[1], value);
    obj.insert(parts[0], section);
}

QString experimentKeysHelp() {
    const ExperimentConfig defaults;
    QString out;
    QString current;
    for (const auto& k : experimentKeys()) {
        if (k.section != current) {
            current = k.section;
            out += q("\n  ") + current + q(":\n");
        }
        const QJsonValue v = k.value(defaults);
        const QString def = v.isString() ? v.toString() : v.isBool() ? (v.toBool() ? q("true") : q("false"))
                                                                      : numberText(v.toDouble());
        out += q("    ") + k.path().leftJustified(22) + q(" default ") + def.leftJustified(18) +
               k.allowed() + q(" [") + k.appliesTo + q("]\n") + q("        ") + k.help + q("\n");
    }
    return out;
}

QString toString(TaskKind k) {
    return experimentKeys()[0].choices.value(static_cast<int>(k));
}
QString toString(Embedding e) { return findKey(q("task"), q("embedding"))->choices.value(static_cast<int>(e)); }
QString toString(SolverKind k) { return findKey(q("solver"), q("kind"))->choices.value(static_cast<int>(k)); }
QString toString(OptimizerKind k) { return findKey(q("solver"), q("optimizer"))->choices.value(static_cast<int>(k)); }
QString toString(ScheduleKind k) { return findKey(q("solver"), q("schedule"))->choices.value(static_cast<int>(k)); }
QString toString(SpectrumMode m) { return findKey(q("eval"), q("spectrum"))->choices.value(static_cast<int>(m)); }

} // namespace mhla
