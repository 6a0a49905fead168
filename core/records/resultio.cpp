#include "core/records/resultio.h"
#include "core/base/fileio.h"
#include "core/base/text.h"
#include "core/run/explorer.h"
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

namespace mhla {

namespace {

QJsonValue number(double v) {
    return std::isfinite(v) ? QJsonValue(v) : QJsonValue(QJsonValue::Null);
}

/// The metrics a task kind defines: without a teacher (validation stream) the numbers that need
/// it are absent, not null and not zero.
QJsonObject metricsJson(const Metrics& m, const TaskKindTraits& kind) {
    QJsonObject o{{q("train_mse"), number(m.trainMse)}};
    if (kind.validation) o.insert(q("val_mse"), number(m.valMse));
    if (kind.teacher) {
        o.insert(q("ood_rel_mse"), number(m.oodRelMse));
        o.insert(q("distance_p"), number(m.distanceP));
        o.insert(q("distance_p_rel"), number(m.distancePRel));
    }
    return o;
}

QJsonArray vectorJson(const Vec& v) {
    QJsonArray a;
    for (Index i = 0; i < v.size(); ++i) a.append(number(v(i)));
    return a;
}

} // namespace

QJsonObject resultToJson(const ExperimentResult& r) {
    const TaskKindTraits kind = taskKindTraits(r.config.task);
    QJsonObject o;
    o.insert(q("mhla_lab_version"), q(MHLA_VERSION));
    o.insert(q("format_version"), kResultFormatVersion);
    o.insert(q("task"), toString(r.config.task.kind));
    o.insert(q("solver"), toString(r.config.solver.kind));
    o.insert(q("d"), r.d);
    o.insert(q("tokens"), r.tokens);
    o.insert(q("d_out"), r.dOut);
    o.insert(q("feature_dim"), static_cast<qint64>(r.featureDim));
    o.insert(q("samples"), static_cast<qint64>(r.samples));
    const Certificate& c = r.certificate;
    const bool haveCert = !c.method.empty();
    o.insert(q("lambda_min"), haveCert ? number(c.lambdaMin) : QJsonValue());
    o.insert(q("lambda_max"), haveCert ? number(c.lambdaMax) : QJsonValue());
    o.insert(q("condition_number"), haveCert ? number(c.condition) : QJsonValue());
    o.insert(q("null_dim"), haveCert ? QJsonValue(c.nullDim) : QJsonValue());
    o.insert(q("certified"), haveCert ? QJsonValue(c.certified) : QJsonValue());
    o.insert(q("tolerance"), haveCert ? number(c.tolerance) : QJsonValue());
    o.insert(q("certificate_method"), QString::fromStdString(c.method));
    o.insert(q("solve_method"), QString::fromStdString(r.solveMethod));
    // Prompts without targets (d_out = 0) are certified and fitted by nothing: no errors, no
    // heads, absent rather than zero.
    if (r.dOut > 0) {
        const QJsonObject m = metricsJson(r.metrics, kind);
        for (auto it = m.begin(); it != m.end(); ++it) o.insert(it.key(), it.value());
        // heads: the heads the method keeps: the exact solver's canonical heads, a trainer's
        // own model (whose folded P can have more canonical heads: they number `rank`).
        const bool trainer = r.config.solver.kind != SolverKind::Poly;
        o.insert(q("heads"), trainer ? r.config.solver.heads : r.heads.heads.count());
        o.insert(q("rank"), r.heads.rank);
        if (kind.teacher) o.insert(q("teacher_rank"), r.teacherHeads.rank); // data: no teacher
        o.insert(q("singular_values"), vectorJson(r.heads.singularValues));
    }
    if (r.untruncatedMetrics) o.insert(q("untruncated"), metricsJson(*r.untruncatedMetrics, kind));
    if (r.exactMetrics) o.insert(q("exact"), metricsJson(*r.exactMetrics, kind));
    if (r.nullWitness) o.insert(q("null_witness"), metricsJson(*r.nullWitness, kind));
    if (r.execution) {
        const ExecutionResult& e = *r.execution;
        o.insert(q("execution"), QJsonObject{{q("step_accuracy"), e.stepAccuracy},
                                             {q("word_accuracy"), e.wordAccuracy},
                                             {q("teacher_step_accuracy"), e.teacherStepAccuracy},
                                             {q("teacher_word_accuracy"), e.teacherWordAccuracy},
                                             {q("words"), e.words},
                                             {q("word_length"), e.wordLength}});
    }
    QJsonArray trace;
    for (const auto& [n, l] : r.lambdaTrace)
        trace.append(QJsonArray{static_cast<qint64>(n), number(l)});
    o.insert(q("lambda_trace"), trace);
    if (r.config.solver.kind != SolverKind::Poly) {
        o.insert(q("stop_reason"), QString::fromStdString(r.stopReason));
        QJsonArray hist;
        for (const HistoryPoint& p : r.history)
            hist.append(QJsonObject{{q("epoch"), p.epoch},
                                    {q("step"), static_cast<qint64>(p.step)},
                                    {q("lr"), number(p.lr)},
                                    {q("train_mse"), number(p.trainMse)},
                                    {q("val_mse"), number(p.valMse)},
                                    {q("ood_rel_mse"), number(p.oodRelMse)},
                                    {q("distance_p"), number(p.distanceP)},
                                    {q("distance_p_rel"), number(p.distancePRel)},
                                    {q("distance_exact_rel"), number(p.distanceExactRel)}});
        o.insert(q("history"), hist);
    }
    if (!r.warnings.empty()) {
        QJsonArray w;
        for (const std::string& text : r.warnings) w.append(QString::fromStdString(text));
        o.insert(q("warnings"), w);
    }
    if (r.identifiability) o.insert(q("identifiability"), toJson(*r.identifiability));
    QJsonObject timings;
    for (const auto& [name, ms] : r.timingsMs) timings.insert(QString::fromStdString(name), ms);
    o.insert(q("timings_ms"), timings);
    o.insert(q("config"), experimentToJson(r.config));
    return o;
}

std::vector<ExperimentConfig> seedVariants(const ExperimentConfig& cfg, int count) {
    constexpr long long kMaxSeed = 9007199254740992LL; // 2^53: exact in the JSON file
    if (count < 1) throw ConfigError("--seeds: expected an integer >= 1");
    // Run k uses seed + k, k < count: the last one must stay within [0, 2^53].
    if (cfg.task.seed > kMaxSeed - (count - 1) || cfg.solver.seed > kMaxSeed - (count - 1))
        throw ConfigError(
            "--seeds: task.seed or solver.seed + " + std::to_string(count - 1) +
                " would exceed 2^53 (9007199254740992); choose smaller seeds or fewer runs",
            QStringLiteral("task.seed"));
    std::vector<ExperimentConfig> out;
    for (int k = 0; k < count; ++k) {
        ExperimentConfig c = cfg;
        c.task.seed += k;
        c.solver.seed += k;
        out.push_back(c);
    }
    return out;
}

namespace {
struct Scalar {
    const char* name;
    std::function<double(const ExperimentResult&)> get;
};
std::vector<Scalar> scalarMetrics() {
    return {
        {"lambda_min", [](const ExperimentResult& r) { return r.certificate.lambdaMin; }},
        {"null_dim",
         [](const ExperimentResult& r) { return static_cast<double>(r.certificate.nullDim); }},
        {"train_mse", [](const ExperimentResult& r) { return r.metrics.trainMse; }},
        {"val_mse", [](const ExperimentResult& r) { return r.metrics.valMse; }},
        {"ood_rel_mse", [](const ExperimentResult& r) { return r.metrics.oodRelMse; }},
        {"distance_p_rel", [](const ExperimentResult& r) { return r.metrics.distancePRel; }},
        {"step_accuracy",
         [](const ExperimentResult& r) {
             return r.execution ? r.execution->stepAccuracy
                                : std::numeric_limits<double>::quiet_NaN();
         }},
        {"word_accuracy",
         [](const ExperimentResult& r) {
             return r.execution ? r.execution->wordAccuracy
                                : std::numeric_limits<double>::quiet_NaN();
         }},
    };
}
} // namespace

MeanStd meanAndStd(const std::vector<double>& v) {
    double mean = 0;
    for (double x : v) mean += x;
    mean /= static_cast<double>(v.size());
    double ss = 0;
    for (double x : v) ss += (x - mean) * (x - mean);
    return {mean, v.size() > 1 ? std::sqrt(ss / static_cast<double>(v.size() - 1)) : 0.0};
}

QJsonObject seedSummaryJson(const std::vector<ExperimentResult>& runs) {
    QJsonObject out;
    for (const Scalar& m : scalarMetrics()) {
        std::vector<double> v;
        for (const auto& r : runs)
            if (const double x = m.get(r); std::isfinite(x)) v.push_back(x);
        if (v.empty()) continue;
        const auto [mean, sd] = meanAndStd(v);
        out.insert(q(m.name), QJsonObject{{q("mean"), mean},
                                          {q("std"), sd},
                                          {q("min"), *std::min_element(v.begin(), v.end())},
                                          {q("max"), *std::max_element(v.begin(), v.end())},
                                          {q("runs"), static_cast<int>(v.size())}});
    }
    int certified = 0;
    for (const auto& r : runs) certified += r.certificate.certified ? 1 : 0;
    out.insert(q("certified_fraction"),
               runs.empty() ? 0.0 : static_cast<double>(certified) / runs.size());
    return out;
}

CsvTable seedsTable(const std::vector<ExperimentResult>& runs) {
    QStringList cols{q("task_seed"), q("task_rng"), q("solver_seed"), q("certified")};
    for (const Scalar& m : scalarMetrics()) cols << q(m.name);
    CsvTable t(cols);
    for (const auto& r : runs) {
        QStringList row{CsvTable::integer(r.config.task.seed), toString(r.config.task.rng),
                        CsvTable::integer(r.config.solver.seed),
                        r.certificate.certified ? q("true") : q("false")};
        for (const Scalar& m : scalarMetrics()) row << CsvTable::number(m.get(r));
        t.addRow(row);
    }
    return t;
}

CsvTable spectrumTable(const ExperimentResult& r) {
    CsvTable t({q("index"), q("eigenvalue"), q("below_tolerance")});
    const Vec& ev = r.certificate.spectrum;
    for (Index i = 0; i < ev.size(); ++i)
        t.addRow({CsvTable::integer(i), CsvTable::number(ev(i)),
                  ev(i) <= r.certificate.tolerance ? q("true") : q("false")});
    return t;
}

CsvTable headsTable(const ExperimentResult& r) {
    CsvTable t({q("model"), q("head"), q("matrix"), q("row"), q("col"), q("value")});
    auto dump = [&t](const char* model, const Heads& h) {
        for (int k = 0; k < h.count(); ++k)
            for (const auto& [name, M] : {std::pair<const char*, const Mat*>{"V", &h.V[k]},
                                          std::pair<const char*, const Mat*>{"Q", &h.Q[k]}})
                for (Index i = 0; i < M->rows(); ++i)
                    for (Index j = 0; j < M->cols(); ++j)
                        t.addRow({q(model), CsvTable::integer(k), q(name), CsvTable::integer(i),
                                  CsvTable::integer(j), CsvTable::number((*M)(i, j))});
    };
    dump("learned", r.heads.heads);
    dump("teacher", r.teacherHeads.heads);
    return t;
}

CsvTable lambdaTraceTable(const ExperimentResult& r) {
    CsvTable t({q("samples"), q("lambda_min")});
    for (const auto& [n, l] : r.lambdaTrace) t.addRow({CsvTable::integer(n), CsvTable::number(l)});
    return t;
}

CsvTable historyTable(const ExperimentResult& r) {
    CsvTable t({q("epoch"), q("step"), q("lr"), q("train_mse"), q("val_mse"), q("ood_rel_mse"),
                q("distance_p"), q("distance_p_rel"), q("distance_exact_rel")});
    for (const HistoryPoint& p : r.history)
        t.addRow({CsvTable::integer(p.epoch), CsvTable::integer(p.step), CsvTable::number(p.lr),
                  CsvTable::number(p.trainMse), CsvTable::number(p.valMse),
                  CsvTable::number(p.oodRelMse), CsvTable::number(p.distanceP),
                  CsvTable::number(p.distancePRel), CsvTable::number(p.distanceExactRel)});
    return t;
}

QStringList resultFileNames() {
    return {q("result.json"), q("experiment.json"),  q("spectrum.csv"),
            q("heads.csv"),   q("lambda_trace.csv"), q("history.csv")};
}

std::vector<std::pair<QString, QByteArray>> resultFiles(const ExperimentResult& r,
                                                        const QByteArray& resultJson) {
    const QStringList names = resultFileNames();
    std::vector<std::pair<QString, QByteArray>> files{
        {names[0], resultJson},
        {names[1], QJsonDocument(experimentToJson(r.config)).toJson()},
        {names[2], spectrumTable(r).bytes()},
        {names[3], headsTable(r).bytes()},
        {names[4], lambdaTraceTable(r).bytes()}};
    if (r.config.solver.kind != SolverKind::Poly)
        files.emplace_back(names[5], historyTable(r).bytes());
    return files;
}

QString writeFiles(const QString& dir, const std::vector<std::pair<QString, QByteArray>>& files,
                   QStringList* written) {
    const QDir d(dir);
    for (const auto& [name, data] : files) {
        const QString path = d.filePath(name);
        if (QString e = writeFileAtomic(path, data); !e.isEmpty()) return e;
        if (written) *written << path;
    }
    return {};
}

QString writeRunFolder(const QString& dir, std::vector<std::pair<QString, QByteArray>> files) {
    const QString resultName = resultFileNames().first();
    const auto result = std::find_if(files.begin(), files.end(),
                                     [&](const auto& f) { return f.first == resultName; });
    if (result != files.end()) std::rotate(result, result + 1, files.end());
    QStringList stale = resultFileNames() << q("seeds.csv");
    for (const auto& f : files) stale.removeAll(f.first);
    stale.prepend(resultName);
    for (const QString& name : stale)
        if (const QString e = removeFile(QDir(dir).filePath(name)); !e.isEmpty()) return e;
    removeStaleTemporaries(dir);
    return writeFiles(dir, files);
}

} // namespace mhla
