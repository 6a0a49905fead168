#include "core/sweep/sweepfigure.h"
#include "core/base/displayfloor.h"
#include "core/experiment/config.h"
#include "core/records/resultio.h"
#include "core/sweep/sweepinternal.h"
#include <QJsonArray>
#include <QRegularExpression>
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>

namespace mhla {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

using sweepdetail::fail;

const QStringList& historyFields() {
    static const QStringList f{q("train_mse"),  q("val_mse"),        q("ood_rel_mse"),
                               q("distance_p"), q("distance_p_rel"), q("distance_exact_rel")};
    return f;
}

QStringList numericMetrics() {
    QStringList m = sweepMetricColumns();
    m.removeAll(q("stop_reason"));
    return m;
}

int axisIndex(const SweepPlan& plan, const QString& key) {
    for (size_t i = 0; i < plan.spec.axes.size(); ++i)
        if (plan.spec.axes[i].key == key) return static_cast<int>(i);
    return -1;
}

bool axisNumeric(const SweepAxis& a) {
    for (const QJsonValue& v : a.values)
        if (!v.isDouble()) return false;
    return true;
}

QString shortKey(const QString& key) { return key.section(QLatin1Char('.'), -1); }

QString valueText(const QJsonValue& v) {
    if (v.isDouble()) return numberText(v.toDouble());
    if (v.isBool()) return v.toBool() ? q("true") : q("false");
    return v.toString();
}

/// A metric term: "M", "log10(M)", "-log10(M)" or "[-]log10(M + EPS)".
struct Term {
    Term(QString b = {}, int t = 0) : base(std::move(b)), transform(t) {}
    QString base;
    int transform = 0; ///< 0 none, 1 log10, -1 -log10
    double offset = 0; ///< EPS of log10(M + EPS); 0: none
    QString offsetText;
    bool valid = true; ///< false: an EPS that is not a positive finite number
};

Term parseTerm(const QString& text) {
    static const QRegularExpression re(
        q("^\\s*(-?)log10\\(\\s*([^()\\s+]+)\\s*(?:\\+\\s*([^()\\s]+)\\s*)?\\)\\s*$"));
    if (const auto m = re.match(text); m.hasMatch()) {
        Term t{m.captured(2), m.captured(1).isEmpty() ? 1 : -1};
        if (m.hasCaptured(3) && !m.captured(3).isEmpty()) {
            bool ok = false;
            t.offset = m.captured(3).toDouble(&ok);
            t.offsetText = m.captured(3);
            t.valid = ok && std::isfinite(t.offset) && t.offset > 0;
        }
        return t;
    }
    return {text.trimmed(), 0};
}

/// The axis label of a runs.csv metric or a swept key: the symbol a reader knows (λ_min, the
/// key table's label of a swept key); "_" before a subscript, as the plot typesets it.
QString metricLabel(const QString& m) {
    static const std::map<QString, QString> labels{
        {q("lambda_min"), q("λ_min")},
        {q("lambda_max"), q("λ_max")},
        {q("null_dim"), q("null dim of Λ")},
        {q("certified"), q("certified (1) or not (0)")},
        {q("train_mse"), q("train MSE")},
        {q("val_mse"), q("val MSE")},
        {q("ood_rel_mse"), q("OOD relative MSE")},
        {q("distance_p"), q("‖P − P*‖_F")},
        {q("distance_p_rel"), q("‖P − P*‖_F / ‖P*‖_F")},
        {q("distance_exact_rel"), q("‖P − P_exact‖_F / ‖P_exact‖_F")},
        {q("teacher_norm"), q("‖P*‖_F")},
        {q("execution.step_accuracy"), q("step accuracy")},
        {q("execution.word_accuracy"), q("word accuracy")},
    };
    if (const auto it = labels.find(m); it != labels.end()) return it->second;
    for (const char* group : {"exact", "null_witness"}) {
        const QString prefix = q(group) + q(".");
        if (m.startsWith(prefix)) {
            const QString inner = m.mid(prefix.size());
            const auto it = labels.find(inner);
            return (std::string_view(group) == "exact" ? q("exact solver: ")
                                                       : q("null witness: ")) +
                   (it != labels.end() ? it->second : inner);
        }
    }
    if (const KeyInfo* k = findExperimentKey(m)) return k->label;
    return m;
}

QString termTitle(const Term& t) {
    const QString base = metricLabel(t.base);
    const QString inner = t.offset > 0 ? base + q(" + ") + t.offsetText : base;
    if (t.transform == 0) return base;
    const QString sign = t.transform == 1 ? QString() : q("-");
    return t.offset > 0 ? sign + q("log10(") + inner + q(")") : sign + q("log10 ") + inner;
}

/// A metric term of a run: a swept key's value (strings: their position) or a runs.csv metric.
double termValue(const Term& t, const SweepPlan& plan, const SweepRun& run,
                 const QJsonObject& result) {
    double v = kNaN;
    if (const int a = axisIndex(plan, t.base); a >= 0) {
        const QJsonValue val = plan.points[static_cast<size_t>(run.point)].values[a].second;
        if (val.isDouble()) v = val.toDouble();
        else {
            const QJsonArray& all = plan.spec.axes[static_cast<size_t>(a)].values;
            for (qsizetype i = 0; i < all.size(); ++i)
                if (all[i] == val) v = static_cast<double>(i); // positions 0, 1, ...
        }
    } else {
        const QJsonValue val = sweepMetric(result, t.base);
        if (val.isBool()) v = val.toBool() ? 1.0 : 0.0;
        else if (val.isDouble()) v = val.toDouble();
    }
    if (t.transform != 0 && t.offset > 0 && std::isfinite(v)) v = std::max(v, 0.0) + t.offset;
    if (t.transform != 0) v = v > 0 ? t.transform * std::log10(v) : kNaN;
    return v;
}

void checkTerm(const QString& text, const SweepPlan& plan, const QString& where) {
    const Term t = parseTerm(text);
    if (!t.valid)
        fail(where + q(": \"") + text +
                 q("\": the EPS of log10(M + EPS) must be a positive number (e.g. 1e-10)"),
             where);
    if (axisIndex(plan, t.base) >= 0 || numericMetrics().contains(t.base)) return;
    QStringList swept;
    for (const SweepAxis& a : plan.spec.axes) swept << a.key;
    fail(where + q(": \"") + text +
             q("\" is not a metric or swept key; allowed: a numeric runs.csv column (") +
             numericMetrics().join(q(", ")) + q("), a swept key (") + swept.join(q(", ")) +
             q("), optionally as log10(M), -log10(M) or -log10(M + EPS)"),
         where);
}

void checkSweptKey(const QString& key, const SweepPlan& plan, const QString& where) {
    if (axisIndex(plan, key) >= 0) return;
    QStringList swept;
    for (const SweepAxis& a : plan.spec.axes) swept << a.key;
    fail(where + q(": \"") + key + q("\" is not a swept key; allowed: ") +
             (swept.isEmpty() ? q("none (the sweep has no grid)") : swept.join(q(", "))),
         where);
}

/// Column names of the centre and the edges.
QStringList bandColumns(SweepFigureSpec::BandKind b) {
    switch (b) {
    case SweepFigureSpec::BandKind::Quantile: return {q("median"), q("q10"), q("q90")};
    case SweepFigureSpec::BandKind::Std:
        return {q("mean"), q("mean_minus_std"), q("mean_plus_std")};
    case SweepFigureSpec::BandKind::MinMax: return {q("median"), q("min"), q("max")};
    case SweepFigureSpec::BandKind::None: return {q("median"), q("median"), q("median")};
    }
    return {};
}

QString bandText(SweepFigureSpec::BandKind b) {
    switch (b) {
    case SweepFigureSpec::BandKind::Quantile: return q("median, band 10-90% of seeds.");
    case SweepFigureSpec::BandKind::Std: return q("mean, band +- 1 std over seeds.");
    case SweepFigureSpec::BandKind::MinMax: return q("median, band min-max over seeds.");
    case SweepFigureSpec::BandKind::None: return q("median over seeds.");
    }
    return {};
}

QString defaultMetric(const SweepPlan& plan) {
    bool trainer = false;
    for (const SweepRun& r : plan.runs)
        trainer = trainer || r.config.solver.kind != SolverKind::Poly;
    return trainer ? q("val_mse") : q("lambda_min");
}

bool anyTrainer(const SweepPlan& plan) {
    for (const SweepRun& r : plan.runs)
        if (r.config.solver.kind != SolverKind::Poly) return true;
    return false;
}

/// Automatic log axis: every value positive and spanning a factor of 8 or more.
bool autoLog(const std::vector<double>& values) {
    double lo = std::numeric_limits<double>::infinity(), hi = 0;
    int n = 0;
    for (double v : values) {
        if (!std::isfinite(v)) continue;
        if (v <= 0) return false;
        lo = std::min(lo, v), hi = std::max(hi, v), ++n;
    }
    return n > 1 && hi / lo >= 8;
}

/// Autoscale on y: positive centres spanning 8x (edges may touch zero; the plot notes them).
bool autoLogY(const std::vector<SweepPlotSeries>& series) {
    std::vector<double> v;
    for (const auto& s : series)
        if (s.style != SweepPlotSeries::Style::Band) v.insert(v.end(), s.y.begin(), s.y.end());
    return autoLog(v);
}

std::vector<double> allX(const std::vector<SweepPlotSeries>& series) {
    std::vector<double> v;
    for (const auto& s : series) v.insert(v.end(), s.x.begin(), s.x.end());
    return v;
}

/// Adds the centre line (and band) of one group to `out` and its rows to `table`.
void addBandSeries(const QString& name, int colour,
                   const std::map<double, std::vector<double>>& byX, SweepFigureSpec::BandKind kind,
                   const std::function<QString(double)>& xCell, std::vector<SweepPlotSeries>* out,
                   CsvTable* table, bool markers) {
    SweepPlotSeries centre, band;
    centre.name = name;
    centre.colour = colour;
    centre.style = markers ? SweepPlotSeries::Style::Markers : SweepPlotSeries::Style::Line;
    band.name = name + q(" band");
    band.colour = colour;
    band.style = SweepPlotSeries::Style::Band;
    band.inLegend = false;
    for (const auto& [x, values] : byX) {
        const BandStats s = bandStats(values, kind);
        if (s.count == 0) continue;
        centre.x.push_back(x);
        centre.y.push_back(s.centre);
        band.x.push_back(x);
        band.y.push_back(s.upper);
        band.lower.push_back(s.lower);
        table->addRow({CsvTable::text(name), xCell(x), CsvTable::number(s.centre),
                       CsvTable::number(s.lower), CsvTable::number(s.upper),
                       CsvTable::integer(s.count)});
    }
    if (centre.x.empty()) return;
    if (kind != SweepFigureSpec::BandKind::None) {
        if (!markers) out->push_back(band);
        else // categorical x: a vertical bar per category, not an area between categories
            for (size_t k = 0; k < band.x.size(); ++k) {
                SweepPlotSeries bar;
                bar.name = band.name;
                bar.colour = colour;
                bar.style = SweepPlotSeries::Style::ErrorBar;
                bar.inLegend = false;
                bar.x = {band.x[k], band.x[k]};
                bar.y = {band.lower[k], band.y[k]};
                out->push_back(bar);
            }
    }
    out->push_back(centre);
}

/// A run's "certified" (nullopt when the result does not report it).
std::optional<bool> certifiedOf(const QJsonObject& result) {
    const QJsonValue c = sweepMetric(result, q("certified"));
    if (!c.isBool()) return std::nullopt;
    return c.toBool();
}

bool drawnAsPoints(SweepPlotSeries::Style st) {
    return st == SweepPlotSeries::Style::Line || st == SweepPlotSeries::Style::Markers ||
           st == SweepPlotSeries::Style::Triangles;
}

/// On a log y axis: the values <= 0 drawn at a floor a decade below the smallest positive
/// value (not below kLogDisplayFloor), each point series' such values also marked with a Floor
/// series of its colour (markers move there: they are drawn once). Returns the floor, 0 when no
/// value is <= 0.
double placeOnLogFloor(std::vector<SweepPlotSeries>* series) {
    double minPos = std::numeric_limits<double>::infinity();
    bool nonPos = false;
    for (const SweepPlotSeries& s : *series)
        for (const std::vector<double>* v : {&s.y, &s.lower})
            for (double y : *v) {
                if (!std::isfinite(y)) continue;
                if (y > 0) minPos = std::min(minPos, y);
                else nonPos = true;
            }
    if (!nonPos) return 0;
    const double floorY =
        std::isfinite(minPos)
            ? std::max(kLogDisplayFloor, std::pow(10.0, std::floor(std::log10(minPos)) - 1))
            : kLogDisplayFloor;
    std::vector<SweepPlotSeries> floors;
    for (SweepPlotSeries& s : *series) {
        if (!drawnAsPoints(s.style)) {
            for (std::vector<double>* v : {&s.y, &s.lower})
                for (double& y : *v)
                    if (std::isfinite(y) && y <= 0) y = floorY;
            continue;
        }
        SweepPlotSeries f;
        f.name = s.name + q(" · ≤ 0, at the floor");
        f.style = SweepPlotSeries::Style::Floor;
        f.colour = s.colour;
        SweepPlotSeries kept = s;
        kept.x.clear(), kept.y.clear();
        for (size_t k = 0; k < s.x.size(); ++k) {
            const bool low = std::isfinite(s.y[k]) && s.y[k] <= 0;
            // Markers move to the floor marker; a line and not-certified triangles stay
            // too (at the floor), the triangles without a second marker.
            if (low && s.style != SweepPlotSeries::Style::Triangles)
                f.x.push_back(s.x[k]), f.y.push_back(floorY);
            if (!low || s.style != SweepPlotSeries::Style::Markers)
                kept.x.push_back(s.x[k]), kept.y.push_back(low ? floorY : s.y[k]);
        }
        s = kept;
        if (!f.x.empty()) floors.push_back(f);
    }
    series->erase(std::remove_if(series->begin(), series->end(),
                                 [](const SweepPlotSeries& s) { return s.x.empty(); }),
                  series->end());
    series->insert(series->end(), floors.begin(), floors.end());
    return floorY;
}

void flatten(const QJsonObject& o, const QString& prefix, std::map<QString, QJsonValue>* out) {
    for (auto it = o.begin(); it != o.end(); ++it) {
        const QString key = prefix.isEmpty() ? it.key() : prefix + q(".") + it.key();
        if (it.value().isObject()) flatten(it.value().toObject(), key, out);
        else (*out)[key] = it.value();
    }
}

} // namespace

