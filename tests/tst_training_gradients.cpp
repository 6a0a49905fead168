// Hand-written gradients of the trainers against central finite differences, the forward
// passes against naive references, and the optimisers and schedules against closed forms.
#include "core/algebra/model.h"
#include "core/base/rng.h"
#include "core/run/training/mhlamodel.h"
#include "core/run/training/multilayermodel.h"
#include "core/run/training/optimizer.h"
#include "core/run/training/softmaxmodel.h"
#include "core/run/training/trainablemodel.h"
#include <QTest>
#include <cmath>
#include <numbers>
#include <numeric>

using namespace mhla;
using namespace mhla::training;

namespace {

Dataset randomDataset(int d, int dOut, int tokens, int count, std::uint64_t seed) {
    Rng rng(seed, 0);
    Dataset ds;
    for (int i = 0; i < count; ++i)
        ds.Z.push_back(rng.normalMatrix(d, tokens, 1.0 / std::sqrt(static_cast<double>(tokens))));
    ds.Y = rng.normalMatrix(dOut, count);
    return ds;
}

std::unique_ptr<TrainableModel> model(SolverKind kind, int d, int dOut, int heads, int layers) {
    SolverConfig s;
    s.kind = kind;
    s.heads = heads;
    s.layers = layers;
    s.seed = 7;
    return makeModel(s, d, dOut);
}

} // namespace

class TestTrainingGradients : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void gradientMatchesFiniteDifferences_data();
    void gradientMatchesFiniteDifferences();
    void batchLossMatchesPredict_data();
    void batchLossMatchesPredict();
    void mhlaForwardMatchesCoreModel();
    void multilayerForwardMatchesNaiveCausalStack();
    void softmaxForwardMatchesNaiveBlock();
    void lossIsIndependentOfThreads();
    void adamMatchesHandComputedSteps();
    void sgdMomentumMatchesHandComputedSteps();
    void schedulesMatchClosedForms_data();
    void schedulesMatchClosedForms();
    void clippingScalesToGlobalNorm();
};

void TestTrainingGradients::gradientMatchesFiniteDifferences_data() {
    QTest::addColumn<int>("kind");
    QTest::addColumn<int>("d");
    QTest::addColumn<int>("dOut");
    QTest::addColumn<int>("heads");
    QTest::addColumn<int>("layers");
    QTest::addColumn<int>("tokens");
    QTest::addColumn<QString>("flat"); // blocks whose gradient is identically zero
    // 20 samples: two chunks of the minibatch (TrainableModel::kChunk = 16).
    QTest::newRow("mhla d3 H1") << int(SolverKind::Mhla) << 3 << 2 << 1 << 1 << 4 << QString();
    QTest::newRow("mhla d4 H5") << int(SolverKind::Mhla) << 4 << 3 << 5 << 1 << 6 << QString();
    // Row counts that are multiples of 4 and 8 take the step's register-tiled products: tiles of
    // 4 x 4 and 1 x 8 vectors and their edges (H d = 40 = 4 + 1 vectors of 8; d_out = 8; the
    // chunks' 16 and 4 columns), and vectors of 4 (H d = 12, d_out = 4).
    QTest::newRow("mhla d8 H5 (8-row tiles)")
        << int(SolverKind::Mhla) << 8 << 8 << 5 << 1 << 9 << QString();
    QTest::newRow("mhla d4 H3 (4-row tiles)")
        << int(SolverKind::Mhla) << 4 << 4 << 3 << 1 << 5 << QString();
    QTest::newRow("multilayer d3 H2 L1")
        << int(SolverKind::Multilayer) << 3 << 2 << 2 << 1 << 5 << QString();
    QTest::newRow("multilayer d3 H2 L3")
        << int(SolverKind::Multilayer) << 3 << 2 << 2 << 3 << 5 << QString();
    QTest::newRow("multilayer d4 H1 L2 n1")
        << int(SolverKind::Multilayer) << 4 << 4 << 1 << 2 << 1 << QString();
    QTest::newRow("softmax d4 H2")
        << int(SolverKind::Softmax) << 4 << 3 << 2 << 1 << 5 << QString();
    QTest::newRow("softmax d3 H2 (dh=d)")
        << int(SolverKind::Softmax) << 3 << 2 << 2 << 1 << 4 << QString();
    QTest::newRow("softmax d4 H1 n1")
        << int(SolverKind::Softmax) << 4 << 2 << 1 << 1 << 1 << QStringLiteral("Wq Wk");
}

