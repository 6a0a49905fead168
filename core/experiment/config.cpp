#include "core/experiment/config.h"
#include "core/base/text.h"
#include "core/experiment/keytabledetail.h"
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QSet>
#include <QStringList>
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace mhla {

namespace {

std::string str(const QString& s) { return s.toStdString(); }
using T = KeyInfo::Type;

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

void setFromJson(const KeyInfo& k, const QJsonValue& v, ExperimentConfig& cfg) {
    const QString where = k.path() + q(": ");
    const auto fail = [&k](const QString& msg) { throw ConfigError(str(msg), k.path()); };
    switch (k.type) {
    case T::Path:
        // "" is the default (no file): every experiment echoes the key, read or not.
        if (!v.isString())
            fail(where + describe(v) + q(" is not allowed; expected ") + k.allowed());
        k.setText(cfg, v.toString());
        return;
    case T::Bool:
        if (!v.isBool()) fail(where + describe(v) + q(" is not allowed; expected true or false"));
        k.set(cfg, v.toBool() ? 1.0 : 0.0);
        return;
    case T::Choice: {
        if (!v.isString())
            fail(where + describe(v) + q(" is not allowed; expected ") + k.allowed());
        const int idx = static_cast<int>(k.choices.indexOf(v.toString()));
        if (idx < 0)
            fail(where + q("\"") + v.toString() + q("\" is not allowed; expected ") + k.allowed());
        k.set(cfg, idx);
        return;
    }
    case T::Integer:
    case T::Real: {
        if (!v.isDouble())
            fail(where + describe(v) + q(" is not allowed; expected ") + k.allowed());
        const double x = v.toDouble();
        if (!std::isfinite(x))
            fail(where + q("NaN and infinite values are not allowed; expected ") + k.allowed());
        if (k.type == T::Integer && std::floor(x) != x)
            fail(where + numberText(x) + q(" is not an integer; expected ") + k.allowed());
        // The JSON parser keeps an integer literal exactly (toInteger); above 2^53 its double
        // is rounded (9007199254740993 reads as ...992): refuse it rather than run another seed.
        if (k.type == T::Integer) {
            constexpr qint64 kNotInteger = std::numeric_limits<qint64>::min();
            const qint64 exact = v.toInteger(kNotInteger);
            if (exact != kNotInteger &&
                (exact > static_cast<qint64>(k.max) || exact < static_cast<qint64>(k.min)))
                fail(where + QString::number(exact) + q(" is out of range; expected ") +
                     k.allowed());
        }
        const bool below = k.minOpen ? x <= k.min : x < k.min;
        const bool above = k.maxOpen ? x >= k.max : x > k.max;
        if (below || above)
            fail(where + numberText(x) + q(" is out of range; expected ") + k.allowed());
        k.set(cfg, x);
        return;
    }
    }
}

using detail::findKey;
using detail::knownKeys;

} // namespace

TaskDims taskDims(const TaskConfig& task) {
    switch (task.kind) {
    case TaskKind::RandomMhla: return {task.d, task.tokens, task.dOut};
    case TaskKind::AssociativeMemory: return {2 * task.pairs, task.pairs + 1, task.pairs};
    case TaskKind::Automaton:
        return {task.states * task.alphabet + task.states, automatonListedPairs(task) + 1,
                task.states};
    case TaskKind::Dataset: return {task.dataD, task.dataTokens, task.dataDOut};
    }
    return {};
}

TaskKindTraits taskKindTraits(const TaskConfig& task) {
    if (task.kind == TaskKind::Dataset)
        return {/*teacher=*/false, /*validation=*/!task.validationPrompts.isEmpty()};
    return {};
}

int ExperimentConfig::promptDim() const { return taskDims(task).d; }
int ExperimentConfig::tokenCount() const { return taskDims(task).n; }
int ExperimentConfig::outputDim() const { return taskDims(task).dOut; }

int automatonListedPairs(const TaskConfig& task) {
    const int total = task.states * task.alphabet;
    // The 1e-12 keeps ceil(0.5 * 6) at 3 despite round-off in coverage * total.
    const int listed = static_cast<int>(std::ceil(task.coverage * total - 1e-12));
    return std::clamp(listed, 1, total);
}

namespace {

/// Cross-key constraints of a parsed configuration (what any machine would refuse).
std::vector<ConfigIssue> crossKeyIssues(const ExperimentConfig& cfg) {
    std::vector<ConfigIssue> out;
    const auto issue = [&out](const char* keyPath, const QString& msg) {
        out.push_back({q(keyPath), q(keyPath) + q(": ") + msg});
    };
    const int d = cfg.promptDim();
    const int dOut = cfg.outputDim();
    const bool trainer = cfg.solver.kind != SolverKind::Poly;
    if (trainer && cfg.task.kind == TaskKind::Dataset)
        issue("solver.kind", q("\"") + toString(cfg.solver.kind) +
                                 q("\" is not available for task.kind \"dataset\" yet; expected "
                                   "poly"));
    if (trainer && cfg.solver.heads < 1)
        issue("solver.heads", q("0 is not allowed for solver.kind \"") + toString(cfg.solver.kind) +
                                  q("\"; expected an integer >= 1"));
    const bool noTargets = cfg.task.kind == TaskKind::Dataset && dOut == 0;
    if (noTargets && cfg.solver.heads > 0)
        issue("solver.heads",
              QString::number(cfg.solver.heads) +
                  q(" heads cannot be kept: without task.targets the run certifies the prompts and "
                    "fits nothing; expected 0, or set task.targets"));
    else if (!trainer) {
        const long long maxHeads = std::min<long long>(1LL * dOut * d, 1LL * d * d);
        if (cfg.solver.heads > maxHeads)
            issue("solver.heads",
                  QString::number(cfg.solver.heads) +
                      q(" heads is more than unfold(P) can have: its rank is at most "
                        "min(d_out*d, d^2) = ") +
                      QString::number(maxHeads) + q(" here; expected an integer in [0, ") +
                      QString::number(maxHeads) + q("] (0 = all)"));
    }
    if (trainer && cfg.solver.batch > cfg.task.samples)
        issue("solver.batch", QString::number(cfg.solver.batch) +
                                  q(" is larger than the data set (task.samples = ") +
                                  QString::number(cfg.task.samples) +
                                  q("); expected an integer in [1, task.samples]"));
    if (cfg.solver.kind == SolverKind::Softmax && cfg.solver.heads > d)
        issue("solver.heads", QString::number(cfg.solver.heads) +
                                  q(" heads do not fit a softmax block of width d = ") +
                                  QString::number(d) + q("; expected an integer in [1, d]"));
    return out;
}

/// Parses every key of obj into cfg; problems go to issues (all of them, not just the first).
void parseInto(const QJsonObject& obj, ExperimentConfig& cfg, std::vector<ConfigIssue>& issues) {
    for (auto it = obj.begin(); it != obj.end(); ++it) {
        const QString section = it.key();
        if (section != q("task") && section != q("solver") && section != q("eval")) {
            issues.push_back({section, q("unknown key \"") + section +
                                           q("\" at the top level; allowed: task, solver, eval") +
                                           (section == q("sweep") || section == q("figures") ||
                                                    section == q("verdicts")
                                                ? q(" (this file describes a sweep: run it with "
                                                    "mhla-lab sweep --config FILE, or draw it with "
                                                    "mhla-lab figures --config FILE --out DIR)")
                                                : QString())});
            continue;
        }
        if (!it.value().isObject()) {
            issues.push_back({section, section + q(": ") + describe(it.value()) +
                                           q(" is not allowed; expected an object")});
            continue;
        }
        const QJsonObject sec = it.value().toObject();
        for (auto kt = sec.begin(); kt != sec.end(); ++kt) {
            const KeyInfo* k = findKey(section, kt.key());
            if (!k) {
                issues.push_back(
                    {section + q(".") + kt.key(), q("unknown key \"") + section + q(".") +
                                                      kt.key() + q("\"; the keys of ") + section +
                                                      q(" are: ") + knownKeys(section)});
                continue;
            }
            try {
                setFromJson(*k, kt.value(), cfg);
            } catch (const ConfigError& e) {
                issues.push_back({e.key(), QString::fromStdString(e.what())});
            }
        }
    }
}

[[noreturn]] void throwIssue(const ConfigIssue& i) { throw ConfigError(str(i.message), i.key); }

/// A dataset task's shape into cfg (from knownShape, else from the files' headers).
void applyDatasetShape(ExperimentConfig& cfg, const DatasetShape* knownShape) {
    if (cfg.task.kind != TaskKind::Dataset) return;
    const DatasetShape shape = knownShape ? *knownShape : readDatasetShape(cfg.task);
    cfg.task.samples = shape.samples;
    cfg.task.dataD = shape.dims.d;
    cfg.task.dataTokens = shape.dims.n;
    cfg.task.dataDOut = shape.dims.dOut;
    // A held-out set's size is its file's N_val (a finished result's config holds it already).
    if (!knownShape && shape.validationSamples > 0) cfg.eval.valSamples = shape.validationSamples;
    cfg.task.dataValidationSamples = cfg.task.validationPrompts.isEmpty() ? 0 : cfg.eval.valSamples;
}

} // namespace

void validate(const ExperimentConfig& cfg) {
    const auto issues = crossKeyIssues(cfg);
    if (!issues.empty()) throwIssue(issues.front());
}

std::vector<ConfigIssue> validateAll(const QJsonObject& obj) {
    ExperimentConfig cfg;
    std::vector<ConfigIssue> issues;
    parseInto(obj, cfg, issues);
    if (issues.empty()) {
        try {
            applyDatasetShape(cfg, nullptr);
        } catch (const ConfigError& e) {
            return {{e.key(), QString::fromStdString(e.what())}};
        }
        issues = crossKeyIssues(cfg);
    }
    return issues;
}

QStringList unreadKeys(const QJsonObject& obj, const ExperimentConfig& cfg) {
    QStringList out;
    const ExperimentConfig defaults;
    for (const auto& k : experimentKeys()) {
        const QJsonObject sec = obj.value(k.section).toObject();
        if (sec.contains(k.key) && !k.applies.reads(cfg) && k.value(cfg) != k.value(defaults))
            out << k.path();
    }
    return out;
}

ExperimentConfig experimentFromJson(const QJsonObject& obj, const DatasetShape* knownShape) {
    ExperimentConfig cfg;
    // A file written before task.rng existed was drawn with that generator (kRngWhenAbsent).
    if (!obj.value(q("task")).toObject().contains(q("rng"))) cfg.task.rng = kRngWhenAbsent;
    std::vector<ConfigIssue> issues;
    parseInto(obj, cfg, issues);
    if (!issues.empty()) throwIssue(issues.front());
    applyDatasetShape(cfg, knownShape);
    validate(cfg);
    return cfg;
}

namespace {

/// One pass over valid JSON text: the first repeated key (QJsonDocument keeps the last of
/// repeated keys silently) and every number literal with the dotted path of the key it is the
/// value of (an array's elements take the array's key). Returns the repeated key's path, or
/// empty; `number` is called for each literal until a repeat is found.
QString scanJsonText(const QByteArray& text,
                     const std::function<void(const QString& path, QStringView literal)>& number) {
    struct Level {
        bool object;
        bool expectKey;
        QString name;
        QSet<QString> keys;
    };
    std::vector<Level> stack;
    QString pendingKey;
    const auto pathHere = [&] {
        QStringList path;
        for (const Level& l : stack)
            if (!l.name.isEmpty()) path << l.name;
        if (!stack.empty() && stack.back().object) path << pendingKey;
        return path.join(QLatin1Char('.'));
    };
    for (qsizetype i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '"') {
            const qsizetype start = i;
            for (++i; i < text.size() && text[i] != '"'; ++i)
                if (text[i] == '\\') ++i;
            if (!stack.empty() && stack.back().object && stack.back().expectKey) {
                const QJsonDocument one =
                    QJsonDocument::fromJson("[" + text.mid(start, i - start + 1) + "]");
                const QString key = one.array().at(0).toString();
                if (stack.back().keys.contains(key)) {
                    pendingKey = key;
                    return pathHere();
                }
                stack.back().keys.insert(key);
                stack.back().expectKey = false;
                pendingKey = key;
            }
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            const qsizetype start = i;
            while (i + 1 < text.size() && std::strchr("0123456789+-.eE", text[i + 1]) != nullptr &&
                   text[i + 1] != '\0')
                ++i;
            if (number) number(pathHere(), QString::fromLatin1(text.mid(start, i - start + 1)));
        } else if (c == '{' || c == '[') {
            const bool parentObject = !stack.empty() && stack.back().object;
            stack.push_back({c == '{', c == '{', parentObject ? pendingKey : QString(), {}});
        } else if (c == '}' || c == ']') {
            if (!stack.empty()) stack.pop_back();
        } else if (c == ',' && !stack.empty() && stack.back().object) {
            stack.back().expectKey = true;
        }
    }
    return {};
}

/// The integer key an experiment file's number at `path` is the value of: `section.key`, or a
/// sweep grid's `sweep.grid.section.key`; null for any other path or a non-integer key.
const KeyInfo* integerKeyAt(const QString& path) {
    static const QString grid = QStringLiteral("sweep.grid.");
    const KeyInfo* k = findExperimentKey(path.startsWith(grid) ? path.mid(grid.size()) : path);
    return k != nullptr && k->type == T::Integer ? k : nullptr;
}

} // namespace

