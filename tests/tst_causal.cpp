// The causal all-positions setup (MATH.md §1, the paper's Sec 4.1): causal prefix features,
// the causal task, the exact solver and a trainer on it, and the token scale.
#include "core/algebra/certificate.h"
#include "core/algebra/features.h"
#include "core/run/runner.h"
#include "core/tasks/causal.h"
#include "smallconfigs.h"
#include "testutil.h"
#include <QTest>
#include <cmath>

using namespace mhla;

namespace {
using mhla::test::s;

ExperimentConfig config(const QJsonObject& task, const QJsonObject& solver = {},
                        const QJsonObject& eval = {}) {
    return test::configFromSections(task, solver, eval);
}

Heads randomHeads(int d, int dOut, int H, std::uint64_t seed) {
    Rng rng(seed);
    Heads h;
    for (int k = 0; k < H; ++k) {
        h.V.push_back(rng.normalMatrix(dOut, d));
        h.Q.push_back(rng.normalMatrix(d, d));
    }
    return h;
}

QJsonObject causalTask(int d, int tokens, int heads, long long samples) {
    return {{s("kind"), s("random_mhla")},
            {s("d"), d},
            {s("d_out"), d},
            {s("tokens"), tokens},
            {s("teacher_heads"), heads},
            {s("causal"), true},
            {s("samples"), static_cast<qint64>(samples)}};
}
} // namespace

