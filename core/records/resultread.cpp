#include "core/records/resultread.h"
#include "core/algebra/model.h"
#include "core/base/fileio.h"
#include "core/base/process.h"
#include "core/base/text.h"
#include "core/records/resultio.h"
#include "core/records/tablereader.h"
#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace mhla {

namespace {

using records::CsvReader;
using records::ReadError;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// A reading error; the message already names the file and the place.

/// The largest number of rows a folder's CSV may declare, whatever the experiment says: a
/// 64 MiB file (kMaxReadBytes) holds fewer lines of at least two bytes.
constexpr long long kMaxCsvRows = kMaxReadBytes / 2;

QByteArray readFile(const QDir& dir, const QString& name, bool required, bool* present) {
    const QString path = dir.filePath(name);
    *present = QFileInfo::exists(path) || QFileInfo(path).isSymLink();
    if (!*present) {
        if (required)
            throw ReadError(q("%1: missing (a results folder holds result.json and the CSV files "
                              "written by `mhla-lab solve --out` or Export all)")
                                .arg(QDir::toNativeSeparators(path)));
        return {};
    }
    QByteArray data;
    QString error;
    if (!readRegularFile(path, &data, &error)) throw ReadError(error);
    return data;
}

// ---- result.json -------------------------------------------------------------------------

class JsonReader {
public:
    JsonReader(QString file, QJsonObject obj) : m_file(std::move(file)), m_obj(std::move(obj)) {}

    bool has(const char* key) const { return m_obj.contains(q(key)); }
    QJsonValue value(const char* key) const { return m_obj.value(q(key)); }

    [[noreturn]] void fail(const QString& key, const QString& what) const {
        throw ReadError(q("%1: key \"%2\": %3").arg(m_file, key, what));
    }

