// core/base/npy: the .npy reader takes versions 1.0-3.0, '<f8' and '<f4', C and Fortran order,
// and refuses each bad file with a message naming the file and what is wrong; the writer's
// files read back bit for bit.
#include "core/base/npy.h"
#include "core/base/types.h"
#include "npzwriter.h"
#include "testutil.h"
#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <cstring>
#include <limits>

using namespace mhla;

namespace {
using mhla::test::s;

/// A .npy file written by hand: magic, version, header length (2 or 4 bytes), dict padded with
/// spaces and '\n' to a multiple of 64, then the raw data.
QByteArray npyFile(int major, const QByteArray& dictText, const QByteArray& data) {
    const int lenBytes = major == 1 ? 2 : 4;
    QByteArray dict = dictText;
    while ((10 + (lenBytes - 2) + dict.size() + 1) % 64 != 0) dict += ' ';
    dict += '\n';
    QByteArray out("\x93NUMPY", 6);
    out.append(static_cast<char>(major));
    out.append(char(0));
    for (int i = 0; i < lenBytes; ++i)
        out.append(static_cast<char>((dict.size() >> (8 * i)) & 0xff));
    return out + dict + data;
}
QByteArray dictFor(const char* descr, bool fortran, const char* shape) {
    return QByteArray("{'descr': '") + descr +
           "', 'fortran_order': " + (fortran ? "True" : "False") + ", 'shape': " + shape + ", }";
}
template <typename T> QByteArray raw(const std::vector<T>& v) {
    return QByteArray(reinterpret_cast<const char*>(v.data()),
                      static_cast<qsizetype>(v.size() * sizeof(T)));
}
QString writeFile(const QTemporaryDir& dir, const char* name, const QByteArray& bytes) {
    const QString path = dir.filePath(s(name));
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size()) return {};
    return path;
}
/// The values 0.5 * (i + 1) of a (2, 3, 4) array at C index i, laid out in the requested order.
std::vector<double> ramp(bool fortran) {
    std::vector<double> v(24);
    for (int a = 0; a < 2; ++a)
        for (int b = 0; b < 3; ++b)
            for (int c = 0; c < 4; ++c) {
                const int cIdx = (a * 3 + b) * 4 + c;
                const int fIdx = a + 2 * (b + 3 * c);
                v[static_cast<size_t>(fortran ? fIdx : cIdx)] = 0.5 * (cIdx + 1);
            }
    return v;
}
} // namespace

class TestNpy : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void readsEveryLayout_data();
    void readsEveryLayout();
    void refusesBadFiles_data();
    void refusesBadFiles();
    void writerRoundTripsBitForBit();
    void statisticsMatchClosedForms();
    void readsNpzArrays_data();
    void readsNpzArrays();
    void refusesBadNpz();
    void parsesNpzPaths();
    void npzBytesRoundTrips();
};

void TestNpy::readsEveryLayout_data() {
    QTest::addColumn<int>("major");
    QTest::addColumn<bool>("f4");
    QTest::addColumn<bool>("fortran");
    for (int major : {1, 2, 3})
        for (bool f4 : {false, true})
            for (bool fortran : {false, true})
                QTest::addRow("v%d.0 %s %s", major, f4 ? "f4" : "f8", fortran ? "F" : "C")
                    << major << f4 << fortran;
}

void TestNpy::readsEveryLayout() {
    QFETCH(int, major);
    QFETCH(bool, f4);
    QFETCH(bool, fortran);
    QTemporaryDir dir;
    const std::vector<double> values = ramp(fortran);
    QByteArray data;
    if (f4) {
        std::vector<float> v(values.begin(), values.end());
        data = raw(v);
    } else data = raw(values);
    const QString path = writeFile(
        dir, "a.npy", npyFile(major, dictFor(f4 ? "<f4" : "<f8", fortran, "(2, 3, 4)"), data));
    const NpyHeader h = readNpyHeader(path);
    QCOMPARE(h.version, major);
    QCOMPARE(h.shape, (std::vector<long long>{2, 3, 4}));
    QCOMPARE(h.fortranOrder, fortran);
    QCOMPARE(h.itemBytes, f4 ? 4 : 8);
    std::vector<double> out;
    readNpyData(path, h, out);
    QCOMPARE(out.size(), size_t(24));
    // 0.5 * k is exact in float32 and float64: the values compare exactly.
    for (int i = 0; i < 24; ++i) QCOMPARE(out[static_cast<size_t>(i)], 0.5 * (i + 1));
    // The statistics of 0.5 k, k = 1..24, in every layout: mean 6.25, population variance
    // 0.25 (24² - 1) / 12, min 0.5, max 12 (closed forms; 1e-14 relative for the running sums).
    const NpyStatistics st = npyStatistics(path, h);
    QCOMPARE(st.count, 24LL);
    QVERIFY(std::abs(st.mean - 6.25) <= 1e-14 * 6.25);
    const double sd = std::sqrt(0.25 * (24.0 * 24.0 - 1.0) / 12.0);
    QVERIFY2(std::abs(st.std - sd) <= 1e-14 * sd, qPrintable(QString::number(st.std, 'g', 17)));
    QCOMPARE(st.min, 0.5);
    QCOMPARE(st.max, 12.0);
}