void TestTrainingGradients::gradientMatchesFiniteDifferences() {
    QFETCH(int, kind);
    QFETCH(int, d);
    QFETCH(int, dOut);
    QFETCH(int, heads);
    QFETCH(int, layers);
    QFETCH(int, tokens);
    QFETCH(QString, flat);
    auto m = model(static_cast<SolverKind>(kind), d, dOut, heads, layers);
    // Random parameters everywhere (gains, biases and all), not just the initialisation.
    Rng rng(99, 1);
    Vec theta = m->parameters();
    for (Index i = 0; i < theta.size(); ++i) theta(i) += 0.4 * rng.normal();
    m->setParameters(theta);

    const int count = 20;
    const Dataset ds = randomDataset(d, dOut, tokens, count, 5);
    const TrainingData data = prepareTrainingData(ds, m->usesMoments());
    std::vector<long long> idx(count);
    std::iota(idx.begin(), idx.end(), 0LL);

    Vec grad;
    const double loss = m->lossAndGradient(data, idx.data(), count, &grad);
    QVERIFY(std::isfinite(loss) && loss > 0);
    QCOMPARE(grad.size(), m->parameterCount());

    const double h = 1e-6;
    Vec fd(theta.size());
    for (Index i = 0; i < theta.size(); ++i) {
        Vec t = theta;
        t(i) = theta(i) + h;
        m->setParameters(t);
        const double lp = m->lossAndGradient(data, idx.data(), count, nullptr);
        t(i) = theta(i) - h;
        m->setParameters(t);
        const double lm = m->lossAndGradient(data, idx.data(), count, nullptr);
        fd(i) = (lp - lm) / (2 * h);
    }
    m->setParameters(theta);

    // Tolerance: 1e-6 relative to the largest gradient entry, per entry (central differences
    // with h = 1e-6 are accurate to ~1e-10 here).
    const double scale = grad.cwiseAbs().maxCoeff();
    QVERIFY(scale > 0);
    const double tol = 1e-6 * scale;
    for (const auto& b : m->blocks()) {
        const auto g = grad.segment(b.offset, b.size());
        const auto f = fd.segment(b.offset, b.size());
        // Every block receives a gradient (a forgotten block would also be flat under FD),
        // except where the maths says so: with one token the softmax weights are all 1.
        if (flat.split(QLatin1Char(' ')).contains(QString::fromStdString(b.name)))
            QVERIFY2(g.norm() == 0.0 && f.norm() <= 1e-9, b.name.c_str());
        else QVERIFY2(g.norm() > 1e-8 * scale, b.name.c_str());
        const double err = (g - f).cwiseAbs().maxCoeff();
        QVERIFY2(err <= tol, (b.name + ": max |analytic - fd| = " + std::to_string(err) + " > " +
                              std::to_string(tol))
                                 .c_str());
    }
    QVERIFY((grad - fd).norm() <= 1e-7 * grad.norm());
}

void TestTrainingGradients::batchLossMatchesPredict_data() {
    QTest::addColumn<int>("kind");
    QTest::newRow("mhla") << int(SolverKind::Mhla);
    QTest::newRow("multilayer") << int(SolverKind::Multilayer);
    QTest::newRow("softmax") << int(SolverKind::Softmax);
}

void TestTrainingGradients::batchLossMatchesPredict() {
    QFETCH(int, kind);
    const int d = 4, dOut = 3, count = 37;
    auto m = model(static_cast<SolverKind>(kind), d, dOut, 2, 2);
    const Dataset ds = randomDataset(d, dOut, 5, count, 11);
    const TrainingData data = prepareTrainingData(ds, m->usesMoments());
    double sum = 0;
    for (int i = 0; i < count; ++i)
        sum += (m->predict(ds.Z[size_t(i)]) - ds.Y.col(i)).squaredNorm();
    const double expected = sum / (count * dOut);
    std::vector<long long> idx(count);
    std::iota(idx.begin(), idx.end(), 0LL);
    QVERIFY(std::abs(m->lossAndGradient(data, idx.data(), count, nullptr) - expected) <=
            1e-12 * expected);
    QVERIFY(std::abs(m->mse(data) - expected) <= 1e-12 * expected);
}

