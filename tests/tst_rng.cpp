// The task generators (task.rng): Philox4x32-10 against Random123's known answers and its own
// implementation, the SIMD Box-Muller transform against long double, the normal law under
// both generators, pinned digests, and what a file without the key means.
#include "core/base/parallel.h"
#include "core/base/philox.h"
#include "core/base/rng.h"
#include "core/experiment/loader.h"
#include "core/records/resultio.h"
#include "core/records/resultread.h"
#include "core/run/runner.h"
#include "core/tasks/samplerows.h"
#include "core/tasks/tasks.h"
#include "testutil.h"
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>
#include <Random123/philox.h>
#include <algorithm>
#include <bit>
#include <cmath>
#include <vector>

using namespace mhla;

namespace {
using mhla::test::s;

std::uint64_t fnv(std::uint64_t h, std::uint64_t v) {
    for (int i = 0; i < 8; ++i) {
        h ^= (v >> (8 * i)) & 0xff;
        h *= 0x100000001b3ull;
    }
    return h;
}
std::uint64_t bits(double x) { return std::bit_cast<std::uint64_t>(x); }

/// The digest of draws the program /tmp/s25/olddigest.cpp computed with the generator as it was
/// before task.rng existed (core/base/rng.* of main at 4142fc9): 100 samples of a stream, each
/// an 8 x 9 normalFill and then next(), uniform(), normal(), below(1000).
std::uint64_t drawDigest(RngKind kind) {
    std::uint64_t h = 0xcbf29ce484222325ull;
    for (std::uint64_t idx = 0; idx < 100; ++idx) {
        Rng r(7, Stream::Train, idx, kind);
        Mat m(8, 9);
        r.normalFill(m, 0.5);
        for (Index k = 0; k < m.size(); ++k) h = fnv(h, bits(m.data()[k]));
        h = fnv(h, r.next());
        h = fnv(h, bits(r.uniform()));
        h = fnv(h, bits(r.normal()));
        h = fnv(h, r.below(1000));
    }
    return h;
}

/// n normals of kind, drawn as the tasks draw them: a generator per sample (seed, Train, i),
/// each filling a 8 x 9 prompt.
std::vector<double> sampleNormals(RngKind kind, long long samples) {
    std::vector<double> out;
    out.reserve(static_cast<size_t>(samples) * 72);
    Mat m(8, 9);
    for (long long i = 0; i < samples; ++i) {
        Rng r(2024, Stream::Train, static_cast<std::uint64_t>(i), kind);
        r.normalFill(m);
        out.insert(out.end(), m.data(), m.data() + m.size());
    }
    return out;
}

/// Kolmogorov-Smirnov distance of the sample x (sorted here) from the standard normal CDF.
double ksNormal(std::vector<double> x) {
    std::sort(x.begin(), x.end());
    const double n = static_cast<double>(x.size());
    double ks = 0;
    for (size_t i = 0; i < x.size(); ++i) {
        const double F = 0.5 * std::erfc(-x[i] / std::sqrt(2.0));
        ks = std::max({ks, std::abs(F - static_cast<double>(i) / n),
                       std::abs(F - static_cast<double>(i + 1) / n)});
    }
    return ks;
}
} // namespace