SweepPlan sweepPlanFromConfigs(const std::vector<ExperimentConfig>& configs) {
    std::vector<std::map<QString, QJsonValue>> flat(configs.size());
    for (size_t i = 0; i < configs.size(); ++i)
        flatten(experimentToJson(configs[i]), QString(), &flat[i]);
    SweepPlan plan;
    if (configs.empty()) return plan;
    std::map<QString, QJsonArray> axes; // sorted keys
    for (const auto& [key, v0] : flat[0]) {
        if (key == q("task.seed") || key == q("solver.seed")) continue;
        QJsonArray values;
        bool varies = false;
        for (const auto& f : flat) {
            const auto it = f.find(key);
            const QJsonValue v = it == f.end() ? QJsonValue() : it->second;
            varies = varies || v != v0;
            if (!values.contains(v)) values.append(v);
        }
        if (varies) axes[key] = values;
    }
    for (const auto& [key, values] : axes) plan.spec.axes.push_back({key, values});
    plan.spec.seeds = 1;
    std::vector<int> seedsOf;
    for (size_t i = 0; i < configs.size(); ++i) {
        SweepPoint pt;
        for (const auto& [key, values] : axes) {
            const auto it = flat[i].find(key);
            pt.values.emplace_back(key, it == flat[i].end() ? QJsonValue() : it->second);
        }
        int index = -1;
        for (const SweepPoint& other : plan.points)
            if (other.values == pt.values) index = other.index;
        if (index < 0) {
            index = static_cast<int>(plan.points.size());
            pt.index = index;
            plan.points.push_back(pt);
            seedsOf.push_back(0);
        }
        SweepRun run;
        run.index = static_cast<int>(i);
        run.point = index;
        run.seed = seedsOf[static_cast<size_t>(index)]++;
        run.config = configs[i];
        plan.runs.push_back(run);
        plan.spec.seeds = std::max(plan.spec.seeds, run.seed + 1);
    }
    return plan;
}

