// The training loop: data sets, convergence near the teacher, determinism across thread
// counts, cancellation within one minibatch, target-loss stop and divergence handling.
#include "core/algebra/certificate.h"
#include "core/algebra/features.h"
#include "core/run/training/mhlamodel.h"
#include "core/run/training/trainer.h"
#include "core/run/training/training.h"
#include "core/tasks/tasks.h"
#include "smallconfigs.h"
#include <QTest>
#include <atomic>
#include <cmath>
#include <cstring>
#include <sstream>
#include <thread>

using namespace mhla;
using namespace mhla::training;

namespace {

ExperimentConfig smallConfig(SolverKind kind) {
    ExperimentConfig cfg = test::smallMhlaConfig(3, 2, 5, 2, 256, 128);
    cfg.task.seed = 3;
    cfg.solver.kind = kind;
    cfg.solver.heads = kind == SolverKind::Softmax ? 1 : 3;
    cfg.solver.layers = 2;
    cfg.solver.optimizer = OptimizerKind::Adam;
    cfg.solver.lr = 1e-2;
    cfg.solver.batch = 32;
    cfg.solver.epochs = 6;
    cfg.solver.seed = 11;
    return cfg;
}

struct Fixture {
    explicit Fixture(const ExperimentConfig& c, const RunContext& ctx = {})
        : cfg(c), task(makeTask(c.task)),
          train(makeDataset(*task, Stream::Train, c.task.samples, ctx)),
          val(makeDataset(*task, Stream::Validation, c.eval.valSamples, ctx)) {}
    ExperimentConfig cfg;
    std::unique_ptr<Task> task;
    Dataset train, val;
};

/// Bitwise equality of doubles (NaN == NaN).
bool same(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

bool sameHistory(const std::vector<HistoryPoint>& a, const std::vector<HistoryPoint>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
        const auto &p = a[i], &q = b[i];
        if (p.epoch != q.epoch || p.step != q.step || !same(p.lr, q.lr) ||
            !same(p.trainMse, q.trainMse) || !same(p.valMse, q.valMse) ||
            !same(p.oodRelMse, q.oodRelMse) || !same(p.distanceP, q.distanceP) ||
            !same(p.distancePRel, q.distancePRel) || !same(p.distanceExactRel, q.distanceExactRel))
            return false;
    }
    return true;
}

} // namespace

class TestTraining : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void datasetIsTheTaskStream();
    void mhlaConvergesFromNearTheTeacher();
    void sameSeedSameHistory_data();
    void sameSeedSameHistory();
    void differentSeedDifferentHistory();
    void outputsOfEachTrainer_data();
    void outputsOfEachTrainer();
    void cancelFromProgressStopsWithinOneMinibatch();
    void cancelFromAnotherThread();
    void targetLossStopsEarly();
    void hugeLearningRateDiverges_data();
    void hugeLearningRateDiverges();
    void multilayerInitialisationIsStableAtDepth();
    void pauseStepAndLearningRateScale();
    void benchPrintsEveryTrainer();
};

void TestTraining::datasetIsTheTaskStream() {
    const ExperimentConfig cfg = smallConfig(SolverKind::Mhla);
    const auto task = makeTask(cfg.task);
    RunContext one, three;
    one.threads = 1;
    three.threads = 3;
    const Dataset a = makeDataset(*task, Stream::Validation, 200, one);
    const Dataset b = makeDataset(*task, Stream::Validation, 200, three);
    QCOMPARE(a.Z.size(), size_t(200));
    QCOMPARE(a.Y.cols(), Index(200));
    QCOMPARE(a.Y.rows(), Index(cfg.task.dOut));
    QVERIFY(a.Y == b.Y);
    for (long long i : {0LL, 63LL, 64LL, 199LL}) {
        const Sample s = task->sample(Stream::Validation, i);
        QVERIFY(a.Z[size_t(i)] == s.Z && b.Z[size_t(i)] == s.Z);
        QVERIFY(a.Y.col(i) == s.y);
    }
    QVERIFY(makeDataset(*task, Stream::Train, 0).Z.empty());
}