class TestRng : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // Random123's known-answer vectors for philox4x32 with 10 rounds (its kat_vectors file:
    // counter, key, output), and 10^4 random (counter, key) against Random123's own code.
    void philoxKnownAnswers() {
        struct Kat {
            philox::Block ctr;
            philox::Key key;
            philox::Block out;
        };
        const Kat kats[] = {
            {{0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
            {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
             {0xffffffff, 0xffffffff},
             {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
            {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
             {0xa4093822, 0x299f31d0},
             {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
        };
        for (const Kat& k : kats) {
            QCOMPARE(philox::philox4x32_10(k.ctr, k.key), k.out);
            r123::Philox4x32 ref;
            const r123::Philox4x32::ctr_type c = {{k.ctr[0], k.ctr[1], k.ctr[2], k.ctr[3]}};
            const r123::Philox4x32::key_type key = {{k.key[0], k.key[1]}};
            const auto out = ref(c, key);
            for (int i = 0; i < 4; ++i) QCOMPARE(out[i], k.out[i]);
        }
        Rng pick(99);
        for (int t = 0; t < 10000; ++t) {
            const std::uint64_t a = pick.next(), b = pick.next(), c = pick.next();
            const philox::Block ctr{
                static_cast<std::uint32_t>(a), static_cast<std::uint32_t>(a >> 32),
                static_cast<std::uint32_t>(b), static_cast<std::uint32_t>(b >> 32)};
            const philox::Key key{static_cast<std::uint32_t>(c),
                                  static_cast<std::uint32_t>(c >> 32)};
            const auto out =
                r123::Philox4x32()({{ctr[0], ctr[1], ctr[2], ctr[3]}}, {{key[0], key[1]}});
            const philox::Block mine = philox::philox4x32_10(ctr, key);
            for (int i = 0; i < 4; ++i) QCOMPARE(mine[i], out[i]);
        }
    }

    // Every kernel copy (build target, AVX2, AVX-512 where the CPU has them) gives the words of
    // the scalar definition and the same normals, bit for bit, at every offset and length.
    void kernelsAgreeBitForBit() {
        const philox::StreamKey sk = philox::streamKey(0x123456789abcdefull, 2, 987654321012ull);
        const auto kernels = philox::availableKernels();
        QVERIFY(kernels[0] != nullptr);
        for (const std::uint64_t first : {0ull, 1ull, 2ull, 15ull, 16ull, 17ull, 1001ull}) {
            for (const std::size_t count : {1u, 2u, 3u, 15u, 16u, 17u, 33u, 300u, 1000u}) {
                std::vector<std::uint64_t> ref(count);
                for (std::size_t i = 0; i < count; ++i) ref[i] = philox::word(sk, first + i);
                const std::size_t even = count & ~std::size_t{1};
                std::vector<double> normRef(even);
                kernels[0]->normals(sk, first, even, 0.75, normRef.data());
                for (std::size_t m = 0; 2 * m < even; ++m) {
                    double z0, z1;
                    philox::boxMuller(ref[2 * m], ref[2 * m + 1], &z0, &z1);
                    QCOMPARE(bits(normRef[2 * m]), bits(0.75 * z0));
                    QCOMPARE(bits(normRef[2 * m + 1]), bits(0.75 * z1));
                }
                for (const philox::Kernel* k : kernels) {
                    if (!k) continue;
                    std::vector<std::uint64_t> w(count);
                    k->words(sk, first, count, w.data());
                    QVERIFY2(w == ref, k->name);
                    std::vector<double> z(even);
                    k->normals(sk, first, even, 0.75, z.data());
                    for (std::size_t i = 0; i < even; ++i)
                        QVERIFY2(bits(z[i]) == bits(normRef[i]), k->name);
                }
            }
        }
    }

    // The polynomial log, sin and cos against long double: |z - z_ref| <= 4 ulp(max(r, 1))
    // (r = sqrt(-2 log u1), the pair's radius; absolute near the zeros of cos and sin), over
    // 10^6 random word pairs and the edges (u1 = 1 and 2^-52, u2 at the quarter turns and the
    // reduction's ties at 1/8 + k/4).
    void boxMullerIsAccurate() {
        std::vector<std::pair<std::uint64_t, std::uint64_t>> pairs;
        Rng pick(5);
        for (int i = 0; i < 1000000; ++i) pairs.emplace_back(pick.next(), pick.next());
        const std::uint64_t top = ~std::uint64_t{0};
        const std::uint64_t edgesA[] = {0, std::uint64_t{1} << 12, top,
                                        top - (std::uint64_t{1} << 12)};
        const std::uint64_t jitters[] = {0, std::uint64_t{1} << 12,
                                         (std::uint64_t{1} << 60) - (std::uint64_t{1} << 12)};
        for (const std::uint64_t a : edgesA)
            for (std::uint64_t q = 0; q < 16; ++q)
                for (const std::uint64_t jitter : jitters)
                    pairs.emplace_back(a, (q << 60) + (q % 2 ? 0 : jitter));
        double worst = 0;
        for (const auto& [a, b] : pairs) {
            double z0, z1;
            philox::boxMuller(a, b, &z0, &z1);
            const long double u1 = 1.0L - static_cast<long double>(a >> 12) * 0x1.0p-52L;
            const long double u2 = static_cast<long double>(b >> 12) * 0x1.0p-52L;
            const long double r = std::sqrt(-2.0L * std::log(u1));
            const long double pi = 3.141592653589793238462643383279502884L;
            const long double c = r * std::cos(2 * pi * u2), sn = r * std::sin(2 * pi * u2);
            const double ulp = std::ldexp(1.0, -52) * std::max(1.0, static_cast<double>(r));
            worst = std::max({worst, static_cast<double>(std::abs(z0 - c)) / ulp,
                              static_cast<double>(std::abs(z1 - sn)) / ulp});
        }
        qInfo("Box-Muller: worst error %.2f ulp(max(r, 1)) over %zu pairs", worst, pairs.size());
        QVERIFY2(worst <= 4.0, qPrintable(QStringLiteral("worst error %1 ulp").arg(worst)));
        // u1 = 1 (a = 0): radius +0; the largest radius, at u1 = 2^-52.
        double z0, z1;
        philox::boxMuller(0, 0, &z0, &z1);
        QCOMPARE(bits(z0), bits(0.0));
        philox::boxMuller(top, 0, &z0, &z1);
        QVERIFY(std::abs(z0 - std::sqrt(-2.0 * std::log(0x1.0p-52))) <= 1e-14);
    }

    // Both generators draw the normal law, as the tasks draw it (a generator per sample):
    // mean, variance and fourth moment within 5 standard errors, Kolmogorov-Smirnov below
    // 1.95 / sqrt(n) (the 0.1% level), over 72 * 2^14 = 1.18e6 draws each.
    void normalLaw_data() {
        QTest::addColumn<int>("kind");
        QTest::newRow("philox") << static_cast<int>(RngKind::Philox);
        QTest::newRow("xoshiro_ziggurat") << static_cast<int>(RngKind::XoshiroZiggurat);
    }
    void normalLaw() {
        QFETCH(int, kind);
        const std::vector<double> x = sampleNormals(static_cast<RngKind>(kind), 1 << 14);
        const double n = static_cast<double>(x.size());
        double m1 = 0, m2 = 0, m4 = 0;
        for (double v : x) m1 += v, m2 += v * v, m4 += v * v * v * v;
        m1 /= n, m2 /= n, m4 /= n;
        QVERIFY2(std::abs(m1) <= 5.0 / std::sqrt(n), qPrintable(QString::number(m1)));
        QVERIFY2(std::abs(m2 - 1.0) <= 5.0 * std::sqrt(2.0 / n), qPrintable(QString::number(m2)));
        QVERIFY2(std::abs(m4 - 3.0) <= 5.0 * std::sqrt(96.0 / n), qPrintable(QString::number(m4)));
        const double ks = ksNormal(x);
        QVERIFY2(ks < 1.95 / std::sqrt(n), qPrintable(QString::number(ks)));
    }

    // Philox's uniforms: KS against U(0, 1) and below(n) uniform over its n values.
    void philoxUniforms() {
        Rng r(3, Stream::Validation, 12, RngKind::Philox);
        const int n = 200000;
        std::vector<double> u(n);
        for (double& v : u) v = r.uniform();
        std::sort(u.begin(), u.end());
        double ks = 0;
        for (int i = 0; i < n; ++i)
            ks = std::max({ks, std::abs(u[static_cast<size_t>(i)] - static_cast<double>(i) / n),
                           std::abs(u[static_cast<size_t>(i)] - static_cast<double>(i + 1) / n)});
        QVERIFY2(ks < 1.95 / std::sqrt(n), qPrintable(QString::number(ks)));
        QVERIFY(u.front() >= 0 && u.back() < 1);
        std::vector<int> counts(7, 0);
        for (int i = 0; i < 70000; ++i) ++counts[static_cast<size_t>(r.below(7))];
        for (int c : counts) QVERIFY2(std::abs(c - 10000) < 5 * 95, qPrintable(QString::number(c)));
    }

    // The draws are pinned: the old generator's digest is the one its code gave before
    // task.rng existed (bit for bit unchanged), the new one's was taken from its first run.
    void digestsArePinned() {
        QCOMPARE(drawDigest(RngKind::XoshiroZiggurat), std::uint64_t{0x46a4f0fadb218857ull});
        QCOMPARE(drawDigest(RngKind::Philox), std::uint64_t{0x5a0168c327ab32d4ull});
        Rng old(1, Stream::Train, 0);
        Mat m(4, 3);
        old.normalFill(m);
        QCOMPARE(m(0, 0), 1.130385039369219);
        QCOMPARE(m(1, 0), 1.1623073324235484);
        QCOMPARE(m(2, 0), -0.77581561311932157);
    }

    // Philox normals come in pairs; normalFill of odd sizes keeps the pair's second for the
    // next draw, so the split of a run of draws into fills and normal() never changes it.
    void philoxFillsSplitAnywhere() {
        Rng whole(11, Stream::Train, 5, RngKind::Philox);
        Mat all(1, 40);
        whole.normalFill(all, 2.0);
        Rng parts(11, Stream::Train, 5, RngKind::Philox);
        std::vector<double> got;
        for (const int size : {5, 3, 1, 7, 2}) {
            Mat m(1, size);
            parts.normalFill(m, 2.0);
            got.insert(got.end(), m.data(), m.data() + size);
        }
        while (got.size() < 40) got.push_back(2.0 * parts.normal());
        for (Index i = 0; i < 40; ++i) QCOMPARE(bits(got[static_cast<size_t>(i)]), bits(all(0, i)));
        // After a uniform (one word), the pairs start at an odd word: still the kernels' words.
        Rng a(11, Stream::Train, 6, RngKind::Philox);
        (void)a.uniform();
        Mat m(3, 3);
        a.normalFill(m);
        const philox::StreamKey sk = philox::streamKey(11, 2, 6);
        double z0, z1;
        philox::boxMuller(philox::word(sk, 1), philox::word(sk, 2), &z0, &z1);
        QCOMPARE(bits(m(0, 0)), bits(z0));
        QCOMPARE(bits(m(1, 0)), bits(z1));
    }

    // A task's samples under philox are a function of (seed, stream, index): the same rows for
    // 1 and 2 threads, and different from the old generator's.
    void taskRowsIndependentOfThreads() {
        ExperimentConfig cfg;
        cfg.task.kind = TaskKind::RandomMhla;
        cfg.task.d = 8;
        cfg.task.tokens = 9;
        cfg.task.dOut = 8;
        QVERIFY(cfg.task.rng == RngKind::Philox);
        const auto task = makeTask(cfg.task);
        Mat U1, Q1, Y1, U2, Q2, Y2;
        fillSampleBlock(*task, Stream::Train, 1000, 333, U1, Q1, Y1, 1);
        fillSampleBlock(*task, Stream::Train, 1000, 333, U2, Q2, Y2, 2);
        QVERIFY(U1 == U2 && Q1 == Q2 && Y1 == Y2);
        cfg.task.rng = RngKind::XoshiroZiggurat;
        const auto old = makeTask(cfg.task);
        QVERIFY(!(old->sample(Stream::Train, 3).Z == task->sample(Stream::Train, 3).Z));
        QVERIFY(old->sample(Stream::Train, 3).Z.isApprox(old->sample(Stream::Train, 3).Z, 0.0));
    }

    // What task.rng means in files: absent = the old generator (every file written before
    // the key existed reproduces); the defaults, solve without a file and every file written
    // now carry the new one by name.
    void absentKeyMeansTheOldGenerator() {
        QVERIFY(ExperimentConfig{}.task.rng == RngKind::Philox);
        QVERIFY(experimentFromJson(QJsonObject{}).task.rng == RngKind::XoshiroZiggurat);
        QVERIFY(loadExperiment(QString()).config.task.rng == RngKind::Philox);
        const QJsonObject json = experimentToJson(ExperimentConfig{});
        QCOMPARE(json.value(s("task")).toObject().value(s("rng")).toString(), s("philox"));
        QVERIFY(experimentFromJson(json).task.rng == RngKind::Philox);
        const auto named = experimentFromJson(
            QJsonObject{{s("task"), QJsonObject{{s("rng"), s("xoshiro_ziggurat")}}}});
        QVERIFY(named.task.rng == RngKind::XoshiroZiggurat);
        try {
            (void)experimentFromJson(QJsonObject{{s("task"), QJsonObject{{s("rng"), s("mt")}}}});
            QFAIL("an unknown generator was accepted");
        } catch (const ConfigError& e) {
            const QString msg = QString::fromUtf8(e.what());
            QVERIFY2(msg.contains(s("task.rng")) && msg.contains(s("philox")) &&
                         msg.contains(s("xoshiro_ziggurat")),
                     qPrintable(msg));
            QCOMPARE(e.key(), s("task.rng"));
        }
        // seeds.csv names the generator of each run.
        ExperimentResult r;
        r.config = named;
        const QString csv = QString::fromUtf8(seedsTable({r}).bytes());
        QVERIFY2(csv.startsWith(s("task_seed,task_rng,")), qPrintable(csv));
        QVERIFY2(csv.contains(s(",xoshiro_ziggurat,")), qPrintable(csv));
    }

    // A results folder written before task.rng existed (no key in result.json's config nor in
    // experiment.json, format 1) reads as the old generator, and re-running its experiment.json
    // reproduces its numbers bit for bit; a folder written now names philox and reproduces too.
    void resultFoldersReproduce_data() {
        QTest::addColumn<bool>("old");
        QTest::newRow("written before task.rng") << true;
        QTest::newRow("written now (philox)") << false;
    }
    void resultFoldersReproduce() {
        QFETCH(bool, old);
        QJsonObject task{{s("kind"), s("random_mhla")},
                         {s("d"), 3},
                         {s("tokens"), 4},
                         {s("d_out"), 2},
                         {s("samples"), 400}};
        if (!old) task.insert(s("rng"), s("philox"));
        const QJsonObject obj{{s("task"), task},
                              {s("eval"), QJsonObject{{s("val_samples"), 64},
                                                      {s("ood_samples"), 64},
                                                      {s("identifiability"), s("none")}}}};
        const ExperimentConfig cfg = experimentFromJson(obj);
        QVERIFY(cfg.task.rng == (old ? RngKind::XoshiroZiggurat : RngKind::Philox));
        const ExperimentResult r = runExperiment(cfg);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QVERIFY(writeRunFolder(dir.path(), resultFiles(r, QJsonDocument(resultToJson(r)).toJson()))
                    .isEmpty());
        const auto rewrite = [&](const char* name, const auto& edit) {
            QFile f(QDir(dir.path()).filePath(s(name)));
            QVERIFY(f.open(QIODevice::ReadOnly));
            QJsonObject o = QJsonDocument::fromJson(f.readAll()).object();
            f.close();
            edit(o);
            QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
            f.write(QJsonDocument(o).toJson());
        };
        const auto dropKey = [](QJsonObject& exp) {
            QJsonObject t = exp.value(s("task")).toObject();
            QVERIFY(t.contains(s("rng")));
            t.remove(s("rng"));
            exp.insert(s("task"), t);
        };
        if (old) {
            rewrite("result.json", [&](QJsonObject& o) {
                QJsonObject c = o.value(s("config")).toObject();
                dropKey(c);
                o.insert(s("config"), c);
                o.insert(s("format_version"), 1);
            });
            rewrite("experiment.json", dropKey);
        }
        QString error;
        const auto folder = readResultFolder(dir.path(), &error);
        QVERIFY2(folder, qPrintable(error));
        QVERIFY(folder->result.config.task.rng == cfg.task.rng);
        const LoadedExperiment again =
            loadExperiment(QDir(dir.path()).filePath(s("experiment.json")));
        QVERIFY(again.config.task.rng == cfg.task.rng);
        const ExperimentResult r2 = runExperiment(again.config);
        QCOMPARE(bits(r2.certificate.lambdaMin), bits(r.certificate.lambdaMin));
        QCOMPARE(bits(r2.metrics.trainMse), bits(r.metrics.trainMse));
        QCOMPARE(bits(r2.metrics.oodRelMse), bits(r.metrics.oodRelMse));
        QCOMPARE(bits(folder->result.certificate.lambdaMin), bits(r.certificate.lambdaMin));
    }
};

QTEST_GUILESS_MAIN(TestRng)
#include "tst_rng.moc"
