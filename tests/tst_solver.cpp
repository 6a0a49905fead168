// The certificate and the exact solver (MATH.md §3, §4) on closed forms and on the tasks.
#include "core/algebra/certificate.h"
#include "core/algebra/cholesky.h"
#include "core/algebra/features.h"
#include "core/algebra/solver.h"
#include "core/run/runner.h"
#include "smallconfigs.h"
#include "testutil.h"
#include <QTest>

using namespace mhla;

namespace {
ExperimentConfig config(const QJsonObject& task, const QJsonObject& solver = {},
                        const QJsonObject& eval = {}) {
    return test::configFromSections(task, solver, eval);
}
using mhla::test::s;

/// A PSD matrix with a known spectrum: Q diag(ev) Q^T.
Mat withSpectrum(const Vec& ev, std::uint64_t seed) {
    Rng rng(seed);
    const Mat Q = rng.haarOrthogonal(ev.size());
    return Q * ev.asDiagonal() * Q.transpose();
}
} // namespace

class TestSolver : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // Certificate of a matrix with a known spectrum, on both code paths.
    void certificateOfKnownSpectrum_data() {
        QTest::addColumn<QString>("method");
        QTest::addColumn<int>("D");
        QTest::addColumn<int>("zeros");
        QTest::newRow("dense PD") << s("dense") << 60 << 0;
        QTest::newRow("dense null 3") << s("dense") << 60 << 3;
        QTest::newRow("lanczos PD") << s("lanczos") << 300 << 0;
        QTest::newRow("lanczos null 2 falls back") << s("lanczos") << 300 << 2;
    }
    void certificateOfKnownSpectrum() {
        QFETCH(QString, method);
        QFETCH(int, D);
        QFETCH(int, zeros);
        Vec ev(D);
        for (int i = 0; i < D; ++i) ev(i) = i < zeros ? 0.0 : 1e-3 * std::pow(1.05, i);
        const Mat L = withSpectrum(ev, static_cast<std::uint64_t>(D + zeros));
        CertifyOptions opt;
        const Certificate c = certify(L, opt, method.toStdString());
        const double lmax = ev.maxCoeff();
        QVERIFY(std::abs(c.lambdaMax - lmax) <= 1e-10 * lmax);
        QCOMPARE(c.nullDim, zeros);
        QCOMPARE(c.certified, zeros == 0);
        QVERIFY(std::abs(c.tolerance - 1e-10 * lmax) <= 1e-9 * 1e-10 * lmax);
        if (zeros == 0) {
            QVERIFY2(std::abs(c.lambdaMin - 1e-3) <= 1e-9,
                     qPrintable(QString::number(c.lambdaMin)));
            QVERIFY(std::abs(c.condition - lmax / 1e-3) <= 1e-6 * lmax / 1e-3);
            QCOMPARE(QString::fromStdString(c.method), method);
        } else {
            QVERIFY(std::abs(c.lambdaMin) <= 1e-12 * lmax);
            QCOMPARE(QString::fromStdString(c.method), s("dense"));
        }
    }

    // The blocked parallel Cholesky (above kParallelCholeskyMinDim) against Eigen's LLT: the
    // factor reproduces A to round-off, solves agree, rcond agrees, the bits do not depend on
    // the thread count, and a matrix that is not positive definite is reported as such.
    void blockedCholeskyMatchesEigen() {
        const Index D = kParallelCholeskyMinDim + kCholeskyPanel / 2 + 7; // a partial panel
        Rng rng(2024);
        const Mat X = rng.normalMatrix(D + 40, D, 1.0);
        Mat A = X.transpose() * X / static_cast<double>(D);
        A.diagonal().array() += 0.01;
        const Eigen::LLT<Mat> ref(A);
        std::vector<Mat> factors;
        for (int threads : {1, 2, 3}) {
            const auto f = choleskyFactor(A, threads);
            QCOMPARE(f->info(), Eigen::Success);
            factors.push_back(f->matrixL());
        }
        const Mat& L = factors[0];
        const double residual = (L * L.transpose() - A).norm() / A.norm();
        QVERIFY2(residual <= 1e-14, qPrintable(QString::number(residual)));
        QVERIFY(factors[1] == factors[0]); // bit for bit
        QVERIFY(factors[2] == factors[0]);
        const auto f = choleskyFactor(A, 2);
        const Mat B = rng.normalMatrix(D, 3, 1.0);
        const Mat x = f->solve(B), xr = ref.solve(B);
        // Both backward stable: forward errors within cond(A) eps of each other.
        QVERIFY2((x - xr).norm() <= 1e-9 * xr.norm(),
                 qPrintable(QString::number((x - xr).norm() / xr.norm())));
        QVERIFY(std::abs(f->rcond() - ref.rcond()) <= 1e-6 * ref.rcond());
        // Not positive definite: a negative eigenvalue in the middle of the spectrum.
        Mat indefinite = A;
        indefinite.diagonal().array() -= 1.0;
        QCOMPARE(choleskyFactor(indefinite, 2)->info(), Eigen::NumericalIssue);
        // Below the crossover it is Eigen's own factor.
        const Mat small = A.topLeftCorner(100, 100);
        QVERIFY(Mat(choleskyFactor(small, 2)->matrixL()) == Mat(Eigen::LLT<Mat>(small).matrixL()));
    }

    // The trace's smallest eigenvalue: above the dense crossover by Cholesky + shift-invert
    // Lanczos, a singular matrix (which does not factor) by the dense path; both against a known
    // spectrum.
    void smallestEigenvalueOfKnownSpectrum_data() {
        QTest::addColumn<int>("D");
        QTest::addColumn<int>("zeros");
        QTest::newRow("dense, PD") << 60 << 0;
        QTest::newRow("Lanczos, PD") << 288 << 0;
        QTest::newRow("singular: dense fallback") << 288 << 5;
    }
    void smallestEigenvalueOfKnownSpectrum() {
        QFETCH(int, D);
        QFETCH(int, zeros);
        Vec ev(D);
        for (int i = 0; i < D; ++i) ev(i) = i < zeros ? 0.0 : 2e-3 * std::pow(1.03, i);
        const Mat L = withSpectrum(ev, static_cast<std::uint64_t>(7 * D + zeros));
        const double lmin = smallestEigenvalue(L);
        const double expected = zeros > 0 ? 0.0 : 2e-3;
        // Lanczos converges to 1e-12 of the inverse's largest eigenvalue; the dense path is
        // backward stable: |error| <= a few eps * lambda_max.
        QVERIFY2(std::abs(lmin - expected) <= 1e-12 * ev.maxCoeff() + 1e-10 * expected,
                 qPrintable(QString::number(lmin, 'g', 17)));
        // The same number as the certificate's own path (the trace ends at the certificate).
        const Certificate c = certify(L, CertifyOptions{});
        QVERIFY2(std::abs(lmin - c.lambdaMin) <= 1e-12 * c.lambdaMax,
                 qPrintable(QString::number(lmin - c.lambdaMin)));
    }

    // P Lambda = C: Cholesky, minimum-norm (pseudo-inverse) and ridge, against independent
    // closed forms.
    void solveAgainstClosedForms() {
        const int D = 40, dOut = 3;
        Vec ev(D);
        for (int i = 0; i < D; ++i) ev(i) = i < 4 ? 0.0 : 0.1 + i;
        const Mat L = withSpectrum(ev, 3);
        Rng rng(8);
        const Mat C = rng.normalMatrix(dOut, D);
        CertifyOptions opt;
        // Minimum-norm: C Lambda^+, with the pseudo-inverse from a complete orthogonal
        // decomposition (an independent algorithm).
        const PolySolution mn = solveCertified(L, C, 0.0, opt);
        QCOMPARE(QString::fromStdString(mn.method), s("min-norm"));
        Eigen::CompleteOrthogonalDecomposition<Mat> cod(L);
        cod.setThreshold(1e-10);
        const Mat pinv = cod.pseudoInverse();
        QVERIFY2((mn.P - C * pinv).norm() <= 1e-9 * (C * pinv).norm(),
                 qPrintable(QString::number((mn.P - C * pinv).norm())));
        QCOMPARE(mn.nullVector.size(), static_cast<Index>(D));
        QVERIFY((L * mn.nullVector).norm() <= 1e-12 * ev.maxCoeff());
        // Ridge: C (Lambda + rho I)^{-1}.
        const PolySolution rg = solveCertified(L, C, 0.5, opt);
        const Mat expect = C * (L + 0.5 * Mat::Identity(D, D)).inverse();
        QVERIFY((rg.P - expect).norm() <= 1e-12 * expect.norm());
        // Certified: P Lambda = C to round-off on both paths.
        const Mat Lpd = withSpectrum(Vec::LinSpaced(150, 0.01, 10.0), 4);
        const Mat C2 = rng.normalMatrix(dOut, 150);
        for (long long crossover : {1000LL, 10LL}) {
            opt.denseCrossover = crossover;
            const PolySolution ex = solveCertified(Lpd, C2, 0.0, opt);
            QVERIFY(ex.certificate.certified);
            QCOMPARE(QString::fromStdString(ex.certificate.method),
                     crossover == 10 ? s("lanczos") : s("dense"));
            QVERIFY((ex.P * Lpd - C2).norm() <= 1e-11 * C2.norm());
        }
    }

    // The iterative null-space path (large D, not certified) against the dense path and a
    // pseudo-inverse from an independent algorithm: the same null dimension, lambda_min at the
    // zeros, the minimum-norm P to 1e-9 relative, a null vector with ||Lambda v|| <= 1e-12
    // lambda_max; a null space larger than kMaxIterativeNullDim falls back to the dense path.
    void lanczosNullSpaceMatchesDense_data() {
        QTest::addColumn<int>("D");
        QTest::addColumn<int>("zeros");
        QTest::addColumn<QString>("expectMethod");
        QTest::newRow("null 1") << 300 << 1 << s("lanczos");
        QTest::newRow("null 4") << 300 << 4 << s("lanczos");
        QTest::newRow("null 12 (negative round-off)") << 400 << 12 << s("lanczos");
        QTest::newRow("null 300 falls back") << 600 << 300 << s("dense");
    }
    void lanczosNullSpaceMatchesDense() {
        QFETCH(int, D);
        QFETCH(int, zeros);
        QFETCH(QString, expectMethod);
        const int dOut = 3;
        Vec ev(D);
        for (int i = 0; i < D; ++i) ev(i) = i < zeros ? 0.0 : 1e-3 * std::pow(1.02, i);
        const Mat L = withSpectrum(ev, static_cast<std::uint64_t>(7 * D + zeros));
        Rng rng(11);
        const Mat C = rng.normalMatrix(dOut, D);
        CertifyOptions opt;
        opt.denseCrossover = 10;
        opt.nullSpaceCrossover = 10;
        const PolySolution ns = solveCertified(L, C, 0.0, opt);
        QVERIFY(!ns.certificate.certified);
        QCOMPARE(ns.certificate.nullDim, zeros);
        QCOMPARE(QString::fromStdString(ns.certificate.method), expectMethod);
        QCOMPARE(QString::fromStdString(ns.method), s("min-norm"));
        const double lmax = ev.maxCoeff();
        QVERIFY(std::abs(ns.certificate.lambdaMax - lmax) <= 1e-10 * lmax);
        QVERIFY(std::abs(ns.certificate.lambdaMin) <= 1e-12 * lmax);
        opt.nullSpaceCrossover = 1000000;
        const PolySolution dense = solveCertified(L, C, 0.0, opt);
        QCOMPARE(QString::fromStdString(dense.certificate.method), s("dense"));
        QCOMPARE(dense.certificate.nullDim, zeros);
        Eigen::CompleteOrthogonalDecomposition<Mat> cod(L);
        cod.setThreshold(1e-10);
        const Mat expect = C * cod.pseudoInverse();
        QVERIFY2((ns.P - expect).norm() <= 1e-9 * expect.norm(),
                 qPrintable(QString::number((ns.P - expect).norm() / expect.norm())));
        QVERIFY((dense.P - expect).norm() <= 1e-9 * expect.norm());
        QCOMPARE(ns.nullVector.size(), static_cast<Index>(D));
        QVERIFY2(std::abs(ns.nullVector.norm() - 1.0) <= 1e-12,
                 qPrintable(QString::number(ns.nullVector.norm() - 1.0)));
        QVERIFY2((L * ns.nullVector).norm() <= 1e-12 * lmax,
                 qPrintable(QString::number((L * ns.nullVector).norm() / lmax)));
    }

    // Exact recovery of a random MHLA teacher from certified data.
    void recoversRandomTeacher_data() {
        QTest::addColumn<int>("d");
        QTest::addColumn<int>("heads");
        QTest::addColumn<int>("tokens");
        QTest::newRow("d3 H1") << 3 << 1 << 4;
        QTest::newRow("d4 H2") << 4 << 2 << 3;
        QTest::newRow("d5 H8 more heads than d") << 5 << 8 << 6;
    }
    void recoversRandomTeacher() {
        QFETCH(int, d);
        QFETCH(int, heads);
        QFETCH(int, tokens);
        const ExperimentConfig cfg =
            config({{s("kind"), s("random_mhla")},
                    {s("d"), d},
                    {s("d_out"), d},
                    {s("tokens"), tokens},
                    {s("teacher_heads"), heads},
                    {s("samples"), 4000}},
                   {}, {{s("val_samples"), 1000}, {s("ood_samples"), 1000}});
        const ExperimentResult r = runExperiment(cfg);
        QVERIFY(r.certificate.certified);
        QCOMPARE(r.certificate.nullDim, 0);
        QVERIFY2(r.metrics.distancePRel <= 1e-9,
                 qPrintable(QString::number(r.metrics.distancePRel)));
        QVERIFY(r.metrics.trainMse <= 1e-24);
        QVERIFY(r.metrics.valMse <= 1e-24);
        QVERIFY2(r.metrics.oodRelMse <= 1e-20, qPrintable(QString::number(r.metrics.oodRelMse)));
        // Heads of the solution and the teacher agree in canonical form.
        QCOMPARE(r.heads.rank, r.teacherHeads.rank);
        QVERIFY((r.heads.singularValues - r.teacherHeads.singularValues).norm() <=
                1e-8 * r.teacherHeads.singularValues.norm());
    }

    // Agnostic setting: label noise sigma; the least-squares fit approaches the Bayes error
    // sigma^2 on fresh samples (excess ~ sigma^2 D / N).
    void noisyLabelsApproachBayesError() {
        const double sigma = 0.1;
        const ExperimentConfig cfg = config({{s("kind"), s("random_mhla")},
                                             {s("d"), 3},
                                             {s("d_out"), 1},
                                             {s("tokens"), 4},
                                             {s("noise"), sigma},
                                             {s("samples"), 20000}},
                                            {}, {{s("val_samples"), 20000}});
        const ExperimentResult r = runExperiment(cfg);
        QVERIFY(r.certificate.certified);
        QVERIFY2(std::abs(r.metrics.valMse / (sigma * sigma) - 1.0) <= 0.05,
                 qPrintable(QString::number(r.metrics.valMse)));
        QVERIFY(std::abs(r.metrics.trainMse / (sigma * sigma) - 1.0) <= 0.05);
        QVERIFY(r.metrics.distancePRel > 1e-6);
        QVERIFY(r.metrics.distancePRel < 0.1);
    }

    // Associative memory: Gaussian keys certify and recover the teacher; orthogonal keys do
    // not certify, and then a second least-squares solution fits the training data equally
    // well while computing a different function out of distribution.
    void associativeMemoryCertificate_data() {
        QTest::addColumn<int>("pairs");
        QTest::newRow("m=2") << 2;
        QTest::newRow("m=3") << 3;
    }
    void associativeMemoryCertificate() {
        QFETCH(int, pairs);
        const QJsonObject ev{{s("val_samples"), 2000}, {s("ood_samples"), 2000}};
        const ExperimentResult good = runExperiment(config({{s("kind"), s("associative_memory")},
                                                            {s("pairs"), pairs},
                                                            {s("orthogonal_prob"), 0.0},
                                                            {s("samples"), 8000}},
                                                           {}, ev));
        QVERIFY(good.certificate.certified);
        QVERIFY(good.certificate.lambdaMin > 1e-4 * good.certificate.lambdaMax);
        QVERIFY(good.metrics.distancePRel <= 1e-9);
        QVERIFY(good.metrics.oodRelMse <= 1e-20);
        QVERIFY(!good.nullWitness);

        const ExperimentResult bad = runExperiment(config({{s("kind"), s("associative_memory")},
                                                           {s("pairs"), pairs},
                                                           {s("orthogonal_prob"), 1.0},
                                                           {s("samples"), 8000}},
                                                          {}, ev));
        QVERIFY(!bad.certificate.certified);
        QVERIFY(bad.certificate.nullDim > 0);
        QCOMPARE(QString::fromStdString(bad.solveMethod), s("min-norm"));
        QVERIFY(bad.metrics.trainMse <= 1e-24); // the minimum-norm solution fits
        QVERIFY(bad.nullWitness.has_value());
        QVERIFY(bad.nullWitness->trainMse <= 1e-24); // so does the witness ...
        QVERIFY2(bad.nullWitness->oodRelMse >= 1e-2, // ... which misses the teacher elsewhere
                 qPrintable(QString::number(bad.nullWitness->oodRelMse)));
        QVERIFY(std::abs(bad.nullWitness->distancePRel - 1.0) <= 0.01 + bad.metrics.distancePRel);
        // Finding (see README): the teacher is orthogonal to the null space of Lambda here, so
        // the minimum-norm solution happens to be the teacher.
        QVERIFY(bad.metrics.distancePRel <= 1e-9);
    }

    void lowerOrthogonalProbabilityRestoresCertificate() {
        const ExperimentResult r =
            runExperiment(config({{s("kind"), s("associative_memory")},
                                  {s("pairs"), 2},
                                  {s("orthogonal_prob"), 0.9},
                                  {s("samples"), 8000}},
                                 {}, {{s("val_samples"), 500}, {s("ood_samples"), 500}}));
        QVERIFY(r.certificate.certified);
    }

    // The lambda_min trace is non-decreasing in expectation and ends at the final lambda_min.
    void lambdaTraceEndsAtCertificate() {
        const ExperimentResult r = runExperiment(
            config({{s("kind"), s("associative_memory")}, {s("samples"), 5000}}, {},
                   {{s("lambda_trace"), 8}, {s("val_samples"), 100}, {s("ood_samples"), 100}}));
        QVERIFY(r.lambdaTrace.size() >= 2);
        QCOMPARE(r.lambdaTrace.back().first, 5000LL);
        QVERIFY(std::abs(r.lambdaTrace.back().second - r.certificate.lambdaMin) <=
                1e-12 * r.certificate.lambdaMax);
        QVERIFY(r.lambdaTrace.front().first < r.lambdaTrace.back().first);
        // Fewer samples (20) than features (40): rank-deficient, lambda_min ~ 0.
        QVERIFY(std::abs(r.lambdaTrace.front().second) <= 1e-10 * r.certificate.lambdaMax);
    }

    void truncatedHeadsReportTheirLoss() {
        const ExperimentResult r = runExperiment(
            config({{s("kind"), s("random_mhla")},
                    {s("d"), 3},
                    {s("d_out"), 3},
                    {s("teacher_heads"), 3},
                    {s("samples"), 3000}},
                   {{s("heads"), 1}}, {{s("val_samples"), 500}, {s("ood_samples"), 500}}));
        QCOMPARE(r.heads.heads.count(), 1);
        QVERIFY(r.heads.rank > 1);
        QVERIFY(r.untruncatedMetrics.has_value());
        QVERIFY(r.untruncatedMetrics->valMse <= 1e-24);
        QVERIFY(r.metrics.valMse > 1e-6); // one head cannot represent a rank > 1 solution
        QVERIFY((r.P - foldHeads(r.heads.heads, 3, 3)).norm() <= 1e-12 * r.P.norm());
    }

    void ridgeShrinksTowardZero() {
        const auto run = [](double ridge) {
            return runExperiment(
                config({{s("kind"), s("associative_memory")}, {s("samples"), 3000}},
                       {{s("ridge"), ridge}}, {{s("val_samples"), 500}, {s("ood_samples"), 500}}));
        };
        const ExperimentResult a = run(0.0), b = run(1.0);
        QCOMPARE(QString::fromStdString(b.solveMethod), s("ridge"));
        QVERIFY(b.P.norm() < a.P.norm());
        QVERIFY(b.metrics.trainMse > a.metrics.trainMse);
    }

    void cancellationStopsTheRun() {
        CancelToken token;
        token.cancel();
        RunContext ctx;
        ctx.cancel = &token;
        bool cancelled = false;
        try {
            (void)runExperiment(ExperimentConfig{}, ctx);
        } catch (const Cancelled&) {
            cancelled = true;
        }
        QVERIFY(cancelled);
    }
};

QTEST_APPLESS_MAIN(TestSolver)
#include "tst_solver.moc"