void TestTraining::mhlaConvergesFromNearTheTeacher() {
    // Certified, noise-free random-MHLA data; H = 3 heads > 2 teacher heads, started at the
    // teacher's heads perturbed by 1e-2 plus a small third head.
    ExperimentConfig cfg = smallConfig(SolverKind::Mhla);
    cfg.task.samples = 512;
    cfg.solver.optimizer = OptimizerKind::Adam;
    cfg.solver.lr = 2e-3;
    cfg.solver.schedule = ScheduleKind::Cosine;
    cfg.solver.warmup = 0.0;
    cfg.solver.epochs = 60;
    cfg.solver.logEvery = 10;
    Fixture f(cfg);

    MomentAccumulator acc(cfg.task.d, cfg.task.dOut);
    std::vector<Vec> ys;
    for (Index i = 0; i < f.train.Y.cols(); ++i) ys.push_back(f.train.Y.col(i));
    acc.addSamples(f.train.Z, ys);
    QVERIFY(certify(acc.lambda(), CertifyOptions{}).certified);

    Trainer trainer(cfg, *f.task, f.train, f.val, Mat(), RunContext{});
    QVERIFY(trainer.mhlaModel() != nullptr);
    Rng rng(1, 0);
    Heads h = f.task->teacher();
    for (auto& v : h.V) v += rng.normalMatrix(v.rows(), v.cols(), 1e-2);
    for (auto& q : h.Q) q += rng.normalMatrix(q.rows(), q.cols(), 1e-2);
    h.V.push_back(rng.normalMatrix(cfg.task.dOut, cfg.task.d, 1e-2));
    h.Q.push_back(rng.normalMatrix(cfg.task.d, cfg.task.d, 1e-2));
    trainer.mhlaModel()->setHeads(h);
    ExperimentResult out;
    trainer.run(out);

    QCOMPARE(out.stopReason, std::string("epochs"));
    QCOMPARE(out.solveMethod, std::string("mhla"));
    QVERIFY(out.history.size() >= 2);
    const double start = out.history.front().distancePRel;
    QVERIFY2(start > 1e-2, std::to_string(start).c_str());
    QVERIFY2(out.metrics.distancePRel < 1e-3, std::to_string(out.metrics.distancePRel).c_str());
    QVERIFY(out.metrics.trainMse < 1e-3 * out.history.front().trainMse);
    QVERIFY2(out.metrics.oodRelMse < 1e-5, std::to_string(out.metrics.oodRelMse).c_str());
    QCOMPARE(out.P.rows(), Index(cfg.task.dOut));
    QCOMPARE(out.P.cols(), Index(featureDim(cfg.task.d)));
}

void TestTraining::sameSeedSameHistory_data() {
    QTest::addColumn<int>("kind");
    QTest::newRow("mhla") << int(SolverKind::Mhla);
    QTest::newRow("multilayer") << int(SolverKind::Multilayer);
    QTest::newRow("softmax") << int(SolverKind::Softmax);
}

void TestTraining::sameSeedSameHistory() {
    QFETCH(int, kind);
    ExperimentConfig cfg = smallConfig(static_cast<SolverKind>(kind));
    cfg.solver.batch = 48; // more than one chunk per step
    cfg.eval.oodSamples = 300;
    Fixture f(cfg);
    const Mat exactP = f.task->teacherP(); // any reference works for the comparison
    std::vector<ExperimentResult> results;
    for (int threads : {1, 1, 2, 3}) {
        RunContext ctx;
        ctx.threads = threads;
        ExperimentResult r;
        trainBaseline(cfg, *f.task, f.train, f.val, exactP, r, ctx);
        results.push_back(std::move(r));
    }
    QCOMPARE(results[0].history.size(), size_t(cfg.solver.epochs + 1));
    for (size_t i = 1; i < results.size(); ++i) {
        QVERIFY(sameHistory(results[0].history, results[i].history));
        QVERIFY(results[0].P == results[i].P);
        QVERIFY(same(results[0].metrics.oodRelMse, results[i].metrics.oodRelMse));
        QVERIFY(same(results[0].metrics.valMse, results[i].metrics.valMse));
    }
}

void TestTraining::differentSeedDifferentHistory() {
    ExperimentConfig cfg = smallConfig(SolverKind::Mhla);
    Fixture f(cfg);
    ExperimentResult a, b;
    trainBaseline(cfg, *f.task, f.train, f.val, Mat(), a, {});
    cfg.solver.seed = 12;
    trainBaseline(cfg, *f.task, f.train, f.val, Mat(), b, {});
    QVERIFY(a.history.back().trainMse != b.history.back().trainMse);
}

void TestTraining::outputsOfEachTrainer_data() {
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("name");
    QTest::newRow("mhla") << int(SolverKind::Mhla) << QStringLiteral("mhla");
    QTest::newRow("multilayer") << int(SolverKind::Multilayer) << QStringLiteral("multilayer");
    QTest::newRow("softmax") << int(SolverKind::Softmax) << QStringLiteral("softmax");
}

