// Verdicts per claim (core/sweep/sweepverdict.h): Spearman's rho against closed forms (the
// 1 - 6 sum d^2 / (n (n^2 - 1)) formula without ties, Pearson on mean ranks with ties), the
// median, fraction and ratio statistics on synthetic result objects whose values are known, the
// per-seed spread, missing runs, and a "verdicts" block validated with errors that name the
// member and what is allowed.
#include "core/experiment/config.h"
#include "core/sweep/sweep.h"
#include "core/sweep/sweepverdict.h"
#include "testutil.h"
#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>
#include <cmath>
#include <functional>

using namespace mhla;

namespace {

using mhla::test::s;
QJsonObject json(const char* text) { return QJsonDocument::fromJson(QByteArray(text)).object(); }
QJsonValue jsonValue(const char* text) {
    return QJsonDocument::fromJson(QByteArray("{\"v\": ") + text + "}").object().value(s("v"));
}

const char kPoly[] = R"({
  "task": {"kind": "associative_memory", "pairs": 2, "samples": 400},
  "sweep": {"grid": {"task.orthogonal_prob": "0.95:1:0.01"}, "seeds": 4},
  "verdicts": [{"claim": "c", "kind": "median", "y": "lambda_min", "op": "<", "value": 1}]
})";

SweepPlan plan() {
    const SweepFile f = parseSweep(json(kPoly));
    return planSweep(f.base, f.spec);
}

/// Synthetic results: lambda_min = lam(p, seed), distance_p = dist(p, seed), certified when
/// lambda_min > 0.
std::vector<QJsonObject> results(const SweepPlan& p, const std::function<double(double, int)>& lam,
                                 const std::function<double(double, int)>& dist) {
    std::vector<QJsonObject> out;
    for (const SweepRun& r : p.runs) {
        const double prob = p.points[static_cast<size_t>(r.point)].values[0].second.toDouble();
        const double l = lam(prob, r.seed);
        out.push_back(QJsonObject{{s("config"), experimentToJson(r.config)},
                                  {s("lambda_min"), l},
                                  {s("distance_p"), dist(prob, r.seed)},
                                  {s("certified"), l > 0}});
    }
    return out;
}

SweepVerdict verdict(const SweepPlan& p, const std::vector<QJsonObject>& res, const char* spec) {
    const auto specs = parseSweepVerdicts(jsonValue(spec), p);
    if (specs.size() != 1) qFatal("expected one verdict");
    return evaluateSweepVerdict(specs.front(), p, res);
}

QString errorOf(const SweepPlan& p, const char* spec) {
    try {
        (void)parseSweepVerdicts(jsonValue(spec), p);
    } catch (const ConfigError& e) {
        return QString::fromUtf8(e.what()) + s(" @") + e.key();
    }
    return {};
}

} // namespace

