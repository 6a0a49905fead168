// A sweep's finished runs reduced to the series and CSV of one figure (band, scatter,
// curves), values a log axis cannot show placed on its floor, and the note that counts them.
// The figure specs are parsed in sweepfigurespec.cpp; metric terms live in sweepterm.cpp.
#include "core/sweep/sweepfigure.h"
#include "core/base/displayfloor.h"
#include "core/base/text.h"
#include "core/experiment/config.h"
#include "core/records/resultio.h"
#include "core/sweep/sweepinternal.h"
#include "core/sweep/sweepterm.h"
#include <QJsonArray>
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>

namespace mhla {

using namespace sweepdetail;

namespace {

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

/// What the line and band are; with one seed per point there is no band to speak of.
QString bandText(SweepFigureSpec::BandKind b, int seeds) {
    if (seeds <= 1) return q("One seed per point: no band.");
    switch (b) {
    case SweepFigureSpec::BandKind::Quantile: return q("median, band 10-90% of seeds.");
    case SweepFigureSpec::BandKind::Std: return q("mean, band +- 1 std over seeds.");
    case SweepFigureSpec::BandKind::MinMax: return q("median, band min-max over seeds.");
    case SweepFigureSpec::BandKind::None: return q("median over seeds.");
    }
    return {};
}

/// The band drawn: none when each point has one seed (a band of zero width says nothing).
SweepFigureSpec::BandKind drawnBand(const SweepFigureSpec& spec, const SweepPlan& plan) {
    return plan.spec.seeds > 1 ? spec.band : SweepFigureSpec::BandKind::None;
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
        f.name = s.name + q(" ≤ 0 (at the floor)");
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

/// What a reduction records per run beside the series (drawn at all, drawn at a value <= 0,
/// not certified), and for the note whether the runs report "certified" and, for a band, the
/// runs <= 0 by x (as the CSV writes x).
struct RunMarks {
    RunMarks(const std::vector<QJsonObject>& r, size_t runs)
        : results(r), used(runs, false), nonPositive(runs, false), notCertified(runs, false) {}
    const std::vector<QJsonObject>& results;
    std::vector<bool> used, nonPositive, notCertified;
    bool reportsCertified = false;
    std::map<QString, int> floorByX;
    /// Run i's result, nullptr when it has not finished.
    const QJsonObject* resultOf(size_t i) const {
        return i < results.size() && !results[i].isEmpty() ? &results[i] : nullptr;
    }
};

/// A band figure's groups (the values of the other swept keys, in the order of first
/// appearance): per group its runs' values by x and its runs that are not certified by x.
struct BandGroups {
    QStringList names;
    std::vector<std::map<double, std::vector<double>>> values;
    std::vector<std::map<double, int>> notCertified;
};

BandGroups collectBandGroups(const SweepFigureSpec& spec, const SweepPlan& plan, int xa,
                             const Term& yt, RunMarks& m) {
    BandGroups g;
    for (size_t i = 0; i < plan.runs.size(); ++i) {
        const SweepRun& run = plan.runs[i];
        const SweepPoint& p = plan.points[static_cast<size_t>(run.point)];
        QStringList parts;
        for (size_t a = 0; a < p.values.size(); ++a)
            if (static_cast<int>(a) != xa)
                parts << legendEntry(p.values[a].first, p.values[a].second);
        // With no other swept key the one group is the metric itself, named as the axis is.
        const QString name = parts.isEmpty() ? termTitle(yt) : parts.join(q(", "));
        qsizetype gi = g.names.indexOf(name);
        if (gi < 0) {
            g.names << name;
            g.values.emplace_back();
            g.notCertified.emplace_back();
            gi = g.names.size() - 1;
        }
        const double x = termValue({spec.x, 0}, plan, run, QJsonObject());
        auto& bucket = g.values[static_cast<size_t>(gi)][x];
        const QJsonObject* r = m.resultOf(i);
        if (!r) continue;
        const double y = termValue(yt, plan, run, *r);
        if (!std::isfinite(y)) continue;
        bucket.push_back(y);
        m.used[i] = true;
        m.nonPositive[i] = y <= 0;
        if (const auto c = certifiedOf(*r)) {
            m.reportsCertified = true;
            if (!*c) ++g.notCertified[static_cast<size_t>(gi)][x], m.notCertified[i] = true;
        }
    }
    return g;
}

/// Triangles on a group's centre line where some of its seeds are not certified.
void addNotCertifiedTriangles(const SweepPlotSeries& centre, const std::map<double, int>& byX,
                              const QString& name, int colour, std::vector<SweepPlotSeries>* out) {
    SweepPlotSeries tri;
    tri.name = name;
    tri.style = SweepPlotSeries::Style::Triangles;
    tri.colour = colour;
    for (size_t k = 0; k < centre.x.size(); ++k)
        if (const auto it = byX.find(centre.x[k]); it != byX.end() && it->second > 0)
            tri.x.push_back(centre.x[k]), tri.y.push_back(centre.y[k]);
    if (!tri.x.empty()) out->push_back(tri);
}

void reduceBand(const SweepFigureSpec& spec, const SweepPlan& plan, RunMarks& m,
                SweepFigureData& d) {
    const QStringList bc = bandColumns(spec.band);
    const int xa = axisIndex(plan, spec.x);
    const SweepAxis& xAxis = plan.spec.axes[static_cast<size_t>(xa)];
    const bool categorical = !axisNumeric(xAxis);
    const Term yt = parseTerm(spec.y);
    const BandGroups groups = collectBandGroups(spec, plan, xa, yt, m);
    CsvTable t({q("series"), spec.x, spec.y + q("_") + bc[0], spec.y + q("_") + bc[1],
                spec.y + q("_") + bc[2], q("runs")});
    auto xCell = [&](double x) {
        if (!categorical) return numberText(x); // as the swept value is written
        return CsvTable::text(valueText(xAxis.values[static_cast<qsizetype>(x)]));
    };
    for (size_t g = 0; g < groups.values.size(); ++g) {
        const QString& gName = groups.names[static_cast<qsizetype>(g)];
        const size_t before = d.series.size();
        addBandSeries(gName, static_cast<int>(g), groups.values[g], drawnBand(spec, plan), xCell,
                      &d.series, &t, categorical);
        if (d.series.size() == before) continue;
        addNotCertifiedTriangles(d.series.back(), groups.notCertified[g],
                                 (groups.values.size() == 1 ? QString() : gName + q(" · ")) +
                                     q("not certified (some seeds)"),
                                 static_cast<int>(g), &d.series);
    }
    if (!spec.overlay.isEmpty()) {
        // The overlay metric of every run against the same x, pooled over the groups (the
        // exact solver on the same data: one reference line in black), its median per x.
        const Term ot = parseTerm(spec.overlay);
        std::map<double, std::vector<double>> byX;
        for (size_t i = 0; i < plan.runs.size(); ++i) {
            const QJsonObject* r = m.resultOf(i);
            if (!r) continue;
            const double oy = termValue(ot, plan, plan.runs[i], *r);
            if (!std::isfinite(oy)) continue;
            byX[termValue({spec.x, 0}, plan, plan.runs[i], QJsonObject())].push_back(oy);
            m.used[i] = true;
            m.nonPositive[i] = m.nonPositive[i] || oy <= 0;
        }
        addBandSeries(termTitle(ot) + q(" (all runs)"), -1, byX, SweepFigureSpec::BandKind::None,
                      xCell, &d.series, &t, categorical);
    }
    for (size_t i = 0; i < plan.runs.size(); ++i)
        if (m.nonPositive[i])
            ++m.floorByX[xCell(termValue({spec.x, 0}, plan, plan.runs[i], QJsonObject()))];
    d.csv = t.bytes();
    d.xTitle = metricLabel(spec.x);
    if (categorical)
        for (const QJsonValue& v : xAxis.values) d.xCategories << valueText(v);
    d.yTitle = termTitle(yt);
    d.note = bandText(spec.band, plan.spec.seeds);
    d.title = termTitle(yt) + q(" against ") + metricLabel(spec.x);
}

/// A scatter figure's series: one per value of the colour key (or one), and beside each the
/// same value's runs that are not certified.
void scatterSeries(const SweepFigureSpec& spec, const SweepPlan& plan, int ca, const Term& yt,
                   std::vector<SweepPlotSeries>* byColour, std::vector<SweepPlotSeries>* notCert) {
    if (ca >= 0) {
        for (const QJsonValue& v : plan.spec.axes[static_cast<size_t>(ca)].values) {
            SweepPlotSeries s;
            s.name = legendEntry(spec.colour, v);
            byColour->push_back(s);
        }
    } else {
        SweepPlotSeries s;
        s.name = termTitle(yt);
        byColour->push_back(s);
    }
    notCert->resize(byColour->size());
    for (size_t k = 0; k < byColour->size(); ++k) {
        (*notCert)[k].name = (*byColour)[k].name + q(" · not certified");
        (*byColour)[k].style = SweepPlotSeries::Style::Markers;
        (*notCert)[k].style = SweepPlotSeries::Style::Triangles;
        (*byColour)[k].colour = (*notCert)[k].colour = static_cast<int>(k);
    }
}

/// The position of a run's value of swept key `ca` among the key's values (0 when unswept).
size_t colourIndex(const SweepPlan& plan, int ca, const SweepRun& run) {
    if (ca < 0) return 0;
    const QJsonValue cv =
        plan.points[static_cast<size_t>(run.point)].values[static_cast<size_t>(ca)].second;
    const QJsonArray& all = plan.spec.axes[static_cast<size_t>(ca)].values;
    size_t c = 0;
    for (qsizetype k = 0; k < all.size(); ++k)
        if (all[k] == cv) c = static_cast<size_t>(k);
    return c;
}

void reduceScatter(const SweepFigureSpec& spec, const SweepPlan& plan, RunMarks& m,
                   SweepFigureData& d) {
    const Term xt = parseTerm(spec.x), yt = parseTerm(spec.y);
    const int ca = spec.colour.isEmpty() ? -1 : axisIndex(plan, spec.colour);
    std::vector<SweepPlotSeries> byColour, notCert;
    scatterSeries(spec, plan, ca, yt, &byColour, &notCert);
    SweepPlotSeries overlay;
    const Term ot = parseTerm(spec.overlay);
    overlay.name = termTitle(ot);
    CsvTable t({q("series"), q("run"), q("point"), q("task_seed"), spec.x, spec.y});
    for (size_t i = 0; i < plan.runs.size(); ++i) {
        const QJsonObject* r = m.resultOf(i);
        if (!r) continue;
        const SweepRun& run = plan.runs[i];
        const double x = termValue(xt, plan, run, *r);
        const double y = termValue(yt, plan, run, *r);
        const size_t c = colourIndex(plan, ca, run);
        auto row = [&](const QString& series, double yy) {
            t.addRow({CsvTable::text(series), CsvTable::integer(run.index),
                      CsvTable::integer(run.point), CsvTable::integer(run.config.task.seed),
                      CsvTable::number(x), CsvTable::number(yy)});
        };
        const std::optional<bool> cert = certifiedOf(*r);
        m.reportsCertified = m.reportsCertified || cert.has_value();
        if (std::isfinite(x) && std::isfinite(y)) {
            SweepPlotSeries& dst = cert.value_or(true) ? byColour[c] : notCert[c];
            dst.x.push_back(x);
            dst.y.push_back(y);
            m.used[i] = true;
            m.nonPositive[i] = y <= 0;
            m.notCertified[i] = !cert.value_or(true);
            row(byColour[c].name, y);
        }
        if (spec.overlay.isEmpty()) continue;
        const double oy = termValue(ot, plan, run, *r);
        if (!std::isfinite(x) || !std::isfinite(oy)) continue;
        overlay.x.push_back(x);
        overlay.y.push_back(oy);
        m.used[i] = true;
        m.nonPositive[i] = m.nonPositive[i] || oy <= 0;
        row(spec.overlay, oy); // the CSV names the metric; the legend its label
    }
    for (const std::vector<SweepPlotSeries>* group : {&byColour, &notCert})
        for (const SweepPlotSeries& s : *group)
            if (!s.x.empty()) d.series.push_back(s);
    if (!overlay.x.empty()) {
        overlay.style = SweepPlotSeries::Style::Markers;
        overlay.colour = -1; // drawn in black: the reference (e.g. the exact solver)
        d.series.push_back(overlay);
    }
    d.csv = t.bytes();
    d.xTitle = termTitle(xt);
    d.yTitle = termTitle(yt);
    d.note = q("One marker per run") +
             (spec.overlay.isEmpty()
                  ? QString()
                  : q("; ") + metricLabel(spec.overlay) + q(" drawn against the same x")) +
             q(".");
    d.title = termTitle(yt) + q(" against ") + termTitle(xt);
}

/// The learning curves of one grid point's runs by x. A run that stopped early
/// (solver.target_loss) keeps its last value at later x, so the band does not collapse onto
/// the runs still training. Sets `anyHistory` when a run has a history at all.
std::map<double, std::vector<double>> pointCurves(const SweepFigureSpec& spec,
                                                  const SweepPlan& plan, const SweepPoint& p,
                                                  RunMarks& m, bool* anyHistory) {
    std::vector<std::map<double, double>> curves;
    std::map<double, std::vector<double>> byX;
    for (size_t i = 0; i < plan.runs.size(); ++i) {
        if (plan.runs[i].point != p.index) continue;
        const QJsonObject* r = m.resultOf(i);
        if (!r) continue;
        const QJsonArray h = r->value(q("history")).toArray();
        *anyHistory = *anyHistory || !h.isEmpty();
        std::map<double, double> c;
        for (const QJsonValue& hv : h) {
            const QJsonObject ho = hv.toObject();
            const QJsonValue yv = ho.value(spec.y);
            if (!yv.isDouble() || !std::isfinite(yv.toDouble())) continue;
            c[ho.value(spec.x).toDouble()] = yv.toDouble();
            byX[ho.value(spec.x).toDouble()];
            m.used[i] = true;
            m.nonPositive[i] = m.nonPositive[i] || yv.toDouble() <= 0;
        }
        if (c.empty()) continue;
        curves.push_back(std::move(c));
        if (const auto cert = certifiedOf(*r)) { // a trainer's: the exact solver's certificate
            m.reportsCertified = true;
            m.notCertified[i] = !*cert;
        }
    }
    for (auto& [x, values] : byX)
        for (const auto& c : curves) {
            auto it = c.upper_bound(x);
            if (it != c.begin()) values.push_back(std::prev(it)->second);
        }
    return byX;
}

void reduceCurves(const SweepFigureSpec& spec, const SweepPlan& plan, RunMarks& m,
                  SweepFigureData& d) {
    const QStringList bc = bandColumns(spec.band);
    bool anyHistory = false;
    CsvTable t({q("series"), spec.x, spec.y + q("_") + bc[0], spec.y + q("_") + bc[1],
                spec.y + q("_") + bc[2], q("runs")});
    for (const SweepPoint& p : plan.points) {
        const auto byX = pointCurves(spec, plan, p, m, &anyHistory);
        QString name = p.values.empty() ? metricLabel(spec.y) : p.label();
        // A curve has no marker per run: its name says when some of its seeds' data are not
        // certified (the claim a learning curve is read against).
        int notCertified = 0, seeds = 0;
        for (size_t i = 0; i < plan.runs.size(); ++i)
            if (plan.runs[i].point == p.index && m.used[i])
                ++seeds, notCertified += m.notCertified[i] ? 1 : 0;
        if (notCertified > 0)
            name += QString::asprintf(" · not certified (%d of %d seeds)", notCertified, seeds);
        addBandSeries(
            name, p.index, byX, drawnBand(spec, plan), [](double x) { return CsvTable::number(x); },
            &d.series, &t, false);
    }
    if (!anyHistory && std::any_of(m.results.begin(), m.results.end(),
                                   [](const QJsonObject& o) { return !o.isEmpty(); }))
        fail(q("figure \"") + spec.name +
                 q("\": learning curves need trainer runs; these runs have no history"),
             q("figures"));
    d.csv = t.bytes();
    d.xTitle = spec.x; // "epoch" or "step"
    d.yTitle = metricLabel(spec.y);
    d.note = bandText(spec.band, plan.spec.seeds) +
             q(" A run that stopped early (target loss) counts with its last value.");
    d.title = metricLabel(spec.y) + q(" during training");
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

SweepFigureData reduceSweepFigure(const SweepFigureSpec& spec, const SweepPlan& plan,
                                  const std::vector<QJsonObject>& results) {
    SweepFigureData d;
    d.name = spec.name;
    RunMarks m(results, plan.runs.size());
    switch (spec.kind) {
    case SweepFigureSpec::Kind::Band: reduceBand(spec, plan, m, d); break;
    case SweepFigureSpec::Kind::Scatter: reduceScatter(spec, plan, m, d); break;
    case SweepFigureSpec::Kind::Curves: reduceCurves(spec, plan, m, d); break;
    }
    if (!spec.title.isEmpty()) d.title = spec.title;
    d.runsUsed = static_cast<int>(std::count(m.used.begin(), m.used.end(), true));
    int finished = 0;
    for (size_t i = 0; i < plan.runs.size(); ++i) finished += m.resultOf(i) != nullptr;
    if (finished > d.runsUsed)
        d.note += QString::asprintf(" %d of %d finished runs have no finite value here and are "
                                    "not drawn.",
                                    finished - d.runsUsed, finished);
    d.logX = spec.logX.value_or(autoLog(allX(d.series)));
    d.logY = spec.logY.value_or(autoLogY(d.series));
    if (d.logY) d.floorY = placeOnLogFloor(&d.series);
    if (d.floorY > 0) {
        d.runsAtFloor =
            static_cast<int>(std::count(m.nonPositive.begin(), m.nonPositive.end(), true));
        QStringList at;
        for (const auto& [x, n] : m.floorByX)
            at << QString::number(n) + q(" at ") + legendEntry(spec.x, QJsonValue(x));
        d.note += QString::asprintf(" %d of %d runs have a value ", d.runsAtFloor, finished) +
                  q("≤ 0, which a log axis cannot show: drawn at the floor ") +
                  typesetNumber(numberText(d.floorY)) + q(" with hollow diamonds") +
                  (at.isEmpty() ? QString() : q(" (") + at.join(q(", ")) + q(")")) +
                  q("; the CSV has the values.");
    }
    if (m.reportsCertified) {
        d.runsNotCertified =
            static_cast<int>(std::count(m.notCertified.begin(), m.notCertified.end(), true));
        if (d.runsNotCertified == 0)
            d.note += finished == 1 ? q(" The run is certified.")
                                    : QString::asprintf(" All %d runs are certified.", finished);
        else
            d.note +=
                QString::asprintf(spec.kind == SweepFigureSpec::Kind::Curves
                                      ? " %d of %d runs are not certified (named in the legend)."
                                      : " %d of %d runs are not certified (triangles).",
                                  d.runsNotCertified, finished);
    }
    return d;
}

} // namespace mhla