double sweepTermValue(const QString& term, const SweepPlan& plan, const SweepRun& run,
                      const QJsonObject& result) {
    return termValue(parseTerm(term), plan, run, result);
}

void checkSweepTerm(const QString& term, const SweepPlan& plan, const QString& where) {
    checkTerm(term, plan, where);
}

BandStats bandStats(std::vector<double> v, SweepFigureSpec::BandKind kind) {
    v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return !std::isfinite(x); }),
            v.end());
    BandStats s;
    s.count = static_cast<int>(v.size());
    if (v.empty()) return s;
    std::sort(v.begin(), v.end());
    switch (kind) {
    case SweepFigureSpec::BandKind::Std: {
        const auto [mean, sd] = meanAndStd(v);
        s.centre = mean, s.lower = mean - sd, s.upper = mean + sd;
        break;
    }
    case SweepFigureSpec::BandKind::Quantile:
        s.centre = sortedQuantile(v, 0.5);
        s.lower = sortedQuantile(v, 0.1);
        s.upper = sortedQuantile(v, 0.9);
        break;
    case SweepFigureSpec::BandKind::MinMax:
        s.centre = sortedQuantile(v, 0.5), s.lower = v.front(), s.upper = v.back();
        break;
    case SweepFigureSpec::BandKind::None:
        s.centre = s.lower = s.upper = sortedQuantile(v, 0.5);
        break;
    }
    return s;
}