void TestTrainingGradients::mhlaForwardMatchesCoreModel() {
    Rng rng(3, 0);
    MhlaModel m(4, 3, 3, rng);
    const Heads h = m.heads();
    QCOMPARE(h.count(), 3);
    for (int i = 0; i < 5; ++i) {
        const Mat Z = rng.normalMatrix(4, 6);
        const Vec ref = mhlaOutput(h, Z);
        QVERIFY((m.predict(Z) - ref).norm() <= 1e-12 * ref.norm());
    }
    // setHeads(heads()) is the identity, and setHeads changes the function accordingly.
    Heads h2 = h;
    h2.V[1] *= 2.0;
    m.setHeads(h2);
    const Mat Z = rng.normalMatrix(4, 6);
    QVERIFY((m.predict(Z) - mhlaOutput(h2, Z)).norm() <= 1e-12 * mhlaOutput(h2, Z).norm());
    QVERIFY((m.heads().V[1] - h2.V[1]).norm() == 0.0);
}

void TestTrainingGradients::multilayerForwardMatchesNaiveCausalStack() {
    const int d = 3, dOut = 2, H = 2, L = 3, n = 5;
    Rng rng(4, 0);
    MultilayerModel m(d, dOut, H, L, rng);
    const Vec& th = m.parameters();
    auto blockMat = [&](const std::string& name) {
        const auto& b = m.block(name);
        return Mat(Eigen::Map<const Mat>(th.data() + b.offset, b.rows, b.cols));
    };
    const Mat Z = rng.normalMatrix(d, n);
    Mat X = Z;
    for (int l = 0; l < L; ++l) {
        std::string v = "V", q = "Q";
        v += std::to_string(l);
        q += std::to_string(l);
        const Mat V = blockMat(v);
        const Mat Q = blockMat(q);
        Mat Xn = X;
        for (int t = 0; t < n; ++t) {
            Mat St = Mat::Zero(d, d);
            for (int s = 0; s <= t; ++s) St += X.col(s) * X.col(s).transpose();
            for (int h = 0; h < H; ++h)
                Xn.col(t) += V.middleCols(h * d, d) * St * Q.middleRows(h * d, d) * X.col(t);
        }
        X = Xn;
    }
    const Vec ref = blockMat("R") * X.col(n - 1);
    QVERIFY((m.predict(Z) - ref).norm() <= 1e-12 * ref.norm());
}

void TestTrainingGradients::softmaxForwardMatchesNaiveBlock() {
    const int d = 4, dOut = 2, H = 2, n = 5, dh = 2;
    Rng rng(5, 0);
    SoftmaxModel m(d, dOut, H, rng);
    QCOMPARE(m.headDim(), dh);
    Vec theta = m.parameters();
    for (Index i = 0; i < theta.size(); ++i) theta(i) += 0.3 * rng.normal();
    m.setParameters(theta);
    auto P = [&](const std::string& name) {
        const auto& b = m.block(name);
        return Mat(Eigen::Map<const Mat>(theta.data() + b.offset, b.rows, b.cols));
    };
    auto layerNorm = [&](const Vec& x, const Mat& g, const Mat& b) {
        const double mu = x.sum() / d;
        double var = 0;
        for (int i = 0; i < d; ++i) var += (x(i) - mu) * (x(i) - mu) / d;
        Vec y(d);
        for (int i = 0; i < d; ++i) y(i) = g(i, 0) * (x(i) - mu) / std::sqrt(var + 1e-5) + b(i, 0);
        return y;
    };
    const Mat Z = rng.normalMatrix(d, n);
    std::vector<Vec> a;
    for (int t = 0; t < n; ++t) a.push_back(layerNorm(Z.col(t), P("ln1_gain"), P("ln1_bias")));
    Vec concat(H * dh);
    for (int h = 0; h < H; ++h) {
        const Mat Wq = P("Wq").middleRows(h * dh, dh), Wk = P("Wk").middleRows(h * dh, dh),
                  Wv = P("Wv").middleRows(h * dh, dh);
        const Vec q = Wq * a[n - 1];
        std::vector<double> w(n);
        double z = 0;
        for (int t = 0; t < n; ++t)
            z += (w[size_t(t)] = std::exp(q.dot(Wk * a[size_t(t)]) / std::sqrt(double(dh))));
        Vec o = Vec::Zero(dh);
        for (int t = 0; t < n; ++t) o += w[size_t(t)] / z * (Wv * a[size_t(t)]);
        concat.segment(h * dh, dh) = o;
    }
    const Vec x1 = Z.col(n - 1) + P("Wo") * concat;
    const Vec b = layerNorm(x1, P("ln2_gain"), P("ln2_bias"));
    const Vec hid = (P("W1") * b + P("b1")).cwiseMax(0.0);
    const Vec x2 = x1 + P("W2") * hid + P("b2");
    const Vec ref = P("R") * x2;
    QVERIFY((m.predict(Z) - ref).norm() <= 1e-12 * ref.norm());
}

