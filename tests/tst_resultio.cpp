// The one result writer: CSV cells round-trip at 17 digits, undefined values are empty,
// text is quoted, schemas are fixed per file name, negative eigenvalues stay as they are (no
// drawn floor), and files are written atomically without following symbolic links.
#include "core/base/fileio.h"
#include "core/records/resultio.h"
#include "core/run/runner.h"
#include "testutil.h"
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <limits>
#include <unistd.h>

using namespace mhla;

namespace {

using mhla::test::readAll;
QList<QByteArray> lines(const QByteArray& csv) { return csv.trimmed().split('\n'); }
} // namespace

class TestResultIo : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void numbersRoundTrip_data() {
        QTest::addColumn<double>("value");
        QTest::newRow("third") << 1.0 / 3.0;
        QTest::newRow("tiny negative") << -3.0000000000000004e-15;
        QTest::newRow("huge") << 1.7976931348623157e308;
        QTest::newRow("denormal") << 4.9406564584124654e-324;
        QTest::newRow("one") << 1.0;
    }
    void numbersRoundTrip() {
        QFETCH(double, value);
        const QString cell = CsvTable::number(value);
        bool ok = false;
        QCOMPARE(cell.toDouble(&ok), value); // exact: 17 significant digits read back bit for bit
        QVERIFY(ok);
    }
    void undefinedAndText() {
        QCOMPARE(CsvTable::number(std::numeric_limits<double>::quiet_NaN()), QString());
        QCOMPARE(CsvTable::number(std::numeric_limits<double>::infinity()), QString());
        QCOMPARE(CsvTable::text(QStringLiteral("plain")), QStringLiteral("plain"));
        QCOMPARE(CsvTable::text(QStringLiteral("a,b")), QStringLiteral("\"a,b\""));
        QCOMPARE(CsvTable::text(QStringLiteral("say \"hi\"")),
                 QStringLiteral("\"say \"\"hi\"\"\""));
        CsvTable t({QStringLiteral("a"), QStringLiteral("b")});
        t.addRow({QStringLiteral("1"), CsvTable::text(QStringLiteral("x\ny"))});
        QCOMPARE(t.bytes(), QByteArray("a,b\n1,\"x\ny\"\n"));
    }
    void notCertifiedSpectrumKeepsItsValues() {
        ExperimentConfig cfg;
        cfg.task.orthogonalProb = 1.0; // orthonormal keys: a 4-dimensional null space
        cfg.task.samples = 2048;
        cfg.eval.valSamples = cfg.eval.oodSamples = 256;
        const ExperimentResult r = runExperiment(cfg);
        QVERIFY(!r.certificate.certified);
        const QList<QByteArray> rows = lines(spectrumTable(r).bytes());
        QCOMPARE(rows.first(), QByteArray("index,eigenvalue,below_tolerance"));
        QCOMPARE(rows.size() - 1, static_cast<qsizetype>(r.certificate.spectrum.size()));
        int below = 0;
        for (qsizetype i = 1; i < rows.size(); ++i) {
            const QList<QByteArray> cells = rows[i].split(',');
            QCOMPARE(cells[0].toLongLong(), static_cast<long long>(i - 1));
            QCOMPARE(cells[1].toDouble(), r.certificate.spectrum(i - 1)); // the datum, bit for bit
            below += cells[2] == "true" ? 1 : 0;
        }
        QCOMPARE(below, r.certificate.nullDim);
    }
    void schemasAndFiles() {
        ExperimentConfig cfg;
        cfg.task.samples = 512;
        cfg.eval.valSamples = cfg.eval.oodSamples = 128;
        const ExperimentResult r = runExperiment(cfg);
        const auto files = resultFiles(r, QByteArray("{}\n"));
        QStringList names;
        for (const auto& [name, data] : files) names << name;
        QCOMPARE(names,
                 (QStringList{QStringLiteral("result.json"), QStringLiteral("experiment.json"),
                              QStringLiteral("spectrum.csv"), QStringLiteral("heads.csv"),
                              QStringLiteral("lambda_trace.csv")}));
        QCOMPARE(lines(headsTable(r).bytes()).first(),
                 QByteArray("model,head,matrix,row,col,value"));
        QCOMPARE(lines(lambdaTraceTable(r).bytes()).first(), QByteArray("samples,lambda_min"));
        QCOMPARE(
            lines(historyTable(r).bytes()).first(),
            QByteArray(
                "epoch,step,lr,train_mse,val_mse,ood_rel_mse,distance_p,distance_p_rel,distance_exact_rel"));
        // lambda_trace values are the data, at full precision.
        const QList<QByteArray> trace = lines(lambdaTraceTable(r).bytes());
        QCOMPARE(trace.size() - 1, static_cast<qsizetype>(r.lambdaTrace.size()));
        QCOMPARE(trace.last().split(',')[1].toDouble(), r.lambdaTrace.back().second);

        QTemporaryDir dir;
        QStringList written;
        QVERIFY(writeFiles(dir.path(), files, &written).isEmpty());
        QCOMPARE(written.size(), files.size());
        for (const auto& [name, data] : files)
            QCOMPARE(readAll(QDir(dir.path()).filePath(name)), data);
        // No temporary file is left behind.
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).size(), files.size());
    }
    void neverWritesThroughASymlink() {
        QTemporaryDir dir;
        const QString outside = dir.filePath(QStringLiteral("outside.txt"));
        QFile f(outside);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("keep");
        f.close();
        QDir(dir.path()).mkdir(QStringLiteral("out"));
        const QString link = dir.filePath(QStringLiteral("out/spectrum.csv"));
        QVERIFY(QFile::link(outside, link));
        QVERIFY(writeFileAtomic(link, QByteArray("new")).isEmpty());
        QCOMPARE(readAll(outside), QByteArray("keep"));
        QCOMPARE(readAll(link), QByteArray("new"));
        QVERIFY(!QFileInfo(link).isSymLink());
        // A dangling link is replaced too; nothing is created where it pointed.
        const QString dangling = dir.filePath(QStringLiteral("out/heads.csv"));
        QVERIFY(QFile::link(dir.filePath(QStringLiteral("elsewhere.txt")), dangling));
        QVERIFY(writeFileAtomic(dangling, QByteArray("x")).isEmpty());
        QVERIFY(!QFileInfo::exists(dir.filePath(QStringLiteral("elsewhere.txt"))));
    }
    void failedWriteChangesNothing() {
        QTemporaryDir dir;
        const QString sub = dir.filePath(QStringLiteral("ro"));
        QVERIFY(QDir().mkdir(sub));
        const QString path = sub + QStringLiteral("/result.json");
        QVERIFY(writeFileAtomic(path, QByteArray("old")).isEmpty());
        QFile::setPermissions(sub, QFileDevice::ReadOwner | QFileDevice::ExeOwner);
        if (::geteuid() == 0) {
            QFile::setPermissions(sub, QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                                           QFileDevice::ExeOwner);
            QSKIP("root ignores folder permissions; the disk-full case is covered by tst_fileio");
        }
        const QString e = writeFileAtomic(path, QByteArray("new"));
        QFile::setPermissions(sub, QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                                       QFileDevice::ExeOwner);
        QVERIFY(e.contains(QStringLiteral("Permission denied")));
        QCOMPARE(readAll(path), QByteArray("old"));
    }
    void outputFolderProblemsSayWhy() {
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("plain"));
        QVERIFY(writeFileAtomic(file, "x").isEmpty());
        QVERIFY(prepareOutputFolder(file).contains(QStringLiteral("is not a folder")));
        QVERIFY(prepareOutputFolder(file + QStringLiteral("/sub"))
                    .contains(QStringLiteral("Not a directory")));
        QVERIFY(prepareOutputFolder(QStringLiteral("/proc/x"))
                    .contains(QStringLiteral("cannot create")));
        const QString link = dir.filePath(QStringLiteral("link"));
        QVERIFY(QFile::link(dir.path(), link));
        QVERIFY(prepareOutputFolder(link).contains(QStringLiteral("symbolic link")));
        QVERIFY(prepareOutputFolder(dir.filePath(QStringLiteral("new/nested"))).isEmpty());
    }
};

QTEST_APPLESS_MAIN(TestResultIo)
#include "tst_resultio.moc"