    /// A number; null (how non-finite values are written) reads as `ifNull`.
    double real(const char* key, double ifNull = kNaN, bool required = true) const {
        const QJsonValue v = value(key);
        if (v.isUndefined()) {
            if (required) fail(q(key), q("missing (expected a number)"));
            return ifNull;
        }
        return realOf(v, q(key), ifNull);
    }
    double realOf(const QJsonValue& v, const QString& key, double ifNull = kNaN) const {
        if (v.isNull()) return ifNull;
        if (!v.isDouble()) fail(key, q("expected a number or null"));
        return v.toDouble();
    }
    long long integer(const char* key, long long min = 0, bool required = true) const {
        const QJsonValue v = value(key);
        if (v.isUndefined() && !required) return 0;
        return integerOf(v, q(key), min);
    }
    long long integerOf(const QJsonValue& v, const QString& key, long long min = 0) const {
        constexpr long long kMaxExact = 9007199254740992LL; // 2^53: every integer up to it exact
        if (!v.isDouble()) fail(key, q("expected an integer >= %1").arg(min));
        const double x = v.toDouble();
        // An integer written as such beyond 2^53 is kept exactly by the parser (toInteger) but
        // would round as a double: refused, not rounded.
        const qint64 exact = v.toInteger(std::numeric_limits<qint64>::min());
        if (x != std::floor(x) || x < static_cast<double>(min) || x > double(kMaxExact) ||
            exact > kMaxExact)
            fail(key, q("%1 is not an integer in [%2, %3]")
                          .arg(exact != std::numeric_limits<qint64>::min() ? QString::number(exact)
                                                                           : QString::number(x))
                          .arg(min)
                          .arg(kMaxExact));
        return static_cast<long long>(x);
    }
    /// An integer that must equal `want`, which the embedded experiment implies.
    long long implied(const char* key, long long want, const char* why) const {
        const long long v = integer(key, 0);
        if (v != want)
            fail(q(key), q("%1 disagrees with the embedded experiment (%2 gives %3)")
                             .arg(v)
                             .arg(q(why))
                             .arg(want));
        return v;
    }
    /// An integer in [min, max]; `what` says where max comes from.
    long long bounded(const char* key, long long min, long long max, const char* what) const {
        const long long v = integer(key, min);
        if (v > max) fail(q(key), q("%1 is more than %2 allows (%3)").arg(v).arg(q(what)).arg(max));
        return v;
    }
    std::optional<bool> boolean(const char* key) const {
        const QJsonValue v = value(key);
        if (v.isNull() || v.isUndefined()) return std::nullopt;
        if (!v.isBool()) fail(q(key), q("expected true, false or null"));
        return v.toBool();
    }
    std::string text(const char* key, bool required = true) const {
        const QJsonValue v = value(key);
        if (v.isUndefined() && !required) return {};
        if (!v.isString()) fail(q(key), q("expected a string"));
        return v.toString().toStdString();
    }
    QJsonArray array(const char* key, bool required = true) const {
        const QJsonValue v = value(key);
        if (v.isUndefined() && !required) return {};
        if (!v.isArray()) fail(q(key), q("expected an array"));
        return v.toArray();
    }
    JsonReader object(const char* key) const {
        const QJsonValue v = value(key);
        if (!v.isObject()) fail(q(key), q("expected an object"));
        return JsonReader(m_file, v.toObject());
    }
    const QJsonObject& json() const { return m_obj; }

private:
    QString m_file;
    QJsonObject m_obj;
};

/// The metrics of a task kind; those it does not define (no teacher, no validation stream) are
/// absent from the file and read as NaN.
Metrics readMetrics(const JsonReader& o, const TaskKindTraits& kind) {
    Metrics m;
    m.trainMse = o.real("train_mse");
    m.valMse = o.real("val_mse", kNaN, kind.validation);
    m.oodRelMse = o.real("ood_rel_mse", kNaN, kind.teacher);
    m.distanceP = o.real("distance_p", kNaN, kind.teacher);
    m.distancePRel = o.real("distance_p_rel", kNaN, kind.teacher);
    return m;
}

/// The run object of a result file: the file's top object, or for `solve --seeds K` (which
/// writes {"seeds": K, "summary", "runs": [...], "config"}) its first run, whose CSVs lie beside
/// it. Sets *seeds to K in that case.
QJsonObject runObjectOf(const QString& file, const QByteArray& bytes, int* seeds) {
    QJsonParseError pe;
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &pe);
    if (pe.error != QJsonParseError::NoError) {
        const int line = static_cast<int>(bytes.left(pe.offset).count('\n')) + 1;
        throw ReadError(
            q("%1 line %2: not valid JSON (%3)").arg(file).arg(line).arg(pe.errorString()));
    }
    if (!doc.isObject())
        throw ReadError(q("%1: expected a JSON object (the result of one run)").arg(file));
    QJsonObject top = doc.object();
    if (!top.contains(q("certificate_method")) && top.value(q("runs")).isArray()) {
        const QJsonArray runs = top.value(q("runs")).toArray();
        if (runs.isEmpty() || !runs.first().isObject())
            throw ReadError(q("%1: key \"runs\": expected an array of run results").arg(file));
        *seeds = static_cast<int>(runs.size());
        top = runs.first().toObject();
    }
    return top;
}

