// Opening and saving experiment files never loses data (issue 9, "Data loss"): a failed Open
// leaves the form, the current file, the title and Open Recent as they were; saving over a file
// that is not an experiment file, or that would lose content, needs confirmation.
#include "core/config.h"
#include "ui/appsettings.h"
#include "ui/experimentfile.h"
#include "ui/experimentpanel.h"
#include "ui/exportdialog.h"
#include "ui/exporter.h"
#include "ui/mainwindow.h"
#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QLineEdit>
#include <QPushButton>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace mhla;
using namespace mhla::ui;

class TstGuiFiles : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;

    QString write(const QString& name, const QByteArray& bytes) {
        const QString path = m_dir.filePath(name);
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) return {};
        f.write(bytes);
        f.close();
        return path;
    }

private Q_SLOTS:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(m_dir.isValid());
        AppSettings::useFile(m_dir.filePath(QStringLiteral("settings.ini")));
    }

    void failedOpenChangesNothing_data() {
        QTest::addColumn<QByteArray>("content");
        QTest::newRow("result.json") << QByteArray(R"({"config": {"task": {"kind": "random_mhla"}},
            "certificate": {"certified": true, "lambda_min": 0.01}, "history": [1, 2, 3]})");
        QTest::newRow("repeated key")
            << QByteArray(R"({"task": {"samples": 100, "samples": 200}})");
        QTest::newRow("unknown key")
            << QByteArray(R"({"task": {"samples": 100, "colour": "red"}})");
        QTest::newRow("not json") << QByteArray("samples = 100\n");
        QTest::newRow("array") << QByteArray("[1, 2]");
    }
    void failedOpenChangesNothing() {
        QFETCH(QByteArray, content);
        const QString path = write(QStringLiteral("other.json"), content);
        MainWindow w;
        w.loadPreset(1);
        auto* samples = w.findChild<QLineEdit*>(QStringLiteral("field_task.samples"));
        samples->setText(QStringLiteral("1234"));
        const QJsonObject before = w.experimentPanel()->experimentJson();
        const QString title = w.windowTitle();
        const QString file = w.currentFile();
        const QStringList recent = AppSettings().recentFiles();
        const QString err = w.openExperiment(path);
        QVERIFY(!err.isEmpty());
        QVERIFY2(err.contains(QStringLiteral("other.json")), qPrintable(err));
        QCOMPARE(w.experimentPanel()->experimentJson(), before);
        QCOMPARE(samples->text(), QStringLiteral("1234"));
        QCOMPARE(w.windowTitle(), title);
        QCOMPARE(w.currentFile(), file);
        QCOMPARE(AppSettings().recentFiles(), recent);
        QVERIFY(w.experimentPanel()->isValid());
    }

    void goodOpenGoesIntoRecent() {
        const QString path = write(QStringLiteral("good.json"),
                                   R"({"task": {"kind": "random_mhla", "samples": 777}})");
        MainWindow w;
        QCOMPARE(w.openExperiment(path), QString());
        QCOMPARE(w.findChild<QLineEdit*>(QStringLiteral("field_task.samples"))->text(),
                 QStringLiteral("777"));
        QCOMPARE(w.currentFile(), path);
        QVERIFY(w.windowTitle().contains(QStringLiteral("good.json")));
        QCOMPARE(AppSettings().recentFiles().value(0), QFileInfo(path).absoluteFilePath());
        QCOMPARE(w.saveRisk(path), QString()); // unchanged since it was opened
    }

    void resultsFolderOpensItsExperiment() {
        QDir(m_dir.path()).mkpath(QStringLiteral("results"));
        write(QStringLiteral("results/experiment.json"),
              R"({"task": {"kind": "random_mhla", "samples": 555}})");
        write(QStringLiteral("results/result.json"), R"({"certificate": {}})");
        MainWindow w;
        QCOMPARE(w.openExperiment(m_dir.filePath(QStringLiteral("results"))), QString());
        QCOMPARE(w.findChild<QLineEdit*>(QStringLiteral("field_task.samples"))->text(),
                 QStringLiteral("555"));
        QDir(m_dir.path()).mkpath(QStringLiteral("empty"));
        QVERIFY(!w.openExperiment(m_dir.filePath(QStringLiteral("empty"))).isEmpty());
    }

    void badValuesFillFormButStayOutOfRecent() {
        const QString path = write(QStringLiteral("badvalue.json"), R"({"task": {"samples": -5}})");
        MainWindow w;
        const QStringList recent = AppSettings().recentFiles();
        QVERIFY(!w.openExperiment(path).isEmpty());
        QVERIFY(!w.experimentPanel()->isValid());
        QCOMPARE(AppSettings().recentFiles(), recent);
    }

    void overwriteNeedsConfirmation_data() {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<bool>("asks");
        QTest::newRow("result.json") << QByteArray(R"({"config": {}, "certificate": {}})") << true;
        QTest::newRow("unknown key")
            << QByteArray(R"({"task": {"samples": 100, "colour": "red"}})") << true;
        QTest::newRow("repeated key") << QByteArray(R"({"task": {"seed": 1, "seed": 2}})") << true;
        QTest::newRow("not json") << QByteArray("hello") << true;
        QTest::newRow("experiment") << QByteArray(R"({"task": {"samples": 100}})") << false;
    }
    void overwriteNeedsConfirmation() {
        QFETCH(QByteArray, content);
        QFETCH(bool, asks);
        const QString path = write(QStringLiteral("target.json"), content);
        QCOMPARE(!overwriteRisk(path).isEmpty(), asks);
        QCOMPARE(overwriteRisk(m_dir.filePath(QStringLiteral("does-not-exist.json"))), QString());
    }

    void changedOnDiskNeedsConfirmation() {
        const QString path = m_dir.filePath(QStringLiteral("mine.json"));
        MainWindow w;
        w.loadPreset(0);
        QCOMPARE(w.saveExperiment(path), QString());
        QCOMPARE(w.saveRisk(path), QString());
        write(QStringLiteral("mine.json"), R"({"task": {"samples": 5}})"); // edited elsewhere
        QVERIFY(!w.saveRisk(path).isEmpty());
    }

    // The scenario from the issue: Ctrl+O on a result.json, then Ctrl+S, replaced the result.
    void failedOpenThenSaveDoesNotTouchTheFile() {
        const QByteArray result = R"({"config": {}, "certificate": {"certified": true}})";
        const QString path = write(QStringLiteral("result.json"), result);
        MainWindow w;
        QVERIFY(!w.openExperiment(path).isEmpty());
        QVERIFY(w.currentFile() != path);
        QVERIFY(!w.saveRisk(path).isEmpty());
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), result);
    }

    void exportDialogKeepsProblemsInTheDialog() {
        ExportDialog dlg(QStringLiteral("Loss"),
                         m_dir.filePath(QStringLiteral("no/such/folder/loss.svg")), QSize(800, 600),
                         96);
        QVERIFY(dlg.problem().contains(QStringLiteral("does not exist")));
        dlg.show();
        auto* box = dlg.findChild<QDialogButtonBox*>();
        QTest::mouseClick(box->button(QDialogButtonBox::Ok), Qt::LeftButton);
        QVERIFY(dlg.isVisible()); // not closed: the user can fix the path
        dlg.findChild<QLineEdit*>(QStringLiteral("exportPath"))
            ->setText(m_dir.filePath(QStringLiteral("loss.txt")));
        QVERIFY(dlg.problem().contains(QStringLiteral(".svg")));
        dlg.findChild<QLineEdit*>(QStringLiteral("exportPath"))
            ->setText(m_dir.filePath(QStringLiteral("loss.svg")));
        QCOMPARE(dlg.problem(), QString());
    }

    void ourCsvIsRecognised() {
        const QString ours =
            write(QStringLiteral("ours.csv"),
                  (QStringLiteral("# ") + appVersionString() + QStringLiteral(" - x\nseries,x,y\n"))
                      .toUtf8());
        const QString theirs = write(QStringLiteral("theirs.csv"), "a,b\n1,2\n");
        QVERIFY(isOurCsv(ours));
        QVERIFY(!isOurCsv(theirs));
    }
};

QTEST_MAIN(TstGuiFiles)
#include "tst_gui_files.moc"