void TestTrainingGradients::lossIsIndependentOfThreads() {
    // A large minibatch (many chunks, enough work to go parallel) gives bit-identical results.
    auto m = model(SolverKind::Softmax, 8, 4, 4, 1);
    const int count = 200;
    const Dataset ds = randomDataset(8, 4, 30, count, 8);
    const TrainingData data = prepareTrainingData(ds, false);
    std::vector<long long> idx(count);
    std::iota(idx.begin(), idx.end(), 0LL);
    Vec g1, g3;
    const double l1 = m->lossAndGradient(data, idx.data(), count, &g1, 1);
    const double l3 = m->lossAndGradient(data, idx.data(), count, &g3, 3);
    QCOMPARE(l1, l3);
    QVERIFY(g1 == g3);
    QCOMPARE(m->mse(data, 1), m->mse(data, 3));
}

void TestTrainingGradients::adamMatchesHandComputedSteps() {
    // Two parameters, gradients (1, -3) then (-2, 0.5), lr 0.1, from (0.5, -1).
    Optimizer opt(OptimizerKind::Adam, 2);
    Vec theta(2);
    theta << 0.5, -1.0;
    Vec g(2);
    const double lr = 0.1, b1 = 0.9, b2 = 0.999, eps = 1e-8;
    g << 1.0, -3.0;
    opt.step(theta, g, lr);
    // Step 1: mhat = g, vhat = g^2, so each entry moves by lr * g / (|g| + eps).
    const double t1a = 0.5 - lr * 1.0 / (1.0 + eps);
    const double t1b = -1.0 - lr * (-3.0) / (3.0 + eps);
    QVERIFY(std::abs(theta(0) - t1a) < 1e-15 && std::abs(theta(1) - t1b) < 1e-15);
    g << -2.0, 0.5;
    opt.step(theta, g, lr);
    // Step 2 by hand: m = b1 m1 + (1-b1) g, v = b2 v1 + (1-b2) g^2, bias corrections 1-b^2.
    const double m2a = b1 * (0.1 * 1.0) + 0.1 * (-2.0), v2a = b2 * (0.001 * 1.0) + 0.001 * 4.0;
    const double m2b = b1 * (0.1 * -3.0) + 0.1 * 0.5, v2b = b2 * (0.001 * 9.0) + 0.001 * 0.25;
    const double c1 = 1 - b1 * b1, c2 = 1 - b2 * b2;
    const double t2a = t1a - lr * (m2a / c1) / (std::sqrt(v2a / c2) + eps);
    const double t2b = t1b - lr * (m2b / c1) / (std::sqrt(v2b / c2) + eps);
    QVERIFY2(std::abs(theta(0) - t2a) < 1e-14, std::to_string(theta(0) - t2a).c_str());
    QVERIFY2(std::abs(theta(1) - t2b) < 1e-14, std::to_string(theta(1) - t2b).c_str());
    // Sanity of the hand numbers: mhat_a = -0.11 / 0.19.
    QVERIFY(std::abs(m2a / c1 - (-0.11 / 0.19)) < 1e-15);
    QCOMPARE(opt.steps(), 2LL);
    // A constant gradient moves by lr per step for ever (mhat = g, vhat = g^2 at every t).
    Optimizer opt2(OptimizerKind::Adam, 1);
    Vec x = Vec::Zero(1), gc = Vec::Constant(1, 0.25);
    for (int t = 0; t < 50; ++t) opt2.step(x, gc, 0.01);
    QVERIFY(std::abs(x(0) - (-50 * 0.01 * 0.25 / (0.25 + eps))) < 1e-12);
}