/// The embedded experiment and the sizes it implies (d, tokens, d_out, D, samples), each checked
/// against the file before anything is allocated. Returns the file's format version (1 when the
/// key is absent).
int readConfigAndSizes(const QString& file, const JsonReader& o, ExperimentResult& r) {
    if (!o.has("config") || !o.has("certificate_method"))
        throw ReadError(q("%1: not a result written by MHLA Lab (no \"config\" or "
                          "\"certificate_method\"; an experiment file opens with Open experiment)")
                            .arg(file));
    const long long version = o.has("format_version") ? o.integer("format_version", 1) : 1;
    if (version > kResultFormatVersion)
        o.fail(q("format_version"), q("%1 was written by a newer MHLA Lab; this version reads "
                                      "format %2 and older")
                                        .arg(version)
                                        .arg(kResultFormatVersion));
    try {
        // A dataset's shape is the result's own (checked below): the result reads without its
        // data files.
        const QJsonObject& top = o.json();
        const DatasetShape shape{top.value(q("samples")).toInteger(),
                                 {top.value(q("d")).toInt(), top.value(q("tokens")).toInt(),
                                  top.value(q("d_out")).toInt()}};
        r.config = experimentFromJson(o.object("config").json(), &shape);
    } catch (const ConfigError& e) {
        throw ReadError(q("%1: key \"config\": %2").arg(file, QString::fromUtf8(e.what())));
    }
    const std::string task = o.text("task"), solver = o.text("solver");
    if (toString(r.config.task.kind).toStdString() != task ||
        toString(r.config.solver.kind).toStdString() != solver)
        o.fail(q("task"), q("\"%1\"/\"%2\" disagree with the embedded config")
                              .arg(QString::fromStdString(task), QString::fromStdString(solver)));
    const TaskDims dims = taskDims(r.config.task);
    r.d = static_cast<int>(o.implied("d", dims.d, "its task"));
    r.tokens = static_cast<int>(o.implied("tokens", dims.n, "its task"));
    r.dOut = static_cast<int>(o.implied("d_out", dims.dOut, "its task"));
    if (r.d > 4096 || r.tokens > 1000000 || r.dOut > 4096)
        o.fail(q("d"),
               q("d = %1, d_out = %2 are out of range (at most 4096)").arg(r.d).arg(r.dOut));
    r.featureDim = o.implied("feature_dim", featureDim(r.d), "D = d^2(d+1)/2 of its d");
    r.samples = o.integer("samples", 0);
    return static_cast<int>(version);
}

Certificate readCertificate(const JsonReader& o, long long featureDim) {
    Certificate c;
    c.method = o.text("certificate_method");
    if (!c.method.empty()) {
        c.lambdaMin = o.real("lambda_min");
        c.lambdaMax = o.real("lambda_max");
        c.condition = o.real("condition_number", std::numeric_limits<double>::infinity());
        if (!o.value("null_dim").isNull())
            c.nullDim =
                static_cast<int>(o.bounded("null_dim", 0, featureDim, "the feature dimension D"));
        c.certified = o.boolean("certified").value_or(false);
        c.tolerance = o.real("tolerance");
    }
    return c;
}

/// Metrics, ranks, the kept head count and the singular values, bounded by the run's sizes.
void readFit(const JsonReader& o, int version, ExperimentResult& r, long long* declaredHeads) {
    const TaskKindTraits kind = taskKindTraits(r.config.task);
    // Prompts without targets (d_out = 0): certified, nothing fitted; no metrics and no heads.
    const bool fitted = r.dOut > 0;
    r.metrics = fitted ? readMetrics(o, kind) : Metrics{kNaN, kNaN, kNaN, kNaN, kNaN};
    const long long maxRank =
        std::min(static_cast<long long>(r.dOut) * r.d, static_cast<long long>(r.d) * r.d);
    if (fitted) {
        r.heads.rank = static_cast<int>(o.bounded("rank", 0, maxRank, "min(d_out d, d^2)"));
        if (kind.teacher || o.has("teacher_rank")) // absent for data without a teacher
            r.teacherHeads.rank =
                static_cast<int>(o.bounded("teacher_rank", 0, maxRank, "min(d_out d, d^2)"));
    }
    // Heads kept (format 3): the exact solver's canonical heads, at most the rank; a trainer's
    // model, solver.heads, whose canonical heads in heads.csv number the rank. Up to format 2
    // "heads" counted heads.csv's rows for every solver.
    const bool trainer = r.config.solver.kind != SolverKind::Poly;
    if (o.has("heads") && trainer && version >= 3) {
        (void)o.implied("heads", r.config.solver.heads, "the trained model's solver.heads");
        if (fitted) *declaredHeads = r.heads.rank;
    } else if (o.has("heads")) {
        *declaredHeads = o.bounded("heads", 0, std::max<long long>(maxRank, r.config.solver.heads),
                                   "max(min(d_out d, d^2), solver.heads)");
    }
    const QJsonArray sv = o.array("singular_values", fitted);
    if (sv.size() > maxRank)
        o.fail(q("singular_values"), q("%1 values; unfold(P) has at most min(d_out d, d^2) = %2")
                                         .arg(sv.size())
                                         .arg(maxRank));
    r.heads.singularValues.resize(sv.size());
    for (qsizetype i = 0; i < sv.size(); ++i)
        r.heads.singularValues(i) = o.realOf(sv[i], q("singular_values[%1]").arg(i));
    if (o.has("untruncated")) r.untruncatedMetrics = readMetrics(o.object("untruncated"), kind);
    if (o.has("exact")) r.exactMetrics = readMetrics(o.object("exact"), kind);
    if (o.has("null_witness")) r.nullWitness = readMetrics(o.object("null_witness"), kind);
}

