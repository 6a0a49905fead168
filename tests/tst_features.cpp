// Streaming accumulation of Lambda and C (MATH.md §3-4) and determinism across thread counts.
#include "core/algebra/features.h"
#include "core/base/machine.h"
#include "core/kernels/gemmkernel.h"
#include "core/run/runner.h"
#include "core/tasks/tasks.h"
#include <QTest>
#include <cstdio>
#include <string>

using namespace mhla;

namespace {
struct Data {
    std::vector<Mat> Z;
    std::vector<Vec> y;
};
Data randomData(int d, int n, int dOut, int N, std::uint64_t seed) {
    Data data;
    for (int s = 0; s < N; ++s) {
        Rng rng(seed, 0, static_cast<std::uint64_t>(s));
        data.Z.push_back(rng.normalMatrix(d, n));
        data.y.push_back(rng.normalMatrix(dOut, 1).col(0));
    }
    return data;
}
} // namespace

class TestFeatures : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // Every GEMM kernel this CPU can run (core/kernels/gemmkernel.h) computes C += A^T B on strided
    // sub-matrices: against a plain triple loop, error <= 4 k eps relative to |A|^T |B|
    // (the bound for a computed dot product of length k), and C's other entries untouched.
    void gemmKernelsAgreeWithTheDefinition() {
        const long m = 37, n = 19, k = 300, lda = 311, ldb = 305, ldc = 41;
        Rng rng(5);
        const Mat A = rng.normalMatrix(lda, m), B = rng.normalMatrix(ldb, n);
        const Mat C0 = rng.normalMatrix(ldc, n);
        const auto kernels = kernels::availableGemmKernels();
        QVERIFY(!kernels.empty());
        for (const auto& kernel : kernels) {
            Mat C = C0;
            kernel.run(m, n, k, A.data(), lda, B.data(), ldb, C.data(), ldc);
            for (long j = 0; j < n; ++j) {
                for (long i = 0; i < m; ++i) {
                    double ref = C0(i, j), scale = std::abs(C0(i, j));
                    for (long t = 0; t < k; ++t) {
                        ref += A(t, i) * B(t, j);
                        scale += std::abs(A(t, i) * B(t, j));
                    }
                    QVERIFY2(std::abs(C(i, j) - ref) <= 4.0 * k * 1.1e-16 * scale, kernel.name);
                }
                for (long i = m; i < ldc; ++i) QCOMPARE(C(i, j), C0(i, j));
            }
        }
        std::printf("  GEMM kernels available: %zu, chosen: %s\n", kernels.size(),
                    kernels::accumulationGemm().name);
    }

    // Every sum-of-outer-products kernel (core/kernels/gemmkernel.h, OuterSum) this CPU can run:
    // against a plain loop, error <= 4 k eps relative to the sum of |terms| (a dot product of
    // length k); the padding columns and C's other rows untouched; a scaled B gives the same bits
    // as B scaled beforehand (the accumulation uses both and counts on it); and for the x86-64
    // kernels two calls over parts of k cut at a multiple of the chunk give the same bits as one
    // call.
    void outerSumKernelsAgreeWithTheDefinition_data() {
        QTest::addColumn<long>("m");
        QTest::newRow("one row tile and a part") << 5L;
        QTest::newRow("three row tiles and a part") << 13L;
    }
    void outerSumKernelsAgreeWithTheDefinition() {
        QFETCH(long, m);
        const long n = 43, k = 300, lda = 17, ldb = kernels::outerSumPad(n) + 8,
                   ldc = kernels::outerSumPad(n) + 8, cRows = m + 2;
        Rng rng(9);
        const Mat a = rng.normalMatrix(k, lda), b0 = rng.normalMatrix(k, ldb);
        const Vec scale = rng.normalMatrix(2 * k, 1).col(0);
        // Row-major copies; B zero past n (the kernel's contract).
        std::vector<double> A(static_cast<size_t>(k * lda)), B(static_cast<size_t>(k * ldb), 0.0),
            Bscaled(B.size(), 0.0), C0(static_cast<size_t>(cRows * ldc));
        for (long s = 0; s < k; ++s) {
            for (long i = 0; i < lda; ++i) A[static_cast<size_t>(s * lda + i)] = a(s, i);
            for (long j = 0; j < n; ++j) {
                B[static_cast<size_t>(s * ldb + j)] = b0(s, j);
                Bscaled[static_cast<size_t>(s * ldb + j)] = scale(2 * s) * b0(s, j);
            }
        }
        for (size_t i = 0; i < C0.size(); ++i) C0[i] = rng.normal();
        for (const auto& kernel : kernels::availableGemmKernels()) {
            for (const bool scaled : {false, true}) {
                std::vector<double> C = C0;
                kernel.outer(m, n, k, A.data(), lda, B.data(), ldb, scaled ? scale.data() : nullptr,
                             2, C.data(), ldc);
                for (long i = 0; i < cRows; ++i)
                    for (long j = 0; j < ldc; ++j) {
                        const size_t at = static_cast<size_t>(i * ldc + j);
                        if (i >= m || j >= n) {
                            QVERIFY2(C[at] == C0[at], kernel.name);
                            continue;
                        }
                        double ref = C0[at], sum = std::abs(C0[at]);
                        for (long s = 0; s < k; ++s) {
                            const double t = a(s, i) * b0(s, j) * (scaled ? scale(2 * s) : 1.0);
                            ref += t;
                            sum += std::abs(t);
                        }
                        QVERIFY2(std::abs(C[at] - ref) <= 4.0 * k * 1.1e-16 * sum, kernel.name);
                    }
                if (!scaled) continue;
                std::vector<double> Cpre = C0;
                kernel.outer(m, n, k, A.data(), lda, Bscaled.data(), ldb, nullptr, 0, Cpre.data(),
                             ldc);
                QVERIFY2(Cpre == C, kernel.name);
            }
            if (std::string(kernel.name) == "build target") continue;
            const long cut = 2 * kernels::kOuterSumChunk;
            std::vector<double> one = C0, two = C0;
            kernel.outer(m, n, k, A.data(), lda, B.data(), ldb, nullptr, 0, one.data(), ldc);
            kernel.outer(m, n, cut, A.data(), lda, B.data(), ldb, nullptr, 0, two.data(), ldc);
            kernel.outer(m, n, k - cut, A.data() + cut * lda, lda, B.data() + cut * ldb, ldb,
                         nullptr, 0, two.data(), ldc);
            QVERIFY2(one == two, kernel.name);
        }
    }

    // The x86-64 kernels add partial sums of kOuterSumChunk samples: k = 2^17 equal terms 0.1
    // (their exact sum is 0.1 x 2^17, a power of two times a double) come out with a relative
    // error within (chunk + k / chunk) eps = 2.3e-13. One running sum of them errs by 2.3e-12.
    void outerSumAddsChunkSums() {
        const long k = 1L << 17, n = 8;
        std::vector<double> A(static_cast<size_t>(k), 0.1), B(static_cast<size_t>(k * n), 1.0);
        const double exact = 0.1 * static_cast<double>(k);
        const double bound = (kernels::kOuterSumChunk + k / kernels::kOuterSumChunk) * 1.1e-16;
        for (const auto& kernel : kernels::availableGemmKernels()) {
            if (std::string(kernel.name) == "build target") continue;
            std::vector<double> C(static_cast<size_t>(n), 0.0);
            kernel.outer(1, n, k, A.data(), 1, B.data(), n, nullptr, 0, C.data(), n);
            for (const double c : C)
                QVERIFY2(std::abs(c - exact) <= bound * exact,
                         qPrintable(QStringLiteral("%1: relative error %2")
                                        .arg(QString::fromLatin1(kernel.name))
                                        .arg(std::abs(c - exact) / exact)));
        }
    }

    void featureVectorDefinition() {
        Rng rng(1);
        const int d = 3;
        const Mat Z = rng.normalMatrix(d, 4);
        const Vec psi = featureVector(Z);
        const Mat S = Z * Z.transpose();
        for (int a = 0; a < d; ++a)
            for (int b = a; b < d; ++b)
                for (int c = 0; c < d; ++c)
                    QCOMPARE(psi(pairIndex(a, b, d) * d + c), S(a, b) * Z(c, 3));
    }

    // Blocks of any size give the one-shot (1/N) sum psi psi^T and (1/N) sum y psi^T.
    void streamingEqualsOneShot_data() {
        QTest::addColumn<int>("d");
        QTest::addColumn<int>("block");
        QTest::newRow("d2 block1") << 2 << 1;
        QTest::newRow("d4 block7") << 4 << 7;
        QTest::newRow("d5 block64") << 5 << 64;
        QTest::newRow("d4 one block") << 4 << 300;
    }
    void streamingEqualsOneShot() {
        QFETCH(int, d);
        QFETCH(int, block);
        const int n = 3, dOut = 2, N = 300;
        const Data data = randomData(d, n, dOut, N, 77);
        const long long D = featureDim(d);
        Mat L = Mat::Zero(D, D), C = Mat::Zero(dOut, D);
        for (int s = 0; s < N; ++s) {
            const Vec psi = featureVector(data.Z[s]);
            L += psi * psi.transpose();
            C += data.y[s] * psi.transpose();
        }
        L /= N;
        C /= N;
        MomentAccumulator acc(d, dOut);
        for (int s0 = 0; s0 < N; s0 += block) {
            const int e = std::min(N, s0 + block);
            acc.addSamples({data.Z.begin() + s0, data.Z.begin() + e},
                           {data.y.begin() + s0, data.y.begin() + e}, 2);
        }
        QCOMPARE(acc.count(), 300LL);
        const Mat La = acc.lambda();
        QVERIFY((La - La.transpose()).norm() == 0.0);
        QVERIFY2((La - L).norm() <= 1e-13 * L.norm(),
                 qPrintable(QString::number((La - L).norm() / L.norm())));
        QVERIFY((acc.crossMoment() - C).norm() <= 1e-13 * C.norm());
    }

    // Lambda and C are sums of sums (the kernel's chunks of 64 samples, pieces of 512, blocks):
    // N = 2^17 equal samples (u = 1, z_q = 0.1, y = 1; every term of Lambda is fl(0.1 * 0.1),
    // of C 0.1, so the exact sums are N times a double) give every entry within
    // (64 + 8 + N / 512) eps = 3.6e-14 of the exact mean. One running sum over the samples errs by
    // 8e-13.
    void accumulationSumsInLevels() {
        const int d = 2, dOut = 1;
        const long long N = 1LL << 17, B = kAccumulationBlock;
        const int P = pairCount(d);
        const Mat U = Mat::Ones(B, P), Qz = Mat::Constant(B, d, 0.1), Y = Mat::Ones(B, dOut);
        MomentAccumulator acc(d, dOut);
        for (long long s = 0; s < N; s += B) acc.addBlock(U, Qz, Y, 2);
        const double bound = (64.0 + 8.0 + static_cast<double>(N) / 512.0) * 1.1e-16;
        const double term = 0.1 * 0.1;
        const Mat L = acc.lambda();
        for (Index i = 0; i < L.rows(); ++i)
            for (Index j = 0; j < L.cols(); ++j)
                QVERIFY2(std::abs(L(i, j) - term) <= bound * term,
                         qPrintable(QString::number(std::abs(L(i, j) - term) / term)));
        const Mat C = acc.crossMoment();
        for (Index j = 0; j < C.cols(); ++j) QVERIFY(std::abs(C(0, j) - 0.1) <= bound * 0.1);
    }

    void accumulationIsBitIdenticalAcrossThreads() {
        const Data data = randomData(6, 4, 3, 500, 5);
        MomentAccumulator one(6, 3), two(6, 3), four(6, 3);
        one.addSamples(data.Z, data.y, 1);
        two.addSamples(data.Z, data.y, 2);
        four.addSamples(data.Z, data.y, 4);
        QVERIFY(one.lambda() == two.lambda());
        QVERIFY(one.lambda() == four.lambda());
        QVERIFY(one.crossMoment() == two.crossMoment());
    }

    // The whole experiment gives bit-identical numbers with 1 and 2 threads.
    void experimentIsBitIdenticalAcrossThreads_data() {
        QTest::addColumn<QString>("kind");
        QTest::newRow("random_mhla") << QStringLiteral("random_mhla");
        QTest::newRow("associative_memory") << QStringLiteral("associative_memory");
        QTest::newRow("automaton") << QStringLiteral("automaton");
    }
    void experimentIsBitIdenticalAcrossThreads() {
        QFETCH(QString, kind);
        QJsonObject obj{{QStringLiteral("task"), QJsonObject{{QStringLiteral("kind"), kind},
                                                             {QStringLiteral("samples"), 3000}}},
                        {QStringLiteral("eval"), QJsonObject{{QStringLiteral("val_samples"), 700},
                                                             {QStringLiteral("ood_samples"), 700},
                                                             {QStringLiteral("words"), 20}}}};
        const ExperimentConfig cfg = experimentFromJson(obj);
        RunContext c1, c2;
        c1.threads = 1;
        c2.threads = 2;
        const ExperimentResult a = runExperiment(cfg, c1), b = runExperiment(cfg, c2);
        QVERIFY(a.P == b.P);
        QCOMPARE(a.certificate.lambdaMin, b.certificate.lambdaMin);
        QCOMPARE(a.metrics.trainMse, b.metrics.trainMse);
        QCOMPARE(a.metrics.valMse, b.metrics.valMse);
        QCOMPARE(a.metrics.oodRelMse, b.metrics.oodRelMse);
        QVERIFY(a.heads.singularValues == b.heads.singularValues);
        QVERIFY(a.lambdaTrace == b.lambdaTrace);
        if (a.execution) QCOMPARE(a.execution->stepAccuracy, b.execution->stepAccuracy);
    }

    void memoryEstimateGrowsAsDSquared() {
        // O(D^2 + block D): doubling N changes nothing, the estimate is dominated by D^2.
        const double e16 = estimateSolveBytes(16, 16, 1024);
        const double D = static_cast<double>(featureDim(16));
        QVERIFY(e16 >= 8.0 * D * D);
        QVERIFY(e16 <= 8.0 * 5.0 * D * D);
        QVERIFY(physicalMemoryBytes() > 0);
    }
};

QTEST_APPLESS_MAIN(TestFeatures)
#include "tst_features.moc"