void TestNpy::refusesBadFiles_data() {
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("expected");
    const QByteArray good24 = raw(ramp(false));
    QTest::addRow("not npy") << QByteArray("hello, world") << s("not a NumPy .npy file");
    QTest::addRow("version 4")
        << npyFile(2, dictFor("<f8", false, "(2, 3, 4)"), good24).replace(6, 1, "\x04")
        << s("format version 4.0 is not supported; allowed: 1.0, 2.0, 3.0");
    QTest::addRow("big-endian")
        << npyFile(1, dictFor(">f8", false, "(2, 3, 4)"), good24)
        << s("dtype '>f8' is not supported; allowed: '<f8' (float64) or '<f4'");
    QTest::addRow("int64") << npyFile(1, dictFor("<i8", false, "(2, 3, 4)"), good24)
                           << s("dtype '<i8' is not supported");
    QTest::addRow("truncated data")
        << npyFile(1, dictFor("<f8", false, "(2, 3, 4)"), good24.left(100))
        << s("truncated: the header claims shape (2, 3, 4)");
    QTest::addRow("truncated header") << npyFile(1, dictFor("<f8", false, "(2, 3, 4)"), {}).left(30)
                                      << s("truncated: the file ends inside its header");
    // 10 GB more than the file holds: refused from the header, nothing allocated.
    QTest::addRow("10 GB claim") << npyFile(1, dictFor("<f8", false, "(1250000000, 1, 1)"), good24)
                                 << s("1e+10 bytes of data, but the file holds 192 bytes");
    QTest::addRow("negative shape")
        << npyFile(1, dictFor("<f8", false, "(-2, 3, 4)"), good24) << s("not a dimension >= 0");
    QTest::addRow("no shape") << npyFile(1, "{'descr': '<f8', 'fortran_order': False, }", good24)
                              << s("the header has no 'shape' entry");
    std::vector<double> nan = ramp(false);
    nan[13] = std::numeric_limits<double>::quiet_NaN(); // C index 13 = [1, 0, 1]
    QTest::addRow("NaN") << npyFile(1, dictFor("<f8", false, "(2, 3, 4)"), raw(nan))
                         << s("value nan at [1, 0, 1]; every value must be finite");
    std::vector<float> inf(24, 1.0f);
    inf[0] = std::numeric_limits<float>::infinity();
    QTest::addRow("inf f4") << npyFile(1, dictFor("<f4", false, "(2, 3, 4)"), raw(inf))
                            << s("value inf at [0, 0, 0]");
    std::vector<double> minusInf = ramp(true);
    minusInf[23] = -std::numeric_limits<double>::infinity(); // Fortran index 23 = [1, 2, 3]
    QTest::addRow("-inf Fortran") << npyFile(1, dictFor("<f8", true, "(2, 3, 4)"), raw(minusInf))
                                  << s("value -inf at [1, 2, 3]");
}

void TestNpy::refusesBadFiles() {
    QFETCH(QByteArray, bytes);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    const QString path = writeFile(dir, "bad.npy", bytes);
    try {
        const NpyHeader h = readNpyHeader(path);
        std::vector<double> out;
        readNpyData(path, h, out);
        QFAIL("accepted a bad file");
    } catch (const NpyError& e) {
        const QString msg = QString::fromStdString(e.what());
        QVERIFY2(msg.startsWith(path + s(": ")), qPrintable(msg));
        QVERIFY2(msg.contains(expected), qPrintable(msg));
    }
    try { // the statistics refuse the same files with the same words
        (void)npyStatistics(path, readNpyHeader(path));
        QFAIL("summarised a bad file");
    } catch (const NpyError& e) {
        const QString msg = QString::fromStdString(e.what());
        QVERIFY2(msg.startsWith(path + s(": ")), qPrintable(msg));
        QVERIFY2(msg.contains(expected), qPrintable(msg));
    }
}

