// Cancellation latency in every phase of a run (issue 12): a benchmark-style check. Each case
// starts a computation on a thread, sets the cancel token after a delay chosen to fall inside
// the phase, and measures the time from cancel() to the Cancelled exception. The table is
// printed (the 100 ms target is read from it); the only assertion is a generous bound of 1 s,
// so that a loaded machine or a sanitizer build cannot make it flaky.
//
// Abandoned dense decompositions (see runAbandonable()) finish in the background: the sizes
// here are kept small enough that they do so within seconds.
#include "core/algebra/certificate.h"
#include "core/algebra/features.h"
#include "core/algebra/model.h"
#include "core/algebra/solver.h"
#include "core/base/rng.h"
#include "core/run/runner.h"
#include "core/run/training/trainer.h"
#include "core/tasks/tasks.h"
#include <QTest>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

using namespace mhla;

namespace {
using Clock = std::chrono::steady_clock;
double msBetween(Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
}

struct CancelSample {
    bool cancelled = false; ///< false: the work finished before the token was set
    double latencyMs = 0;   ///< cancel() -> Cancelled
    std::string phase;      ///< runner phase at cancel time (runExperiment cases)
};

/// Runs work(ctx) on a thread, cancels after delayMs, returns the latency.
template <typename F> CancelSample measure(F work, double delayMs) {
    CancelToken token;
    std::mutex m;
    std::string phase;
    RunContext ctx;
    ctx.cancel = &token;
    ctx.threads = 1; // the machine is shared; latency does not depend on it
    ctx.progress = [&](const ProgressEvent& e) {
        std::lock_guard<std::mutex> lock(m);
        phase = e.phase;
    };
    CancelSample s;
    Clock::time_point tEnd;
    std::thread t([&] {
        try {
            work(ctx);
        } catch (const Cancelled&) {
            s.cancelled = true;
        }
        tEnd = Clock::now();
    });
    std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(delayMs));
    {
        std::lock_guard<std::mutex> lock(m);
        s.phase = phase;
    }
    const auto tCancel = Clock::now();
    token.cancel();
    t.join();
    s.latencyMs = s.cancelled ? msBetween(tCancel, tEnd) : 0.0;
    return s;
}

Mat randomSymmetric(Index D, std::uint64_t seed, bool positiveDefinite) {
    Rng rng(seed);
    const Mat A = rng.normalMatrix(D, D);
    if (positiveDefinite) {
        Mat L = Mat::Identity(D, D) * static_cast<double>(D);
        L.noalias() += (A + A.transpose()) * 0.5;
        return L; // diagonally dominant enough: PD with high probability; checked by the caller
    }
    return (A + A.transpose()) * 0.5;
}

struct Row {
    std::string phase;
    int tries = 0, hits = 0;
    double worst = 0;
};
std::vector<Row> g_rows;

void record(const std::string& phase, const std::vector<CancelSample>& samples) {
    Row r;
    r.phase = phase;
    for (const CancelSample& s : samples) {
        ++r.tries;
        if (!s.cancelled) continue;
        ++r.hits;
        r.worst = std::max(r.worst, s.latencyMs);
    }
    std::printf("cancel latency  %-44s worst %8.1f ms  (%d of %d cancels landed in the work)\n",
                phase.c_str(), r.worst, r.hits, r.tries);
    std::fflush(stdout);
    g_rows.push_back(r);
    // A row in which every cancel came after the work had ended measured nothing: it fails,
    // instead of passing with "(no cancel landed)".
    if (r.hits == 0)
        QTest::qFail(("no cancel landed in '" + phase +
                      "': every cancel came after the work ended, so no latency was measured; "
                      "cancel earlier or give the phase more work")
                         .c_str(),
                     __FILE__, __LINE__);
}

constexpr double kGenerousBoundMs = 1000.0;
} // namespace