/// The optional parts: automaton execution, stop reason, warnings, timings.
void readExtras(const JsonReader& o, ExperimentResult& r) {
    if (o.has("execution")) {
        const JsonReader e = o.object("execution");
        ExecutionResult x;
        x.stepAccuracy = e.real("step_accuracy");
        x.wordAccuracy = e.real("word_accuracy");
        x.teacherStepAccuracy = e.real("teacher_step_accuracy");
        x.teacherWordAccuracy = e.real("teacher_word_accuracy");
        x.words = static_cast<int>(e.integer("words", 0));
        x.wordLength = static_cast<int>(e.integer("word_length", 0));
        r.execution = x;
    }
    if (r.config.solver.kind != SolverKind::Poly) r.stopReason = o.text("stop_reason", false);
    for (const QJsonValue& w : o.array("warnings", false)) {
        if (!w.isString()) o.fail(q("warnings"), q("expected an array of strings"));
        r.warnings.push_back(w.toString().toStdString());
    }
    if (o.has("timings_ms")) {
        const JsonReader t = o.object("timings_ms");
        for (auto it = t.json().begin(); it != t.json().end(); ++it)
            r.timingsMs.emplace_back(it.key().toStdString(),
                                     t.realOf(it.value(), q("timings_ms.") + it.key()));
    }
}

/// Returns whether the file holds an identifiability report (not read back).
bool readResultJson(const QString& file, const QByteArray& bytes, ExperimentResult& r, int* seeds,
                    long long* declaredHeads) {
    const JsonReader o(file, runObjectOf(file, bytes, seeds));
    const int version = readConfigAndSizes(file, o, r);
    r.certificate = readCertificate(o, r.featureDim);
    r.solveMethod = o.text("solve_method");
    readFit(o, version, r, declaredHeads);
    readExtras(o, r);
    return o.has("identifiability");
}

void readSpectrum(const CsvReader& t, Certificate& c, long long D) {
    if (t.rows() != 0 && t.rows() != D)
        throw ReadError(q("%1: %2 rows; expected D = %3 (one per eigenvalue of Lambda) or none")
                            .arg(t.file())
                            .arg(t.rows())
                            .arg(D));
    c.spectrum.resize(t.rows());
    for (qsizetype i = 0; i < t.rows(); ++i) {
        if (t.integer(i, 0, 0, t.rows() - 1) != i)
            t.fail(i, 0, q("expected %1 (rows in order, from 0)").arg(i));
        c.spectrum(i) = t.real(i, 1);
        (void)t.choice(i, 2, {q("true"), q("false")}); // checked, not kept
    }
}