void TestTraining::outputsOfEachTrainer() {
    QFETCH(int, kind);
    QFETCH(QString, name);
    ExperimentConfig cfg = smallConfig(static_cast<SolverKind>(kind));
    cfg.solver.epochs = 7;
    cfg.solver.logEvery = 3; // points at epochs 0, 3, 6 and the last one, 7
    Fixture f(cfg);
    const Mat exactP = f.task->teacherP() * 1.5;
    int reports = 0;
    double lastFraction = -1;
    RunContext ctx;
    ctx.progress = [&](const ProgressEvent& e) {
        QCOMPARE(e.phase, std::string("train"));
        QVERIFY(e.point != nullptr);
        QVERIFY(e.fraction >= lastFraction && e.fraction <= 1.0);
        lastFraction = e.fraction;
        ++reports;
    };
    ExperimentResult out;
    trainBaseline(cfg, *f.task, f.train, f.val, exactP, out, ctx);
    QCOMPARE(out.solveMethod, name.toStdString());
    QCOMPARE(out.stopReason, std::string("epochs"));
    QCOMPARE(reports, 4);
    QCOMPARE(lastFraction, 1.0);
    QCOMPARE(out.history.size(), size_t(4));
    const int epochs[] = {0, 3, 6, 7};
    const long long perEpoch = 256 / 32;
    for (size_t i = 0; i < 4; ++i) {
        const auto& p = out.history[i];
        QCOMPARE(p.epoch, epochs[i]);
        QCOMPARE(p.step, epochs[i] * perEpoch);
        QVERIFY(std::isfinite(p.trainMse) && std::isfinite(p.valMse) && std::isfinite(p.oodRelMse));
        QVERIFY(p.lr > 0);
    }
    QVERIFY(out.history.back().trainMse < out.history.front().trainMse);
    QCOMPARE(out.metrics.trainMse, out.history.back().trainMse);
    QCOMPARE(out.metrics.valMse, out.history.back().valMse);
    QVERIFY(std::isfinite(out.metrics.oodRelMse));
    if (kind == int(SolverKind::Mhla)) {
        QCOMPARE(out.P.rows(), Index(2));
        QCOMPARE(out.P.cols(), Index(featureDim(3)));
        // unfold(P) is the symmetric representative: its rank may exceed H, never d_out*d.
        QVERIFY(out.heads.rank >= 1 && out.heads.rank <= 2 * 3);
        const Mat refolded = foldHeads(out.heads.heads, 3, 2);
        QVERIFY((refolded - out.P).norm() <= 1e-10 * out.P.norm());
        QVERIFY(std::abs(out.metrics.distancePRel -
                         (out.P - f.task->teacherP()).norm() / f.task->teacherP().norm()) < 1e-14);
        QVERIFY(std::abs(out.history.back().distancePRel - out.metrics.distancePRel) < 1e-14);
        const double exactRel = (out.P - exactP).norm() / exactP.norm();
        QVERIFY(std::abs(out.history.back().distanceExactRel - exactRel) < 1e-14);
    } else {
        QCOMPARE(out.P.size(), Index(0));
        QVERIFY(std::isnan(out.metrics.distanceP) && std::isnan(out.metrics.distancePRel));
        QVERIFY(std::isnan(out.history.back().distancePRel));
    }
}

void TestTraining::cancelFromProgressStopsWithinOneMinibatch() {
    ExperimentConfig cfg = smallConfig(SolverKind::Mhla);
    cfg.solver.epochs = 50;
    Fixture f(cfg);
    CancelToken token;
    RunContext ctx;
    ctx.cancel = &token;
    long long stepsAtCancel = -1;
    Trainer* self = nullptr;
    ctx.progress = [&](const ProgressEvent& e) {
        if (e.point && e.point->epoch == 2) {
            token.cancel();
            stepsAtCancel = self->stepsDone();
        }
    };
    Trainer trainer(cfg, *f.task, f.train, f.val, Mat(), ctx);
    self = &trainer;
    ExperimentResult out;
    QVERIFY_THROWS_EXCEPTION(Cancelled, trainer.run(out));
    QCOMPARE(stepsAtCancel, 2 * trainer.stepsPerEpoch());
    QCOMPARE(trainer.stepsDone(), stepsAtCancel); // not a single minibatch after the request
}

