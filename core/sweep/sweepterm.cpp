#include "core/sweep/sweepterm.h"
#include "core/base/text.h"
#include "core/experiment/config.h"
#include "core/records/resultio.h"
#include "core/sweep/sweepfigure.h"
#include "core/sweep/sweepinternal.h"
#include <QJsonArray>
#include <QRegularExpression>
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string_view>

namespace mhla::sweepdetail {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// The runs.csv columns a term can name (stop_reason is text).
QStringList numericMetrics() {
    QStringList m = sweepMetricColumns();
    m.removeAll(q("stop_reason"));
    return m;
}

} // namespace

const QStringList& historyFields() {
    static const QStringList f{q("train_mse"),  q("val_mse"),        q("ood_rel_mse"),
                               q("distance_p"), q("distance_p_rel"), q("distance_exact_rel")};
    return f;
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

QString legendEntry(const QString& key, const QJsonValue& v) {
    if (const KeyInfo* k = findExperimentKey(key);
        k && (k->type == KeyInfo::Type::Integer || k->type == KeyInfo::Type::Real)) {
        const QString symbol = k->label.section(QLatin1Char(' '), -1);
        const QString base = symbol.section(QLatin1Char('_'), 0, 0);
        if (symbol != k->label && !base.isEmpty() && base.size() <= 2 && base.at(0).isLetter())
            return symbol + q(" = ") + valueText(v);
    }
    return shortKey(key) + q("=") + valueText(v);
}

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
        {q("execution.teacher_step_accuracy"), q("teacher's step accuracy")},
        {q("execution.teacher_word_accuracy"), q("teacher's word accuracy")},
        {q("task_seed"), q("task seed")},
        {q("task_rng"), q("task generator")},
        {q("solver_seed"), q("solver seed")},
        {q("rank"), q("rank of unfold(P)")},
        {q("heads"), q("heads of the fitted model")},
        {q("stop_reason"), q("stop reason")},
        {q("epochs_run"), q("epochs run")},
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
    const QString inner = t.offset > 0 ? base + q(" + ") + typesetNumber(t.offsetText) : base;
    if (t.transform == 0) return base;
    // U+2212 minus and a subscript base, as a paper typesets them.
    const QString log = (t.transform == 1 ? QString() : QString(QChar(0x2212))) + q("log₁₀");
    return t.offset > 0 ? log + q("(") + inner + q(")") : log + q(" ") + inner;
}

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

bool anyTrainer(const SweepPlan& plan) {
    for (const SweepRun& r : plan.runs)
        if (r.config.solver.kind != SolverKind::Poly) return true;
    return false;
}

QString defaultMetric(const SweepPlan& plan) {
    return anyTrainer(plan) ? q("val_mse") : q("lambda_min");
}

} // namespace mhla::sweepdetail

namespace mhla {

double sweepTermValue(const QString& term, const SweepPlan& plan, const SweepRun& run,
                      const QJsonObject& result) {
    return sweepdetail::termValue(sweepdetail::parseTerm(term), plan, run, result);
}

void checkSweepTerm(const QString& term, const SweepPlan& plan, const QString& where) {
    sweepdetail::checkTerm(term, plan, where);
}

} // namespace mhla