void TestNpy::writerRoundTripsBitForBit() {
    QTemporaryDir dir;
    std::vector<double> v(2 * 5 * 3);
    for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(1.0 + static_cast<double>(i)) / 3.0;
    const std::vector<long long> shape{2, 5, 3};
    const QByteArray bytes = npyBytes(shape, v.data());
    QCOMPARE(bytes.size() % 64, 0 + (static_cast<qsizetype>(8 * v.size()) % 64)); // aligned data
    const QString path = writeFile(dir, "w.npy", bytes);
    const NpyHeader h = readNpyHeader(path);
    QCOMPARE(h.shape, shape);
    QCOMPARE(h.dataOffset % 64, 0LL);
    std::vector<double> out;
    readNpyData(path, h, out);
    QCOMPARE(out.size(), v.size());
    QVERIFY(std::memcmp(out.data(), v.data(), 8 * v.size()) == 0);
    QCOMPARE(npyShapeText({7}), s("(7,)"));
}

// Several blocks of kNpyReadBlockBytes and a partial last one: the values k = 0..n-1 have mean
// (n - 1) / 2 and population variance (n² - 1) / 12 (closed forms; Welford's running mean over
// 3e5 values, 1e-12 relative). A token cancelled before the read stops it (Cancelled).
void TestNpy::statisticsMatchClosedForms() {
    QTemporaryDir dir;
    const long long n = 3 * (kNpyReadBlockBytes / 8) + 12345;
    std::vector<double> v(static_cast<size_t>(n));
    for (long long k = 0; k < n; ++k) v[static_cast<size_t>(k)] = static_cast<double>(k);
    const QString path = writeFile(dir, "big.npy", npyBytes({n, 1, 1}, v.data()));
    const NpyHeader h = readNpyHeader(path);
    const NpyStatistics st = npyStatistics(path, h);
    const double nd = static_cast<double>(n);
    QCOMPARE(st.count, n);
    QVERIFY2(std::abs(st.mean - (nd - 1) / 2) <= 1e-12 * nd, qPrintable(QString::number(st.mean)));
    const double sd = std::sqrt((nd * nd - 1) / 12);
    QVERIFY2(std::abs(st.std - sd) <= 1e-12 * sd, qPrintable(QString::number(st.std, 'g', 17)));
    QCOMPARE(st.min, 0.0);
    QCOMPARE(st.max, nd - 1);
    CancelToken cancel;
    cancel.cancel();
    QVERIFY_THROWS_EXCEPTION(Cancelled, (void)npyStatistics(path, h, &cancel));
}

void TestNpy::readsNpzArrays_data() {
    QTest::addColumn<bool>("deflate");
    QTest::newRow("stored (np.savez)") << false;
    QTest::newRow("deflated (np.savez_compressed)") << true;
}

// Members of a .npz archive read as the .npy files they hold: C-order float64 as written by
// npyBytes, Fortran-order float32 by hand, a bare archive of one array, statistics streamed.
void TestNpy::readsNpzArrays() {
    QFETCH(bool, deflate);
    QTemporaryDir dir;
    const std::vector<double> c = ramp(false);
    const std::vector<double> fv = ramp(true);
    const std::vector<float> f32(fv.begin(), fv.end());
    const QString archive = dir.filePath(s("a.npz"));
    QVERIFY(test::writeNpz(archive,
                           {{s("prompts.npy"), npyBytes({2, 3, 4}, c.data())},
                            {s("b.npy"), npyFile(2, dictFor("<f4", true, "(2, 3, 4)"), raw(f32))}},
                           deflate));
    for (const char* member : {":prompts", ":b"}) {
        const QString path = archive + s(member);
        const NpyHeader h = readNpyHeader(path);
        QCOMPARE(h.shape, (std::vector<long long>{2, 3, 4}));
        std::vector<double> out;
        readNpyData(path, h, out);
        QCOMPARE(out, ramp(false)); // 0.5 (i + 1) in C order: exact in float32 too
        const NpyStatistics st = npyStatistics(path, h);
        QCOMPARE(st.count, 24LL);
        QCOMPARE(st.mean, 6.25); // mean of 0.5, 1, ..., 12
    }
    const QString one = dir.filePath(s("one.npz"));
    QVERIFY(test::writeNpz(one, {{s("arr_0.npy"), npyBytes({2, 3, 4}, c.data())}}, deflate));
    std::vector<double> out;
    readNpyData(one, readNpyHeader(one), out);
    QCOMPARE(out, c);
}