std::vector<SweepFigureSpec> defaultSweepFigures(const SweepPlan& plan) {
    std::vector<SweepFigureSpec> out;
    if (!plan.spec.axes.empty()) {
        SweepFigureSpec band;
        band.kind = SweepFigureSpec::Kind::Band;
        band.y = defaultMetric(plan);
        band.x = plan.spec.axes.front().key;
        for (const SweepAxis& a : plan.spec.axes)
            if (axisNumeric(a)) {
                band.x = a.key;
                break;
            }
        band.name = q("sweep_band_") + band.y;
        out.push_back(band);
    }
    if (anyTrainer(plan)) {
        SweepFigureSpec curves;
        curves.kind = SweepFigureSpec::Kind::Curves;
        curves.x = q("epoch");
        curves.y = q("val_mse");
        curves.name = q("sweep_curves_val_mse");
        out.push_back(curves);
    }
    return out;
}

std::vector<SweepFigureSpec> parseSweepFigures(const QJsonValue& figures, const SweepPlan& plan) {
    if (figures.isUndefined() || figures.isNull()) return defaultSweepFigures(plan);
    if (!figures.isArray())
        fail(q("figures: expected an array of figure objects [{\"kind\": \"band\", ...}]"),
             q("figures"));
    const QJsonArray arr = figures.toArray();
    if (arr.isEmpty() || arr.size() > 32)
        fail(q("figures: expected 1 to 32 figures"), q("figures"));
    std::vector<SweepFigureSpec> out;
    QStringList names;
    for (qsizetype i = 0; i < arr.size(); ++i) {
        const QString at = q("figures[") + QString::number(i) + q("]");
        if (!arr[i].isObject())
            fail(at + q(": expected an object {\"kind\": ..., \"y\": ...}"), at);
        const QJsonObject o = arr[i].toObject();
        SweepFigureSpec f;
        const QString kind = o.value(q("kind")).toString();
        if (kind == q("band")) f.kind = SweepFigureSpec::Kind::Band;
        else if (kind == q("scatter")) f.kind = SweepFigureSpec::Kind::Scatter;
        else if (kind == q("curves")) f.kind = SweepFigureSpec::Kind::Curves;
        else
            fail(at + q(".kind: ") +
                     (o.contains(q("kind")) ? q("\"") + o.value(q("kind")).toVariant().toString() +
                                                  q("\" is not allowed")
                                            : q("required")) +
                     q("; allowed: \"band\", \"scatter\", \"curves\""),
                 at + q(".kind"));
        QStringList allowed{q("kind"), q("name"),  q("title"), q("x"),
                            q("y"),    q("log_x"), q("log_y")};
        if (f.kind != SweepFigureSpec::Kind::Scatter) allowed << q("band");
        else allowed << q("colour");
        if (f.kind != SweepFigureSpec::Kind::Curves) allowed << q("overlay");
        for (auto it = o.begin(); it != o.end(); ++it)
            if (!allowed.contains(it.key()))
                fail(at + q(".") + it.key() + q(": unknown member for a ") + kind +
                         q(" figure; allowed: ") + allowed.join(q(", ")),
                     at + q(".") + it.key());
        auto text = [&](const char* member, QString* dst) {
            if (!o.contains(q(member))) return;
            if (!o.value(q(member)).isString() || o.value(q(member)).toString().isEmpty())
                fail(at + q(".") + q(member) + q(": expected a non-empty string"),
                     at + q(".") + q(member));
            *dst = o.value(q(member)).toString();
        };
        auto flag = [&](const char* member, std::optional<bool>* dst) {
            if (!o.contains(q(member))) return;
            if (!o.value(q(member)).isBool())
                fail(at + q(".") + q(member) + q(": expected true or false"),
                     at + q(".") + q(member));
            *dst = o.value(q(member)).toBool();
        };
        text("name", &f.name);
        text("title", &f.title);
        text("x", &f.x);
        text("y", &f.y);
        text("colour", &f.colour);
        text("overlay", &f.overlay);
        flag("log_x", &f.logX);
        flag("log_y", &f.logY);
        if (o.contains(q("band"))) {
            const QString b = o.value(q("band")).toString();
            if (b == q("quantile")) f.band = SweepFigureSpec::BandKind::Quantile;
            else if (b == q("std")) f.band = SweepFigureSpec::BandKind::Std;
            else if (b == q("minmax")) f.band = SweepFigureSpec::BandKind::MinMax;
            else if (b == q("none")) f.band = SweepFigureSpec::BandKind::None;
            else
                fail(
                    at + q(".band: \"") + o.value(q("band")).toVariant().toString() +
                        q("\" is not allowed; allowed: \"quantile\", \"std\", \"minmax\", \"none\""),
                    at + q(".band"));
        }
        switch (f.kind) {
        case SweepFigureSpec::Kind::Band:
            if (f.y.isEmpty()) f.y = defaultMetric(plan);
            if (f.x.isEmpty()) {
                if (plan.spec.axes.empty())
                    fail(at + q(": a band figure needs a swept key for x; the sweep has no grid"),
                         at + q(".x"));
                f.x = plan.spec.axes.front().key;
            }
            checkSweptKey(f.x, plan, at + q(".x"));
            checkTerm(f.y, plan, at + q(".y"));
            if (!f.overlay.isEmpty()) checkTerm(f.overlay, plan, at + q(".overlay"));
            break;
        case SweepFigureSpec::Kind::Scatter:
            if (f.x.isEmpty() || f.y.isEmpty())
                fail(at + q(": a scatter figure needs \"x\" and \"y\" (metrics)"),
                     at + (f.x.isEmpty() ? q(".x") : q(".y")));
            checkTerm(f.x, plan, at + q(".x"));
            checkTerm(f.y, plan, at + q(".y"));
            if (!f.colour.isEmpty()) checkSweptKey(f.colour, plan, at + q(".colour"));
            if (!f.overlay.isEmpty()) checkTerm(f.overlay, plan, at + q(".overlay"));
            break;
        case SweepFigureSpec::Kind::Curves:
            if (f.x.isEmpty()) f.x = q("epoch");
            if (f.y.isEmpty()) f.y = q("val_mse");
            if (f.x != q("epoch") && f.x != q("step"))
                fail(at + q(".x: \"") + f.x + q("\" is not allowed; allowed: \"epoch\", \"step\""),
                     at + q(".x"));
            if (!historyFields().contains(f.y))
                fail(at + q(".y: \"") + f.y + q("\" is not allowed; allowed: ") +
                         historyFields().join(q(", ")),
                     at + q(".y"));
            if (!anyTrainer(plan))
                fail(at + q(": curves need trainer runs (solver.kind mhla, multilayer or "
                            "softmax); this sweep runs only the exact solver"),
                     at + q(".kind"));
            break;
        }
        if (f.name.isEmpty()) {
            f.name = q("sweep_") + kind + q("_") + parseTerm(f.y).base;
            f.name.replace(QRegularExpression(q("[^A-Za-z0-9_-]")), q("_"));
        }
        static const QRegularExpression nameRe(q("^[A-Za-z0-9_-]{1,64}$"));
        if (!nameRe.match(f.name).hasMatch())
            fail(at + q(".name: \"") + f.name +
                     q("\" is not allowed; allowed: 1 to 64 letters, digits, _ and -"),
                 at + q(".name"));
        if (names.contains(f.name))
            fail(at + q(".name: \"") + f.name +
                     q("\" is used by an earlier figure; give each figure its own name"),
                 at + q(".name"));
        names << f.name;
        out.push_back(f);
    }
    return out;
}

