// The MHLA model and its folded/unfolded coefficients (MATH.md §1, §2, §4.3, §5).
#include "core/algebra/features.h"
#include "core/algebra/model.h"
#include "core/base/rng.h"
#include <QTest>
#include <bit>
#include <cstring>

using namespace mhla;

namespace {
Heads randomHeads(int H, int d, int dOut, Rng& rng) {
    Heads h;
    for (int k = 0; k < H; ++k) {
        h.V.push_back(rng.normalMatrix(dOut, d));
        h.Q.push_back(rng.normalMatrix(d, d));
    }
    return h;
}
double relErr(const Mat& a, const Mat& b) { return (a - b).norm() / std::max(b.norm(), 1e-300); }
} // namespace

class TestModel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void featureDimensions_data() {
        QTest::addColumn<int>("d");
        QTest::addColumn<qlonglong>("D");
        QTest::newRow("d=2") << 2 << 6LL;
        QTest::newRow("d=4") << 4 << 40LL;
        QTest::newRow("d=8") << 8 << 288LL;
        QTest::newRow("d=16") << 16 << 2176LL;
        QTest::newRow("d=32") << 32 << 16896LL;
    }
    void featureDimensions() {
        QFETCH(int, d);
        QFETCH(qlonglong, D);
        QCOMPARE(featureDim(d), D);
        // pairIndex enumerates a <= b row-major without gaps.
        int k = 0;
        for (int a = 0; a < d; ++a)
            for (int b = a; b < d; ++b) QCOMPARE(pairIndex(a, b, d), k++);
        QCOMPARE(k, pairCount(d));
    }

    void outputEqualsFoldedTimesFeatures_data() {
        QTest::addColumn<int>("d");
        QTest::addColumn<int>("dOut");
        QTest::addColumn<int>("heads");
        QTest::addColumn<int>("n");
        QTest::newRow("d1") << 1 << 1 << 1 << 1;
        QTest::newRow("d3 one head") << 3 << 2 << 1 << 5;
        QTest::newRow("d4 four heads") << 4 << 4 << 4 << 3;
        QTest::newRow("d5 dout1 many heads") << 5 << 1 << 30 << 8;
        QTest::newRow("d8") << 8 << 3 << 7 << 9;
    }
    // Identity f_Theta(Z) = P psi(Z) for every Z (MATH.md §2), error <= 1e-12 relative to the
    // terms.
    void outputEqualsFoldedTimesFeatures() {
        QFETCH(int, d);
        QFETCH(int, dOut);
        QFETCH(int, heads);
        QFETCH(int, n);
        Rng rng(42, 0, static_cast<std::uint64_t>(d * 100 + heads));
        const Heads h = randomHeads(heads, d, dOut, rng);
        const Mat P = foldHeads(h, d, dOut);
        QCOMPARE(P.rows(), static_cast<Index>(dOut));
        QCOMPARE(P.cols(), static_cast<Index>(featureDim(d)));
        for (int trial = 0; trial < 20; ++trial) {
            const Mat Z = rng.normalMatrix(d, n, 1.0 + trial);
            const Vec f = mhlaOutput(h, Z);
            const Vec psi = featureVector(Z);
            const Vec g = P * psi;
            // Round-off scales with the terms summed, not with f: with 30 heads the terms can
            // cancel, so the error is taken relative to the magnitude of the terms,
            // || |P| |psi| || (>= ||f||), as in the usual bound for a computed sum.
            const double err = (g - f).norm() / (P.cwiseAbs() * psi.cwiseAbs()).norm();
            QVERIFY2(err <= 1e-12, qPrintable(QString::number(err)));
        }
    }

    // S, vech(S) and f(Z) are specified entry by entry (model.cpp): each entry its own sum in
    // ascending order, one fused multiply-add per term where the build's CPU has FMA. They are
    // vectorised down the columns up to 32 rows; this checks every path (1, 2 and 4 vectors a
    // column, lanes loaded whole or one by one, the scalar path past 32) against that
    // definition written out with std::fma, to the last bit.
    void smallProductsAreTheScalarSums() {
        const auto madd = [](double a, double b, double c) {
#ifdef __FP_FAST_FMA
            return std::fma(a, b, c);
#else
            return a * b + c;
#endif
        };
        Rng rng(77);
        for (int d : {1, 2, 3, 4, 5, 7, 8, 9, 12, 15, 16, 17, 24, 32, 33})
            for (int dOut : {1, 3, 8, 9, 16, 17, 33})
                for (int n : {1, 2, 5, 17}) {
                    const Mat Z = rng.normalMatrix(d, n);
                    const Heads heads = randomHeads(1 + (d + n) % 3, d, dOut, rng);
                    Mat Sref(d, d);
                    for (int a = 0; a < d; ++a)
                        for (int b = 0; b < d; ++b) {
                            double s = 0;
                            for (int t = 0; t < n; ++t) s = madd(Z(a, t), Z(b, t), s);
                            Sref(a, b) = s;
                        }
                    Vec yref = Vec::Zero(dOut);
                    const Vec zq = Z.col(n - 1);
                    for (int h = 0; h < heads.count(); ++h) {
                        Vec qz(d), sqz(d);
                        for (int i = 0; i < d; ++i) {
                            double acc = 0;
                            for (int j = 0; j < d; ++j) acc = madd(heads.Q[h](i, j), zq(j), acc);
                            qz(i) = acc;
                        }
                        for (int i = 0; i < d; ++i) {
                            double acc = 0;
                            for (int j = 0; j < d; ++j) acc = madd(Sref(i, j), qz(j), acc);
                            sqz(i) = acc;
                        }
                        for (int i = 0; i < dOut; ++i) {
                            double acc = yref(i);
                            for (int j = 0; j < d; ++j) acc = madd(heads.V[h](i, j), sqz(j), acc);
                            yref(i) = acc;
                        }
                    }
                    Mat S(d, d);
                    promptMomentInto(Z, S.data());
                    std::vector<double> u(static_cast<size_t>(pairCount(d)));
                    promptVech(Z, u.data());
                    Vec y;
                    mhlaOutputInto(heads, Z, y);
                    const QByteArray where = QByteArray::number(d) + "/" +
                                             QByteArray::number(dOut) + "/" + QByteArray::number(n);
                    QVERIFY2(std::memcmp(S.data(), Sref.data(), sizeof(double) * d * d) == 0,
                             where);
                    for (int a = 0, k = 0; a < d; ++a)
                        for (int b = a; b < d; ++b, ++k)
                            QVERIFY2(std::bit_cast<std::uint64_t>(u[static_cast<size_t>(k)]) ==
                                         std::bit_cast<std::uint64_t>(Sref(a, b)),
                                     where);
                    QVERIFY2(y.size() == dOut &&
                                 std::memcmp(y.data(), yref.data(), sizeof(double) * dOut) == 0,
                             where);
                    // The vech a sampler gets with y is promptVech's, and y is unchanged.
                    std::vector<double> vech;
                    Vec y2;
                    mhlaOutputInto(heads, Z, y2, &vech);
                    QVERIFY2(vech.size() == u.size() &&
                                 std::memcmp(vech.data(), u.data(), sizeof(double) * u.size()) == 0,
                             where);
                    QVERIFY2(std::memcmp(y2.data(), y.data(), sizeof(double) * dOut) == 0, where);
                }
    }

    void causalLastColumnIsQueryOutput() {
        Rng rng(7);
        const Heads h = randomHeads(3, 4, 2, rng);
        const Mat Z = rng.normalMatrix(4, 6);
        const Mat all = mhlaOutputCausal(h, Z);
        QVERIFY(relErr(all.col(5), mhlaOutput(h, Z)) <= 1e-14);
        // Column t only sees tokens s <= t.
        QVERIFY(relErr(all.col(2), mhlaOutput(h, Z.leftCols(3))) <= 1e-14);
    }

    void foldUnfoldRoundTrip_data() {
        QTest::addColumn<int>("d");
        QTest::addColumn<int>("dOut");
        QTest::newRow("2x1") << 2 << 1;
        QTest::newRow("4x4") << 4 << 4;
        QTest::newRow("7x3") << 7 << 3;
    }
    void foldUnfoldRoundTrip() {
        QFETCH(int, d);
        QFETCH(int, dOut);
        Rng rng(3, 0, static_cast<std::uint64_t>(d));
        const Mat P = rng.normalMatrix(dOut, featureDim(d));
        const Mat W = unfoldP(P, d);
        QCOMPARE(W.rows(), static_cast<Index>(dOut * d));
        QCOMPARE(W.cols(), static_cast<Index>(d * d));
        // x/2 + x/2 == x in binary floating point: the round trip is exact.
        QCOMPARE(relErr(foldW(W, d, dOut), P), 0.0);
        // W is determined only up to ker(fold): W - unfold(fold(W)) folds to zero.
        const Mat Wr = rng.normalMatrix(dOut * d, d * d);
        const Mat K = Wr - unfoldP(foldW(Wr, d, dOut), d);
        QVERIFY(K.norm() > 1e-3);
        QVERIFY(foldW(K, d, dOut).norm() <= 1e-12 * Wr.norm());
    }

    void foldOfHeadsMatchesDefinition() {
        // P_{i,(a,b),c} = sum_h V_ia Q_bc + V_ib Q_ac (a < b), V_ia Q_ac (a = b), entry by entry.
        Rng rng(11);
        const int d = 3, dOut = 2;
        const Heads h = randomHeads(2, d, dOut, rng);
        const Mat P = foldHeads(h, d, dOut);
        for (int i = 0; i < dOut; ++i)
            for (int a = 0; a < d; ++a)
                for (int b = a; b < d; ++b)
                    for (int c = 0; c < d; ++c) {
                        double expect = 0;
                        for (int k = 0; k < 2; ++k) {
                            expect += h.V[k](i, a) * h.Q[k](b, c);
                            if (a != b) expect += h.V[k](i, b) * h.Q[k](a, c);
                        }
                        QVERIFY(std::abs(P(i, pairIndex(a, b, d) * d + c) - expect) <= 1e-14);
                    }
    }

    void scalingSymmetryPreservesP() {
        Rng rng(5);
        Heads h = randomHeads(2, 4, 3, rng);
        const Mat P = foldHeads(h, 4, 3);
        h.V[0] *= 3.5;
        h.Q[0] /= 3.5;
        std::swap(h.V[0], h.V[1]);
        std::swap(h.Q[0], h.Q[1]);
        QVERIFY(relErr(foldHeads(h, 4, 3), P) <= 1e-14);
    }

    // Heads recovered by the SVD of unfold(P) reproduce the predictions of P.
    void recoveredHeadsReproducePredictions_data() {
        QTest::addColumn<int>("d");
        QTest::addColumn<int>("dOut");
        QTest::addColumn<int>("teacherHeads");
        QTest::newRow("d3 generic P") << 3 << 2 << 0;
        QTest::newRow("d4 two heads") << 4 << 4 << 2;
        QTest::newRow("d6 one head") << 6 << 1 << 1;
    }
    void recoveredHeadsReproducePredictions() {
        QFETCH(int, d);
        QFETCH(int, dOut);
        QFETCH(int, teacherHeads);
        Rng rng(9, 0, static_cast<std::uint64_t>(d));
        const Mat P = teacherHeads > 0 ? foldHeads(randomHeads(teacherHeads, d, dOut, rng), d, dOut)
                                       : rng.normalMatrix(dOut, featureDim(d));
        const HeadDecomposition hd = headsFromP(P, d);
        QVERIFY(hd.rank >= 1);
        QVERIFY(hd.rank <= std::min(dOut * d, d * d));
        QCOMPARE(hd.heads.count(), hd.rank);
        for (Index r = 1; r < hd.singularValues.size(); ++r)
            QVERIFY(hd.singularValues(r) <= hd.singularValues(r - 1));
        QVERIFY(relErr(foldHeads(hd.heads, d, dOut), P) <= 1e-12);
        for (int t = 0; t < 5; ++t) {
            const Mat Z = rng.normalMatrix(d, 4);
            QVERIFY(relErr(mhlaOutput(hd.heads, Z), P * featureVector(Z)) <= 1e-11);
        }
        // Canonical sign: the largest-magnitude entry of each V is positive.
        for (const Mat& V : hd.heads.V) {
            Index i, j;
            V.cwiseAbs().maxCoeff(&i, &j);
            QVERIFY(V(i, j) > 0);
        }
    }

    void truncationKeepsTopHeads() {
        Rng rng(13);
        const int d = 4, dOut = 4;
        const Mat P = foldHeads(randomHeads(3, d, dOut, rng), d, dOut);
        const HeadDecomposition all = headsFromP(P, d);
        QVERIFY(all.rank > 1);
        const HeadDecomposition one = headsFromP(P, d, 1);
        QCOMPARE(one.heads.count(), 1);
        // Keeping one head changes the function (rank > 1) by exactly the dropped singular values.
        const Mat W1 = headsToW(one.heads, d, dOut);
        QVERIFY(std::abs((unfoldP(P, d) - W1).norm() -
                         all.singularValues.tail(all.singularValues.size() - 1).norm()) <=
                1e-10 * P.norm());
    }
};

QTEST_APPLESS_MAIN(TestModel)
#include "tst_model.moc"