void TestTraining::cancelFromAnotherThread() {
    ExperimentConfig cfg = smallConfig(SolverKind::Multilayer);
    cfg.solver.epochs = 10000000; // would run for hours if the cancel were missed
    cfg.solver.logEvery = 1;
    Fixture f(cfg);
    CancelToken token;
    std::atomic<int> logged{0};
    RunContext ctx;
    ctx.cancel = &token;
    ctx.progress = [&](const ProgressEvent&) { logged.fetch_add(1); };
    Trainer trainer(cfg, *f.task, f.train, f.val, Mat(), ctx);
    std::atomic<bool> cancelled{false};
    std::thread worker([&] {
        ExperimentResult out;
        try {
            trainer.run(out);
        } catch (const Cancelled&) {
            cancelled = true;
        }
    });
    while (logged.load() < 3) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    token.cancel();
    worker.join();
    QVERIFY(cancelled.load());
    QVERIFY(trainer.stepsDone() >= 2 * trainer.stepsPerEpoch());
    QVERIFY(trainer.stepsDone() < trainer.totalSteps());
}

void TestTraining::targetLossStopsEarly() {
    ExperimentConfig cfg = smallConfig(SolverKind::Mhla);
    cfg.solver.epochs = 40;
    cfg.solver.logEvery = 100;
    Fixture f(cfg);
    ExperimentResult full;
    trainBaseline(cfg, *f.task, f.train, f.val, Mat(), full, {});
    QCOMPARE(full.stopReason, std::string("epochs"));
    // A target between the loss after epoch 0 and after the last epoch is met in between.
    const double target = std::sqrt(full.history.front().trainMse * full.history.back().trainMse);
    cfg.solver.targetLoss = target;
    ExperimentResult early;
    trainBaseline(cfg, *f.task, f.train, f.val, Mat(), early, {});
    QCOMPARE(early.stopReason, std::string("target_loss"));
    QVERIFY(early.history.back().trainMse <= target);
    QVERIFY(early.history.back().epoch < cfg.solver.epochs);
    QVERIFY(early.history.back().epoch > 0);
    QCOMPARE(early.metrics.trainMse, early.history.back().trainMse);
    // A target the initial model already meets: no step at all.
    cfg.solver.targetLoss = 1e9;
    ExperimentResult none;
    trainBaseline(cfg, *f.task, f.train, f.val, Mat(), none, {});
    QCOMPARE(none.stopReason, std::string("target_loss"));
    QCOMPARE(none.history.size(), size_t(1));
    QCOMPARE(none.history.back().step, 0LL);
}

void TestTraining::hugeLearningRateDiverges_data() {
    QTest::addColumn<int>("kind");
    QTest::addColumn<int>("optimizer");
    QTest::newRow("mhla sgd") << int(SolverKind::Mhla) << int(OptimizerKind::Sgd);
    QTest::newRow("multilayer sgd") << int(SolverKind::Multilayer) << int(OptimizerKind::Sgd);
    QTest::newRow("softmax sgd") << int(SolverKind::Softmax) << int(OptimizerKind::Sgd);
    QTest::newRow("mhla adam") << int(SolverKind::Mhla) << int(OptimizerKind::Adam);
}

void TestTraining::hugeLearningRateDiverges() {
    QFETCH(int, kind);
    QFETCH(int, optimizer);
    ExperimentConfig cfg = smallConfig(static_cast<SolverKind>(kind));
    cfg.solver.optimizer = static_cast<OptimizerKind>(optimizer);
    // SGD overflows quickly; Adam moves each parameter by at most ~lr per step, so it needs
    // an lr large enough for the cubic model's output to overflow.
    cfg.solver.lr = optimizer == int(OptimizerKind::Adam) ? 1e100 : 1e6;
    cfg.solver.clip = 0;
    cfg.solver.schedule = ScheduleKind::Constant;
    cfg.solver.warmup = 0;
    cfg.solver.epochs = 200;
    Fixture f(cfg);
    Trainer trainer(cfg, *f.task, f.train, f.val, Mat(), {});
    ExperimentResult out;
    trainer.run(out);
    QCOMPARE(out.stopReason, std::string("diverged"));
    QVERIFY(trainer.stepsDone() < trainer.totalSteps());
    QVERIFY(!out.history.empty());
    for (const auto& p : out.history)
        QVERIFY(std::isfinite(p.trainMse) && std::isfinite(p.valMse) &&
                std::isfinite(p.oodRelMse) && std::isfinite(p.lr));
    // The metrics are those of the last finite (logged) point.
    QCOMPARE(out.metrics.trainMse, out.history.back().trainMse);
    QCOMPARE(out.metrics.valMse, out.history.back().valMse);
    QVERIFY(std::isfinite(out.metrics.oodRelMse));
    QVERIFY(trainer.model().parameters().allFinite());
    if (kind == int(SolverKind::Mhla)) {
        QVERIFY(out.P.allFinite());
        QVERIFY(std::isfinite(out.metrics.distanceP) && std::isfinite(out.metrics.distancePRel));
    }
}