class TestCausal : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // psi_t from the running S_t equals psi of the prefix Z[:, 1..t] (bitwise the same
    // products up to the order of the sum in S: relative 1e-13).
    void causalFeaturesArePrefixFeatures_data() {
        QTest::addColumn<int>("d");
        QTest::addColumn<int>("n");
        QTest::newRow("d=2 n=5") << 2 << 5;
        QTest::newRow("d=4 n=9") << 4 << 9;
        QTest::newRow("d=5 n=1") << 5 << 1;
    }
    void causalFeaturesArePrefixFeatures() {
        QFETCH(int, d);
        QFETCH(int, n);
        Rng rng(static_cast<std::uint64_t>(10 * d + n));
        const Mat Z = rng.normalMatrix(d, n);
        const Mat F = causalFeatures(Z);
        QCOMPARE(F.rows(), static_cast<Index>(featureDim(d)));
        QCOMPARE(F.cols(), static_cast<Index>(n));
        for (int t = 1; t <= n; ++t) {
            const Vec ref = featureVector(Z.leftCols(t));
            QVERIFY2((F.col(t - 1) - ref).norm() <= 1e-13 * ref.norm(),
                     qPrintable(QString::number(t)));
        }
    }

    // MATH.md §2's identity f = P psi holds at every prefix: the causal output of MHLA
    // (mhlaOutputCausal, written independently of the feature map) is P psi_t, to round-off.
    void identityHoldsAtEveryPrefix() {
        const int d = 3, dOut = 2, n = 7;
        const Heads h = randomHeads(d, dOut, 4, 5);
        const Mat P = foldHeads(h, d, dOut);
        Rng rng(6);
        const Mat Z = rng.normalMatrix(d, n);
        const Mat out = mhlaOutputCausal(h, Z);
        const Mat viaP = P * causalFeatures(Z);
        QVERIFY2((out - viaP).norm() <= 1e-12 * out.norm(),
                 qPrintable(QString::number((out - viaP).norm())));
    }

    // The causal task's sample k*T + t - 1 is position t of the base prompt k, labelled with
    // the teacher's causal output there.
    void causalTaskRowsArePositionsOfOnePrompt() {
        const ExperimentConfig cfg = config(causalTask(3, 5, 2, 100));
        ExperimentConfig plain = cfg;
        plain.task.causal = false;
        const auto causal = makeTask(cfg.task);
        const auto base = makeTask(plain.task);
        QVERIFY((causal->teacherP() - base->teacherP()).norm() == 0.0);
        const int T = base->tokens();
        for (long long k : {0LL, 7LL}) {
            const Sample full = base->sample(Stream::Train, k);
            const Mat Yc = mhlaOutputCausal(base->teacher(), full.Z);
            for (int t = 1; t <= T; ++t) {
                const Sample row = causal->sample(Stream::Train, k * T + t - 1);
                QCOMPARE(row.Z.cols(), static_cast<Index>(t));
                QVERIFY(row.Z == full.Z.leftCols(t));
                QVERIFY((row.y - Yc.col(t - 1)).norm() <= 1e-13 * Yc.col(t - 1).norm());
            }
            // The last position is the non-causal sample (no noise here).
            QVERIFY((causal->sample(Stream::Train, k * T + T - 1).y - full.y).norm() <=
                    1e-13 * full.y.norm());
        }
    }

    // Each thread keeps the last base prompt it drew: rows of two causal tasks (different seeds),
    // two streams and out-of-order prompts, interleaved on one thread, are still each the
    // prefix of their own prompt; and a task created where a destroyed one lived (possibly the
    // same address) never sees the old task's prompt.
    void promptCacheNeverMixesTasks() {
        ExperimentConfig a = config(causalTask(3, 5, 2, 100)), b = a;
        b.task.seed = a.task.seed + 1;
        ExperimentConfig plainA = a, plainB = b;
        plainA.task.causal = plainB.task.causal = false;
        const auto baseA = makeTask(plainA.task), baseB = makeTask(plainB.task);
        const int T = baseA->tokens();
        const auto ca = makeTask(a.task);
        for (int round = 0; round < 2; ++round) {
            const auto cb = makeTask(b.task); // recreated: may take a freed address
            for (long long k : {3LL, 0LL, 3LL})
                for (Stream st : {Stream::Train, Stream::Validation})
                    for (int t = 1; t <= T; ++t) {
                        const long long i = k * T + t - 1;
                        QVERIFY(ca->sample(st, i).Z == baseA->sample(st, k).Z.leftCols(t));
                        QVERIFY(cb->sample(st, i).Z == baseB->sample(st, k).Z.leftCols(t));
                    }
        }
    }

    // The exact solver on causal data from a random MHLA teacher recovers P* to round-off, and
    // its certificate is that of Lambda built directly from causalFeatures of every prompt.
    void exactSolverRecoversTeacherOnCausalData() {
        const int d = 3, T = 6, prompts = 500;
        ExperimentConfig cfg = config(causalTask(d, T, 3, static_cast<long long>(prompts) * T), {},
                                      {{s("val_samples"), 600}, {s("ood_samples"), 500}});
        const ExperimentResult r = runExperiment(cfg);
        QVERIFY(r.certificate.certified);
        QCOMPARE(r.certificate.nullDim, 0);
        QVERIFY2(r.metrics.distancePRel <= 1e-9,
                 qPrintable(QString::number(r.metrics.distancePRel)));
        QVERIFY(r.metrics.trainMse <= 1e-24);
        QVERIFY(r.metrics.valMse <= 1e-24);
        QVERIFY2(r.metrics.oodRelMse <= 1e-20, qPrintable(QString::number(r.metrics.oodRelMse)));

        // Lambda = (1/(prompts T)) sum_prompts sum_t psi_t psi_t^T, built independently.
        ExperimentConfig plain = cfg;
        plain.task.causal = false;
        const auto base = makeTask(plain.task);
        const long long D = featureDim(d);
        Mat L = Mat::Zero(D, D);
        for (int k = 0; k < prompts; ++k) {
            const Mat F = causalFeatures(base->sample(Stream::Train, k).Z);
            L.noalias() += F * F.transpose();
        }
        L /= static_cast<double>(prompts) * T;
        const double lmin = smallestEigenvalue(L);
        QVERIFY(lmin > 0);
        QVERIFY2(std::abs(r.certificate.lambdaMin - lmin) <= 1e-8 * lmin,
                 qPrintable(QString::number(r.certificate.lambdaMin) + s(" vs ") +
                            QString::number(lmin)));
    }

    // Fewer (prompt, position) samples than features: the certificate must fail, with a null
    // space of dimension at least D - N.
    void certificateFailsWithTooFewPositions() {
        const int d = 3, T = 4;
        const long long D = featureDim(d); // 18
        const long long N = 12;            // 3 prompts x 4 positions < D
        const ExperimentResult r = runExperiment(
            config(causalTask(d, T, 1, N), {}, {{s("val_samples"), 40}, {s("ood_samples"), 40}}));
        QVERIFY(!r.certificate.certified);
        QVERIFY2(r.certificate.nullDim >= D - N,
                 qPrintable(QString::number(r.certificate.nullDim)));
    }

    // A trainer on causal data regresses the all-positions objective: its reported train_mse
    // is the mean over prompts, positions and outputs of (P psi_t - y_t)^2 with its own P.
    void trainerRegressesEveryPosition() {
        const int d = 2, T = 5, prompts = 40;
        const ExperimentConfig cfg =
            config(causalTask(d, T, 2, static_cast<long long>(prompts) * T),
                   {{s("kind"), s("mhla")},
                    {s("heads"), 2},
                    {s("epochs"), 3},
                    {s("batch"), 16},
                    {s("compare_exact"), false}},
                   {{s("val_samples"), 50}, {s("ood_samples"), 50}, {s("spectrum"), s("none")}});
        const ExperimentResult r = runExperiment(cfg);
        QCOMPARE(r.P.rows(), static_cast<Index>(d));
        ExperimentConfig plain = cfg;
        plain.task.causal = false;
        const auto base = makeTask(plain.task);
        double sum = 0;
        for (int k = 0; k < prompts; ++k) {
            const Mat Z = base->sample(Stream::Train, k).Z;
            const Mat Y = mhlaOutputCausal(base->teacher(), Z);
            sum += (r.P * causalFeatures(Z) - Y).squaredNorm();
        }
        const double mse = sum / (static_cast<double>(prompts) * T * d);
        QVERIFY(mse > 0);
        QVERIFY2(
            std::abs(r.metrics.trainMse - mse) <= 1e-9 * mse,
            qPrintable(QString::number(r.metrics.trainMse) + s(" vs ") + QString::number(mse)));
    }

    // Same config and seed, same numbers for any thread count: the exact solver and a trainer
    // on noisy causal data, 1 thread against 2, bit for bit.
    void sameNumbersForAnyThreadCount() {
        QJsonObject task = causalTask(3, 5, 2, 5000);
        task.insert(s("noise"), 0.1);
        for (const char* kind : {"poly", "multilayer"}) {
            const ExperimentConfig cfg = config(task,
                                                {{s("kind"), s(kind)},
                                                 {s("heads"), std::string(kind) == "poly" ? 0 : 2},
                                                 {s("epochs"), 2},
                                                 {s("compare_exact"), false}},
                                                {{s("val_samples"), 500}, {s("ood_samples"), 200}});
            RunContext one, two;
            one.threads = 1;
            two.threads = 2;
            const ExperimentResult a = runExperiment(cfg, one), b = runExperiment(cfg, two);
            QVERIFY2(std::isfinite(a.metrics.trainMse) && a.metrics.trainMse > 0, kind);
            QVERIFY2(a.metrics.trainMse == b.metrics.trainMse, kind);
            QVERIFY2(a.metrics.valMse == b.metrics.valMse, kind);
            QVERIFY2(a.certificate.lambdaMin == b.certificate.lambdaMin, kind);
            if (a.P.size() > 0) QVERIFY2(a.P == b.P, kind);
        }
    }

    // task.token_scale: entries have variance 1/T (inverse_length) or 1 (unit). The mean of
    // M = 400 x 200 squared N(0, v) entries has relative standard deviation sqrt(2 / M) = 0.5%;
    // the tolerance is 5 of those (2.5%), and the two settings differ by a factor T = 50.
    void tokenVariance_data() {
        QTest::addColumn<QString>("scale");
        QTest::addColumn<double>("variance");
        QTest::newRow("inverse_length") << s("inverse_length") << 1.0 / 50;
        QTest::newRow("unit") << s("unit") << 1.0;
    }
    void tokenVariance() {
        QFETCH(QString, scale);
        QFETCH(double, variance);
        const int d = 4, T = 50, prompts = 400;
        const ExperimentConfig cfg = config({{s("kind"), s("random_mhla")},
                                             {s("d"), d},
                                             {s("tokens"), T},
                                             {s("token_scale"), scale}});
        QCOMPARE(toString(cfg.task.tokenScale), scale);
        const auto task = makeTask(cfg.task);
        double sum = 0;
        for (int k = 0; k < prompts; ++k) sum += task->sample(Stream::Train, k).Z.squaredNorm();
        const double M = static_cast<double>(prompts) * d * T;
        const double est = sum / M;
        const double relSd = std::sqrt(2.0 / M);
        QVERIFY2(std::abs(est / variance - 1.0) <= 5 * relSd,
                 qPrintable(QString::number(est) + s(" vs ") + QString::number(variance)));
    }

    // The keys are in the key table: defaults echoed, bad values named with what is allowed,
    // and read only by random_mhla.
    void keys() {
        const ExperimentConfig def = config({{s("kind"), s("random_mhla")}});
        QCOMPARE(def.task.causal, false);
        QVERIFY(def.task.tokenScale == TokenScale::InverseLength);
        const QJsonObject echo = experimentToJson(def).value(s("task")).toObject();
        QCOMPARE(echo.value(s("causal")).toBool(true), false);
        QCOMPARE(echo.value(s("token_scale")).toString(), s("inverse_length"));
        try {
            config({{s("kind"), s("random_mhla")}, {s("token_scale"), s("1/T")}});
            QFAIL("token_scale \"1/T\" was accepted");
        } catch (const ConfigError& e) {
            const QString msg = QString::fromStdString(e.what());
            QVERIFY2(msg.contains(s("task.token_scale")) && msg.contains(s("inverse_length")) &&
                         msg.contains(s("unit")),
                     qPrintable(msg));
        }
        try {
            config({{s("kind"), s("random_mhla")}, {s("causal"), 1}});
            QFAIL("causal = 1 was accepted");
        } catch (const ConfigError& e) {
            QVERIFY2(QString::fromStdString(e.what()).contains(s("true or false")), e.what());
        }
        const QJsonObject assoc{
            {s("task"), QJsonObject{{s("kind"), s("associative_memory")}, {s("causal"), true}}}};
        QVERIFY(unreadKeys(assoc, experimentFromJson(assoc)).contains(s("task.causal")));
    }
};

QTEST_GUILESS_MAIN(TestCausal)
#include "tst_causal.moc"
