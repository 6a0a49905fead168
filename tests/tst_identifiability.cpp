// The identifiability explorer (issue 11): min_heads, the H-head probe, the null relations,
// certificate_samples and the noise predictions, against closed forms, constructions with a
// known answer and Monte-Carlo over seeds.
#include "core/algebra/certificate.h"
#include "core/algebra/features.h"
#include "core/algebra/solver.h"
#include "core/identifiability/certificatesamples.h"
#include "core/identifiability/lowrank.h"
#include "core/identifiability/minheads.h"
#include "core/identifiability/noise.h"
#include "core/identifiability/nullrelations.h"
#include "core/identifiability/probes.h"
#include "core/identifiability/representatives.h"
#include "core/tasks/tasks.h"
#include "sanitizer.h"
#include "testutil.h"
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>
#include <algorithm>

using namespace mhla;

namespace {

using mhla::test::s;

/// Folded coefficients of a random H-head teacher (entries N(0, 1/d), as the random_mhla task).
Mat randomTeacherP(int d, int dOut, int H, std::uint64_t seed) {
    Rng rng(seed, Stream::Teacher);
    Heads h;
    const double sd = 1.0 / std::sqrt(static_cast<double>(d));
    for (int k = 0; k < H; ++k) {
        h.V.push_back(rng.normalMatrix(dOut, d, sd));
        h.Q.push_back(rng.normalMatrix(d, d, sd));
    }
    return foldHeads(h, d, dOut);
}

std::unique_ptr<Task> randomTask(int d, int tokens, long long seed, double noise = 0.0,
                                 int heads = 1) {
    TaskConfig tc;
    tc.kind = TaskKind::RandomMhla;
    tc.d = d;
    tc.dOut = d;
    tc.tokens = tokens;
    tc.teacherHeads = heads;
    tc.noise = noise;
    tc.seed = seed;
    // The data these tests pin (the known failures of issue 21.3 among them) were drawn with
    // the generator before task.rng; under philox those three rows pass.
    tc.rng = RngKind::XoshiroZiggurat;
    return makeTask(tc);
}

std::unique_ptr<Task> associativeTask(int pairs, double orthogonalProb, long long seed) {
    TaskConfig tc;
    tc.kind = TaskKind::AssociativeMemory;
    tc.pairs = pairs;
    tc.orthogonalProb = orthogonalProb;
    tc.seed = seed;
    return makeTask(tc);
}

/// Lambda and C of the first N training samples.
MomentAccumulator accumulate(const Task& task, long long N) {
    MomentAccumulator acc(task.d(), task.dOut());
    std::vector<Mat> Z;
    std::vector<Vec> y;
    for (long long i = 0; i < N; ++i) {
        Sample smp = task.sample(Stream::Train, i);
        Z.push_back(std::move(smp.Z));
        y.push_back(std::move(smp.y));
    }
    acc.addSamples(Z, y);
    return acc;
}

/// A PSD matrix whose null space is exactly span(N) (columns), random positive spectrum elsewhere.
Mat lambdaWithNullSpace(const Mat& N, std::uint64_t seed) {
    const Index D = N.rows();
    Eigen::ColPivHouseholderQR<Mat> qr(N);
    const Mat Qfull = qr.householderQ() * Mat::Identity(D, D);
    const Index k = qr.rank();
    Rng rng(seed);
    const Mat comp = Qfull.rightCols(D - k);
    Vec ev(D - k);
    for (Index i = 0; i < ev.size(); ++i) ev(i) = 0.1 + rng.uniform();
    return comp * ev.asDiagonal() * comp.transpose();
}

/// The least-squares fit P of a certified random-MHLA run (the how_many_heads preset's setup:
/// T = 8 tokens, N = 2048 samples, noise 0), as the exact solver computes it; *certified says
/// whether Lambda certified.
Mat certifiedFitP(int d, int heads, long long seed, bool* certified) {
    const auto task = randomTask(d, 8, seed, 0.0, heads);
    const MomentAccumulator acc = accumulate(*task, 2048);
    const PolySolution sol = solveCertified(acc.lambda(), acc.crossMoment(), 0.0, CertifyOptions{});
    if (certified) *certified = sol.certificate.certified;
    return sol.P;
}

// Under AddressSanitizer a d = 5 min_heads search takes minutes (measured 2026-12-02: ~45 s a
// row alone, over the 300 s test-function limit with the rest of the suite beside it in CI).
using mhla::test::kUnderAsan;

} // namespace