class TestCancel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void denseEigen() {
        // D = 2176 (d = 16): ~10-30 s of SelfAdjointEigenSolver with eigenvectors when not
        // certified; eigenvalues only for the certificate.
        const Mat L = randomSymmetric(featureDim(16), 1, false);
        std::vector<CancelSample> s;
        for (int delay : {100, 400})
            s.push_back(measure(
                [&](const RunContext& ctx) { (void)certify(L, CertifyOptions{}, "dense", ctx); },
                delay));
        record("dense eigenvalues (D=2176)", s);
        std::vector<CancelSample> v;
        const Mat C = Mat::Ones(4, L.cols());
        for (int delay : {150, 600})
            v.push_back(measure(
                [&](const RunContext& ctx) {
                    (void)solveCertified(L, C, 0.0, CertifyOptions{}, ctx);
                },
                delay));
        record("solve, not certified: eigenvectors (D=2176)", v);
        for (const CancelSample& x : s)
            QVERIFY2(!x.cancelled || x.latencyMs < kGenerousBoundMs, "dense eigen");
        for (const CancelSample& x : v)
            QVERIFY2(!x.cancelled || x.latencyMs < kGenerousBoundMs, "eigenvectors");
    }

    void choleskyAndLanczos() {
        const Mat L = randomSymmetric(featureDim(16), 2, true);
        QVERIFY(Eigen::LLT<Mat>(L).info() == Eigen::Success);
        RunContext oneThread;
        oneThread.threads = 1; // as measure() runs the work
        std::vector<CancelSample> chol, lan;
        // The Lanczos phase is short (~300 ms after ~350 ms of Cholesky on the reference
        // machine): on a machine that other work slows unevenly, a cancel aimed from one timing
        // can arrive after the work ended. Each round times the phases afresh, uncancelled, and
        // aims from that; up to three rounds until a cancel lands in each phase.
        for (int round = 0; round < 3; ++round) {
            const auto t0 = Clock::now();
            const Eigen::LLT<Mat> llt(L);
            const double tChol = msBetween(t0, Clock::now());
            const auto t1 = Clock::now();
            const Certificate c = certify(L, CertifyOptions{}, "lanczos", oneThread);
            const double tAll = msBetween(t1, Clock::now());
            QCOMPARE(QString::fromStdString(c.method), QStringLiteral("lanczos"));
            std::printf("  (D=2176, round %d: Cholesky %.0f ms, Cholesky + Lanczos %.0f ms)\n",
                        round + 1, tChol, tAll);
            const auto landed = [](const std::vector<CancelSample>& v) {
                return std::any_of(v.begin(), v.end(),
                                   [](const CancelSample& x) { return x.cancelled; });
            };
            if (!landed(chol))
                for (double f : {0.2, 0.6})
                    chol.push_back(measure(
                        [&](const RunContext& ctx) {
                            (void)certify(L, CertifyOptions{}, "lanczos", ctx);
                        },
                        static_cast<int>(f * tChol)));
            if (!landed(lan))
                for (double f : {0.3, 0.7})
                    lan.push_back(measure(
                        [&](const RunContext& ctx) {
                            (void)certify(L, CertifyOptions{}, "lanczos", ctx);
                        },
                        static_cast<int>(tChol + f * std::max(1.0, tAll - tChol))));
            if (landed(chol) && landed(lan)) break;
        }
        record("Cholesky (D=2176)", chol);
        record("Lanczos iterations (D=2176)", lan);
        for (const CancelSample& x : chol) QVERIFY(!x.cancelled || x.latencyMs < kGenerousBoundMs);
        for (const CancelSample& x : lan) QVERIFY(!x.cancelled || x.latencyMs < kGenerousBoundMs);
    }

    // The iterative null-space path of a large Lambda that does not certify: the Cholesky
    // factorisation of Lambda + delta I, then block inverse iteration (triangular solves and
    // products in slices of 16 columns) and the minimum-norm solve.
    void nullSpaceIteration() {
        const Index D = featureDim(16), nullDim = 40;
        Rng rng(5);
        const Mat A = rng.normalMatrix(D, D - nullDim);
        Mat L(D, D);
        L.noalias() = A * A.transpose() / static_cast<double>(D); // rank D - 40: null space 40
        const Mat C = rng.normalMatrix(3, D) * L;
        CertifyOptions opt;
        opt.fullSpectrum = false;
        opt.nullSpaceCrossover = 100;
        const auto t0 = Clock::now();
        const PolySolution ref = solveCertified(L, C, 0.0, opt);
        const double tAll = msBetween(t0, Clock::now());
        QCOMPARE(ref.certificate.nullDim, static_cast<int>(nullDim));
        QCOMPARE(QString::fromStdString(ref.certificate.method), QStringLiteral("lanczos"));
        std::printf("  (D=2176, null dim 40: certify + minimum-norm solve %.0f ms)\n", tAll);
        std::vector<CancelSample> s;
        for (double f : {0.15, 0.45, 0.75, 0.9})
            s.push_back(
                measure([&](const RunContext& ctx) { (void)solveCertified(L, C, 0.0, opt, ctx); },
                        static_cast<int>(f * tAll)));
        record("null space by inverse iteration (D=2176)", s);
        for (const CancelSample& x : s) QVERIFY(!x.cancelled || x.latencyMs < kGenerousBoundMs);
    }

    void svdOfUnfoldedP() {
        // unfold(P) is (d_out d) x d^2 = 1024 x 1024 at d = d_out = 32.
        Rng rng(3);
        const Mat P = rng.normalMatrix(32, featureDim(32));
        std::vector<CancelSample> s;
        for (int delay : {100, 400})
            s.push_back(measure(
                [&](const RunContext& ctx) { (void)headsFromP(P, 32, 0, 1e-8, ctx); }, delay));
        record("SVD of unfold(P) (1024 x 1024)", s);
        for (const CancelSample& x : s) QVERIFY(!x.cancelled || x.latencyMs < kGenerousBoundMs);
    }

    void lambdaTraceCheckpoint() {
        // One checkpoint takes ~20 ms on a Zen 5 EPYC, where cancels at fixed 20 and 60 ms all
        // came after its end (the row measured nothing): the cancels land at a fifth and at
        // three fifths of this machine's own time for one checkpoint.
        const Mat L = randomSymmetric(600, 4, false);
        const auto t0 = Clock::now();
        (void)smallestEigenvalue(L);
        const double full = msBetween(t0, Clock::now());
        std::printf("one lambda_min checkpoint (D=600) uncancelled: %.1f ms\n", full);
        std::vector<CancelSample> s;
        for (double at : {0.2, 0.6})
            s.push_back(measure([&](const RunContext& ctx) { (void)smallestEigenvalue(L, ctx); },
                                at * full));
        record("lambda_min trace checkpoint (D=600)", s);
        for (const CancelSample& x : s) QVERIFY(!x.cancelled || x.latencyMs < kGenerousBoundMs);
    }

    // Issue 26 item 11: one full-batch minibatch step (batch 2^20, a multilayer model: each
    // sample is its own forward and backward pass, ~2 s a step here) polls the token per chunk
    // of 16 samples. Before, the step ran to its end: SIGINT waited 4-7 s.
    void fullBatchTrainerStep() {
        ExperimentConfig cfg = experimentFromJsonText(
            R"({"task":{"kind":"random_mhla","samples":1048576},"solver":{"kind":"multilayer","heads":2,"layers":2,"batch":1048576,"compare_exact":false}})");
        const auto task = makeTask(cfg.task);
        const Dataset train = makeDataset(*task, Stream::Train, cfg.task.samples);
        auto model = training::makeModel(cfg.solver, task->d(), task->dOut());
        const training::TrainingData data = training::prepareTrainingData(train, false);
        std::vector<long long> idx(static_cast<size_t>(cfg.task.samples));
        for (size_t i = 0; i < idx.size(); ++i) idx[i] = static_cast<long long>(i);
        std::vector<CancelSample> s;
        for (int delay : {150, 400}) {
            s.push_back(measure(
                [&](const RunContext& ctx) {
                    training::MinibatchStep step(*model, cfg.solver, ctx.threads, &ctx);
                    (void)step(data, idx.data(), static_cast<int>(idx.size()), 1e-3);
                },
                delay));
        }
        record("trainer full-batch step (batch 2^20, multilayer)", s);
        for (const CancelSample& x : s) QVERIFY(!x.cancelled || x.latencyMs < kGenerousBoundMs);
    }

    // Whole runs, the phase read from the progress events at cancel time.
    void runnerPhases_data() {
        QTest::addColumn<QString>("label");
        QTest::addColumn<QString>("json");
        QTest::addColumn<QList<int>>("delays");
        QTest::newRow("accumulate d=12")
            << QStringLiteral("accumulation (d=12, D=936)")
            << QStringLiteral(
                   R"({"task":{"kind":"random_mhla","d":12,"d_out":12,"samples":200000},"eval":{"lambda_trace":0}})")
            << QList<int>{300, 900};
        QTest::newRow("evaluate")
            << QStringLiteral("evaluation (d=4, 2e7 OOD prompts)")
            << QStringLiteral(
                   R"({"task":{"kind":"random_mhla","samples":4000},"eval":{"ood_samples":20000000,"val_samples":100}})")
            << QList<int>{300, 700, 1500};
        QTest::newRow("trainer")
            << QStringLiteral("trainer epochs + evaluation (mhla, N=40000)")
            << QStringLiteral(
                   R"({"task":{"kind":"random_mhla","samples":40000},"solver":{"kind":"mhla","heads":1,"epochs":100000,"batch":4096,"compare_exact":false},"eval":{"val_samples":40000}})")
            << QList<int>{400, 1000, 1700};
        QTest::newRow("automaton")
            << QStringLiteral("automaton execution (1e6 words x 200)")
            << QStringLiteral(
                   R"({"task":{"kind":"automaton","samples":3000,"word_length":200},"eval":{"words":1000000,"ood_samples":200,"val_samples":200}})")
            << QList<int>{1500, 2500};
    }
    void runnerPhases() {
        QFETCH(QString, label);
        QFETCH(QString, json);
        QFETCH(QList<int>, delays);
        const ExperimentConfig cfg = experimentFromJsonText(json.toUtf8());
        std::vector<CancelSample> s;
        for (int delay : delays) {
            s.push_back(
                measure([&](const RunContext& ctx) { (void)runExperiment(cfg, ctx); }, delay));
            std::printf("  %s: cancel at %d ms in phase '%s': %s %.1f ms\n", qPrintable(label),
                        delay, s.back().phase.c_str(),
                        s.back().cancelled ? "stopped after" : "finished first,",
                        s.back().latencyMs);
        }
        record(label.toStdString(), s);
        for (const CancelSample& x : s)
            QVERIFY2(!x.cancelled || x.latencyMs < kGenerousBoundMs, qPrintable(label));
    }

    void cleanupTestCase() {
        std::printf("\n%-48s %10s\n", "phase", "worst ms");
        for (const Row& r : g_rows)
            std::printf("%-48s %10.1f%s\n", r.phase.c_str(), r.worst,
                        r.hits ? "" : "  (no cancel landed)");
    }
};

QTEST_APPLESS_MAIN(TestCancel)
#include "tst_cancel.moc"
