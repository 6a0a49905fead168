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
#include "ui/runcontroller.h"
#include <QApplication>
#include <QDialogButtonBox>
#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QMimeData>
#include <QPushButton>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QUrl>
#include <memory>

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

    // Issue 9: an experiment file dropped on the window opens it, through the same path as
    // Open: a failed drop changes nothing.
    void droppedExperimentFileOpens() {
        const QString good = write(QStringLiteral("dropped.json"),
                                   R"({"task": {"kind": "random_mhla", "samples": 888}})");
        const QString bad = write(QStringLiteral("dropped_result.json"),
                                  R"({"config": {}, "certificate": {"certified": true}})");
        const QString text = write(QStringLiteral("notes.txt"), "hello");
        MainWindow w;
        w.show();
        QVERIFY(w.acceptDrops());
        auto mime = [](const QStringList& paths) {
            auto* m = new QMimeData;
            QList<QUrl> urls;
            for (const QString& p : paths) urls << QUrl::fromLocalFile(p);
            m->setUrls(urls);
            return m;
        };
        // The window takes one .json file or one folder, nothing else.
        std::unique_ptr<QMimeData> goodMime(mime({good})), textMime(mime({text})),
            twoMime(mime({good, bad})), folderMime(mime({m_dir.path()}));
        QCOMPARE(MainWindow::droppedPath(goodMime.get()), QFileInfo(good).absoluteFilePath());
        QVERIFY(MainWindow::droppedPath(textMime.get()).isEmpty());
        QVERIFY(MainWindow::droppedPath(twoMime.get()).isEmpty());
        QCOMPARE(MainWindow::droppedPath(folderMime.get()),
                 QFileInfo(m_dir.path()).absoluteFilePath());
        QDragEnterEvent enter(QPoint(100, 100), Qt::CopyAction, goodMime.get(), Qt::LeftButton,
                              Qt::NoModifier);
        QApplication::sendEvent(&w, &enter);
        QVERIFY(enter.isAccepted());
        QDragEnterEvent enterText(QPoint(100, 100), Qt::CopyAction, textMime.get(), Qt::LeftButton,
                                  Qt::NoModifier);
        QApplication::sendEvent(&w, &enterText);
        QVERIFY(!enterText.isAccepted());
        // A failed drop leaves the form, the title and the current file alone.
        auto* samples = w.findChild<QLineEdit*>(QStringLiteral("field_task.samples"));
        samples->setText(QStringLiteral("4321"));
        const QString title = w.windowTitle();
        std::unique_ptr<QMimeData> badMime(mime({bad}));
        QVERIFY(!w.openDropped(badMime.get()).isEmpty());
        QCOMPARE(samples->text(), QStringLiteral("4321"));
        QCOMPARE(w.windowTitle(), title);
        // A good drop, delivered as a real drop event, opens the file.
        QDropEvent drop(QPointF(100, 100), Qt::CopyAction, goodMime.get(), Qt::LeftButton,
                        Qt::NoModifier);
        QApplication::sendEvent(&w, &drop);
        QVERIFY(drop.isAccepted());
        QCOMPARE(samples->text(), QStringLiteral("888"));
        QCOMPARE(w.currentFile(), QFileInfo(good).absoluteFilePath());
    }

    // Issue 9: a file that failed to load does not stay in Open Recent.
    void recentFileThatNoLongerLoadsLeavesTheList() {
        const QString path = write(QStringLiteral("recent.json"),
                                   R"({"task": {"kind": "random_mhla", "samples": 321}})");
        MainWindow w;
        QCOMPARE(w.openExperiment(path), QString());
        QVERIFY(AppSettings().recentFiles().contains(QFileInfo(path).absoluteFilePath()));
        QCOMPARE(w.openRecent(QFileInfo(path).absoluteFilePath()), QString());        // still fine
        write(QStringLiteral("recent.json"), R"({"config": {}, "certificate": {}})"); // overwritten
        auto* samples = w.findChild<QLineEdit*>(QStringLiteral("field_task.samples"));
        samples->setText(QStringLiteral("999"));
        QVERIFY(!w.openRecent(QFileInfo(path).absoluteFilePath()).isEmpty());
        QVERIFY(!AppSettings().recentFiles().contains(QFileInfo(path).absoluteFilePath()));
        QCOMPARE(samples->text(), QStringLiteral("999")); // and the form is untouched
        const QString gone = m_dir.filePath(QStringLiteral("gone.json"));
        write(QStringLiteral("gone.json"), R"({"task": {"samples": 11}})");
        QCOMPARE(w.openExperiment(gone), QString());
        QFile::remove(gone);
        QVERIFY(
            w.openRecent(QFileInfo(gone).absoluteFilePath()).contains(QStringLiteral("no longer")));
        QVERIFY(!AppSettings().recentFiles().contains(QFileInfo(gone).absoluteFilePath()));
    }

    // Issue 9: "Export all" into a folder that does not exist yet creates it.
    void exportAllTakesANewFolder() {
        const QString fresh = m_dir.filePath(QStringLiteral("new/export/here"));
        ExportAllDialog dlg(m_dir.path());
        dlg.show();
        auto* ok = dlg.findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok);
        QVERIFY(ok->isEnabled());
        dlg.setFolder(fresh);
        QVERIFY(ok->isEnabled()); // a missing folder is fine
        QVERIFY(dlg.findChild<QLabel*>(QStringLiteral("exportAllInfo"))
                    ->text()
                    .contains(QStringLiteral("created")));
        QTest::mouseClick(ok, Qt::LeftButton);
        QCOMPARE(dlg.result(), int(QDialog::Accepted));
        QCOMPARE(dlg.folder(), fresh);
        dlg.setFolder(write(QStringLiteral("afile"), "x")); // a file in the way
        QVERIFY(!ok->isEnabled());
        dlg.setFolder(QString());
        QVERIFY(!ok->isEnabled());
        // What the window does with it: the run's files land in the new folder.
        MainWindow w;
        w.loadPreset(0);
        QVERIFY(w.startRuns());
        QElapsedTimer t;
        t.start();
        while (w.controller()->isBusy() && t.elapsed() < 60000) QTest::qWait(50);
        QStringList written;
        QCOMPARE(w.exportAllTo(fresh, false, &written), QString());
        QVERIFY(QFileInfo(fresh).isDir());
        QVERIFY(QFileInfo::exists(QDir(fresh).filePath(QStringLiteral("experiment.json"))));
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