SweepFigureData reduceSweepFigure(const SweepFigureSpec& spec, const SweepPlan& plan,
                                  const std::vector<QJsonObject>& results) {
    SweepFigureData d;
    d.name = spec.name;
    const QStringList bc = bandColumns(spec.band);
    std::vector<bool> used(plan.runs.size(), false);
    // Runs with a drawn value <= 0 and runs that are not certified (counted in the note).
    std::vector<bool> nonPositive(plan.runs.size(), false),
        notCertifiedRun(plan.runs.size(), false);
    bool reportsCertified = false;
    std::map<QString, int> floorByX; // band: runs with a value <= 0 by x (as the CSV writes x)
    auto resultOf = [&](size_t i) -> const QJsonObject* {
        return i < results.size() && !results[i].isEmpty() ? &results[i] : nullptr;
    };

    if (spec.kind == SweepFigureSpec::Kind::Band) {
        const int xa = axisIndex(plan, spec.x);
        const SweepAxis& xAxis = plan.spec.axes[static_cast<size_t>(xa)];
        const bool categorical = !axisNumeric(xAxis);
        const Term yt = parseTerm(spec.y);
        // Groups: the values of the other swept keys, in the order of first appearance.
        QStringList groupNames;
        std::vector<std::map<double, std::vector<double>>> groups;
        std::vector<std::map<double, int>> notCertified; // per group: runs not certified by x
        for (size_t i = 0; i < plan.runs.size(); ++i) {
            const SweepRun& run = plan.runs[i];
            const SweepPoint& p = plan.points[static_cast<size_t>(run.point)];
            QStringList parts;
            for (size_t a = 0; a < p.values.size(); ++a)
                if (static_cast<int>(a) != xa)
                    parts << shortKey(p.values[a].first) + q("=") + valueText(p.values[a].second);
            const QString g = parts.isEmpty() ? spec.y : parts.join(q(", "));
            qsizetype gi = groupNames.indexOf(g);
            if (gi < 0) {
                groupNames << g;
                groups.emplace_back();
                notCertified.emplace_back();
                gi = groupNames.size() - 1;
            }
            const double x = termValue({spec.x, 0}, plan, run, QJsonObject());
            auto& bucket = groups[static_cast<size_t>(gi)][x];
            if (const QJsonObject* r = resultOf(i)) {
                const double y = termValue(yt, plan, run, *r);
                if (std::isfinite(y)) {
                    bucket.push_back(y);
                    used[i] = true;
                    nonPositive[i] = y <= 0;
                    if (const auto c = certifiedOf(*r)) {
                        reportsCertified = true;
                        if (!*c)
                            ++notCertified[static_cast<size_t>(gi)][x], notCertifiedRun[i] = true;
                    }
                }
            }
        }
        QString xHead = spec.x;
        CsvTable t({q("series"), xHead, spec.y + q("_") + bc[0], spec.y + q("_") + bc[1],
                    spec.y + q("_") + bc[2], q("runs")});
        auto xCell = [&](double x) {
            if (!categorical) return numberText(x); // as the swept value is written
            return CsvTable::text(valueText(xAxis.values[static_cast<qsizetype>(x)]));
        };
        for (size_t g = 0; g < groups.size(); ++g) {
            const QString& gName = groupNames[static_cast<qsizetype>(g)];
            const size_t before = d.series.size();
            addBandSeries(gName, static_cast<int>(g), groups[g], spec.band, xCell, &d.series, &t,
                          categorical);
            if (d.series.size() == before) continue;
            const SweepPlotSeries centre = d.series.back();
            SweepPlotSeries tri;
            tri.name = (groups.size() == 1 ? QString() : gName + q(" · ")) +
                       q("not certified (some seeds)");
            tri.style = SweepPlotSeries::Style::Triangles;
            tri.colour = static_cast<int>(g);
            for (size_t k = 0; k < centre.x.size(); ++k)
                if (const auto it = notCertified[g].find(centre.x[k]);
                    it != notCertified[g].end() && it->second > 0)
                    tri.x.push_back(centre.x[k]), tri.y.push_back(centre.y[k]);
            if (!tri.x.empty()) d.series.push_back(tri);
        }
        if (!spec.overlay.isEmpty()) {
            // The overlay metric of every run against the same x, pooled over the groups (the
            // exact solver on the same data: one reference line in black), its median per x.
            const Term ot = parseTerm(spec.overlay);
            std::map<double, std::vector<double>> byX;
            for (size_t i = 0; i < plan.runs.size(); ++i) {
                const QJsonObject* r = resultOf(i);
                if (!r) continue;
                const double oy = termValue(ot, plan, plan.runs[i], *r);
                if (!std::isfinite(oy)) continue;
                byX[termValue({spec.x, 0}, plan, plan.runs[i], QJsonObject())].push_back(oy);
                used[i] = true;
                nonPositive[i] = nonPositive[i] || oy <= 0;
            }
            addBandSeries(termTitle(ot) + q(" (all runs)"), -1, byX,
                          SweepFigureSpec::BandKind::None, xCell, &d.series, &t, categorical);
        }
        for (size_t i = 0; i < plan.runs.size(); ++i)
            if (nonPositive[i])
                ++floorByX[xCell(termValue({spec.x, 0}, plan, plan.runs[i], QJsonObject()))];
        d.csv = t.bytes();
        d.xTitle = metricLabel(spec.x);
        if (categorical)
            for (const QJsonValue& v : xAxis.values) d.xCategories << valueText(v);
        d.yTitle = termTitle(yt);
        d.note = bandText(spec.band);
        if (d.title.isEmpty()) d.title = termTitle(yt) + q(" against ") + metricLabel(spec.x);
    } else if (spec.kind == SweepFigureSpec::Kind::Scatter) {
        const Term xt = parseTerm(spec.x), yt = parseTerm(spec.y);
        const int ca = spec.colour.isEmpty() ? -1 : axisIndex(plan, spec.colour);
        std::vector<SweepPlotSeries> byColour;
        if (ca >= 0) {
            for (const QJsonValue& v : plan.spec.axes[static_cast<size_t>(ca)].values) {
                SweepPlotSeries s;
                s.name = shortKey(spec.colour) + q("=") + valueText(v);
                byColour.push_back(s);
            }
        } else {
            SweepPlotSeries s;
            s.name = termTitle(yt);
            byColour.push_back(s);
        }
        std::vector<SweepPlotSeries> notCert(byColour.size());
        for (size_t k = 0; k < byColour.size(); ++k)
            notCert[k].name = byColour[k].name + q(" · not certified");
        SweepPlotSeries overlay;
        const Term ot = parseTerm(spec.overlay);
        overlay.name = termTitle(ot);
        CsvTable t({q("series"), q("run"), q("point"), q("task_seed"), spec.x, spec.y});
        for (size_t i = 0; i < plan.runs.size(); ++i) {
            const QJsonObject* r = resultOf(i);
            if (!r) continue;
            const SweepRun& run = plan.runs[i];
            const double x = termValue(xt, plan, run, *r);
            const double y = termValue(yt, plan, run, *r);
            size_t c = 0;
            if (ca >= 0) {
                const QJsonValue cv = plan.points[static_cast<size_t>(run.point)]
                                          .values[static_cast<size_t>(ca)]
                                          .second;
                const QJsonArray& all = plan.spec.axes[static_cast<size_t>(ca)].values;
                for (qsizetype k = 0; k < all.size(); ++k)
                    if (all[k] == cv) c = static_cast<size_t>(k);
            }
            auto row = [&](const QString& series, double yy) {
                t.addRow({CsvTable::text(series), CsvTable::integer(run.index),
                          CsvTable::integer(run.point), CsvTable::integer(run.config.task.seed),
                          CsvTable::number(x), CsvTable::number(yy)});
            };
            const std::optional<bool> cert = certifiedOf(*r);
            reportsCertified = reportsCertified || cert.has_value();
            if (std::isfinite(x) && std::isfinite(y)) {
                SweepPlotSeries& dst = cert.value_or(true) ? byColour[c] : notCert[c];
                dst.x.push_back(x);
                dst.y.push_back(y);
                used[i] = true;
                nonPositive[i] = y <= 0;
                notCertifiedRun[i] = !cert.value_or(true);
                row(byColour[c].name, y);
            }
            if (!spec.overlay.isEmpty()) {
                const double oy = termValue(ot, plan, run, *r);
                if (std::isfinite(x) && std::isfinite(oy)) {
                    overlay.x.push_back(x);
                    overlay.y.push_back(oy);
                    used[i] = true;
                    nonPositive[i] = nonPositive[i] || oy <= 0;
                    row(spec.overlay, oy); // the CSV names the metric; the legend its label
                }
            }
        }
        for (size_t k = 0; k < byColour.size(); ++k) {
            byColour[k].style = SweepPlotSeries::Style::Markers;
            notCert[k].style = SweepPlotSeries::Style::Triangles;
            byColour[k].colour = notCert[k].colour = static_cast<int>(k);
            if (!byColour[k].x.empty()) d.series.push_back(byColour[k]);
        }
        for (const SweepPlotSeries& s : notCert)
            if (!s.x.empty()) d.series.push_back(s);
        if (!overlay.x.empty()) {
            overlay.style = SweepPlotSeries::Style::Markers;
            overlay.colour = -1; // drawn in black: the reference (e.g. the exact solver)
            d.series.push_back(overlay);
        }
        d.csv = t.bytes();
        d.xTitle = termTitle(xt);
        d.yTitle = termTitle(yt);
        d.note =
            q("One marker per run") +
            (spec.overlay.isEmpty() ? QString()
                                    : q("; ") + spec.overlay + q(" drawn against the same x")) +
            q(".");
        if (d.title.isEmpty()) d.title = termTitle(yt) + q(" against ") + termTitle(xt);
    } else {
        bool anyHistory = false;
        CsvTable t({q("series"), spec.x, spec.y + q("_") + bc[0], spec.y + q("_") + bc[1],
                    spec.y + q("_") + bc[2], q("runs")});
        for (const SweepPoint& p : plan.points) {
            // Each run's curve; a run that stopped early (solver.target_loss) keeps its last
            // value at later x, so the band does not collapse onto the runs still training.
            std::vector<std::map<double, double>> curves;
            std::map<double, std::vector<double>> byX;
            for (size_t i = 0; i < plan.runs.size(); ++i) {
                if (plan.runs[i].point != p.index) continue;
                const QJsonObject* r = resultOf(i);
                if (!r) continue;
                const QJsonArray h = r->value(q("history")).toArray();
                anyHistory = anyHistory || !h.isEmpty();
                std::map<double, double> c;
                for (const QJsonValue& hv : h) {
                    const QJsonObject ho = hv.toObject();
                    const QJsonValue yv = ho.value(spec.y);
                    if (!yv.isDouble() || !std::isfinite(yv.toDouble())) continue;
                    c[ho.value(spec.x).toDouble()] = yv.toDouble();
                    byX[ho.value(spec.x).toDouble()];
                    used[i] = true;
                    nonPositive[i] = nonPositive[i] || yv.toDouble() <= 0;
                }
                if (!c.empty()) curves.push_back(std::move(c));
            }
            for (auto& [x, values] : byX)
                for (const auto& c : curves) {
                    auto it = c.upper_bound(x);
                    if (it != c.begin()) values.push_back(std::prev(it)->second);
                }
            const QString name = p.values.empty() ? spec.y : p.label();
            addBandSeries(
                name, p.index, byX, spec.band, [](double x) { return CsvTable::number(x); },
                &d.series, &t, false);
        }
        if (!anyHistory && std::any_of(results.begin(), results.end(),
                                       [](const QJsonObject& o) { return !o.isEmpty(); }))
            fail(q("figure \"") + spec.name +
                     q("\": learning curves need trainer runs; these runs have no history"),
                 q("figures"));
        d.csv = t.bytes();
        d.xTitle = spec.x;
        d.yTitle = metricLabel(spec.y);
        d.note = bandText(spec.band) +
                 q(" A run that stopped early (target loss) counts with its last value.");
        if (d.title.isEmpty()) d.title = spec.y + q(" during training");
    }
    if (!spec.title.isEmpty()) d.title = spec.title;
    d.runsUsed = static_cast<int>(std::count(used.begin(), used.end(), true));
    int finished = 0;
    for (size_t i = 0; i < plan.runs.size(); ++i) finished += resultOf(i) != nullptr;
    if (finished > d.runsUsed)
        d.note += QString::asprintf(" %d of %d finished runs have no finite value here and are "
                                    "not drawn.",
                                    finished - d.runsUsed, finished);
    d.logX = spec.logX.value_or(autoLog(allX(d.series)));
    d.logY = spec.logY.value_or(autoLogY(d.series));
    if (d.logY) d.floorY = placeOnLogFloor(&d.series);
    if (d.floorY > 0) {
        d.runsAtFloor = static_cast<int>(std::count(nonPositive.begin(), nonPositive.end(), true));
        QStringList at;
        for (const auto& [x, n] : floorByX)
            at << QString::asprintf("%d at %s = ", n, qPrintable(shortKey(spec.x))) + x;
        d.note += QString::asprintf(" %d of %d runs have a value <= 0, which a log axis cannot "
                                    "show: drawn at the floor %s with hollow diamonds",
                                    d.runsAtFloor, finished, qPrintable(numberText(d.floorY))) +
                  (at.isEmpty() ? QString() : q(" (") + at.join(q(", ")) + q(")")) +
                  q("; the CSV has the values.");
    }
    if (reportsCertified) {
        d.runsNotCertified =
            static_cast<int>(std::count(notCertifiedRun.begin(), notCertifiedRun.end(), true));
        d.note += QString::asprintf(" %d of %d runs are not certified (triangles).",
                                    d.runsNotCertified, finished);
    }
    return d;
}

} // namespace mhla