// Each bad archive is refused with an NpyError naming the archive and what is wrong.
void TestNpy::refusesBadNpz() {
    QTemporaryDir dir;
    const std::vector<double> c = ramp(false);
    const QString archive = dir.filePath(s("a.npz"));
    QVERIFY(test::writeNpz(archive,
                           {{s("prompts.npy"), npyBytes({2, 3, 4}, c.data())},
                            {s("targets.npy"), npyBytes({2, 12}, c.data())},
                            {s("notes.txt"), QByteArray("not an array")}},
                           true));
    const auto refusal = [](const QString& path) -> QString {
        try {
            std::vector<double> out;
            readNpyData(path, readNpyHeader(path), out);
        } catch (const NpyError& e) {
            return QString::fromStdString(e.what());
        }
        return {};
    };
    QString m = refusal(archive);
    QVERIFY2(m.startsWith(archive) &&
                 m.contains(s("holds 3 arrays (prompts, targets, notes.txt)")) &&
                 m.contains(s("a.npz:prompts")),
             qPrintable(m));
    m = refusal(archive + s(":Z"));
    QVERIFY2(m.startsWith(archive) &&
                 m.contains(s("has no array 'Z'; it holds: prompts, targets, notes.txt")),
             qPrintable(m));
    m = refusal(archive + s(":notes.txt"));
    QVERIFY2(m.startsWith(archive + s(":notes.txt")) && m.contains(s("not a NumPy .npy file")),
             qPrintable(m));
    m = refusal(dir.filePath(s("missing.npz:prompts")));
    QVERIFY2(m.contains(s("missing.npz: no such file")), qPrintable(m));
    const QString text = writeFile(dir, "text.npz", QByteArray("PK but not a zip file at all"));
    m = refusal(text + s(":prompts"));
    QVERIFY2(m.startsWith(text) && m.contains(s("not a readable .npz archive")), qPrintable(m));
    // Cut short: the central directory at the end is gone.
    QFile whole(archive);
    QVERIFY(whole.open(QIODevice::ReadOnly));
    const QByteArray bytes = whole.readAll();
    const QString cut = writeFile(dir, "cut.npz", bytes.left(bytes.size() / 2));
    m = refusal(cut + s(":prompts"));
    QVERIFY2(m.startsWith(cut) && m.contains(s("not a readable .npz archive")), qPrintable(m));
    // Damaged: bytes of the deflated data overwritten (the CRC or the inflater refuses it).
    QByteArray damaged = bytes;
    for (int i = 80; i < 140; ++i) damaged[i] = static_cast<char>(0x5a);
    const QString bad = writeFile(dir, "damaged.npz", damaged);
    m = refusal(bad + s(":prompts"));
    QVERIFY2(m.startsWith(bad + s(":prompts")), qPrintable(m));
}

void TestNpy::parsesNpzPaths() {
    const auto parsed = [](const char* p) {
        const std::optional<NpzPath> z = parseNpzPath(s(p));
        return z ? z->archive + s("|") + z->member : s("none");
    };
    QCOMPARE(parsed("/data/d.npz:prompts"), s("/data/d.npz|prompts"));
    QCOMPARE(parsed("d.NPZ"), s("d.NPZ|"));
    QCOMPARE(parsed("/runs:1/d.npz"), s("/runs:1/d.npz|")); // a ':' in a folder is no member
    QCOMPARE(parsed("/runs:1/d.npy"), s("none"));
    QCOMPARE(parsed("d.npy:prompts"), s("none"));
    QCOMPARE(parsed("d.npz:"), s("d.npz|")); // empty name: the only array
}

void TestNpy::npzBytesRoundTrips() {
    // What export-data --npz writes: the members in order under the names np.load gives them,
    // each array read back bit for bit, and the same members give the same bytes.
    QTemporaryDir dir;
    const std::vector<double> a = ramp(false);
    const std::vector<double> b = {-1.5, 0.0, 1e-300, 3e300, -0.0, 2.0};
    const std::vector<std::pair<QString, QByteArray>> members = {
        {QStringLiteral("prompts"), npyBytes({2, 3, 4}, a.data())},
        {QStringLiteral("targets"), npyBytes({3, 2}, b.data())}};
    const QByteArray bytes = npzBytes(members);
    QCOMPARE(npzBytes(members), bytes);
    const QString path = writeFile(dir, "d.npz", bytes);
    QCOMPARE(npzMembers(path), (QStringList{QStringLiteral("prompts"), QStringLiteral("targets")}));
    for (const auto& [name, expected] : {std::pair{"prompts", a}, std::pair{"targets", b}}) {
        const QString spec = path + QStringLiteral(":") + QString::fromLatin1(name);
        std::vector<double> out;
        readNpyData(spec, readNpyHeader(spec), out);
        QCOMPARE(out.size(), expected.size());
        QVERIFY(std::memcmp(out.data(), expected.data(), 8 * out.size()) == 0);
    }
    // Stored, as np.savez stores: the .npy bytes appear verbatim in the archive.
    QVERIFY(bytes.contains(members[1].second));
}

QTEST_APPLESS_MAIN(TestNpy)
#include "tst_npy.moc"
