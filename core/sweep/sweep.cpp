#include "core/sweep/sweep.h"
#include "core/experiment/loader.h"
#include "core/records/resultio.h"
#include "core/run/admission.h"
#include "core/sweep/sweepinternal.h"
#include <QJsonDocument>
#include <QRegularExpression>
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

namespace mhla {

namespace {

constexpr int kMaxValues = 100000;
constexpr long long kMaxPoints = 1000000;

using sweepdetail::fail;

double round15(double v) { return QString::number(v, 'g', 15).toDouble(); }

QJsonValue numberValue(double v) {
    // Integral values stay integers in the JSON (1, not 1.0), so integer keys accept them.
    if (std::abs(v) < 9007199254740992.0 && v == std::floor(v))
        return QJsonValue(static_cast<qint64>(v));
    return QJsonValue(v);
}

bool parseNumber(const QString& s, double* out) {
    bool ok = false;
    *out = s.trimmed().toDouble(&ok);
    return ok && std::isfinite(*out);
}

QString jsonText(const QJsonValue& v) {
    const QByteArray a = QJsonDocument(QJsonArray{v}).toJson(QJsonDocument::Compact);
    return QString::fromUtf8(a.mid(1, a.size() - 2));
}

QString valueText(const QJsonValue& v) {
    if (v.isString()) return v.toString();
    if (v.isDouble()) return numberText(v.toDouble());
    return jsonText(v);
}

void checkKey(const QString& key, const QString& where) {
    if (findExperimentKey(key)) return;
    QStringList known;
    for (const KeyInfo& k : experimentKeys()) known << k.path();
    fail(where + q(": unknown key \"") + key + q("\"; allowed: the keys of the experiment file (") +
             known.join(q(", ")) + q(")"),
         where);
}

/// An integer key's number as written (a --grid item, a range's bound or step): refused when
/// reading it as a double would change it (see integerLiteralProblem).
void checkIntegerText(const QString& key, const QString& literal, const QString& where) {
    const KeyInfo* k = findExperimentKey(key);
    if (k == nullptr || k->type != KeyInfo::Type::Integer) return;
    if (const QString why = integerLiteralProblem(*k, literal.trimmed()); !why.isEmpty())
        fail(where + q(": ") + why, where);
}

} // namespace

QJsonArray parseSweepValues(const QString& key, const QJsonValue& values, const QString& where) {
    const QString grammar =
        q("; allowed: a list [v1, v2, ...], \"a:b:step\" or \"logspace(a,b,n)\"");
    if (values.isArray()) {
        const QJsonArray a = values.toArray();
        if (a.isEmpty()) fail(where + q(": the list of values is empty") + grammar, where);
        if (a.size() > kMaxValues) fail(where + q(": more than 100000 values"), where);
        for (const QJsonValue& v : a)
            if (v.isArray() || v.isObject() || v.isNull())
                fail(where + q(": ") + jsonText(v) + q(" is not a value for ") + key +
                         q("; allowed: numbers, strings or booleans"),
                     where);
        return a;
    }
    if (!values.isString())
        fail(where + q(": ") + jsonText(values) + q(" is not allowed") + grammar, where);
    const QString s = values.toString().trimmed();
    static const QRegularExpression logRe(
        q("^logspace\\(\\s*([^,()]+?)\\s*,\\s*([^,()]+?)\\s*,\\s*([^,()]+?)\\s*\\)$"));
    QJsonArray out;
    if (const auto m = logRe.match(s); m.hasMatch()) {
        double a = 0, b = 0, nd = 0;
        if (!parseNumber(m.captured(1), &a) || !parseNumber(m.captured(2), &b) ||
            !parseNumber(m.captured(3), &nd) || nd != std::floor(nd) || nd < 1 || nd > kMaxValues)
            fail(
                where + q(": \"") + s +
                    q("\" is not allowed; expected logspace(a,b,n) with finite exponents a, b and an "
                      "integer n in [1, 100000]"),
                where);
        const int n = static_cast<int>(nd);
        for (int k = 0; k < n; ++k) {
            const double e = n == 1 ? a : a + k * (b - a) / (n - 1);
            const double v = round15(std::pow(10.0, e));
            if (!std::isfinite(v) || v == 0)
                fail(where + q(": \"") + s + q("\" gives 10^") + numberText(e) +
                         q(", outside the doubles"),
                     where);
            out.append(numberValue(v));
        }
        return out;
    }
    const QStringList parts = s.split(QLatin1Char(':'));
    if (parts.size() == 3) {
        double a = 0, b = 0, step = 0;
        if (!parseNumber(parts[0], &a) || !parseNumber(parts[1], &b) ||
            !parseNumber(parts[2], &step))
            fail(where + q(": \"") + s +
                     q("\" is not allowed; expected a:b:step with finite numbers"),
                 where);
        if (a != b && (step == 0 || (b - a) / step < 0))
            fail(where + q(": \"") + s +
                     q("\" is not allowed; the step must be non-zero and go from a towards b"),
                 where);
        const double count = a == b ? 0 : std::floor((b - a) / step + 1e-9);
        if (count + 1 > kMaxValues)
            fail(where + q(": \"") + s + q("\" gives more than 100000 values"), where);
        for (const QString& part : parts) checkIntegerText(key, part, where);
        // Integers step exactly (a seed range near 2^53 is not rounded to 15 digits).
        const auto integral = [](double x) { return std::floor(x) == x; };
        const KeyInfo* k = findExperimentKey(key);
        const bool exactIntegers = k != nullptr && k->type == KeyInfo::Type::Integer &&
                                   integral(a) && integral(b) && integral(step);
        for (long long i = 0; i <= static_cast<long long>(count); ++i)
            out.append(exactIntegers
                           ? QJsonValue(static_cast<qint64>(a) + i * static_cast<qint64>(step))
                           : numberValue(round15(a + i * step)));
        return out;
    }
    fail(where + q(": \"") + s + q("\" is not allowed") + grammar, where);
}

SweepAxis parseGridAssignment(const QString& assignment) {
    const qsizetype eq = assignment.indexOf(QLatin1Char('='));
    if (eq <= 0)
        fail(q("--grid \"") + assignment + q("\": expected KEY=VALUES (e.g. solver.heads=1,2,4,8)"),
             {});
    const QString key = assignment.left(eq).trimmed();
    const QString text = assignment.mid(eq + 1).trimmed();
    const QString where = q("--grid ") + key;
    checkKey(key, where);
    if (text.isEmpty()) fail(where + q(": no values"), key);
    SweepAxis axis;
    axis.key = key;
    axis.fromCommandLine = true;
    if (text.startsWith(QLatin1Char('['))) {
        QJsonParseError pe{};
        const QJsonDocument doc = QJsonDocument::fromJson(text.toUtf8(), &pe);
        if (pe.error != QJsonParseError::NoError || !doc.isArray())
            fail(where + q(": \"") + text + q("\" is not a JSON array"), key);
        // Its numbers as written, through the experiment file's reader (as a grid in a file).
        try {
            (void)experimentObjectFromJsonText( // parsed for its error only
                (q("{\"sweep\": {\"grid\": {") + jsonText(key) + q(": ") + text + q("}}}"))
                    .toUtf8());
        } catch (const ConfigError& e) {
            const QString msg = QString::fromUtf8(e.what());
            const QString prefix = q("sweep.grid.") + key + q(": ");
            if (msg.startsWith(prefix)) fail(where + q(": ") + msg.mid(prefix.size()), key);
        }
        axis.values = parseSweepValues(key, doc.array(), where);
    } else if (text.startsWith(q("logspace(")) || text.count(QLatin1Char(':')) == 2) {
        axis.values = parseSweepValues(key, QJsonValue(text), where);
    } else {
        QJsonArray a;
        for (const QString& item : text.split(QLatin1Char(','))) {
            const QString t = item.trimmed();
            checkIntegerText(key, t, where);
            QJsonParseError pe{};
            const QJsonDocument doc = QJsonDocument::fromJson((q("[") + t + q("]")).toUtf8(), &pe);
            if (pe.error == QJsonParseError::NoError && doc.array().size() == 1)
                a.append(doc.array().first());
            else a.append(t);
        }
        axis.values = parseSweepValues(key, a, where);
    }
    return axis;
}

void SweepSpec::setAxis(SweepAxis axis) {
    for (SweepAxis& a : axes)
        if (a.key == axis.key) {
            a = std::move(axis);
            return;
        }
    axes.push_back(std::move(axis));
    std::sort(axes.begin(), axes.end(),
              [](const SweepAxis& x, const SweepAxis& y) { return x.key < y.key; });
}

QJsonObject SweepSpec::toJson() const {
    QJsonObject grid;
    for (const SweepAxis& a : axes) grid.insert(a.key, a.values);
    QJsonObject o{{q("mode"), mode == Mode::Zip ? q("zip") : q("product")}, {q("seeds"), seeds}};
    if (!grid.isEmpty()) o.insert(q("grid"), grid); // none: one point (see parseSweep)
    return o;
}

SweepFile parseSweep(const QJsonObject& file) {
    SweepFile out;
    out.base = file;
    if (file.contains(q("figures"))) {
        out.figures = file.value(q("figures"));
        out.base.remove(q("figures"));
    }
    if (file.contains(q("verdicts"))) {
        out.verdicts = file.value(q("verdicts"));
        out.base.remove(q("verdicts"));
    }
    if (!file.contains(q("sweep"))) return out;
    out.base.remove(q("sweep"));
    out.hasSweep = true;
    const QJsonValue sv = file.value(q("sweep"));
    if (!sv.isObject())
        fail(q("sweep: expected an object {\"grid\": {...}, \"mode\": ..., \"seeds\": K}"),
             q("sweep"));
    QJsonObject s = sv.toObject();
    // The presets' legacy form: {"key": K, "values": [...]}.
    if (s.contains(q("key")) || s.contains(q("values"))) {
        if (s.size() != 2 || !s.value(q("key")).isString() || !s.contains(q("values")))
            fail(
                q("sweep: the short form is {\"key\": \"section.key\", \"values\": [...]} and nothing else"),
                q("sweep"));
        s = QJsonObject{
            {q("grid"), QJsonObject{{s.value(q("key")).toString(), s.value(q("values"))}}}};
    }
    for (auto it = s.begin(); it != s.end(); ++it)
        if (it.key() != q("grid") && it.key() != q("mode") && it.key() != q("seeds"))
            fail(q("sweep.") + it.key() + q(": unknown key; allowed: grid, mode, seeds"),
                 q("sweep.") + it.key());
    // No grid is one point (the base experiment) run `seeds` times: what `sweep` without --grid
    // runs and writes into sweep.json, so merge and resume read it back. An empty grid {} is
    // refused: someone meant to name keys there.
    if (s.contains(q("grid")) && !s.value(q("grid")).isObject())
        fail(q("sweep.grid: expected an object {\"section.key\": values, ...}"), q("sweep.grid"));
    const QJsonObject grid = s.value(q("grid")).toObject();
    if (s.contains(q("grid")) && grid.isEmpty())
        fail(q("sweep.grid: empty; name at least one key, or leave \"grid\" out to run the base "
               "experiment with seeds only"),
             q("sweep.grid"));
    for (auto it = grid.begin(); it != grid.end(); ++it) {
        const QString where = q("sweep.grid.") + it.key();
        checkKey(it.key(), where);
        out.spec.setAxis({it.key(), parseSweepValues(it.key(), it.value(), where), false});
    }
    if (s.contains(q("mode"))) {
        const QString m = s.value(q("mode")).toString();
        if (m == q("product")) out.spec.mode = SweepSpec::Mode::Product;
        else if (m == q("zip")) out.spec.mode = SweepSpec::Mode::Zip;
        else
            fail(q("sweep.mode: ") + jsonText(s.value(q("mode"))) +
                     q(" is not allowed; allowed: \"product\", \"zip\""),
                 q("sweep.mode"));
    }
    if (s.contains(q("seeds"))) {
        const QJsonValue v = s.value(q("seeds"));
        const double k = v.toDouble(-1);
        if (!v.isDouble() || k != std::floor(k) || k < 1 || k > kMaxSeeds)
            fail(q("sweep.seeds: ") + jsonText(v) +
                     q(" is not allowed; allowed: an integer in [1, ") +
                     QString::number(kMaxSeeds) + q("]"),
                 q("sweep.seeds"));
        out.spec.seeds = static_cast<int>(k);
    }
    return out;
}

QStringList SweepPoint::overrides() const {
    QStringList out;
    for (const auto& [key, v] : values) out << key + QLatin1Char('=') + jsonText(v);
    return out;
}

QString SweepPoint::label() const {
    QStringList parts;
    for (const auto& [key, v] : values) parts << key + QLatin1Char('=') + valueText(v);
    return parts.join(q(", "));
}

QString SweepPoint::slug() const {
    QStringList parts;
    for (const auto& [key, v] : values)
        parts << key.section(QLatin1Char('.'), -1) + QLatin1Char('=') + valueText(v);
    QString s = parts.join(QLatin1Char('_'));
    for (QChar& c : s)
        if (!(c.isLetterOrNumber() && c.unicode() < 128) && c != QLatin1Char('=') &&
            c != QLatin1Char('.') && c != QLatin1Char('-') && c != QLatin1Char('_') &&
            c != QLatin1Char('+'))
            c = QLatin1Char('_');
    if (s.isEmpty()) s = q("base");
    return s.left(80);
}

std::vector<SweepPoint> sweepPoints(const SweepSpec& spec) {
    std::vector<SweepPoint> out;
    if (spec.axes.empty()) {
        out.push_back(SweepPoint{});
        return out;
    }
    if (spec.mode == SweepSpec::Mode::Zip) {
        const qsizetype n = static_cast<qsizetype>(sweepPointCount(spec)); // checks the lengths
        for (qsizetype i = 0; i < n; ++i) {
            SweepPoint p;
            p.index = static_cast<int>(i);
            for (const SweepAxis& a : spec.axes) p.values.emplace_back(a.key, a.values.at(i));
            out.push_back(std::move(p));
        }
        return out;
    }
    const long long total = sweepPointCount(spec);
    if (total > kMaxPoints) fail(q("sweep.grid: more than 1000000 points"), q("sweep.grid"));
    std::vector<qsizetype> idx(spec.axes.size(), 0);
    for (long long i = 0; i < total; ++i) {
        SweepPoint p;
        p.index = static_cast<int>(i);
        for (size_t k = 0; k < spec.axes.size(); ++k)
            p.values.emplace_back(spec.axes[k].key, spec.axes[k].values.at(idx[k]));
        out.push_back(std::move(p));
        for (size_t k = spec.axes.size(); k-- > 0;) {
            if (++idx[k] < spec.axes[k].values.size()) break;
            idx[k] = 0;
        }
    }
    return out;
}

long long sweepPointCount(const SweepSpec& spec) {
    if (spec.axes.empty()) return 1;
    if (spec.mode == SweepSpec::Mode::Zip) {
        const qsizetype n = spec.axes.front().values.size();
        for (const SweepAxis& a : spec.axes)
            if (a.values.size() != n)
                fail(q("sweep.mode zip: ") + a.key + q(" has ") + QString::number(a.values.size()) +
                         q(" values but ") + spec.axes.front().key + q(" has ") +
                         QString::number(n) + q("; zip needs lists of the same length"),
                     q("sweep.grid.") + a.key);
        return n;
    }
    long long total = 1;
    for (const SweepAxis& a : spec.axes) {
        total *= a.values.size();
        if (total > kMaxPoints) return kMaxPoints + 1;
    }
    return total;
}

SweepPlan planSweep(const QJsonObject& base, const SweepSpec& spec, const QStringList& overrides,
                    long long maxRuns) {
    SweepPlan plan;
    plan.spec = spec;
    plan.base = base;
    // Count first: a 10^6-point grid is refused before a single point is built or validated.
    const long long points = sweepPointCount(spec);
    const long long runs = points * spec.seeds;
    if (points > kMaxPoints) fail(q("sweep.grid: more than 1000000 points"), q("sweep.grid"));
    if (runs > kMaxPoints) fail(q("sweep: more than 1000000 runs"), q("sweep.seeds"));
    if (maxRuns > 0 && runs > maxRuns)
        fail(QString::number(points) + q(" points x ") + QString::number(spec.seeds) +
                 q(" seeds = ") + QString::number(runs) + q(" runs, more than ") +
                 QString::number(maxRuns),
             q("--yes"));
    for (const QString& a : overrides) applyOverride(plan.base, a);
    plan.points = sweepPoints(spec);
    for (const SweepPoint& p : plan.points) {
        ExperimentConfig cfg;
        try {
            cfg = loadExperimentObject(plan.base, p.overrides(), "--grid").config;
            admit(cfg);
        } catch (const ConfigError& e) {
            // The loader names a swept key it refuses as "--grid KEY"; a key of the file's grid
            // is named as the file has it.
            QString msg = QString::fromUtf8(e.what());
            for (const SweepAxis& a : spec.axes)
                if (!a.fromCommandLine && a.key == e.key() && msg.startsWith(q("--grid ") + a.key))
                    msg = q("sweep.grid.") + msg.mid(7);
            fail(q("sweep point ") + QString::number(p.index) + q(" (") + p.label() + q("): ") +
                     msg,
                 e.key());
        }
        std::vector<ExperimentConfig> variants;
        try {
            variants = seedVariants(cfg, spec.seeds);
        } catch (const ConfigError& e) {
            fail(q("sweep.seeds: ") + QString::fromUtf8(e.what()), q("sweep.seeds"));
        }
        for (int k = 0; k < spec.seeds; ++k) {
            SweepRun r;
            r.point = p.index;
            r.seed = k;
            r.index = p.index * spec.seeds + k;
            r.config = variants[static_cast<size_t>(k)];
            r.folder = QString::number(r.index).rightJustified(4, QLatin1Char('0')) +
                       QLatin1Char('-') + p.slug() + q("-s") + QString::number(r.config.task.seed);
            plan.runs.push_back(std::move(r));
        }
    }
    return plan;
}

QByteArray SweepPlan::sweepJson() const {
    QJsonObject o = base;
    o.insert(q("sweep"), spec.toJson());
    return QJsonDocument(o).toJson(QJsonDocument::Indented);
}

// ---- tables

namespace {

struct Column {
    QString name;
    bool numeric = true;
    std::function<QJsonValue(const QJsonObject&)> get;
};

QJsonValue path(const QJsonObject& o, const QString& dotted) {
    QJsonValue v = o;
    for (const QString& part : dotted.split(QLatin1Char('.'))) {
        if (!v.isObject()) return {};
        v = v.toObject().value(part);
    }
    return v;
}

std::vector<Column> metricColumns() {
    std::vector<Column> cols;
    auto num = [&cols](const QString& name, const QString& where) {
        cols.push_back({name, true, [where](const QJsonObject& r) { return path(r, where); }});
    };
    cols.push_back({q("task_seed"), true,
                    [](const QJsonObject& r) { return path(r, q("config.task.seed")); }});
    // The generator's name; a result written before task.rng existed was drawn with
    // kRngWhenAbsent.
    cols.push_back({q("task_rng"), false, [](const QJsonObject& r) {
                        const QJsonValue v = path(r, q("config.task.rng"));
                        return v.isString() ? v : QJsonValue(toString(kRngWhenAbsent));
                    }});
    cols.push_back({q("solver_seed"), true,
                    [](const QJsonObject& r) { return path(r, q("config.solver.seed")); }});
    cols.push_back(
        {q("certified"), true, [](const QJsonObject& r) { return r.value(q("certified")); }});
    for (const char* n : {"lambda_min", "lambda_max", "null_dim", "train_mse", "val_mse",
                          "ood_rel_mse", "distance_p", "distance_p_rel", "rank", "heads"})
        num(q(n), q(n));
    for (const char* group : {"exact", "null_witness"})
        for (const char* n :
             {"train_mse", "val_mse", "ood_rel_mse", "distance_p", "distance_p_rel"})
            num(q(group) + QLatin1Char('.') + q(n), q(group) + QLatin1Char('.') + q(n));
    for (const char* n :
         {"step_accuracy", "word_accuracy", "teacher_step_accuracy", "teacher_word_accuracy"})
        num(q("execution.") + q(n), q("execution.") + q(n));
    cols.push_back(
        {q("stop_reason"), false, [](const QJsonObject& r) { return r.value(q("stop_reason")); }});
    cols.push_back({q("epochs_run"), true, [](const QJsonObject& r) {
                        const QJsonArray h = r.value(q("history")).toArray();
                        return h.isEmpty() ? QJsonValue() : h.last().toObject().value(q("epoch"));
                    }});
    cols.push_back({q("teacher_norm"), true, [](const QJsonObject& r) {
                        // ||P*||_F = distance_p / distance_p_rel: the scale of distance_p.
                        const double a = r.value(q("distance_p")).toDouble(NAN),
                                     b = r.value(q("distance_p_rel")).toDouble(NAN);
                        return b > 0 && std::isfinite(a) ? QJsonValue(a / b) : QJsonValue();
                    }});
    return cols;
}

double asNumber(const QJsonValue& v) {
    if (v.isBool()) return v.toBool() ? 1.0 : 0.0;
    if (v.isDouble()) return v.toDouble();
    return std::numeric_limits<double>::quiet_NaN();
}

QString cell(const QJsonValue& v) {
    if (v.isBool()) return v.toBool() ? q("true") : q("false");
    if (v.isDouble()) return CsvTable::number(v.toDouble());
    if (v.isString()) return CsvTable::text(v.toString());
    return {};
}

QStringList sweptCells(const SweepPlan& plan, int point) {
    // Swept values as written in sweep.json (shortest text that reads back to the same double),
    // so that 0.05 stays 0.05; metrics get 17 digits.
    QStringList cells;
    for (const auto& [key, v] : plan.points[static_cast<size_t>(point)].values)
        cells << (v.isDouble() ? numberText(v.toDouble()) : cell(v));
    return cells;
}

QStringList sweptNames(const SweepPlan& plan) {
    QStringList names;
    for (const SweepAxis& a : plan.spec.axes) names << a.key;
    return names;
}

} // namespace

QStringList sweepMetricColumns() {
    QStringList out;
    for (const Column& c : metricColumns()) out << c.name;
    return out;
}

QJsonValue sweepMetric(const QJsonObject& result, const QString& column) {
    for (const Column& c : metricColumns())
        if (c.name == column) return c.get(result);
    return {};
}

QByteArray sweepRunsCsv(const SweepPlan& plan, const std::vector<QJsonObject>& results) {
    const auto cols = metricColumns();
    CsvTable t(QStringList{q("run"), q("point")} + sweptNames(plan) + sweepMetricColumns());
    for (size_t i = 0; i < plan.runs.size() && i < results.size(); ++i) {
        if (results[i].isEmpty()) continue;
        const SweepRun& r = plan.runs[i];
        QStringList row{CsvTable::integer(r.index), CsvTable::integer(r.point)};
        row += sweptCells(plan, r.point);
        for (const Column& c : cols) row << cell(c.get(results[i]));
        t.addRow(row);
    }
    return t.bytes();
}

double sortedQuantile(const std::vector<double>& v, double qq) {
    if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
    const double pos = qq * static_cast<double>(v.size() - 1);
    const size_t lo = static_cast<size_t>(std::floor(pos));
    const size_t hi = std::min(lo + 1, v.size() - 1);
    const double f = pos - static_cast<double>(lo);
    return f == 0 ? v[lo] : v[lo] + f * (v[hi] - v[lo]);
}

QByteArray sweepSummaryCsv(const SweepPlan& plan, const std::vector<QJsonObject>& results) {
    const auto cols = metricColumns();
    CsvTable t(QStringList{q("point")} + sweptNames(plan) +
               QStringList{q("metric"), q("mean"), q("std"), q("median"), q("q10"), q("q90"),
                           q("min"), q("max"), q("runs")});
    for (const SweepPoint& p : plan.points) {
        for (const Column& c : cols) {
            if (!c.numeric || c.name == q("task_seed") || c.name == q("solver_seed")) continue;
            std::vector<double> v;
            for (size_t i = 0; i < plan.runs.size() && i < results.size(); ++i)
                if (plan.runs[i].point == p.index && !results[i].isEmpty())
                    if (const double x = asNumber(c.get(results[i])); std::isfinite(x))
                        v.push_back(x);
            if (v.empty()) continue;
            const auto [mean, sd] = meanAndStd(v);
            std::sort(v.begin(), v.end());
            QStringList row{CsvTable::integer(p.index)};
            row += sweptCells(plan, p.index);
            row << c.name << CsvTable::number(mean) << CsvTable::number(sd)
                << CsvTable::number(sortedQuantile(v, 0.5))
                << CsvTable::number(sortedQuantile(v, 0.1))
                << CsvTable::number(sortedQuantile(v, 0.9)) << CsvTable::number(v.front())
                << CsvTable::number(v.back())
                << CsvTable::integer(static_cast<long long>(v.size()));
            t.addRow(row);
        }
    }
    return t.bytes();
}

QByteArray sweepTimingsCsv(const SweepPlan& plan, const std::vector<QJsonObject>& results) {
    CsvTable t({q("run"), q("folder"), q("wall_ms")});
    for (size_t i = 0; i < plan.runs.size() && i < results.size(); ++i) {
        if (results[i].isEmpty()) continue;
        t.addRow({CsvTable::integer(plan.runs[i].index), CsvTable::text(plan.runs[i].folder),
                  cell(path(results[i], q("timings_ms.total")))});
    }
    return t.bytes();
}

} // namespace mhla