class TestSweepVerdict : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void verdictsBlockIsStrippedFromTheBase() {
        const SweepFile f = parseSweep(json(kPoly));
        QVERIFY(!f.base.contains(s("verdicts")));
        QVERIFY(f.verdicts.isArray());
        (void)planSweep(f.base, f.spec); // the base is a valid experiment
    }

    void spearmanMatchesClosedForms() {
        // No ties: rho = 1 - 6 sum d^2 / (n (n^2 - 1)); d = (-1, 1, -1, 1, 0) gives 1 - 24/120.
        QCOMPARE(spearmanRho({1, 2, 3, 4, 5}, {20, 10, 40, 30, 50}), 0.8);
        // Monotone but not linear: +-1 exactly.
        QCOMPARE(spearmanRho({1, 2, 3, 4}, {1, 8, 27, 64}), 1.0);
        QCOMPARE(spearmanRho({1, 2, 3, 4}, {1e-3, 1e-6, 1e-9, -1.0}), -1.0);
        // Ties get mean ranks: y ranks (1.5, 1.5, 3.5, 3.5), Pearson = 4 / sqrt(5 * 4).
        QVERIFY(std::abs(spearmanRho({1, 2, 3, 4}, {7, 7, 9, 9}) - 4 / std::sqrt(20.0)) < 1e-15);
        QVERIFY(std::isnan(spearmanRho({1, 2, 3}, {5, 5, 5}))); // constant side
        QVERIFY(std::isnan(spearmanRho({1}, {2})));
    }

    void spearmanVerdictWithPerSeedSpread() {
        const SweepPlan p = plan();
        QCOMPARE(p.runs.size(), size_t{24}); // p = 0.95 ... 1 (6 points) x 4 seeds
        // lambda_min falls with p, the distance rises: rho = -1 in every seed.
        const auto res = results(
            p, [](double prob, int) { return 1 - prob; },
            [](double prob, int seed) { return prob * prob + 1e-3 * seed; });
        const SweepVerdict v = verdict(p, res, R"([{"claim": "distance grows as lambda_min falls",
            "kind": "spearman", "x": "lambda_min", "y": "distance_p", "op": "<", "value": -0.5}])");
        QVERIFY(v.reproduces);
        QCOMPARE(v.runs, 24);
        // Pooled, the four seeds of a point tie in lambda_min (mean ranks) while their distances
        // differ: NumPy's Pearson correlation of the mean ranks of the same 24 pairs.
        QVERIFY2(std::abs(v.value - -0.9868703275903378) < 1e-12,
                 qPrintable(QString::number(v.value, 'g', 17)));
        QCOMPARE(v.spreadLow, -1.0);
        QCOMPARE(v.spreadHigh, -1.0);
        QVERIFY2(v.line().startsWith(s("reproduces: distance grows as lambda_min falls -- "
                                       "spearman(lambda_min, distance_p) = ")),
                 qPrintable(v.line()));
        QVERIFY2(v.line().contains(s("(per seed -1 .. -1); expected < -0.5")),
                 qPrintable(v.line()));
        // The same data against the opposite claim does not reproduce.
        const SweepVerdict w = verdict(p, res, R"([{"claim": "c", "kind": "spearman",
            "x": "lambda_min", "y": "distance_p", "op": ">", "value": 0.5}])");
        QVERIFY(!w.reproduces);
        QVERIFY(w.line().startsWith(s("does not reproduce: c -- ")));
    }

    void medianFractionAndRatioAtGridPoints() {
        const SweepPlan p = plan();
        // lambda_min is 0 at p = 1 (not certified), 0.1 * seed + 0.01 elsewhere.
        const auto res = results(
            p, [](double prob, int seed) { return prob == 1.0 ? 0.0 : 0.1 * seed + 0.01; },
            [](double prob, int seed) { return prob == 1.0 ? 2.0 + seed : 0.01 * (seed + 1); });
        const SweepVerdict zero = verdict(p, res, R"([{"claim": "c", "kind": "median",
            "y": "lambda_min", "at": {"task.orthogonal_prob": 1}, "op": "<=", "value": 1e-12}])");
        QVERIFY(zero.reproduces);
        QCOMPARE(zero.runs, 4);
        QCOMPARE(zero.value, 0.0);
        // Seeds 0..3 at p = 0.95 (a grid value given as 0.95, resolved from "0.95:1:0.01"):
        // values 0.01, 0.11, 0.21, 0.31, median 0.16, q10 0.04, q90 0.28 (linear interpolation).
        const SweepVerdict mid = verdict(p, res, R"([{"claim": "c", "kind": "median",
            "y": "lambda_min", "at": {"task.orthogonal_prob": 0.95}, "op": ">", "value": 0.1}])");
        QVERIFY(mid.reproduces);
        QVERIFY(std::abs(mid.value - 0.16) < 1e-15);
        QVERIFY(std::abs(mid.spreadLow - 0.04) < 1e-15);
        QVERIFY(std::abs(mid.spreadHigh - 0.28) < 1e-15);
        // p = 0.98 is not exactly representable as 0.95 + 3 * 0.01; it is still selected.
        const SweepVerdict cert = verdict(p, res, R"([{"claim": "c", "kind": "fraction",
            "y": "certified", "at": {"task.orthogonal_prob": 0.98}, "op": ">=", "value": 1}])");
        QVERIFY(cert.reproduces);
        QCOMPARE(cert.runs, 4);
        QCOMPARE(cert.value, 1.0);
        const SweepVerdict none = verdict(p, res, R"([{"claim": "c", "kind": "fraction",
            "y": "certified", "at": {"task.orthogonal_prob": 1}, "op": ">", "value": 0}])");
        QVERIFY(!none.reproduces);
        QCOMPARE(none.value, 0.0);
        // Ratio of medians: median(2, 3, 4, 5) / median(0.01 .. 0.04) = 3.5 / 0.025 = 140; per
        // seed (2 + k) / (0.01 (k + 1)): 200, 150, 133.3, 125.
        const SweepVerdict gap = verdict(p, res, R"([{"claim": "c", "kind": "ratio",
            "y": "distance_p", "at": {"task.orthogonal_prob": 1},
            "over": {"task.orthogonal_prob": 0.95}, "op": ">", "value": 10}])");
        QVERIFY(gap.reproduces);
        QVERIFY(std::abs(gap.value - 140) < 1e-12);
        QVERIFY(std::abs(gap.spreadLow - 125) < 1e-12);
        QVERIFY(std::abs(gap.spreadHigh - 200) < 1e-12);
    }

    void missingRunsDoNotReproduce() {
        const SweepPlan p = plan();
        std::vector<QJsonObject> res(p.runs.size()); // nothing finished
        const SweepVerdict v = verdict(p, res, R"([{"claim": "c", "kind": "median",
            "y": "lambda_min", "at": {"task.orthogonal_prob": 1}, "op": "<", "value": 1}])");
        QVERIFY(!v.reproduces);
        QCOMPARE(v.runs, 0);
        QVERIFY2(v.line().contains(s("no finished run at task.orthogonal_prob=1")),
                 qPrintable(v.line()));
        const SweepVerdict r = verdict(p, res, R"([{"claim": "c", "kind": "spearman",
            "x": "lambda_min", "y": "distance_p", "op": "<", "value": 0}])");
        QVERIFY(!r.reproduces);
        QVERIFY(r.line().contains(s("fewer than 3 runs")));
    }

    void verdictFilesCarryEveryVerdict() {
        const SweepPlan p = plan();
        const auto res = results(
            p, [](double prob, int) { return 1 - prob; }, [](double prob, int) { return prob; });
        const auto specs = parseSweepVerdicts(jsonValue(R"([
            {"claim": "one", "kind": "median", "y": "lambda_min", "op": "<", "value": 1},
            {"claim": "two", "kind": "spearman", "x": "lambda_min", "y": "distance_p", "op": ">", "value": 0}])"),
                                              p);
        std::vector<SweepVerdict> vs;
        for (const auto& sp : specs) vs.push_back(evaluateSweepVerdict(sp, p, res));
        const QList<QByteArray> lines = verdictsText(vs).trimmed().split('\n');
        QCOMPARE(lines.size(), 2);
        QVERIFY(lines[0].startsWith("reproduces: one"));
        QVERIFY(lines[1].startsWith("does not reproduce: two"));
        const QJsonArray arr = QJsonDocument::fromJson(verdictsJson(vs)).array();
        QCOMPARE(arr.size(), 2);
        QCOMPARE(arr[0].toObject().value(s("reproduces")).toBool(), true);
        QCOMPARE(arr[1].toObject().value(s("value")).toDouble(), -1.0);
        QCOMPARE(arr[1].toObject().value(s("runs")).toInt(), 24);
    }

    void badVerdictsNameTheMemberAndWhatIsAllowed() {
        const SweepPlan p = plan();
        const QString kind = errorOf(
            p, R"([{"claim": "c", "kind": "mean", "y": "lambda_min", "op": "<", "value": 1}])");
        QVERIFY2(kind.contains(s("verdicts[0].kind")) &&
                     kind.contains(s("allowed: spearman, median, fraction, ratio")),
                 qPrintable(kind));
        const QString op = errorOf(
            p, R"([{"claim": "c", "kind": "median", "y": "lambda_min", "op": "=", "value": 1}])");
        QVERIFY2(op.contains(s("allowed: <, <=, >, >=")) && op.endsWith(s("@verdicts[0].op")),
                 qPrintable(op));
        const QString metric = errorOf(
            p, R"([{"claim": "c", "kind": "median", "y": "lambda", "op": "<", "value": 1}])");
        QVERIFY2(metric.contains(s("verdicts[0].y")) && metric.contains(s("lambda_min")),
                 qPrintable(metric));
        const QString key = errorOf(
            p,
            R"([{"claim": "c", "kind": "median", "y": "lambda_min", "at": {"task.pairs": 2}, "op": "<", "value": 1}])");
        QVERIFY2(key.contains(s("not a swept key; allowed: task.orthogonal_prob")),
                 qPrintable(key));
        const QString value = errorOf(
            p,
            R"([{"claim": "c", "kind": "median", "y": "lambda_min", "at": {"task.orthogonal_prob": 0.5}, "op": "<", "value": 1}])");
        QVERIFY2(value.contains(s("0.5 is not a value of the grid; its values are 0.95, 0.96")),
                 qPrintable(value));
        const QString over = errorOf(
            p,
            R"([{"claim": "c", "kind": "ratio", "y": "lambda_min", "at": {"task.orthogonal_prob": 1}, "op": "<", "value": 1}])");
        QVERIFY2(over.contains(s("needs \"at\"")), qPrintable(over));
        const QString claim =
            errorOf(p, R"([{"kind": "median", "y": "lambda_min", "op": "<", "value": 1}])");
        QVERIFY2(claim.contains(s("verdicts[0].claim")), qPrintable(claim));
        const QString member = errorOf(
            p,
            R"([{"claim": "c", "kind": "median", "x": "lambda_min", "y": "lambda_min", "op": "<", "value": 1}])");
        QVERIFY2(member.contains(s("unknown member \"x\" for kind median")), qPrintable(member));
        QVERIFY(errorOf(p, R"({"claim": "c"})").contains(s("expected an array")));
        QVERIFY(errorOf(p, "null").isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestSweepVerdict)
#include "tst_sweepverdict.moc"
