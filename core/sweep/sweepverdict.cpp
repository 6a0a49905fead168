#include "core/sweep/sweepverdict.h"
#include "core/sweep/sweepinternal.h"

#include "core/base/types.h"
#include "core/sweep/sweepfigure.h"
#include <QJsonArray>
#include <QJsonDocument>
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>

namespace mhla {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

using sweepdetail::fail;

const char* opName(SweepVerdictSpec::Op o) {
    switch (o) {
    case SweepVerdictSpec::Op::Less: return "<";
    case SweepVerdictSpec::Op::LessEqual: return "<=";
    case SweepVerdictSpec::Op::Greater: return ">";
    case SweepVerdictSpec::Op::GreaterEqual: return ">=";
    }
    return "";
}

bool holds(double v, SweepVerdictSpec::Op o, double ref) {
    switch (o) {
    case SweepVerdictSpec::Op::Less: return v < ref;
    case SweepVerdictSpec::Op::LessEqual: return v <= ref;
    case SweepVerdictSpec::Op::Greater: return v > ref;
    case SweepVerdictSpec::Op::GreaterEqual: return v >= ref;
    }
    return false;
}

/// A number as verdict.txt writes it: 3 significant digits, C locale (QString::number is).
QString num(double v) {
    if (!std::isfinite(v)) return q("n/a");
    return QString::number(v, 'g', 3);
}

QString valueText(const QJsonValue& v) {
    if (v.isString()) return v.toString();
    if (v.isBool()) return v.toBool() ? q("true") : q("false");
    return QString::number(v.toDouble(), 'g', 12);
}

/// Whether grid value a equals the selector's b (numbers to 1e-9 relative: "0.95:1:0.01"
/// resolves to sums of binary fractions).
bool sameValue(const QJsonValue& a, const QJsonValue& b) {
    if (a.isDouble() && b.isDouble()) {
        const double x = a.toDouble(), y = b.toDouble();
        return std::abs(x - y) <= 1e-9 * std::max({1.0, std::abs(x), std::abs(y)});
    }
    return a == b;
}

std::vector<std::pair<QString, QJsonValue>>
parseSelector(const QJsonValue& v, const SweepPlan& plan, const QString& where) {
    if (!v.isObject())
        fail(where + q(": expected an object of swept keys and values, e.g. "
                       "{\"task.orthogonal_prob\": 1}"),
             where);
    std::vector<std::pair<QString, QJsonValue>> out;
    const QJsonObject o = v.toObject();
    for (auto it = o.begin(); it != o.end(); ++it) {
        const SweepAxis* axis = nullptr;
        for (const SweepAxis& a : plan.spec.axes)
            if (a.key == it.key()) axis = &a;
        QStringList swept;
        for (const SweepAxis& a : plan.spec.axes) swept << a.key;
        if (!axis)
            fail(where + q(".") + it.key() + q(": not a swept key; allowed: ") +
                     (swept.isEmpty() ? q("none (the sweep has no grid)") : swept.join(q(", "))),
                 where + q(".") + it.key());
        bool found = false;
        for (const QJsonValue& gv : axis->values) found = found || sameValue(gv, it.value());
        if (!found) {
            QStringList values;
            for (const QJsonValue& gv : axis->values) values << valueText(gv);
            fail(where + q(".") + it.key() + q(": ") + valueText(it.value()) +
                     q(" is not a value of the grid; its values are ") + values.join(q(", ")),
                 where + q(".") + it.key());
        }
        out.emplace_back(it.key(), it.value());
    }
    return out;
}

bool selected(const std::vector<std::pair<QString, QJsonValue>>& sel, const SweepPoint& p) {
    for (const auto& [key, value] : sel) {
        bool match = false;
        for (const auto& [k, v] : p.values)
            if (k == key) match = sameValue(v, value);
        if (!match) return false;
    }
    return true;
}

QString selectorText(const std::vector<std::pair<QString, QJsonValue>>& sel) {
    QStringList parts;
    for (const auto& [k, v] : sel) parts << k + q("=") + valueText(v);
    return parts.join(q(", "));
}

double median(std::vector<double> v) {
    if (v.empty()) return kNaN;
    std::sort(v.begin(), v.end());
    return sortedQuantile(v, 0.5);
}

/// Mean ranks (1-based) of v, ties sharing their mean rank.
std::vector<double> ranks(const std::vector<double>& v) {
    std::vector<size_t> order(v.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
    std::vector<double> r(v.size());
    for (size_t i = 0; i < order.size();) {
        size_t j = i;
        while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
        const double mean = 0.5 * static_cast<double>(i + j) + 1.0;
        for (size_t k = i; k <= j; ++k) r[order[k]] = mean;
        i = j + 1;
    }
    return r;
}

} // namespace

double spearmanRho(const std::vector<double>& x, const std::vector<double>& y) {
    const size_t n = std::min(x.size(), y.size());
    if (n < 2) return kNaN;
    const std::vector<double> rx = ranks(std::vector<double>(x.begin(), x.begin() + n));
    const std::vector<double> ry = ranks(std::vector<double>(y.begin(), y.begin() + n));
    const double mean = 0.5 * static_cast<double>(n + 1);
    double sxy = 0, sxx = 0, syy = 0;
    for (size_t i = 0; i < n; ++i) {
        sxy += (rx[i] - mean) * (ry[i] - mean);
        sxx += (rx[i] - mean) * (rx[i] - mean);
        syy += (ry[i] - mean) * (ry[i] - mean);
    }
    if (sxx == 0 || syy == 0) return kNaN;
    return sxy / std::sqrt(sxx * syy);
}

std::vector<SweepVerdictSpec> parseSweepVerdicts(const QJsonValue& verdicts,
                                                 const SweepPlan& plan) {
    std::vector<SweepVerdictSpec> out;
    if (verdicts.isUndefined() || verdicts.isNull()) return out;
    if (!verdicts.isArray())
        fail(
            q("verdicts: expected an array of verdict objects "
              "({\"claim\": ..., \"kind\": \"spearman\" | \"median\" | \"fraction\" | \"ratio\", ...})"),
            q("verdicts"));
    const QJsonArray arr = verdicts.toArray();
    for (qsizetype i = 0; i < arr.size(); ++i) {
        const QString where = q("verdicts[") + QString::number(i) + q("]");
        if (!arr[i].isObject()) fail(where + q(": expected an object"), where);
        const QJsonObject o = arr[i].toObject();
        SweepVerdictSpec s;
        const QString kind = o.value(q("kind")).toString();
        if (kind == q("spearman")) s.kind = SweepVerdictSpec::Kind::Spearman;
        else if (kind == q("median")) s.kind = SweepVerdictSpec::Kind::Median;
        else if (kind == q("fraction")) s.kind = SweepVerdictSpec::Kind::Fraction;
        else if (kind == q("ratio")) s.kind = SweepVerdictSpec::Kind::Ratio;
        else
            fail(where + q(".kind: \"") + kind +
                     q("\" is not a verdict kind; allowed: spearman, median, fraction, ratio"),
                 where + q(".kind"));
        QStringList allowed{q("claim"), q("kind"), q("y"), q("op"), q("value")};
        if (s.kind == SweepVerdictSpec::Kind::Spearman) allowed << q("x") << q("at");
        else allowed << q("at");
        if (s.kind == SweepVerdictSpec::Kind::Ratio) allowed << q("over");
        for (auto it = o.begin(); it != o.end(); ++it)
            if (!allowed.contains(it.key()))
                fail(where + q(": unknown member \"") + it.key() + q("\" for kind ") + kind +
                         q("; allowed: ") + allowed.join(q(", ")),
                     where + q(".") + it.key());
        if (!o.value(q("claim")).isString() || o.value(q("claim")).toString().trimmed().isEmpty())
            fail(where + q(".claim: expected the claim as text"), where + q(".claim"));
        s.claim = o.value(q("claim")).toString().simplified();
        for (const char* member : {"x", "y"}) {
            if (std::string_view(member) == "x" && s.kind != SweepVerdictSpec::Kind::Spearman)
                continue;
            const QJsonValue v = o.value(q(member));
            const QString w = where + q(".") + q(member);
            if (!v.isString())
                fail(w + q(": expected a metric (a runs.csv column or swept key)"), w);
            checkSweepTerm(v.toString(), plan, w);
            (std::string_view(member) == "x" ? s.x : s.y) = v.toString();
        }
        const QString op = o.value(q("op")).toString();
        if (op == q("<")) s.op = SweepVerdictSpec::Op::Less;
        else if (op == q("<=")) s.op = SweepVerdictSpec::Op::LessEqual;
        else if (op == q(">")) s.op = SweepVerdictSpec::Op::Greater;
        else if (op == q(">=")) s.op = SweepVerdictSpec::Op::GreaterEqual;
        else
            fail(where + q(".op: \"") + op + q("\" is not allowed; allowed: <, <=, >, >="),
                 where + q(".op"));
        const QJsonValue value = o.value(q("value"));
        if (!value.isDouble() || !std::isfinite(value.toDouble()))
            fail(where + q(".value: expected a finite number"), where + q(".value"));
        s.value = value.toDouble();
        if (o.contains(q("at"))) s.at = parseSelector(o.value(q("at")), plan, where + q(".at"));
        if (s.kind == SweepVerdictSpec::Kind::Ratio) {
            if (!o.contains(q("at")) || !o.contains(q("over")))
                fail(where + q(": a ratio needs \"at\" (numerator runs) and \"over\" (denominator "
                               "runs)"),
                     where);
            s.over = parseSelector(o.value(q("over")), plan, where + q(".over"));
        }
        out.push_back(std::move(s));
    }
    return out;
}

namespace {

using Selector = std::vector<std::pair<QString, QJsonValue>>;

/// The result of run i, or null when it has not finished.
const QJsonObject* resultOf(const std::vector<QJsonObject>& results, size_t i) {
    return i < results.size() && !results[i].isEmpty() ? &results[i] : nullptr;
}

/// Values of a term over the runs a selector picks (finite values only), and by seed.
std::vector<double> collectTerm(const SweepPlan& plan, const std::vector<QJsonObject>& results,
                                const QString& term, const Selector& sel,
                                std::map<int, std::vector<double>>* bySeed) {
    std::vector<double> all;
    for (size_t i = 0; i < plan.runs.size(); ++i) {
        const SweepRun& run = plan.runs[i];
        if (!selected(sel, plan.points[static_cast<size_t>(run.point)])) continue;
        const QJsonObject* r = resultOf(results, i);
        if (!r) continue;
        const double y = sweepTermValue(term, plan, run, *r);
        if (!std::isfinite(y)) continue;
        all.push_back(y);
        if (bySeed) (*bySeed)[run.seed].push_back(y);
    }
    return all;
}

/// Spearman's rho of x and y over the selected runs; the spread is its range over seeds.
void spearmanVerdict(const SweepVerdictSpec& spec, const SweepPlan& plan,
                     const std::vector<QJsonObject>& results, const QString& at, SweepVerdict& v) {
    v.statistic = q("spearman(") + spec.x + q(", ") + spec.y + q(")") + at;
    std::vector<double> xs, ys;
    std::map<int, std::pair<std::vector<double>, std::vector<double>>> bySeed;
    for (size_t i = 0; i < plan.runs.size(); ++i) {
        const SweepRun& run = plan.runs[i];
        if (!selected(spec.at, plan.points[static_cast<size_t>(run.point)])) continue;
        const QJsonObject* r = resultOf(results, i);
        if (!r) continue;
        const double x = sweepTermValue(spec.x, plan, run, *r);
        const double y = sweepTermValue(spec.y, plan, run, *r);
        if (!std::isfinite(x) || !std::isfinite(y)) continue;
        xs.push_back(x), ys.push_back(y);
        bySeed[run.seed].first.push_back(x), bySeed[run.seed].second.push_back(y);
    }
    v.runs = static_cast<int>(xs.size());
    if (v.runs < 3) {
        v.reason = q("fewer than 3 runs with both values");
        return;
    }
    v.value = spearmanRho(xs, ys);
    if (!std::isfinite(v.value)) v.reason = q("one of the two is constant over the runs");
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (const auto& [seed, xy] : bySeed) {
        if (xy.first.size() < 3) continue;
        const double r = spearmanRho(xy.first, xy.second);
        if (std::isfinite(r)) lo = std::min(lo, r), hi = std::max(hi, r);
    }
    if (lo <= hi) v.spreadLow = lo, v.spreadHigh = hi;
}

/// The median (spread q10..q90) or the fraction of positive values over the selected runs.
void locationVerdict(const SweepVerdictSpec& spec, const SweepPlan& plan,
                     const std::vector<QJsonObject>& results, const QString& at, SweepVerdict& v) {
    const bool fraction = spec.kind == SweepVerdictSpec::Kind::Fraction;
    v.statistic =
        q(fraction ? "fraction(" : "median(") + spec.y + (fraction ? q(" > 0)") : q(")")) + at;
    std::vector<double> all = collectTerm(plan, results, spec.y, spec.at, nullptr);
    v.runs = static_cast<int>(all.size());
    if (all.empty()) {
        v.reason = q("no finished run") + (at.isEmpty() ? QString() : at);
        return;
    }
    if (fraction) {
        const auto positive = std::count_if(all.begin(), all.end(), [](double y) { return y > 0; });
        v.value = static_cast<double>(positive) / static_cast<double>(all.size());
    } else {
        std::sort(all.begin(), all.end());
        v.value = sortedQuantile(all, 0.5);
        v.spreadLow = sortedQuantile(all, 0.1);
        v.spreadHigh = sortedQuantile(all, 0.9);
    }
}

/// median(y) at one selection over median(y) at another; the spread is its range over seeds.
void ratioVerdict(const SweepVerdictSpec& spec, const SweepPlan& plan,
                  const std::vector<QJsonObject>& results, SweepVerdict& v) {
    v.statistic = q("median(") + spec.y + q(") at ") + selectorText(spec.at) + q(" / median at ") +
                  selectorText(spec.over);
    std::map<int, std::vector<double>> numBySeed, denBySeed;
    const std::vector<double> num = collectTerm(plan, results, spec.y, spec.at, &numBySeed);
    const std::vector<double> den = collectTerm(plan, results, spec.y, spec.over, &denBySeed);
    v.runs = static_cast<int>(num.size() + den.size());
    if (num.empty() || den.empty()) {
        v.reason = q("no finished run at ") + selectorText(num.empty() ? spec.at : spec.over);
        return;
    }
    const double d = median(den);
    v.value = d != 0 ? median(num) / d : kNaN;
    if (!std::isfinite(v.value)) v.reason = q("the denominator's median is 0");
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (const auto& [seed, values] : numBySeed) {
        const auto it = denBySeed.find(seed);
        if (it == denBySeed.end()) continue;
        const double ds = median(it->second);
        const double r = ds != 0 ? median(values) / ds : kNaN;
        if (std::isfinite(r)) lo = std::min(lo, r), hi = std::max(hi, r);
    }
    if (lo <= hi) v.spreadLow = lo, v.spreadHigh = hi;
}

} // namespace

SweepVerdict evaluateSweepVerdict(const SweepVerdictSpec& spec, const SweepPlan& plan,
                                  const std::vector<QJsonObject>& results) {
    SweepVerdict v;
    v.claim = spec.claim;
    v.expected = q(opName(spec.op)) + q(" ") + num(spec.value);
    v.value = v.spreadLow = v.spreadHigh = kNaN;
    const QString at = spec.at.empty() ? QString() : q(" at ") + selectorText(spec.at);
    switch (spec.kind) {
    case SweepVerdictSpec::Kind::Spearman: spearmanVerdict(spec, plan, results, at, v); break;
    case SweepVerdictSpec::Kind::Median:
    case SweepVerdictSpec::Kind::Fraction: locationVerdict(spec, plan, results, at, v); break;
    case SweepVerdictSpec::Kind::Ratio: ratioVerdict(spec, plan, results, v); break;
    }
    v.reproduces =
        v.reason.isEmpty() && std::isfinite(v.value) && holds(v.value, spec.op, spec.value);
    return v;
}

QString SweepVerdict::line() const {
    QString s =
        q(reproduces ? "reproduces: " : "does not reproduce: ") + claim + q(" -- ") + statistic;
    if (!reason.isEmpty()) return s + q(": ") + reason + q("; expected ") + expected;
    s += q(" = ") + num(value) + q(" over ") + QString::number(runs) + q(" runs");
    if (std::isfinite(spreadLow))
        s +=
            q(statistic.startsWith(q("median(")) && !statistic.contains(q(" / ")) ? " (q10..q90 "
                                                                                  : " (per seed ") +
            num(spreadLow) + q(" .. ") + num(spreadHigh) + q(")");
    return s + q("; expected ") + expected;
}

QByteArray verdictsText(const std::vector<SweepVerdict>& verdicts) {
    QByteArray out;
    for (const SweepVerdict& v : verdicts) out += v.line().toUtf8() + '\n';
    return out;
}

QByteArray verdictsJson(const std::vector<SweepVerdict>& verdicts) {
    QJsonArray arr;
    auto number = [](double x) { return std::isfinite(x) ? QJsonValue(x) : QJsonValue(); };
    for (const SweepVerdict& v : verdicts)
        arr.append(
            QJsonObject{{q("claim"), v.claim},
                        {q("reproduces"), v.reproduces},
                        {q("statistic"), v.statistic},
                        {q("value"), number(v.value)},
                        {q("spread"), QJsonArray{number(v.spreadLow), number(v.spreadHigh)}},
                        {q("runs"), v.runs},
                        {q("expected"), v.expected},
                        {q("reason"), v.reason.isEmpty() ? QJsonValue() : QJsonValue(v.reason)}});
    return QJsonDocument(arr).toJson(QJsonDocument::Indented);
}

} // namespace mhla