void TestTrainingGradients::sgdMomentumMatchesHandComputedSteps() {
    Optimizer opt(OptimizerKind::Sgd, 1, 0.9);
    Vec x = Vec::Constant(1, 1.0), g(1);
    g << 1.0;
    opt.step(x, g, 0.1); // buf = 1, x = 1 - 0.1
    QVERIFY(std::abs(x(0) - 0.9) < 1e-15);
    g << -2.0;
    opt.step(x, g, 0.1); // buf = 0.9 - 2 = -1.1, x = 0.9 + 0.11
    QVERIFY(std::abs(x(0) - 1.01) < 1e-15);
    g << 0.0;
    opt.step(x, g, 0.2); // buf = -0.99, x = 1.01 + 0.198
    QVERIFY(std::abs(x(0) - 1.208) < 1e-14);
}

void TestTrainingGradients::schedulesMatchClosedForms_data() {
    QTest::addColumn<int>("kind");
    QTest::addColumn<double>("warmup");
    QTest::addColumn<long long>("step");
    QTest::addColumn<double>("expected"); // for base 0.02, 100 steps
    const int cos = int(ScheduleKind::Cosine), con = int(ScheduleKind::Constant);
    // W = floor(0.1 * 100) = 10 warm-up steps: lr = base (s+1)/10.
    QTest::newRow("cosine warm-up first") << cos << 0.1 << 0LL << 0.002;
    QTest::newRow("cosine warm-up 5") << cos << 0.1 << 4LL << 0.01;
    QTest::newRow("cosine warm-up last") << cos << 0.1 << 9LL << 0.02;
    QTest::newRow("cosine start") << cos << 0.1 << 10LL << 0.02;
    QTest::newRow("cosine middle") << cos << 0.1 << 55LL << 0.01; // (55-10)/90 = 1/2
    QTest::newRow("cosine 3/4") << cos << 0.1 << 77LL
                                << 0.02 * 0.5 * (1 + std::cos(std::numbers::pi * 67.0 / 90.0));
    QTest::newRow("cosine last") << cos << 0.1 << 99LL
                                 << 0.01 * (1 - std::cos(std::numbers::pi / 90.0));
    QTest::newRow("cosine no warm-up") << cos << 0.0 << 0LL << 0.02;
    QTest::newRow("cosine no warm-up 1/4") << cos << 0.0 << 25LL << 0.01 * (1 + std::sqrt(0.5));
    QTest::newRow("constant warm-up") << con << 0.25 << 4LL << 0.02 * 5.0 / 25.0;
    QTest::newRow("constant after") << con << 0.25 << 60LL << 0.02;
    QTest::newRow("constant no warm-up") << con << 0.0 << 0LL << 0.02;
}

void TestTrainingGradients::schedulesMatchClosedForms() {
    QFETCH(int, kind);
    QFETCH(double, warmup);
    QFETCH(long long, step);
    QFETCH(double, expected);
    const double lr = scheduledRate(static_cast<ScheduleKind>(kind), 0.02, warmup, step, 100);
    QVERIFY2(std::abs(lr - expected) <= 1e-15,
             (std::to_string(lr) + " vs " + std::to_string(expected)).c_str());
}

void TestTrainingGradients::clippingScalesToGlobalNorm() {
    Vec g(2);
    g << 3.0, 4.0;
    QCOMPARE(clipGradient(g, 1.0), 5.0);
    QVERIFY(std::abs(g(0) - 0.6) < 1e-15 && std::abs(g(1) - 0.8) < 1e-15);
    g << 3.0, 4.0;
    clipGradient(g, 10.0);
    QVERIFY(g(0) == 3.0 && g(1) == 4.0);
    clipGradient(g, 0.0); // off
    QVERIFY(g(0) == 3.0 && g(1) == 4.0);
}

QTEST_APPLESS_MAIN(TestTrainingGradients)
#include "tst_training_gradients.moc"
