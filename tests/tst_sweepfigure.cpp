// Sweep figures (core/sweep/sweepfigure.h): the "figures" block is validated with errors that name
// the member and what is allowed; defaults follow the grid; the reduction of runs to series
// (band centre and edges per x and group, categorical x, scatter colours and overlay, the
// -log10 transform, learning curves over seeds of unequal length) computed on synthetic
// result objects whose values are known.
#include "core/base/text.h"
#include "core/experiment/config.h"
#include "core/sweep/sweep.h"
#include "core/sweep/sweepfigure.h"
#include "core/sweep/sweeprun.h"
#include "core/sweep/sweepterm.h"
#include "core/sweep/sweepverdict.h"
#include "testutil.h"
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>

using namespace mhla;

namespace {

using mhla::test::s;
QJsonObject json(const char* text) { return QJsonDocument::fromJson(QByteArray(text)).object(); }
QJsonValue jsonValue(const char* text) {
    return QJsonDocument::fromJson(QByteArray("{\"v\": ") + text + "}").object().value(s("v"));
}

SweepPlan plan(const char* text) {
    const SweepFile f = parseSweep(json(text));
    return planSweep(f.base, f.spec);
}

const char kPoly[] = R"({
  "task": {"kind": "associative_memory", "pairs": 2, "samples": 400},
  "sweep": {"grid": {"task.orthogonal_prob": [0.25, 0.5, 1], "task.orthogonal_sampler": ["haar", "qr_unsigned"]},
            "seeds": 4}
})";

const char kTrainer[] = R"({
  "task": {"kind": "random_mhla", "d": 2, "samples": 64},
  "solver": {"kind": "mhla", "epochs": 3},
  "sweep": {"grid": {"solver.heads": [1, 2]}, "seeds": 3}
})";

/// Synthetic result objects: lambda_min = value(point, seed), certified when > 0.1.
std::vector<QJsonObject> results(const SweepPlan& p,
                                 const std::function<double(const SweepRun&)>& value) {
    std::vector<QJsonObject> out;
    for (const SweepRun& r : p.runs) {
        const double v = value(r);
        out.push_back(QJsonObject{{s("config"), experimentToJson(r.config)},
                                  {s("lambda_min"), v},
                                  {s("distance_p"), 2 * v},
                                  {s("certified"), v > 0.1},
                                  {s("exact"), QJsonObject{{s("distance_p"), 3 * v}}}});
    }
    return out;
}

QString errorOf(const SweepPlan& p, const char* figures) {
    try {
        (void)parseSweepFigures(jsonValue(figures), p);
    } catch (const ConfigError& e) {
        return QString::fromUtf8(e.what()) + s(" @") + e.key();
    }
    return {};
}

} // namespace