void TestTraining::multilayerInitialisationIsStableAtDepth() {
    // Few tokens give S(Z) heavy tails; at L = 8 the initial stack must still be O(1) on every
    // training prompt (outputs within a factor 100 of the labels' scale).
    TaskConfig tc;
    tc.kind = TaskKind::RandomMhla;
    tc.d = 4;
    tc.tokens = 3;
    tc.dOut = 4;
    const auto task = makeTask(tc);
    const Dataset ds = makeDataset(*task, Stream::Train, 1000);
    SolverConfig s;
    s.kind = SolverKind::Multilayer;
    s.heads = 4;
    s.layers = 8;
    const auto m = makeModel(s, 4, 4);
    const double labelScale = ds.Y.squaredNorm() / 1000;
    double worst = 0;
    for (const Mat& Z : ds.Z) worst = std::max(worst, m->predict(Z).squaredNorm());
    QVERIFY2(worst < 100 * labelScale, std::to_string(worst).c_str());
}

void TestTraining::benchPrintsEveryTrainer() {
    std::ostringstream os;
    (void)benchTrainers(os, 1); // its text is the test
    const std::string text = os.str();
    int lines = 0;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        const auto at = line.find(" steps/s");
        if (at == std::string::npos) continue;
        ++lines;
        const double rate = std::stod(line.substr(line.rfind(' ', at - 1) + 1));
        QVERIFY2(rate > 0, line.c_str());
        QVERIFY2(line.find("us/step") != std::string::npos, line.c_str());
    }
    QCOMPARE(lines, 5);
    for (const char* name : {"mhla", "multilayer", "softmax"})
        QVERIFY(text.find(name) != std::string::npos);
}

// Live control: a paused run waits between epochs, runs exactly one epoch per step request, and
// a learning-rate scale multiplies the scheduled rate from the next minibatch on.
void TestTraining::pauseStepAndLearningRateScale() {
    ExperimentConfig cfg = smallConfig(SolverKind::Mhla);
    cfg.solver.epochs = 5;
    cfg.solver.schedule = ScheduleKind::Constant;
    cfg.solver.warmup = 0.0;
    Fixture f(cfg);
    TrainingControl control;
    control.paused = true;
    control.lrScale = 0.25;
    CancelToken token;
    std::atomic<int> logged{0};
    RunContext ctx;
    ctx.cancel = &token;
    ctx.control = &control;
    ctx.progress = [&](const ProgressEvent& e) {
        if (e.point) logged.fetch_add(1);
    };
    Trainer trainer(cfg, *f.task, f.train, f.val, Mat(), ctx);
    ExperimentResult out;
    std::thread worker([&] { trainer.run(out); });
    auto waitFor = [&](int n) {
        for (int i = 0; i < 2000 && logged.load() < n; ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        return logged.load() >= n;
    };
    QVERIFY(waitFor(1)); // epoch 0 is logged before the first pause
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    QCOMPARE(logged.load(), 1); // paused: no epoch runs
    QCOMPARE(trainer.stepsDone(), 0LL);
    control.stepEpochs = 1;
    QVERIFY(waitFor(2));
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    QCOMPARE(logged.load(), 2); // exactly one epoch per step
    QCOMPARE(trainer.stepsDone(), trainer.stepsPerEpoch());
    control.paused = false; // resume: the run completes
    worker.join();
    QCOMPARE(static_cast<int>(out.history.size()), cfg.solver.epochs + 1);
    for (size_t i = 1; i < out.history.size(); ++i)
        QCOMPARE(out.history[i].lr, 0.25 * cfg.solver.lr);
    // A default control changes nothing: same history as a run without one.
    TrainingControl neutral;
    RunContext plain, withControl;
    withControl.control = &neutral;
    Trainer a(cfg, *f.task, f.train, f.val, Mat(), plain),
        b(cfg, *f.task, f.train, f.val, Mat(), withControl);
    ExperimentResult ra, rb;
    a.run(ra);
    b.run(rb);
    QVERIFY(sameHistory(ra.history, rb.history));
}

QTEST_APPLESS_MAIN(TestTraining)
#include "tst_training.moc"