ExperimentConfig experimentFromJsonText(const QByteArray& text) {
    return experimentFromJson(experimentObjectFromJsonText(text));
}

QJsonObject experimentObjectFromJsonText(const QByteArray& text) {
    QJsonParseError err;
    const QJsonDocument doc = QJsonDocument::fromJson(text, &err);
    const char* objectExpected =
        "the experiment must be a JSON object ({\"task\": {...}, \"solver\": "
        "{...}, \"eval\": {...}}), not ";
    if (err.error != QJsonParseError::NoError) {
        // Qt reads only objects and arrays at the top level: a lone number, string or null is
        // valid JSON, but not an experiment.
        QJsonParseError inner;
        const QJsonDocument wrapped = QJsonDocument::fromJson("[" + text + "]", &inner);
        if (inner.error == QJsonParseError::NoError && wrapped.array().size() == 1)
            throw ConfigError(str(q(objectExpected) + describe(wrapped.array().at(0))));
        // Notepad's "Unicode" is UTF-16: a byte-order mark, or a NUL beside every ASCII byte.
        if (text.startsWith("\xFF\xFE") || text.startsWith("\xFE\xFF") || text.contains('\0'))
            throw ConfigError(str(q("the file is UTF-16 (") +
                                  (text.contains('\0') ? q("it holds NUL bytes") : q("")) +
                                  (text.startsWith("\xFF\xFE") || text.startsWith("\xFE\xFF")
                                       ? q(text.contains('\0') ? ", " : "") +
                                             q("it starts with a UTF-16 byte-order mark")
                                       : q("")) +
                                  q("), not UTF-8; save it as UTF-8 (allowed: UTF-8 JSON)")));
        throw ConfigError(str(q("malformed JSON at offset ") + QString::number(err.offset) +
                              q(": ") + err.errorString()));
    }
    if (!doc.isObject())
        throw ConfigError(
            str(q("the experiment must be a JSON object ({\"task\": {...}, \"solver\": "
                  "{...}, \"eval\": {...}}), not ") +
                (doc.isArray() ? q("an array") : q("a single value"))));
    // The parser rounds a literal with a fraction or an exponent to a double: 9007199254740993.0
    // reads as ...992 and 4503599627370495.2 as ...495, both integers. An integer key's
    // literal is checked as written, before it is rounded.
    std::optional<ConfigError> inexact;
    const QString dup = scanJsonText(text, [&](const QString& path, QStringView literal) {
        if (inexact) return;
        if (const KeyInfo* k = integerKeyAt(path)) {
            if (const QString why = integerLiteralProblem(*k, literal); !why.isEmpty())
                inexact.emplace(str(path + q(": ") + why), path);
        }
    });
    if (!dup.isEmpty())
        throw ConfigError(
            str(q("the key \"") + dup + q("\" is given twice; each key may appear once")), dup);
    if (inexact) throw *inexact;
    return doc.object();
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
        throw ConfigError(
            str(q("--set \"") + assignment +
                q("\": the key must be section.key with section task, solver or eval")));
    const QString lower = text.toLower();
    if (lower == q("nan") || lower == q("inf") || lower == q("-inf") || lower == q("infinity") ||
        lower == q("+inf") || lower == q("-infinity"))
        throw ConfigError(str(path + q(": ") + text +
                              q(" is not allowed; NaN and infinite values are never allowed")));
    QJsonValue value;
    QJsonParseError err;
    const QJsonDocument doc = QJsonDocument::fromJson((q("[") + text + q("]")).toUtf8(), &err);
    if (err.error == QJsonParseError::NoError && doc.isArray() && doc.array().size() == 1)
        value = doc.array().at(0);
    else value = QJsonValue(text);
    if (const KeyInfo* k = findExperimentKey(path);
        k != nullptr && k->type == KeyInfo::Type::Integer && value.isDouble())
        if (const QString why = integerLiteralProblem(*k, text); !why.isEmpty())
            throw ConfigError(str(path + q(": ") + why), path);
    QJsonObject section = obj.value(parts[0]).toObject();
    if (obj.contains(parts[0]) && !obj.value(parts[0]).isObject())
        throw ConfigError(str(parts[0] + q(": expected an object")));
    section.insert(parts[1], value);
    obj.insert(parts[0], section);
}

} // namespace mhla