class TestSweepFigure : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void figuresBlockIsStrippedFromTheBase() {
        QJsonObject o = json(kPoly);
        o.insert(s("figures"), QJsonArray{QJsonObject{{s("kind"), s("band")}}});
        const SweepFile f = parseSweep(o);
        QVERIFY(!f.base.contains(s("figures")));
        QVERIFY(f.figures.isArray());
        (void)planSweep(f.base, f.spec); // the base is a valid experiment
    }

    void defaultsFollowTheGrid() {
        const SweepPlan poly = plan(kPoly);
        const auto d = parseSweepFigures(QJsonValue(QJsonValue::Undefined), poly);
        QCOMPARE(d.size(), size_t(1));
        QCOMPARE(d[0].kind, SweepFigureSpec::Kind::Band);
        QCOMPARE(d[0].y, s("lambda_min"));
        QCOMPARE(d[0].x, s("task.orthogonal_prob")); // the numeric axis, not the sampler
        const auto t = defaultSweepFigures(plan(kTrainer));
        QCOMPARE(t.size(), size_t(2));
        QCOMPARE(t[0].y, s("val_mse"));
        QCOMPARE(t[1].kind, SweepFigureSpec::Kind::Curves);
    }

    void badFiguresRefused_data() {
        QTest::addColumn<QString>("figures");
        QTest::addColumn<QString>("expected");
        QTest::newRow("not array") << s(R"({"kind": "band"})") << s("@figures");
        QTest::newRow("empty") << s("[]") << s("1 to 32");
        QTest::newRow("no kind") << s(R"J([{"y": "lambda_min"}])J")
                                 << s("figures[0].kind: required");
        QTest::newRow("bad kind") << s(R"J([{"kind": "pie"}])J") << s("\"pie\" is not allowed");
        QTest::newRow("unknown member")
            << s(R"J([{"kind": "band", "colour": "task.seed"}])J") << s("@figures[0].colour");
        QTest::newRow("bad metric")
            << s(R"J([{"kind": "band", "y": "lambda_mim"}])J") << s("@figures[0].y");
        QTest::newRow("x not swept")
            << s(R"J([{"kind": "band", "x": "task.samples"}])J") << s("is not a swept key");
        QTest::newRow("bad band") << s(R"J([{"kind": "band", "band": "iqr"}])J")
                                  << s("allowed: \"quantile\"");
        QTest::newRow("log not bool")
            << s(R"J([{"kind": "band", "log_y": "yes"}])J") << s("@figures[0].log_y");
        QTest::newRow("scatter needs x")
            << s(R"J([{"kind": "scatter", "y": "lambda_min"}])J") << s("@figures[0].x");
        QTest::newRow("bad transform")
            << s(R"J([{"kind": "scatter", "x": "log10(nope)", "y": "lambda_min"}])J")
            << s("@figures[0].x");
        QTest::newRow("zero eps")
            << s(R"J([{"kind": "scatter", "x": "-log10(lambda_min + 0)", "y": "distance_p"}])J")
            << s("must be a positive number");
        QTest::newRow("eps not a number")
            << s(R"J([{"kind": "scatter", "x": "-log10(lambda_min + tiny)", "y": "distance_p"}])J")
            << s("@figures[0].x");
        QTest::newRow("curves on poly")
            << s(R"J([{"kind": "curves"}])J") << s("curves need trainer runs");
        QTest::newRow("duplicate name")
            << s(R"J([{"kind": "band", "name": "a"}, {"kind": "band", "name": "a"}])J")
            << s("@figures[1].name");
        QTest::newRow("bad name") << s(R"J([{"kind": "band", "name": "../x"}])J")
                                  << s("@figures[0].name");
    }
    void badFiguresRefused() {
        QFETCH(QString, figures);
        QFETCH(QString, expected);
        const QString e = errorOf(plan(kPoly), figures.toUtf8().constData());
        QVERIFY2(e.contains(expected), qPrintable(e));
    }

    void bandStatsValues() {
        const std::vector<double> v{4, 1, 3, 2, NAN};
        const BandStats q = bandStats(v, SweepFigureSpec::BandKind::Quantile);
        QCOMPARE(q.count, 4);
        QCOMPARE(q.centre, 2.5);
        QCOMPARE(q.lower, 1.3); // linear between order statistics, as numpy
        QCOMPARE(q.upper, 3.7);
        const BandStats m = bandStats(v, SweepFigureSpec::BandKind::MinMax);
        QCOMPARE(m.lower, 1.0);
        QCOMPARE(m.upper, 4.0);
        const BandStats sd = bandStats(v, SweepFigureSpec::BandKind::Std);
        QCOMPARE(sd.centre, 2.5);
        QVERIFY(std::abs(sd.upper - 2.5 - std::sqrt(5.0 / 3.0)) < 1e-12);
        QCOMPARE(bandStats({}, SweepFigureSpec::BandKind::Std).count, 0);
    }

    void bandReducesPerXAndGroup() {
        const SweepPlan p = plan(kPoly);
        // lambda_min = p_value * (seed + 1) for haar, 0 for qr_unsigned; one missing run.
        auto res = results(p, [&](const SweepRun& r) {
            const auto& vals = p.points[static_cast<size_t>(r.point)].values;
            // Axes in key order: orthogonal_prob, then orthogonal_sampler.
            const bool haar = vals[1].second.toString() == s("haar");
            return haar ? vals[0].second.toDouble() * (r.seed + 1) : 0.0;
        });
        res[0] = QJsonObject();
        const auto specs = parseSweepFigures(
            jsonValue(R"J([{"kind": "band", "x": "task.orthogonal_prob", "y": "lambda_min",
                           "band": "minmax"}])J"),
            p);
        const SweepFigureData d = reduceSweepFigure(specs[0], p, res);
        QCOMPARE(d.runsUsed, static_cast<int>(p.runs.size()) - 1);
        // Two groups (haar, qr_unsigned), each a band and a centre line; qr_unsigned (0, not
        // certified) also its not-certified triangles.
        QCOMPARE(d.series.size(), size_t(5));
        const SweepPlotSeries& haarBand = d.series[0];
        const SweepPlotSeries& haarLine = d.series[1];
        QCOMPARE(haarBand.style, SweepPlotSeries::Style::Band);
        QCOMPARE(haarLine.name, s("orthogonal_sampler=haar"));
        QCOMPARE(haarLine.x, (std::vector<double>{0.25, 0.5, 1}));
        // x = 0.25: seeds 1..3 (seed 0 missing): 0.5, 0.75, 1 -> median 0.75, min 0.5, max 1.
        QCOMPARE(haarLine.y[0], 0.75);
        QCOMPARE(haarBand.lower[0], 0.5);
        QCOMPARE(haarBand.y[0], 1.0);
        // x = 1: 1, 2, 3, 4 -> median 2.5.
        QCOMPARE(haarLine.y[2], 2.5);
        QCOMPARE(d.series[3].y, (std::vector<double>{0, 0, 0}));
        QCOMPARE(d.series[4].style, SweepPlotSeries::Style::Triangles);
        QCOMPARE(d.series[4].name,
                 s("orthogonal_sampler=qr_unsigned · not certified (some seeds)"));
        QCOMPARE(d.series[4].x, (std::vector<double>{0.25, 0.5, 1}));
        // Haar at 0.25 (0.5, 0.75, 1) and 0.5 (0.5 .. 2) and 1 is certified (> 0.1) at every seed.
        QCOMPARE(d.runsNotCertified, 12); // qr_unsigned's 12 runs (the missing run is haar's)
        QVERIFY(!d.logY);                 // zeros: no log axis automatically
        QCOMPARE(d.floorY, 0.0);
        const QString csv = QString::fromUtf8(d.csv);
        QVERIFY2(csv.startsWith(s("series,task.orthogonal_prob,lambda_min_median,lambda_min_min,"
                                  "lambda_min_max,runs\n")),
                 qPrintable(csv));
        QVERIFY2(csv.contains(s("orthogonal_sampler=haar,0.25,0.75,0.5,1,3\n")), qPrintable(csv));
        QCOMPARE(csv.count(u'\n'), 7);
    }

    void oneSeedDrawsNoBandAndAllCertifiedIsSaid() {
        // One seed per point: the note does not speak of a band over seeds, none is drawn; the
        // certified count says "all" rather than "0 of 6 are not certified".
        const SweepPlan p = plan(R"({
          "task": {"kind": "associative_memory", "pairs": 2, "samples": 400},
          "sweep": {"grid": {"task.orthogonal_prob": [0.25, 0.5, 1],
                             "task.orthogonal_sampler": ["haar", "qr_unsigned"]}}
        })");
        QCOMPARE(p.spec.seeds, 1);
        const auto res = results(p, [](const SweepRun& r) { return 0.5 + r.index; });
        const auto specs =
            parseSweepFigures(jsonValue(R"J([{"kind": "band", "x": "task.orthogonal_prob"}])J"), p);
        const SweepFigureData d = reduceSweepFigure(specs[0], p, res);
        for (const SweepPlotSeries& series : d.series)
            QVERIFY2(series.style != SweepPlotSeries::Style::Band, qPrintable(series.name));
        QCOMPARE(d.series.size(), size_t(2)); // one line per sampler
        QVERIFY2(d.note.startsWith(s("One seed per point: no band.")), qPrintable(d.note));
        QVERIFY2(!d.note.contains(s("10-90")), qPrintable(d.note));
        QCOMPARE(d.runsNotCertified, 0);
        QVERIFY2(d.note.contains(s("All 6 runs are certified.")), qPrintable(d.note));
        // With seeds, the band is back and named.
        const SweepPlan seeded = plan(kPoly);
        const auto seededRes = results(seeded, [](const SweepRun& r) { return 0.5 + r.seed; });
        const SweepFigureData b = reduceSweepFigure(
            parseSweepFigures(jsonValue(R"J([{"kind": "band", "x": "task.orthogonal_prob"}])J"),
                              seeded)[0],
            seeded, seededRes);
        QCOMPARE(b.series.front().style, SweepPlotSeries::Style::Band);
        QVERIFY2(b.note.startsWith(s("median, band 10-90% of seeds.")), qPrintable(b.note));
    }

    void categoricalXAndLogAxes() {
        const SweepPlan p = plan(kPoly);
        const auto res = results(p, [&](const SweepRun& r) {
            return std::pow(10.0, -r.point) * (1 + 0.1 * r.seed); // spans decades
        });
        const auto specs = parseSweepFigures(
            jsonValue(R"J([{"kind": "band", "x": "task.orthogonal_sampler", "band": "std"}])J"), p);
        const SweepFigureData d = reduceSweepFigure(specs[0], p, res);
        QCOMPARE(d.xCategories, (QStringList{s("haar"), s("qr_unsigned")})); // a categorical axis
        QCOMPARE(d.xTitle, s("Orthogonal sampler")); // the key table's label
        // The band at a categorical x: one vertical bar per category, no area between them;
        // every group has points 1..5 (lambda_min <= 0.13, seed 0 at 0.1: not > 0.1), so each
        // adds its not-certified triangles.
        QCOMPARE(d.series.size(), size_t(12)); // 3 values of p x (2 bars + markers + triangles)
        QCOMPARE(d.series[0].style, SweepPlotSeries::Style::ErrorBar);
        QCOMPARE(d.series[0].x[0], d.series[0].x[1]);
        QVERIFY(d.series[0].y[0] < d.series[0].y[1]);
        QCOMPARE(d.series[2].style, SweepPlotSeries::Style::Markers);
        QCOMPARE(d.series[2].x, (std::vector<double>{0, 1}));
        QCOMPARE(d.series.back().style, SweepPlotSeries::Style::Triangles);
        QVERIFY(d.logY);
        QVERIFY(!d.logX);
        QVERIFY(QString::fromUtf8(d.csv).contains(s(",qr_unsigned,")));
        const auto forced = parseSweepFigures(
            jsonValue(R"J([{"kind": "band", "x": "task.orthogonal_sampler", "log_y": false}])J"),
            p);
        QVERIFY(!reduceSweepFigure(forced[0], p, res).logY);
    }

    void scatterColoursOverlayAndTransform() {
        const SweepPlan p = plan(kPoly);
        const auto res = results(p, [](const SweepRun& r) { return 0.001 * (r.index + 1); });
        const auto specs = parseSweepFigures(
            jsonValue(R"J([{"kind": "scatter", "x": "-log10(lambda_min)", "y": "distance_p",
                           "colour": "task.orthogonal_prob", "overlay": "exact.distance_p"}])J"),
            p);
        const SweepFigureData d = reduceSweepFigure(specs[0], p, res);
        // 3 values of p + the overlay; no run is certified (all lambda_min <= 0.024 < 0.1), so
        // every run is a triangle of its colour's not-certified series.
        QCOMPARE(d.series.size(), size_t(4));
        QCOMPARE(d.series[0].style, SweepPlotSeries::Style::Triangles);
        QCOMPARE(d.runsNotCertified, static_cast<int>(p.runs.size()));
        QVERIFY2(d.note.contains(s("24 of 24 runs are not certified")), qPrintable(d.note));
        size_t markers = 0;
        for (size_t k = 0; k < 3; ++k) markers += d.series[k].x.size();
        QCOMPARE(markers, p.runs.size());
        QCOMPARE(d.series[3].name, s("exact solver: ‖P − P*‖_F")); // its label
        QCOMPARE(d.series[3].colour, -1);                          // the reference in black
        // Run 0: lambda_min 0.001 -> x = 3; distance 0.002; exact 0.003.
        const SweepPlotSeries& first = d.series[0];
        QCOMPARE(first.name, s("p = 0.25 · not certified"));
        QVERIFY(std::abs(first.x[0] - 3) < 1e-12);
        QCOMPARE(first.y[0], 0.002);
        QCOMPARE(d.series[3].y[0], 0.003);
        QCOMPARE(d.xTitle, s("−log₁₀ λ_min"));
        QCOMPARE(QString::fromUtf8(d.csv).count(u'\n'), 1 + 2 * static_cast<int>(p.runs.size()));
    }

    void curvesOverSeedsOfUnequalLength() {
        const SweepPlan p = plan(kTrainer);
        std::vector<QJsonObject> res;
        for (const SweepRun& r : p.runs) {
            QJsonArray h;
            // Seed k stops after 3 - k epochs (a target loss reached early).
            for (int e = 1; e <= 3 - r.seed; ++e)
                h.append(QJsonObject{{s("epoch"), e}, {s("val_mse"), e * (r.seed + 1.0)}});
            res.push_back(
                QJsonObject{{s("config"), experimentToJson(r.config)}, {s("history"), h}});
        }
        const auto specs =
            parseSweepFigures(jsonValue(R"J([{"kind": "curves", "band": "minmax"}])J"), p);
        const SweepFigureData d = reduceSweepFigure(specs[0], p, res);
        QCOMPARE(d.series.size(), size_t(4)); // 2 points x (band + line)
        const SweepPlotSeries& line = d.series[1];
        QCOMPARE(line.name, s("solver.heads=1"));
        QCOMPARE(line.x, (std::vector<double>{1, 2, 3}));
        // Runs that stopped keep their last value: epoch 1: 1, 2, 3 -> median 2; epoch 2:
        // 2, 4, 3 (seed 2 stopped at epoch 1) -> 3; epoch 3: 3, 4, 3 -> 3.
        QCOMPARE(line.y, (std::vector<double>{2, 3, 3}));
        QCOMPARE(d.series[0].lower, (std::vector<double>{1, 2, 3}));
        QCOMPARE(d.series[0].y, (std::vector<double>{3, 4, 4})); // max
        QVERIFY(QString::fromUtf8(d.csv).contains(s("solver.heads=1,1,2,1,3,3\n")));
        // Runs without history: an error, not an empty figure.
        std::vector<QJsonObject> noHistory;
        for (const SweepRun& r : p.runs)
            noHistory.push_back(QJsonObject{{s("config"), experimentToJson(r.config)}});
        QVERIFY_THROWS_EXCEPTION(ConfigError, reduceSweepFigure(specs[0], p, noHistory));
    }

    // A learning curve has no marker per run: when some seeds of its grid point are not
    // certified (a trainer's result carries the exact solver's certificate), its legend name
    // says how many, and the note counts them (issue 21).
    void curvesNameSeedsThatAreNotCertified() {
        const SweepPlan p = plan(kTrainer);
        std::vector<QJsonObject> res;
        for (const SweepRun& r : p.runs) {
            const QJsonArray h{QJsonObject{{s("epoch"), 1}, {s("val_mse"), 1.0}}};
            const bool twoHeads = r.config.solver.heads == 2;
            res.push_back(QJsonObject{{s("config"), experimentToJson(r.config)},
                                      {s("history"), h},
                                      {s("certified"), !(twoHeads && r.seed == 0)}});
        }
        const auto specs = parseSweepFigures(jsonValue(R"J([{"kind": "curves"}])J"), p);
        const SweepFigureData d = reduceSweepFigure(specs[0], p, res);
        QStringList names;
        for (const SweepPlotSeries& series : d.series)
            if (!series.name.endsWith(s(" band"))) names << series.name; // the centre lines
        QCOMPARE(names, (QStringList{s("solver.heads=1"),
                                     s("solver.heads=2 · not certified (1 of 3 seeds)")}));
        QCOMPARE(d.runsNotCertified, 1);
        QVERIFY2(d.note.contains(s("1 of 6 runs are not certified (named in the legend)")),
                 qPrintable(d.note));
        QCOMPARE(d.title, s("val MSE during training"));
    }

    void everyPaperFileHasValidFigures() {
        const QDir dir(s(MHLA_SOURCE_DIR "/resources/paper"));
        const QStringList files = dir.entryList({s("*.json")}, QDir::Files);
        QVERIFY(files.size() >= 8);
        for (const QString& f : files) {
            QJsonValue figures, verdicts;
            const SweepPlan p = planSweepFile(dir.filePath(f), {}, 0, {}, &figures, 0, &verdicts);
            QVERIFY2(figures.isArray(), qPrintable(f));
            const auto specs = parseSweepFigures(figures, p);
            QVERIFY2(!specs.empty(), qPrintable(f));
            // Every paper file states its claims as verdicts (issue 21: a verdict per claim).
            QVERIFY2(verdicts.isArray(), qPrintable(f));
            QVERIFY2(!parseSweepVerdicts(verdicts, p).empty(), qPrintable(f));
        }
    }

    // Axis titles and legend entries name every metric a figure can draw in words or symbols
    // (λ_min: "_" is a subscript there), never as its runs.csv column (issue 21:
    // "execution.teacher_step_accuracy" was a legend entry).
    void everyMetricHasALabel() {
        QStringList raw;
        for (const QString& m : sweepMetricColumns()) {
            const QString label = sweepdetail::metricLabel(m);
            if (label.isEmpty() || label == m) raw << m;
        }
        QVERIFY2(raw.isEmpty(), qPrintable(raw.join(s("; "))));
    }

    void fileWithoutFiguresBlockGetsTheDefaults() {
        // Issue 21 point 8: `figures` on a sweep file without "figures" failed with "expected
        // an array of figure objects" (the file's absent block read as null).
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(s("own.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(kPoly);
        f.close();
        QJsonValue figures;
        const SweepPlan p = planSweepFile(path, {}, 0, {}, &figures);
        std::vector<SweepFigureSpec> specs;
        try {
            specs = parseSweepFigures(figures, p);
        } catch (const ConfigError& e) {
            QFAIL(e.what());
        }
        const auto defaults = defaultSweepFigures(p);
        QCOMPARE(specs.size(), defaults.size());
        QCOMPARE(specs[0].name, defaults[0].name);
        QCOMPARE(specs[0].y, s("lambda_min"));
    }

    void nonPositiveValuesDrawnAtAMarkedFloor_data() {
        QTest::addColumn<QString>("band");
        QTest::addColumn<double>("floor");
        // The smallest positive value drawn at p = 0.5 (5e-3, 1e-2, 1.5e-2, 2e-2): q10 6.5e-3,
        // min 5e-3, median 1.25e-2; the floor is the decade below its decade.
        QTest::newRow("quantile") << s("quantile") << 1e-4;
        QTest::newRow("minmax") << s("minmax") << 1e-4;
        QTest::newRow("none") << s("none") << 1e-3;
    }
    void nonPositiveValuesDrawnAtAMarkedFloor() {
        // lambda_min = (1 - p) * 1e-2 * (seed + 1): 0 at p = 1 for all 8 runs (2 samplers x 4
        // seeds).
        QFETCH(QString, band);
        QFETCH(double, floor);
        const SweepPlan p = plan(kPoly);
        const auto res = results(p, [&](const SweepRun& r) {
            const double prob = p.points[static_cast<size_t>(r.point)].values[0].second.toDouble();
            return (1 - prob) * 1e-2 * (r.seed + 1);
        });
        const QString fig = s(R"J([{"kind": "band", "x": "task.orthogonal_prob", "y":
                              "lambda_min", "log_y": true, "band": "%1"}])J")
                                .arg(band);
        const auto specs = parseSweepFigures(jsonValue(fig.toUtf8().constData()), p);
        const SweepFigureData d = reduceSweepFigure(specs[0], p, res);
        QVERIFY(d.logY);
        QVERIFY2(std::abs(d.floorY - floor) < floor * 1e-12, qPrintable(QString::number(d.floorY)));
        QCOMPARE(d.runsAtFloor, 8); // runs, not band statistics
        int floorSeries = 0;
        for (const SweepPlotSeries& sr : d.series) {
            for (double y : sr.y) QVERIFY2(y > 0, qPrintable(sr.name)); // nothing a log axis drops
            for (double y : sr.lower) QVERIFY2(y > 0, qPrintable(sr.name));
            if (sr.style != SweepPlotSeries::Style::Floor) continue;
            ++floorSeries;
            QCOMPARE(sr.x, (std::vector<double>{1}));
            QCOMPARE(sr.y, (std::vector<double>{d.floorY}));
            QVERIFY2(sr.name.contains(s("≤ 0")), qPrintable(sr.name));
        }
        QCOMPARE(floorSeries, 2); // one per sampler's line
        QVERIFY2(d.note.contains(s("8 of 24 runs have a value ≤ 0")), qPrintable(d.note));
        QVERIFY2(d.note.contains(s("8 at p = 1")), qPrintable(d.note));
        // The CSV keeps the values, not the floor.
        QVERIFY2(QString::fromUtf8(d.csv).contains(s("orthogonal_sampler=haar,1,0,0,0,4\n")),
                 qPrintable(QString::fromUtf8(d.csv)));
    }

    void scatterMarksFloorAndCertified() {
        // y = distance_p = 2 lambda_min; lambda_min = 0 for p = 1 (8 runs), else 0.2 (certified).
        const SweepPlan p = plan(kPoly);
        const auto res = results(p, [&](const SweepRun& r) {
            return p.points[static_cast<size_t>(r.point)].values[0].second.toDouble() == 1 ? 0.0
                                                                                           : 0.2;
        });
        const auto specs =
            parseSweepFigures(jsonValue(R"J([{"kind": "scatter", "x": "-log10(lambda_min + 1e-10)",
                           "y": "distance_p", "colour": "task.orthogonal_prob",
                           "log_y": true}])J"),
                              p);
        const SweepFigureData d = reduceSweepFigure(specs[0], p, res);
        QCOMPARE(d.runsUsed, 24); // the p = 1 runs are not dropped
        QCOMPARE(d.runsAtFloor, 8);
        QCOMPARE(d.runsNotCertified, 8);
        QCOMPARE(d.xTitle, s("−log₁₀(λ_min + 10⁻¹⁰)"));
        bool sawFloor = false;
        for (const SweepPlotSeries& sr : d.series) {
            if (sr.style == SweepPlotSeries::Style::Markers) {
                QCOMPARE(sr.x.size(), size_t(8)); // certified: 4 seeds x 2 samplers
                // -log10(0.2 + 1e-10)
                for (double x : sr.x) QVERIFY(std::abs(x + std::log10(0.2 + 1e-10)) < 1e-12);
            }
            if (sr.style == SweepPlotSeries::Style::Triangles) {
                QCOMPARE(sr.name, s("p = 1 · not certified"));
                QCOMPARE(sr.x.size(), size_t(8));
                for (double x : sr.x) QVERIFY(std::abs(x - 10) < 1e-12); // lambda_min 0 -> 10
                for (double y : sr.y) QCOMPARE(y, d.floorY);             // at the floor, drawn once
            }
            sawFloor = sawFloor || sr.style == SweepPlotSeries::Style::Floor;
        }
        QVERIFY(!sawFloor); // the not-certified triangles at the floor carry no second marker
        // floor: the decade below 0.4
        QVERIFY(std::abs(d.floorY - 1e-2) < 1e-14);
    }

    // Legends name a swept value by the symbol its key's label ends in ("Orthogonal probability
    // p"), and by the short key when the label has none or the key is not a number.
    void legendEntriesUseTheKeysSymbol() {
        using sweepdetail::legendEntry;
        QCOMPARE(legendEntry(s("task.orthogonal_prob"), QJsonValue(0.95)), s("p = 0.95"));
        QCOMPARE(legendEntry(s("task.d_out"), QJsonValue(4)), s("d_out = 4"));
        QCOMPARE(legendEntry(s("task.samples"), QJsonValue(80)), s("N = 80"));
        QCOMPARE(legendEntry(s("solver.epochs"), QJsonValue(5)), s("epochs=5"));
        QCOMPARE(legendEntry(s("solver.optimizer"), QJsonValue(s("adam"))), s("optimizer=adam"));
        QCOMPARE(legendEntry(s("not.a_key"), QJsonValue(1)), s("a_key=1"));
        using mhla::typesetNumber;
        QCOMPARE(typesetNumber(s("1e-06")), s("10⁻⁶"));
        QCOMPARE(typesetNumber(s("2.5e-08")), s("2.5×10⁻⁸"));
        QCOMPARE(typesetNumber(s("1e+20")), s("10²⁰"));
        QCOMPARE(typesetNumber(s("-2e-20")), s("-2×10⁻²⁰"));
        QCOMPARE(typesetNumber(s("0.001")), s("0.001"));
    }

    void paperTransformOfRoundOff() {
        // -log10(M + EPS) counts M < 0 (round-off of 0) as 0.
        const SweepPlan p = plan(kPoly);
        const auto res = results(p, [](const SweepRun& r) { return r.index == 0 ? -3e-12 : 1e-3; });
        const auto specs = parseSweepFigures(
            jsonValue(
                R"J([{"kind": "scatter", "x": "-log10(lambda_min + 1e-10)", "y": "val_mse"}])J"),
            p);
        std::vector<QJsonObject> withMse = res;
        for (QJsonObject& o : withMse) o.insert(s("val_mse"), 1.0);
        const SweepFigureData d = reduceSweepFigure(specs[0], p, withMse);
        QCOMPARE(d.runsUsed, 24);
        std::vector<double> xs;
        for (const SweepPlotSeries& sr : d.series) xs.insert(xs.end(), sr.x.begin(), sr.x.end());
        std::sort(xs.begin(), xs.end());
        QVERIFY(std::abs(xs.front() + std::log10(1e-3 + 1e-10)) < 1e-12);
        QVERIFY(std::abs(xs.back() - 10) < 1e-12);
    }

    void missingRunsGiveAnEmptyFigure() {
        const SweepPlan p = plan(kPoly);
        const auto specs = defaultSweepFigures(p);
        const SweepFigureData d =
            reduceSweepFigure(specs[0], p, std::vector<QJsonObject>(p.runs.size()));
        QVERIFY(d.empty());
    }
};

QTEST_GUILESS_MAIN(TestSweepFigure)
#include "tst_sweepfigure.moc"