void readHeads(const CsvReader& t, const ExperimentResult& r, long long declaredHeads,
               Heads& learned, Heads& teacher) {
    // First pass: the head count of each model, from the cells alone. Matrices are made only
    // once the rows are exactly heads x (d_out d + d^2) per model and the counts agree with
    // result.json, so memory is bounded by the file, not by what it claims.
    const long long perHead =
        static_cast<long long>(r.dOut) * r.d + static_cast<long long>(r.d) * r.d;
    long long count[2] = {0, 0}, rows[2] = {0, 0};
    std::vector<int> model(static_cast<size_t>(t.rows()));
    for (qsizetype i = 0; i < t.rows(); ++i) {
        const int m = t.choice(i, 0, {q("learned"), q("teacher")}) == q("learned") ? 0 : 1;
        model[static_cast<size_t>(i)] = m;
        const long long k = t.integer(i, 1, 0, kMaxCsvRows);
        if (k > count[m])
            t.fail(i, 1,
                   q("head %1 before head %2 (heads are written in order)").arg(k).arg(count[m]));
        if (k == count[m]) ++count[m];
        ++rows[m];
    }
    for (int m = 0; m < 2; ++m) {
        const QString name = m == 0 ? q("learned") : q("teacher");
        if (rows[m] != count[m] * perHead)
            throw ReadError(q("heads.csv: the %1 model has %2 rows for %3 heads; expected %4 "
                              "(d_out x d + d x d = %5 entries per head)")
                                .arg(name)
                                .arg(rows[m])
                                .arg(count[m])
                                .arg(count[m] * perHead)
                                .arg(perHead));
    }
    if (declaredHeads >= 0 && count[0] != declaredHeads)
        throw ReadError(q("heads.csv: %1 learned heads; result.json says heads = %2")
                            .arg(count[0])
                            .arg(declaredHeads));
    for (int m = 0; m < 2; ++m) {
        Heads& h = m == 0 ? learned : teacher;
        for (long long k = 0; k < count[m]; ++k) {
            h.V.push_back(Mat::Constant(r.dOut, r.d, kNaN));
            h.Q.push_back(Mat::Constant(r.d, r.d, kNaN));
        }
    }
    for (qsizetype i = 0; i < t.rows(); ++i) {
        Heads& h = model[static_cast<size_t>(i)] == 0 ? learned : teacher;
        const long long k = t.integer(i, 1, 0, h.count() - 1);
        const bool isV = t.choice(i, 2, {q("V"), q("Q")}) == q("V");
        const int rowCount = isV ? r.dOut : r.d;
        const long long row = t.integer(i, 3, 0, rowCount - 1);
        const long long col = t.integer(i, 4, 0, r.d - 1);
        (isV ? h.V : h.Q)[k](row, col) = t.real(i, 5);
    }
    for (const Heads* h : {&learned, &teacher})
        for (int k = 0; k < h->count(); ++k)
            if (h->V[k].hasNaN() || h->Q[k].hasNaN())
                throw ReadError(
                    q("heads.csv: head %1 of the %2 model is incomplete (every entry of "
                      "V (d_out x d) and Q (d x d) must be present and finite)")
                        .arg(k)
                        .arg(h == &learned ? q("learned") : q("teacher")));
}

void readLambdaTrace(const CsvReader& trace, ExperimentResult& r) {
    for (qsizetype i = 0; i < trace.rows(); ++i)
        r.lambdaTrace.emplace_back(trace.integer(i, 0, 0, 9007199254740992LL), trace.real(i, 1));
}

void readHistory(const CsvReader& h, ExperimentResult& r) {
    for (qsizetype i = 0; i < h.rows(); ++i) {
        HistoryPoint p;
        p.epoch = static_cast<int>(h.integer(i, 0, 0, 1000000000));
        p.step = h.integer(i, 1, 0, 9007199254740992LL);
        p.lr = h.real(i, 2);
        p.trainMse = h.real(i, 3);
        p.valMse = h.real(i, 4);
        p.oodRelMse = h.real(i, 5);
        p.distanceP = h.real(i, 6);
        p.distancePRel = h.real(i, 7);
        p.distanceExactRel = h.real(i, 8);
        r.history.push_back(p);
    }
}