class TestIdentifiability : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // proj(W) = W - sym(W) + unfold(P) is the Euclidean projection onto {fold(W) = P}:
    // feasible, idempotent, and W - proj(W) is orthogonal to ker(fold). Identities to round-off.
    void projectionOntoRepresentatives() {
        const int d = 4, dOut = 3;
        Rng rng(11);
        const Mat P = rng.normalMatrix(dOut, featureDim(d));
        const Mat W = rng.normalMatrix(dOut * d, d * d);
        const Mat X = projectOntoRepresentatives(W, P, d);
        QVERIFY((foldW(X, d, dOut) - P).norm() <= 1e-14 * P.norm());
        QVERIFY((projectOntoRepresentatives(X, P, d) - X).norm() <= 1e-14 * X.norm());
        const Mat K = foldKernelPart(rng.normalMatrix(dOut * d, d * d), d);
        QVERIFY(foldW(K, d, dOut).norm() <= 1e-14 * K.norm());
        const double inner = ((W - X).array() * K.array()).sum();
        QVERIFY2(std::abs(inner) <= 1e-13 * (W - X).norm() * K.norm(),
                 qPrintable(QString::number(inner)));
        // unfold(fold(W)) = W - kernel part (the symmetric part), and the kernel part is
        // antisymmetric in (a, b).
        QVERIFY((unfoldP(foldW(W, d, dOut), d) - (W - foldKernelPart(W, d))).norm() <=
                1e-14 * W.norm());
        const Mat A = foldKernelPart(W, d);
        for (int i = 0; i < dOut; ++i)
            for (int a = 0; a < d; ++a)
                for (int b = 0; b < d; ++b)
                    for (int c = 0; c < d; ++c)
                        QVERIFY(std::abs(A(i * d + a, b * d + c) + A(i * d + b, a * d + c)) <=
                                1e-15);
    }

    // Singular value thresholding through the Gram matrix agrees with the definition through a
    // full SVD, sum_{s_k > t} (s_k - t) u_k v_k^T, for wide and tall matrices and for one of
    // known singular values (rank 5 with s = 5, 4, 3, 2, 1 at t = 2.5: rank 3, spectrum 2.5,
    // 1.5, 0.5); the error is round-off times s_1 / t (lowrank.h).
    void singularValueThresholding() {
        Rng rng(17);
        for (const auto& [rows, cols] : {std::pair<Index, Index>{32, 64}, {64, 32}, {12, 12}}) {
            const Mat A = rng.normalMatrix(rows, cols);
            const lowrank::Svd s = lowrank::svdOf(A);
            for (const double frac : {0.05, 0.3, 0.9}) {
                const double t = frac * s.s(0);
                int k = 0;
                while (k < s.s.size() && s.s(k) > t) ++k;
                const Vec shrunk = (s.s.head(k).array() - t).matrix();
                const Mat ref = s.U.leftCols(k) * shrunk.asDiagonal() * s.V.leftCols(k).transpose();
                int rank = -1;
                const Mat Y = lowrank::shrinkSingularValues(A, t, &rank);
                QCOMPARE(rank, k);
                QVERIFY2((Y - ref).norm() <= 1e-13 * s.s(0) / frac,
                         qPrintable(QString::number((Y - ref).norm())));
            }
        }
        const Mat U = Eigen::HouseholderQR<Mat>(rng.normalMatrix(20, 5)).householderQ() *
                      Mat::Identity(20, 5);
        const Mat V = Eigen::HouseholderQR<Mat>(rng.normalMatrix(30, 5)).householderQ() *
                      Mat::Identity(30, 5);
        const Vec sv = (Vec(5) << 5, 4, 3, 2, 1).finished();
        int rank = -1;
        const Mat Y =
            lowrank::shrinkSingularValues(U * sv.asDiagonal() * V.transpose(), 2.5, &rank);
        QCOMPARE(rank, 3);
        const Vec got = lowrank::svdOf(Y).s;
        for (int i = 0; i < 3; ++i) QVERIFY(std::abs(got(i) - (2.5 - i)) <= 1e-13);
        QVERIFY(got(3) <= 1e-13);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, lowrank::shrinkSingularValues(Y, 0.0));
    }

    // The rank-r truncation through the Gram matrix equals the SVD's (truncateRank) for wide,
    // tall and square matrices, to round-off times s_1 / (s_r - s_{r+1}), and its V is an
    // orthonormal basis of the truncation's row space: Y V V^T = Y.
    void truncationThroughTheGramMatrix() {
        Rng rng(23);
        for (const auto& [rows, cols] : {std::pair<Index, Index>{32, 64}, {64, 32}, {64, 64}})
            for (const int r : {1, 3, 8}) {
                const Mat X = rng.normalMatrix(rows, cols);
                const Vec s = lowrank::svdOf(X).s;
                Mat V;
                const Mat Y = lowrank::truncateRankGram(X, r, V);
                const Mat ref = lowrank::truncateRank(X, r);
                const double bound = 1e-13 * s(0) * s(0) / (s(r - 1) - s(r));
                QVERIFY2((Y - ref).norm() <= bound, qPrintable(QString::number((Y - ref).norm())));
                QCOMPARE(V.rows(), cols);
                QCOMPARE(V.cols(), Index(r));
                QVERIFY((V.transpose() * V - Mat::Identity(r, r)).norm() <= 1e-13);
                QVERIFY((Y * V * V.transpose() - Y).norm() <= 1e-12 * s(0));
            }
    }

    // Levenberg-Marquardt from a start 1e-9 away from an exact rank-3 representative reaches
    // the round-off of the residual (4 eps sqrt(entries) ||W||) and stops there: a few outer
    // steps, not all 60 (below that floor the residual's noise kept resetting the stall count,
    // and every step ran a full CG solve).
    void levenbergMarquardtStopsAtRoundOff() {
        const int d = 8, dOut = 4, H = 3;
        Rng teacher(5, Stream::Teacher);
        Heads h;
        for (int k = 0; k < H; ++k) {
            h.V.push_back(teacher.normalMatrix(dOut, d));
            h.Q.push_back(teacher.normalMatrix(d, d));
        }
        // P as a least-squares solve returns it: the teacher's, off by round-off (5e-15 relative),
        // so that no rank-3 W folds to it more exactly than that.
        const Mat Pt = foldHeads(h, d, dOut), Wt = headsToW(h, d, dOut);
        const Mat noise = Rng(7).normalMatrix(Pt.rows(), Pt.cols());
        const Mat P = Pt + 5e-15 * Pt.norm() / noise.norm() * noise, W0 = unfoldP(P, d);
        const lowrank::AffineSet set{[d](const Mat& X) { return lowrank::symPart(X, d); }, W0};
        lowrank::Factors f = lowrank::truncatedFactors(Wt, H);
        Rng rng(3);
        f.U += 1e-9 * f.U.norm() * rng.normalMatrix(f.U.rows(), H) / std::sqrt(f.U.size());
        const double sigma1 = lowrank::svdOf(W0).s(0);
        int steps = -1;
        const double fn = lowrank::levenbergMarquardt(set, f, sigma1, W0.norm(), 60, {}, 8, &steps);
        const double floor =
            4 * std::numeric_limits<double>::epsilon() * std::sqrt(double(W0.size())) * W0.norm();
        QVERIFY2(fn <= floor, qPrintable(QString::number(fn / W0.norm())));
        QVERIFY2(steps <= 6, qPrintable(QString::number(steps)));
        QVERIFY((foldW(f.product(), d, dOut) - P).norm() <= 1e-13 * P.norm());
    }

    // Random H*-head teachers: min_heads = H*, the refit reproduces P* to 1e-10, the canonical
    // heads fold back to P*, and H* - 1 heads fail from every start.
    void minHeadsOfRandomTeachers_data() {
        QTest::addColumn<int>("d");
        QTest::addColumn<int>("heads");
        for (int d = 3; d <= 6; ++d)
            for (int h = 1; h <= 3; ++h) QTest::addRow("d%d H%d", d, h) << d << h;
    }
    void minHeadsOfRandomTeachers() {
        QFETCH(int, d);
        QFETCH(int, heads);
        const Mat P = randomTeacherP(d, d, heads, static_cast<std::uint64_t>(100 + 10 * d + heads));
        MinHeadsOptions opt;
        opt.genericHeadsMaxRows = 0;
        const MinHeadsResult r = minHeads(P, d, opt);
        QCOMPARE(r.minHeads, heads);
        QVERIFY(r.exact);
        QVERIFY2(r.refitErrorRel <= 1e-10, qPrintable(QString::number(r.refitErrorRel)));
        QCOMPARE(r.unfoldRank, d * d); // the symmetric representative hides the low rank
        QCOMPARE(r.maxHeads, d * d);
        QCOMPARE(r.heads.count(), heads);
        const Mat back = foldHeads(r.heads, d, d);
        QVERIFY2((back - P).norm() <= 1e-10 * P.norm(),
                 qPrintable(QString::number((back - P).norm() / P.norm())));
        // Canonical form: the heads are the SVD of W_r.
        QVERIFY((headsToW(r.heads, d, d) - r.W).norm() <= 1e-12 * r.W.norm());
        Eigen::JacobiSVD<Mat> svd(r.W);
        QVERIFY((svd.singularValues().head(heads) - r.headSingularValues).norm() <=
                1e-12 * r.headSingularValues(0));
        if (heads > 1) {
            QVERIFY2(r.lowerRankBestErrorRel >= 1e-3,
                     qPrintable(QString::number(r.lowerRankBestErrorRel)));
            QVERIFY(r.lowerRankStarts >= opt.starts);
        } else {
            QVERIFY(std::isnan(r.lowerRankBestErrorRel));
        }
    }

    // The refit starts run as many at a time as there are threads: the search's report, its
    // attempts and their counts, is the same for 1, 2 and 3 threads (a sequential loop that
    // stops at the first exact fit would report exactly this).
    void minHeadsIndependentOfThreadCount() {
        const int d = 4, heads = 3;
        const Mat P = randomTeacherP(d, d, heads, 77);
        MinHeadsOptions opt;
        opt.genericHeadsMaxRows = 0;
        std::vector<QByteArray> reports;
        for (int threads : {1, 2, 3}) {
            RunContext ctx;
            ctx.threads = threads;
            const MinHeadsResult r = minHeads(P, d, opt, ctx);
            QCOMPARE(r.minHeads, heads);
            reports.push_back(QJsonDocument(toJson(r)).toJson(QJsonDocument::Compact));
        }
        QVERIFY(reports[0].contains("\"attempts\""));
        QCOMPARE(reports[1], reports[0]);
        QCOMPARE(reports[2], reports[0]);
    }

    // Issue 21 point 3: certified random-MHLA fits just below the generic count, where the
    // search used to report more heads than the teacher has (d = 4, H* = 6 -> 7 in 3/3 seeds;
    // d = 5, H* = 9 -> 10). min_heads <= H* with an exact refit (a proven upper bound). The
    // continuation from the (H* + 1)-head fit fixes seed 1; the other rows are known failures
    // (QEXPECT_FAIL: an XPASS here means the search got better and the mark must go).
    void minHeadsNeverAboveCertifiedTeacher_data() {
        QTest::addColumn<int>("d");
        QTest::addColumn<int>("heads");
        QTest::addColumn<int>("seed");
        for (int seed = 1; seed <= 3; ++seed) QTest::addRow("d4 H6 seed%d", seed) << 4 << 6 << seed;
        QTest::newRow("d5 H9 seed1") << 5 << 9 << 1;
    }
    void minHeadsNeverAboveCertifiedTeacher() {
        QFETCH(int, d);
        QFETCH(int, heads);
        QFETCH(int, seed);
        bool certified = false;
        const Mat P = certifiedFitP(d, heads, seed, &certified);
        QVERIFY(certified);
        const MinHeadsResult r = minHeads(P, d);
        QString tried;
        for (const RankAttempt& a : r.attempts)
            tried += QString::asprintf(" %d:%s:%d:%.2g", a.rank, a.phase.c_str(), a.starts,
                                       a.bestErrorRel);
        if (seed > 1 || d == 5)
            QEXPECT_FAIL("",
                         "the search alone (data without a teacher): every start at rank H* "
                         "ends near 3e-3; with the teacher see minHeadsWithTheTeacherNeverAboveIt",
                         Abort);
        QVERIFY2(r.minHeads <= heads, qPrintable(QString::number(r.minHeads) + tried));
        QVERIFY(r.exact);
        QVERIFY2(r.refitErrorRel <= r.exactTol, qPrintable(QString::number(r.refitErrorRel)));
        QVERIFY((foldHeads(r.heads, d, d) - P).norm() <= r.exactTol * P.norm());
    }

    // The same certified fits with the teacher's W given (what the explorer does on a synthetic
    // task): the refit from it reproduces P with H* heads, so min_heads <= H* in every row, the
    // teacher attempt is recorded, and search_min_heads keeps what the blind search found.
    void minHeadsWithTheTeacherNeverAboveIt_data() { minHeadsNeverAboveCertifiedTeacher_data(); }
    void minHeadsWithTheTeacherNeverAboveIt() {
        QFETCH(int, d);
        QFETCH(int, heads);
        QFETCH(int, seed);
        if (kUnderAsan && d > 4)
            QSKIP("a d = 5 search takes minutes under ASan; the release suites run this row");
        const auto task = randomTask(d, 8, seed, 0.0, heads);
        bool certified = false;
        const Mat P = certifiedFitP(d, heads, seed, &certified);
        QVERIFY(certified);
        MinHeadsOptions opt;
        opt.teacherW = headsToW(task->teacher(), d, static_cast<int>(P.rows()));
        const MinHeadsResult r = minHeads(P, d, opt);
        QVERIFY2(r.minHeads <= heads, qPrintable(QString::number(r.minHeads)));
        QVERIFY(r.exact);
        QVERIFY2(r.refitErrorRel <= r.exactTol, qPrintable(QString::number(r.refitErrorRel)));
        QVERIFY((foldHeads(r.heads, d, d) - P).norm() <= r.exactTol * P.norm());
        QVERIFY(r.searchMinHeads >= r.minHeads);
        // search_min_heads is what the search alone finds (one search more at d = 4 only: a
        // d = 5 search takes minutes under ASan).
        if (d == 4) QCOMPARE(r.searchMinHeads, minHeads(P, d).minHeads);
        const bool teacherTried =
            std::any_of(r.attempts.begin(), r.attempts.end(),
                        [](const RankAttempt& a) { return a.phase == "teacher"; });
        // The teacher is refitted only when the search stopped above its rank.
        QCOMPARE(teacherTried, r.searchMinHeads > heads);
        if (r.searchMinHeads > heads)
            QVERIFY2(QString::fromStdString(r.note).contains(QStringLiteral("without them")),
                     r.note.c_str());
        // min_heads - 1 was tried below the teacher's fit: evidence is still reported.
        QVERIFY(r.lowerRankStarts > 0);
    }

    // The table of issue 21 point 3 (not in the default run: set MHLA_BENCH_MIN_HEADS=1, and
    // optionally MHLA_BENCH_MIN_HEADS_D=4,5,6; d = 6 needs QTEST_FUNCTION_TIMEOUT=3600000 or more):
    // for d = 4, 5, 6 and H* = 1 .. generic_heads(d), certified fits, 3 seeds each: min_heads found
    // vs H* and the median time of the search.
    void benchMinHeadsTable() {
        if (qEnvironmentVariableIsEmpty("MHLA_BENCH_MIN_HEADS"))
            QSKIP("set MHLA_BENCH_MIN_HEADS=1 to measure the min_heads table");
        QList<int> dims{4, 5, 6};
        if (const QString only = qEnvironmentVariable("MHLA_BENCH_MIN_HEADS_D"); !only.isEmpty()) {
            dims.clear();
            for (const QString& t : only.split(QLatin1Char(','))) dims.append(t.toInt());
        }
        int runs = 0, above = 0, blindAbove = 0;
        for (int d : dims) {
            const int generic = genericMinHeads(d, d);
            for (int h = 1; h <= generic; ++h) {
                QStringList found;
                std::vector<double> secs;
                for (int seed = 1; seed <= 3; ++seed) {
                    bool certified = false;
                    const Mat P = certifiedFitP(d, h, seed, &certified);
                    QVERIFY(certified);
                    QElapsedTimer t;
                    t.start();
                    MinHeadsOptions opt;
                    opt.teacherW = headsToW(randomTask(d, 8, seed, 0.0, h)->teacher(), d, d);
                    const MinHeadsResult r = minHeads(P, d, opt);
                    secs.push_back(static_cast<double>(t.nsecsElapsed()) * 1e-9);
                    found << QString::number(r.minHeads) + (r.exact ? QString() : s("!")) + s("/") +
                                 QString::number(r.searchMinHeads);
                    ++runs;
                    if (r.minHeads > h) ++above;
                    if (r.searchMinHeads > h) ++blindAbove;
                }
                std::sort(secs.begin(), secs.end());
                std::printf("min_heads d=%d generic=%d H*=%2d found (with teacher/search alone) %s "
                            "median %.2f s\n",
                            d, generic, h, qPrintable(found.join(s(" "))), secs[1]);
                std::fflush(stdout);
            }
        }
        std::printf("min_heads above H*: %d of %d runs (search alone: %d)\n", above, runs,
                    blindAbove);
        QCOMPARE(above, 0);
    }

    // The search does not depend on the relaxation: with no relaxation step its guess is rank 1,
    // which fails, and the bisection on (1, unfold_rank] still finds H* (and tests H* - 1).
    void minHeadsWithoutRelaxation_data() {
        QTest::addColumn<int>("heads");
        QTest::newRow("H2") << 2;
        QTest::newRow("H3") << 3;
    }
    void minHeadsWithoutRelaxation() {
        QFETCH(int, heads);
        const int d = 4;
        const Mat P = randomTeacherP(d, d, heads, static_cast<std::uint64_t>(300 + heads));
        MinHeadsOptions opt;
        opt.relaxationIterations = 0;
        opt.genericHeadsMaxRows = 0;
        const MinHeadsResult r = minHeads(P, d, opt);
        QCOMPARE(r.nuclearRank, 1);
        QVERIFY(!r.relaxationConverged);
        QCOMPARE(r.minHeads, heads);
        QVERIFY(r.exact);
        QVERIFY(r.lowerRankBestErrorRel >= 1e-3);
        QVERIFY(!r.attempts.front().exact);
    }

    // The associative-memory teacher V* = [0 | I], Q* = [[I, 0], [0, 0]] needs one head.
    void minHeadsOfAssociativeMemoryTeacher_data() {
        QTest::addColumn<int>("pairs");
        QTest::newRow("m=2") << 2;
        QTest::newRow("m=3") << 3;
    }
    void minHeadsOfAssociativeMemoryTeacher() {
        QFETCH(int, pairs);
        const auto task = associativeTask(pairs, 0.0, 1);
        const MinHeadsResult r = minHeads(task->teacherP(), task->d());
        QCOMPARE(r.minHeads, 1);
        QVERIFY(r.exact);
        QVERIFY(r.refitErrorRel <= 1e-10);
        QVERIFY((foldHeads(r.heads, task->d(), task->dOut()) - task->teacherP()).norm() <=
                1e-10 * task->teacherP().norm());
        QVERIFY(r.unfoldRank > 1);
    }

    // genericMinHeads (Jacobian rank of (U, V) -> fold(U V^T)) against the dimension count:
    // the smallest r with r (m + n - r) >= d_out D, for square d_out = d.
    void genericHeadsMatchesDimensionCount() {
        const int expected[] = {0, 0, 2, 4, 7, 10};
        for (int d = 2; d <= 5; ++d) {
            const int m = d * d, n = d * d;
            int r = 1;
            while (r * (m + n - r) < d * featureDim(d)) ++r;
            QCOMPARE(r, expected[d]);
            QCOMPARE(genericMinHeads(d, d), expected[d]);
        }
    }

    // A generic P has unfold rank d^2 but does not need d^2 heads: exactly genericMinHeads of
    // them (<= proven by the exact refit; >= holds almost surely by the dimension count). The
    // relaxation is not minimal here, and the search must go below it.
    void minHeadsOfGenericP_data() {
        QTest::addColumn<int>("d");
        QTest::newRow("d2") << 2;
        QTest::newRow("d3") << 3;
        QTest::newRow("d4") << 4;
    }
    void minHeadsOfGenericP() {
        QFETCH(int, d);
        Rng rng(static_cast<std::uint64_t>(50 + d));
        const Mat P = rng.normalMatrix(d, featureDim(d));
        const MinHeadsResult r = minHeads(P, d);
        QCOMPARE(r.unfoldRank, d * d);
        QCOMPARE(r.genericHeads, genericMinHeads(d, d));
        QCOMPARE(r.minHeads, r.genericHeads);
        QVERIFY(r.exact);
        QVERIFY(r.refitErrorRel <= 1e-10);
        QVERIFY(r.nuclearRank >= r.minHeads);
        QVERIFY2(r.lowerRankBestErrorRel >= 1e-4,
                 qPrintable(QString::number(r.lowerRankBestErrorRel)));
        QVERIFY((foldHeads(r.heads, d, d) - P).norm() <= 1e-10 * P.norm());
    }

    // The probe finds a second rank-1 fit where one exists by construction: Lambda's null space is
    // the row space of P2 - P1 for two 1-head teachers, so P2 fits as well as P1. (It may find
    // another one: mixing output rows, P1 + A (P2 - P1), leaves more than P2; every claim about the
    // alternative is checked independently below.)
    void probeFindsConstructedAlternative() {
        const int d = 3;
        const Mat P1 = randomTeacherP(d, d, 1, 7), P2 = randomTeacherP(d, d, 1, 8);
        const Mat L = lambdaWithNullSpace((P2 - P1).transpose(), 9);
        ProbeOptions opt;
        const ProbeResult r = probeAlternativeFit(L, P1, d, 1, opt);
        QCOMPARE(r.nullDim, d);
        QVERIFY2(r.found, qPrintable(QString::fromStdString(r.note)));
        QVERIFY(r.fitResidualRel <= 1e-10);
        QVERIFY(r.distanceRel >= opt.minDistanceRel);
        // The training loss does not change: tr(N Lambda N^T) is round-off of Lambda on its null
        // space (entries exact to ~1e-16 lambda_max).
        const Mat N0 = r.alternativeP - P1;
        const double lossBound =
            1e-14 * N0.squaredNorm() * L.norm() / (P1 * L * P1.transpose()).trace();
        QVERIFY2(std::abs(r.lossChangeRel) <= lossBound,
                 qPrintable(QString::asprintf("%g > %g", r.lossChangeRel, lossBound)));
        // Independent checks: P' - P1 lies in the null space, and P' needs one head.
        const Mat N = r.alternativeP - P1;
        QVERIFY((N * L).norm() <= 1e-10 * P1.norm() * L.norm());
        QVERIFY(std::abs(r.distanceRel - N.norm() / P1.norm()) <= 1e-12);
        QCOMPARE(r.alternativeHeads.count(), 1);
        QVERIFY((foldHeads(r.alternativeHeads, d, d) - r.alternativeP).norm() <= 1e-10 * P1.norm());
        QCOMPARE(minHeads(r.alternativeP, d).minHeads, 1);
        QVERIFY(toJson(r).value(s("found")).toBool());
    }

    // A random one-dimensional null direction: P + a v^T has no rank-1 representative other than
    // P (dimension count), so the probe must not claim one; the note says what "none" means.
    void probeReportsNoneForRandomNullDirection() {
        const int d = 3;
        const Mat P = randomTeacherP(d, d, 1, 21);
        Rng rng(22);
        const Mat L = lambdaWithNullSpace(rng.normalMatrix(featureDim(d), 1), 23);
        const ProbeResult r = probeAlternativeFit(L, P, d, 1);
        QCOMPARE(r.nullDim, 1);
        QVERIFY(!r.found);
        QCOMPARE(r.distanceRel, 0.0);
        QVERIFY(r.bestResidualRel > 1e-6);
        QVERIFY(QString::fromStdString(r.note).contains(s("evidence, not proof")));
        QVERIFY(toJson(r).value(s("note")).toString().contains(s("evidence, not proof")));
    }

    // Certified Lambda: nothing to search, none exists, distance 0.
    void probeOnCertifiedLambda() {
        const auto task = randomTask(3, 4, 5);
        const MomentAccumulator acc = accumulate(*task, 200);
        const ProbeResult r = probeAlternativeFit(acc.lambda(), task->teacherP(), 3, 1);
        QCOMPARE(r.nullDim, 0);
        QVERIFY(!r.found);
        QCOMPARE(r.distanceRel, 0.0);
        QCOMPARE(r.startsTried, 0);
        QVERIFY(toJson(r).value(s("note")).toString().contains(s("certified")));
    }

    // featureTriple inverts the index of features.h: k = pairIndex(a, b) d + c, psi_k = S_ab z_c.
    void featureTripleMatchesFeatureOrder() {
        for (int d = 1; d <= 6; ++d) {
            Rng rng(static_cast<std::uint64_t>(d));
            const Mat Z = rng.normalMatrix(d, 3);
            const Vec psi = featureVector(Z);
            const Mat S = Z * Z.transpose();
            for (long long k = 0; k < featureDim(d); ++k) {
                const FeatureTriple t = featureTriple(k, d);
                QVERIFY(t.a <= t.b);
                QCOMPARE(static_cast<long long>(pairIndex(t.a, t.b, d)) * d + t.c, k);
                QCOMPARE(psi(k), S(t.a, t.b) * Z(t.c, 2));
            }
        }
        QCOMPARE(QString::fromStdString(featureName(pairIndex(0, 1, 3) * 3 + 2, 3)), s("S₁₂·z₃"));
        QCOMPARE(QString::fromStdString(featureName(pairIndex(9, 10, 11) * 11 + 2, 11)),
                 s("S_{10,11}·z_3"));
        QCOMPARE(QString::fromStdString(featureName(pairIndex(9, 10, 11) * 11 + 10, 11)),
                 s("S_{10,11}·z_{11}"));
        QCOMPARE(QString::fromStdString(featureNameAscii(pairIndex(0, 1, 3) * 3 + 2, 3)),
                 s("S_12*z_3"));
    }

    // Orthonormal keys and values (p = 1, m = 2): four relations, all with small integer
    // coefficients, exactly the consequences of K K^T = U U^T = I and |k_j| = 1 (RREF of a
    // subspace is unique, so the text is checkable). Each holds on fresh prompts to 1e-10.
    void nullRelationsOfOrthogonalKeys() {
        const auto task = associativeTask(2, 1.0, 1);
        const int d = task->d();
        const MomentAccumulator acc = accumulate(*task, 4096);
        const Mat L = acc.lambda();
        const NullRelationsResult r = nullRelations(L, d);
        QCOMPARE(r.nullDim, 4);
        QCOMPARE(r.rationalCount, 4);
        const char* expected[] = {
            // S_11 z_1 + 3 S_12 z_2 - 2 S_22 z_1 = k_1 (|k|^2 - 1), with S_kk = I + k k^T
            "S₁₁·z₁ + 3·S₁₂·z₂ − 2·S₂₂·z₁ = 0",
            "2·S₁₁·z₂ − 3·S₁₂·z₁ − S₂₂·z₂ = 0",
            // S_11 + S_22 = 3 and S_vv = I + f f^T
            "S₁₁·z₃ + S₂₂·z₃ + 3·S₃₄·z₄ − 3·S₄₄·z₃ = 0",
            "S₁₁·z₄ + S₂₂·z₄ − 3·S₃₃·z₄ + 3·S₃₄·z₃ = 0",
        };
        for (int i = 0; i < 4; ++i) {
            const NullRelation& rel = r.relations[static_cast<size_t>(i)];
            QCOMPARE(QString::fromStdString(rel.text), s(expected[i]));
            QVERIFY(rel.rational);
            for (const NullRelationTerm& t : rel.terms) {
                QCOMPARE(t.coefficient, std::round(t.coefficient));
                QVERIFY(std::abs(t.coefficient) <= 12);
            }
            QVERIFY(rel.residual <= 1e-10);
        }
        // Each relation holds on fresh prompts of the task: |psi . v| <= 1e-10 |psi| |v|.
        for (long long i = 0; i < 500; ++i) {
            const Vec psi = featureVector(task->sample(Stream::Validation, i).Z);
            for (const NullRelation& rel : r.relations)
                QVERIFY2(std::abs(psi.dot(rel.vector)) <= 1e-10 * psi.norm() * rel.vector.norm(),
                         qPrintable(QString::number(psi.dot(rel.vector))));
        }
        // The relations span the null space.
        Mat V(featureDim(d), 4);
        for (int i = 0; i < 4; ++i) V.col(i) = r.relations[static_cast<size_t>(i)].vector;
        Eigen::JacobiSVD<Mat> svd(V);
        QVERIFY(svd.singularValues()(3) > 0.1);
        const QJsonObject j = toJson(r);
        QCOMPARE(j.value(s("null_dim")).toInt(), 4);
        QCOMPARE(j.value(s("relations")).toArray().at(0).toObject().value(s("text")).toString(),
                 s(expected[0]));
    }

    // Snapping is refused when the snapped vector leaves the null space: a null direction with an
    // irrational coefficient stays in floating point.
    void nullRelationsKeepIrrationalCoefficients() {
        const int d = 2;
        const Index D = featureDim(d);
        Vec v = Vec::Zero(D);
        v(0) = 1.0;
        v(3) = std::sqrt(2.0);
        const Mat L = lambdaWithNullSpace(v, 4);
        const NullRelationsResult r = nullRelations(L, d);
        QCOMPARE(r.nullDim, 1);
        QCOMPARE(r.rationalCount, 0);
        QVERIFY(!r.relations[0].rational);
        QCOMPARE(r.relations[0].terms.size(), size_t(2));
        QVERIFY(std::abs(r.relations[0].terms[1].coefficient - std::sqrt(2.0)) <= 1e-12);
    }

    // certificate_samples is exactly D for random teachers and Gaussian-key associative memory.
    void certificateSamplesIsD_data() {
        QTest::addColumn<QString>("task");
        QTest::addColumn<int>("size");
        QTest::addColumn<int>("seed");
        QTest::addColumn<int>("D");
        for (int seed : {1, 2}) {
            QTest::addRow("random d4 seed%d", seed) << s("random") << 4 << seed << 40;
            QTest::addRow("random d6 seed%d", seed) << s("random") << 6 << seed << 126;
            QTest::addRow("gaussian keys m2 seed%d", seed) << s("assoc") << 2 << seed << 40;
            QTest::addRow("gaussian keys m3 seed%d", seed) << s("assoc") << 3 << seed << 126;
        }
        QTest::newRow("random d8") << s("random") << 8 << 1 << 288;
        QTest::newRow("gaussian keys m4") << s("assoc") << 4 << 1 << 288;
    }
    void certificateSamplesIsD() {
        QFETCH(QString, task);
        QFETCH(int, size);
        QFETCH(int, seed);
        QFETCH(int, D);
        const auto t =
            task == s("random") ? randomTask(size, size, seed) : associativeTask(size, 0.0, seed);
        const CertificateSamplesResult r = certificateSamples(*t);
        QCOMPARE(r.featureDim, static_cast<long long>(D));
        // Fewer than D samples can never certify (rank Lambda <= N). D samples give a
        // nonsingular Lambda with probability one, but it can be conditioned worse than the
        // tolerance tau * lambda_max: measured D in 23 of these 24 rows and D + 1 in one.
        QVERIFY2(r.certificateSamples >= D && r.certificateSamples <= D + 2,
                 qPrintable(QString::number(r.certificateSamples)));
        QVERIFY(!r.structural);
        QCOMPARE(toJson(r).value(s("certificate_samples")).toInteger(),
                 static_cast<qint64>(r.certificateSamples));
    }

    // Mostly orthogonal keys (p = 0.9) need more than D samples; the bisection result equals a
    // sample-by-sample scan of the prefixes, and N - 1 is not certified.
    void certificateSamplesBisectionMatchesScan() {
        const auto task = associativeTask(2, 0.98, 3);
        const CertificateSamplesResult r = certificateSamples(*task);
        QVERIFY(r.certificateSamples > r.featureDim);
        QVERIFY(!r.structural);
        CertifyOptions opt;
        MomentAccumulator acc(task->d(), task->dOut());
        long long first = -1;
        for (long long N = 1; N <= r.certificateSamples && first < 0; ++N) {
            const Sample smp = task->sample(Stream::Train, N - 1);
            acc.addSamples({smp.Z}, {smp.y});
            if (N >= r.featureDim && certify(acc.lambda(), opt, "dense").certified) first = N;
        }
        QCOMPARE(first, r.certificateSamples);
        // The checkpoints are sorted and the last uncertified one is N - 1 or earlier.
        for (size_t i = 1; i < r.checkpoints.size(); ++i)
            QVERIFY(r.checkpoints[i - 1].samples < r.checkpoints[i].samples);
        for (const SampleCheckpoint& c : r.checkpoints)
            QCOMPARE(c.certified, c.samples >= r.certificateSamples);
    }

    // Orthonormal keys (p = 1): the null dimension stays 4 as N doubles: structural.
    void certificateSamplesStructural() {
        const auto task = associativeTask(2, 1.0, 1);
        const CertificateSamplesResult r = certificateSamples(*task);
        QVERIFY(r.structural);
        QCOMPARE(r.structuralNullDim, 4);
        QCOMPARE(r.certificateSamples, -1LL);
        QVERIFY(r.checkpoints.size() >= 3);
        QCOMPARE(r.checkpoints.back().samples,
                 16 * r.featureDim); // 4D, 8D, 16D with the default rule
        const QJsonObject j = toJson(r);
        QVERIFY(j.value(s("certificate_samples")).isNull());
        QVERIFY(j.value(s("structural")).toBool());
    }

    // Lambda_ood in closed form: d = 1 gives (n + 2)(n + 4) v^3; d = 2 agrees with Monte-Carlo
    // over generic prompts within 5 standard errors per entry.
    void genericFeatureMomentClosedForm() {
        for (int n = 1; n <= 5; ++n) {
            const Mat M = genericFeatureMoment(1, n, 2.0);
            QCOMPARE(M.rows(), Index(1));
            QVERIFY(std::abs(M(0, 0) - (n + 2.0) * (n + 4.0) * 8.0) <= 1e-12 * M(0, 0));
        }
        const int d = 2, n = 3;
        const Index D = featureDim(d);
        const Mat M = genericFeatureMoment(d, n);
        const int samples = 200000;
        Mat sum = Mat::Zero(D, D), sum2 = Mat::Zero(D, D);
        for (int i = 0; i < samples; ++i) {
            Rng rng(77, Stream::Ood, static_cast<std::uint64_t>(i));
            const Vec psi = featureVector(rng.normalMatrix(d, n));
            const Mat outer = psi * psi.transpose();
            sum += outer;
            sum2 += outer.cwiseProduct(outer);
        }
        const Mat mean = sum / samples;
        for (Index a = 0; a < D; ++a)
            for (Index b = 0; b < D; ++b) {
                const double var = sum2(a, b) / samples - mean(a, b) * mean(a, b);
                const double se = std::sqrt(var / samples);
                QVERIFY2(std::abs(mean(a, b) - M(a, b)) <= 5 * se,
                         qPrintable(QString::asprintf("(%d,%d) mc %g closed %g se %g", int(a),
                                                      int(b), mean(a, b), M(a, b), se)));
            }
    }

    // Noise predictions against Monte-Carlo over 48 seeds (d = 3, N = 4D, sigma = 0.1): per seed,
    // E ||P - P*||^2 = sigma^2 d_out tr(Lambda^{-1}) / N exactly given the prompts, so the mean of
    // (measured - predicted) must be within 3 standard errors of 0; the same for the OOD excess
    // tr(dP Lambda_ood dP^T) and for the residual estimate of sigma^2.
    void noisePredictionsMatchMonteCarlo() {
        const int d = 3, seeds = 48;
        const double sigma = 0.1;
        const long long D = featureDim(d), N = 4 * D;
        const Mat M = genericFeatureMoment(d, d);
        std::vector<double> dParam, dOod, dSigma, predicted;
        for (int seed = 1; seed <= seeds; ++seed) {
            const auto task = randomTask(d, d, seed, sigma);
            const MomentAccumulator acc = accumulate(*task, N);
            const Mat L = acc.lambda();
            const Mat P = L.llt().solve(acc.crossMoment().transpose()).transpose();
            double rss = 0;
            for (long long i = 0; i < N; ++i) {
                const Sample smp = task->sample(Stream::Train, i);
                rss += (P * featureVector(smp.Z) - smp.y).squaredNorm();
            }
            NoiseInputs in;
            in.samples = N;
            in.trainMse = rss / (N * d);
            in.configuredNoise = sigma;
            in.referenceP = task->teacherP();
            in.oodMoment = M;
            const NoiseAnalysis a = noiseAnalysis(L, in);
            QVERIFY(a.certified);
            QCOMPARE(QString::fromStdString(a.sigmaSource), s("residual"));
            // The prediction uses the estimated sigma^2; compare with the true one for an unbiased
            // test.
            const double scale = sigma * sigma / a.sigma2;
            const Mat dP = P - task->teacherP();
            dParam.push_back(dP.squaredNorm() - a.predictedDistanceP2 * scale);
            dOod.push_back((dP * M * dP.transpose()).trace() - a.predictedOodExcess * scale);
            dSigma.push_back(a.sigma2 - sigma * sigma);
            predicted.push_back(a.predictedDistanceP2 * scale);
        }
        auto check = [](const std::vector<double>& x, const char* what) {
            const double n = static_cast<double>(x.size());
            double mean = 0, var = 0;
            for (double v : x) mean += v / n;
            for (double v : x) var += (v - mean) * (v - mean) / (n - 1);
            const double se = std::sqrt(var / n);
            qInfo("%s: mean difference %.4g, standard error %.4g", what, mean, se);
            QVERIFY2(std::abs(mean) <= 3 * se, what);
            QVERIFY(se > 0);
        };
        check(dParam, "||P - P*||^2 minus prediction");
        check(dOod, "OOD excess minus prediction");
        check(dSigma, "sigma^2 estimate minus sigma^2");
        double meanPred = 0;
        for (double p : predicted) meanPred += p / seeds;
        qInfo("mean predicted ||P - P*||^2 = %.4g", meanPred);
    }

    // Certified at N = D with label noise: the prediction is large and a warning says so; without
    // noise there is no warning; without the certificate the note says what the prediction covers.
    void noiseWarning() {
        const int d = 4;
        const auto task = randomTask(d, d, 3, 0.01);
        const long long D = featureDim(d);
        const MomentAccumulator acc = accumulate(*task, D);
        NoiseInputs in;
        in.samples = D;
        in.configuredNoise = 0.01;
        in.referenceP = task->teacherP();
        in.oodMoment = genericFeatureMoment(d, d);
        const NoiseAnalysis a = noiseAnalysis(acc.lambda(), in);
        QVERIFY(a.certified);
        QCOMPARE(QString::fromStdString(a.sigmaSource), s("configured"));
        QVERIFY(a.predictedOodRelMse > 1e-2);
        QVERIFY(!a.warning.empty());
        QVERIFY(toJson(a).contains(s("warning")));
        in.configuredNoise = 0;
        const NoiseAnalysis quiet = noiseAnalysis(acc.lambda(), in);
        QVERIFY(quiet.warning.empty());
        QCOMPARE(quiet.predictedDistanceP2, 0.0);
        QVERIFY(!toJson(quiet).contains(s("warning")));
        const auto orth = associativeTask(2, 1.0, 1);
        const MomentAccumulator acc2 = accumulate(*orth, 400);
        in.referenceP = orth->teacherP();
        in.oodMoment = genericFeatureMoment(orth->d(), orth->tokens());
        in.configuredNoise = 0.01;
        in.samples = 400;
        const NoiseAnalysis un = noiseAnalysis(acc2.lambda(), in);
        QVERIFY(!un.certified);
        QCOMPARE(un.nullDim, 4);
        QVERIFY(un.warning.empty());
        QVERIFY(QString::fromStdString(un.note).contains(s("pseudo-inverse")));
    }

    // JSON: documented snake_case fields; non-finite numbers are null.
    void jsonFields() {
        const Mat P = randomTeacherP(3, 3, 1, 5);
        const QJsonObject mh = toJson(minHeads(P, 3));
        for (const char* key : {"min_heads",
                                "unfold_rank",
                                "max_heads",
                                "generic_heads",
                                "nuclear_rank",
                                "nuclear_norm",
                                "relaxation_iterations",
                                "relaxation_converged",
                                "relaxation_minimal",
                                "refit_error_rel",
                                "exact",
                                "lower_rank_best_error_rel",
                                "lower_rank_starts",
                                "attempts",
                                "heads",
                                "head_singular_values",
                                "note",
                                "exact_tol",
                                "min_heads_proven_upper_bound",
                                "min_heads_proven_minimal"})
            QVERIFY2(mh.contains(s(key)), key);
        QCOMPARE(mh.value(s("min_heads")).toInt(), 1);
        QCOMPARE(mh.value(s("min_heads_proven_upper_bound")).toInt(), 1);
        QVERIFY(mh.value(s("min_heads_proven_minimal")).toBool()); // zero heads cannot fit P != 0
        QCOMPARE(mh.value(s("exact_tol")).toDouble(), MinHeadsOptions{}.exactTol);
        for (const QJsonValue& a : mh.value(s("attempts")).toArray())
            QVERIFY(a.toObject().value(s("phase")).toString() == s("starts") ||
                    a.toObject().value(s("phase")).toString() == s("continuation"));
        // Two heads: the upper bound is proven, minimality is only evidence.
        const QJsonObject two = toJson(minHeads(randomTeacherP(3, 3, 2, 6), 3));
        QCOMPARE(two.value(s("min_heads")).toInt(), 2);
        QCOMPARE(two.value(s("min_heads_proven_upper_bound")).toInt(), 2);
        QVERIFY(!two.value(s("min_heads_proven_minimal")).toBool());
        QVERIFY(two.value(s("lower_rank_best_error_rel")).toDouble() > 1e-3);
        QVERIFY(mh.value(s("lower_rank_best_error_rel")).isNull());
        const QJsonObject head = mh.value(s("heads")).toArray().at(0).toObject();
        QCOMPARE(head.value(s("V")).toArray().size(), 3);
        QCOMPARE(head.value(s("Q")).toArray().at(0).toArray().size(), 3);
        NoiseInputs in;
        in.samples = 10;
        in.referenceP = P;
        const QJsonObject noise =
            toJson(noiseAnalysis(Mat::Identity(featureDim(3), featureDim(3)), in));
        for (const char* key :
             {"sigma2", "sigma_source", "certified", "null_dim", "trace_lambda_inv",
              "predicted_distance_p2", "predicted_distance_p_rel", "trace_lambda_inv_ood",
              "predicted_ood_excess", "ood_signal", "predicted_ood_rel_mse", "measured_distance_p2",
              "measured_ood_rel_mse", "note"})
            QVERIFY2(noise.contains(s(key)), key);
        QVERIFY(noise.value(s("predicted_ood_rel_mse")).isNull());
    }

    // Inputs of the wrong shape are rejected, not read out of bounds.
    void rejectsWrongShapes() {
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, minHeads(Mat::Zero(2, 5), 3));
        const Mat P = randomTeacherP(3, 3, 1, 1);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 probeAlternativeFitInNullSpace(Mat::Zero(7, 1), P, 3, 1));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 nullRelationsFromBasis(Mat::Zero(7, 1), Mat(), 3));
        NoiseInputs in;
        in.samples = 10;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, noiseAnalysis(Mat::Identity(18, 18), in));
    }

    // Every iterative function stops with Cancelled when the token is set.
    void cancellation() {
        CancelToken token;
        token.cancel();
        RunContext ctx;
        ctx.cancel = &token;
        const Mat P = randomTeacherP(3, 3, 2, 1);
        QVERIFY_THROWS_EXCEPTION(Cancelled, minHeads(P, 3, {}, ctx));
        const Mat L = lambdaWithNullSpace((randomTeacherP(3, 3, 1, 2) - P).transpose(), 3);
        QVERIFY_THROWS_EXCEPTION(Cancelled, probeAlternativeFit(L, P, 3, 1, {}, ctx));
        const auto task = randomTask(3, 3, 1);
        QVERIFY_THROWS_EXCEPTION(Cancelled, certificateSamples(*task, {}, ctx));
        NoiseInputs in;
        in.samples = 100;
        in.referenceP = P;
        QVERIFY_THROWS_EXCEPTION(Cancelled, noiseAnalysis(L, in, {}, ctx));
    }
};

QTEST_APPLESS_MAIN(TestIdentifiability)
#include "tst_identifiability.moc"