/// What the folder does not hold: P and P* rebuilt from the heads; the notes that say so and
/// what is left out.
QStringList rebuildFromHeads(ExperimentResult& r, bool hasIdentifiability) {
    QStringList notes;
    if (r.teacherHeads.heads.count() > 0) r.teacherP = foldHeads(r.teacherHeads.heads, r.d, r.dOut);
    if (r.heads.heads.count() > 0) r.P = foldHeads(r.heads.heads, r.d, r.dOut);
    const bool teacher = r.teacherHeads.heads.count() > 0;
    if (r.dOut == 0)
        notes << q("No fit to rebuild: the prompts had no targets (heads.csv is empty)");
    else if (r.heads.heads.count() > 0)
        notes << (teacher ? q("P and P* are rebuilt from the heads in heads.csv (folded "
                              "coefficients are not written; equal to the run's up to "
                              "rounding when every head is kept)")
                          : q("P is rebuilt from the heads in heads.csv (folded "
                              "coefficients are not written; equal to the run's up to "
                              "rounding when every head is kept); the data has no "
                              "teacher, so there is no P*"));
    else if (teacher)
        notes << q("P* is rebuilt from the teacher's heads in heads.csv (this model has no "
                   "folded coefficients)");
    if (r.execution) notes << q("The automaton's example word is not in the folder");
    if (hasIdentifiability)
        notes << q("The identifiability report (Explorer tab) is not read back; rerun the "
                   "experiment to explore it");
    return notes;
}

} // namespace

bool isResultFolder(const QString& dir) {
    return QFileInfo(QDir(dir).filePath(q("result.json"))).isFile();
}

std::optional<ResultFolder> readResultFolder(const QString& dir, QString* error) {
    try {
        const QFileInfo fi(dir);
        if (!fi.isDir())
            throw ReadError(q("%1: not a folder (expected a results folder holding result.json)")
                                .arg(QDir::toNativeSeparators(dir)));
        const QDir d(fi.absoluteFilePath());
        ResultFolder out;
        out.name = fi.fileName();
        ExperimentResult& r = out.result;
        bool present = false;
        const auto file = [&d](const char* name) {
            return QDir::toNativeSeparators(d.filePath(q(name)));
        };
        int seeds = 1;
        long long declaredHeads = -1;
        const bool hasIdentifiability =
            readResultJson(file("result.json"), readFile(d, q("result.json"), true, &present), r,
                           &seeds, &declaredHeads);
        if (seeds > 1)
            out.notes << q("The folder holds %1 seeds (solve --seeds); the first one, whose CSV "
                           "files are in the folder, is loaded")
                             .arg(seeds);

        readSpectrum(CsvReader(file("spectrum.csv"), readFile(d, q("spectrum.csv"), true, &present),
                               {q("index"), q("eigenvalue"), q("below_tolerance")}, r.featureDim,
                               q("the feature dimension D")),
                     r.certificate, r.featureDim);

        // Learned heads: result.json's count (bounded above); teacher heads: its rank bound.
        const long long perHead =
            static_cast<long long>(r.dOut) * r.d + static_cast<long long>(r.d) * r.d;
        const long long maxRank =
            std::min(static_cast<long long>(r.dOut) * r.d, static_cast<long long>(r.d) * r.d);
        const long long learnedBound = declaredHeads >= 0
                                           ? declaredHeads
                                           : std::max<long long>(maxRank, r.config.solver.heads);
        readHeads(CsvReader(file("heads.csv"), readFile(d, q("heads.csv"), true, &present),
                            {q("model"), q("head"), q("matrix"), q("row"), q("col"), q("value")},
                            std::min(kMaxCsvRows, (learnedBound + maxRank) * perHead),
                            q("heads x (d_out d + d^2) of the embedded experiment")),
                  r, declaredHeads, r.heads.heads, r.teacherHeads.heads);

        readLambdaTrace(
            CsvReader(file("lambda_trace.csv"), readFile(d, q("lambda_trace.csv"), true, &present),
                      {q("samples"), q("lambda_min")}, kMaxCsvRows, q("the file size limit")),
            r);
        if (r.config.solver.kind != SolverKind::Poly)
            readHistory(CsvReader(file("history.csv"),
                                  readFile(d, q("history.csv"), true, &present),
                                  {q("epoch"), q("step"), q("lr"), q("train_mse"), q("val_mse"),
                                   q("ood_rel_mse"), q("distance_p"), q("distance_p_rel"),
                                   q("distance_exact_rel")},
                                  kMaxCsvRows, q("the file size limit")),
                        r);
        out.notes << rebuildFromHeads(r, hasIdentifiability);
        return out;
    } catch (const ReadError& e) {
        if (error) *error = QString::fromUtf8(e.what());
        return std::nullopt;
    }
}

} // namespace mhla
