// Figure export: SVG / PDF / PNG / CSV files exist, parse, have the requested size and carry
// the experiment, seeds and app version; "Export all" writes everything and never overwrites
// silently; the headless `figures` command writes the same set and rejects invalid input.
#include "core/run/runner.h"
#include "testutil.h"
#include "ui/experiment/presets.h"
#include "ui/export/exporter.h"
#include "ui/plot/heatmapwidget.h"
#include "ui/plot/plotwidget.h"
#include "ui/shell/appsettings.h"
#include "ui/shell/mainwindow.h"
#include <QFile>
#include <QImage>
#include <QJsonDocument>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QXmlStreamReader>

using namespace mhla;
using namespace mhla::ui;

namespace {

using mhla::test::readAll;
bool containsUtf8OrUtf16(const QByteArray& data, const QString& text) {
    if (data.contains(text.toUtf8())) return true;
    QByteArray be;
    for (QChar c : text) {
        be.append(static_cast<char>(c.unicode() >> 8));
        be.append(static_cast<char>(c.unicode() & 0xff));
    }
    return data.contains(be);
}
} // namespace

class TstGuiExport : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    std::unique_ptr<MainWindow> m_window;
    ExperimentResult m_result;

    const Figure* figure(const QString& name) const {
        for (const Figure* f : m_window->figures())
            if (f->figureName() == name) return f;
        return nullptr;
    }

private Q_SLOTS:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(m_dir.isValid());
        AppSettings::useFile(m_dir.filePath(QStringLiteral("settings.ini")));
        QJsonObject exp = builtinPresets().first().experiment;
        setDotted(exp, QStringLiteral("task.seed"), 42);
        m_result = runExperiment(experimentFromJson(exp));
        m_window = std::make_unique<MainWindow>();
        m_window->addFinishedRun(QStringLiteral("export test"), m_result);
    }
    void cleanupTestCase() { m_window.reset(); }

    // The Curves figures overlay only runs comparable with the selected one: their metadata
    // lists exactly those, not every visible run.
    void curvesMetadataListsTheRunsDrawn() {
        MainWindow w;
        w.addFinishedRun(QStringLiteral("other task"), m_result);
        ExperimentResult other = m_result;
        other.config.task.kind = m_result.config.task.kind == TaskKind::AssociativeMemory
                                     ? TaskKind::RandomMhla
                                     : TaskKind::AssociativeMemory;
        w.addFinishedRun(QStringLiteral("selected"), other); // selected: the reference
        const Figure* loss = nullptr;
        for (const Figure* f : w.figures())
            if (f->figureName() == QStringLiteral("loss")) loss = f;
        QVERIFY(loss);
        QStringList names;
        for (const auto& r : w.exportMetadata(loss->figureTitle(), loss).runs) names << r.first;
        QCOMPARE(names.size(), 1); // not "other task"
        QVERIFY2(names.first().endsWith(QStringLiteral("selected")), qPrintable(names.first()));
    }

    void exportEachFormat_data() {
        QTest::addColumn<QString>("figureName");
        for (const char* n :
             {"spectrum", "lambda_trace", "loss", "heads", "coefficients", "singular_values"})
            QTest::newRow(n) << QString::fromLatin1(n);
    }
    void exportEachFormat() {
        QFETCH(QString, figureName);
        const Figure* f = figure(figureName);
        QVERIFY(f);
        QVERIFY(f->hasData());
        const ExportMetadata meta = m_window->exportMetadata(f->figureTitle());
        const QString base = m_dir.filePath(QStringLiteral("one_") + figureName);
        const QSize size(900, 600);
        const int dpi = 150;

        // SVG: well-formed XML whose <desc> holds the experiment, its seeds and the version.
        QCOMPARE(
            exportFigure(*f, base + QStringLiteral(".svg"), ExportFormat::Svg, size, dpi, meta),
            QString());
        QXmlStreamReader xml(readAll(base + QStringLiteral(".svg")));
        QString desc;
        bool sawSvg = false;
        while (!xml.atEnd()) {
            xml.readNext();
            if (xml.isStartElement() && xml.name() == u"svg") sawSvg = true;
            if (xml.isStartElement() && xml.name() == u"desc") desc = xml.readElementText();
        }
        QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
        QVERIFY(sawSvg);
        const QJsonObject md = QJsonDocument::fromJson(desc.toUtf8()).object();
        QCOMPARE(md.value(QStringLiteral("version")).toString(), QStringLiteral(MHLA_VERSION));
        const QJsonObject run = md.value(QStringLiteral("runs")).toArray().first().toObject();
        QCOMPARE(run.value(QStringLiteral("experiment")).toObject(),
                 experimentToJson(m_result.config));
        QVERIFY(
            run.value(QStringLiteral("seeds")).toString().contains(QStringLiteral("task seed 42")));

        // PDF: a PDF whose metadata names the app version and the experiment.
        QCOMPARE(
            exportFigure(*f, base + QStringLiteral(".pdf"), ExportFormat::Pdf, size, dpi, meta),
            QString());
        const QByteArray pdf = readAll(base + QStringLiteral(".pdf"));
        QVERIFY(pdf.startsWith("%PDF"));
        QVERIFY(containsUtf8OrUtf16(pdf, appVersionString()));
        QVERIFY(pdf.contains("task seed 42"));

        // PNG: decodes to the requested size and resolution, with text chunks.
        QCOMPARE(
            exportFigure(*f, base + QStringLiteral(".png"), ExportFormat::Png, size, dpi, meta),
            QString());
        QImage img(base + QStringLiteral(".png"));
        QVERIFY(!img.isNull());
        QCOMPARE(img.size(), size);
        QCOMPARE(qRound(img.dotsPerMeterX() * 0.0254), dpi);
        QCOMPARE(img.text(QStringLiteral("Software")), appVersionString());
        QVERIFY(img.text(QStringLiteral("Experiment")).contains(QStringLiteral("\"seed\":42")));
        // Not a blank page: some pixels are neither white nor transparent.
        int ink = 0;
        for (int y = 0; y < img.height(); y += 7)
            for (int x = 0; x < img.width(); x += 7)
                if (img.pixelColor(x, y).lightness() < 200) ++ink;
        QVERIFY(ink > 20);

        // CSV beside the figure: metadata comments, a header, the data.
        const QStringList lines = QString::fromUtf8(readAll(base + QStringLiteral(".csv")))
                                      .split(u'\n', Qt::SkipEmptyParts);
        QVERIFY(lines.size() > 3);
        QVERIFY(lines[0].startsWith(QStringLiteral("# ") + appVersionString()));
        QVERIFY(lines[1].contains(QStringLiteral("task seed 42")));
        QVERIFY(lines[2] == u"series,x,y" || lines[2] == u"panel,row,col,value");
    }

    void spectrumCsvHasEveryEigenvalue() {
        const Figure* f = figure(QStringLiteral("spectrum"));
        const QStringList lines = f->csv().split(u'\n', Qt::SkipEmptyParts);
        // header + every eigenvalue + the tolerance line
        QCOMPARE(lines.size(), 1 + static_cast<int>(m_result.certificate.spectrum.size()) + 1);
    }

    void exportErrorsAreReturned() {
        const Figure* f = figure(QStringLiteral("spectrum"));
        const ExportMetadata meta = m_window->exportMetadata(QStringLiteral("x"));
        QVERIFY(!exportFigure(*f, QStringLiteral("/nonexistent-dir/x.svg"), ExportFormat::Svg,
                              QSize(800, 600), 96, meta)
                     .isEmpty());
        QVERIFY(!exportFigure(*f, m_dir.filePath(QStringLiteral("tiny.png")), ExportFormat::Png,
                              QSize(4, 4), 96, meta)
                     .isEmpty());
        PlotWidget empty(QStringLiteral("empty"));
        QVERIFY(!exportFigure(empty, m_dir.filePath(QStringLiteral("empty.svg")), ExportFormat::Svg,
                              QSize(800, 600), 96, meta)
                     .isEmpty());
    }

    void exportAllWritesEverythingAndNeverOverwritesSilently() {
        const QString dir = m_dir.filePath(QStringLiteral("all"));
        QStringList written;
        QCOMPARE(m_window->exportAllTo(dir, false, &written), QString());
        for (const QString& name : exportAllFileNames(m_window->figures()))
            QVERIFY2(QFile::exists(dir + u'/' + name), qPrintable(name));
        for (const QString& p : written) QVERIFY2(QFile::exists(p), qPrintable(p));
        // experiment.json is the CLI's format and round-trips.
        const ExperimentConfig cfg = experimentFromFile(dir + QStringLiteral("/experiment.json"));
        QCOMPARE(experimentToJson(cfg), experimentToJson(m_result.config));
        QVERIFY(QJsonDocument::fromJson(readAll(dir + QStringLiteral("/result.json"))).isObject());
        // A second export into the same folder is refused unless overwriting is confirmed.
        const QByteArray before = readAll(dir + QStringLiteral("/spectrum.svg"));
        QStringList existing;
        const QString err = m_window->exportAllTo(dir, false, nullptr, &existing);
        QVERIFY(!err.isEmpty());
        QVERIFY(existing.contains(QStringLiteral("spectrum.svg")));
        QCOMPARE(readAll(dir + QStringLiteral("/spectrum.svg")), before);
        QCOMPARE(m_window->exportAllTo(dir, true), QString());
    }

    // Issue 26: Export all writes result.json last, as writeRunFolder does: an overwrite that
    // fails half-way (here a folder in the place of a PNG) leaves no result.json of the
    // earlier export beside the new figures, and the folder does not open as one run.
    void exportAllWritesResultJsonLast() {
        const QString dir = m_dir.filePath(QStringLiteral("all-last"));
        QCOMPARE(m_window->exportAllTo(dir, false), QString());
        QVERIFY(QFile::exists(dir + QStringLiteral("/result.json")));
        const QStringList names = exportAllFileNames(m_window->figures());
        QString png;
        for (const QString& n : names)
            if (n.endsWith(QStringLiteral(".png"))) png = n;
        QVERIFY(!png.isEmpty());
        QVERIFY(QFile::remove(dir + u'/' + png));
        QVERIFY(QDir(dir).mkdir(png)); // writing this figure's PNG fails
        QVERIFY(!m_window->exportAllTo(dir, true).isEmpty());
        QVERIFY2(!QFile::exists(dir + QStringLiteral("/result.json")),
                 "a failed export left the earlier result.json in place");
        QVERIFY(QDir(dir + u'/' + png).removeRecursively());
        QCOMPARE(m_window->exportAllTo(dir, true), QString());
        QVERIFY(QJsonDocument::fromJson(readAll(dir + QStringLiteral("/result.json"))).isObject());
    }

    void figuresCommand() {
        const QString out = m_dir.filePath(QStringLiteral("headless"));
        const QString config =
            QStringLiteral(MHLA_SOURCE_DIR "/resources/presets/") + defaultPresetFile();
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        p.setProcessEnvironment(env);
        p.start(QStringLiteral(MHLA_BINARY),
                {QStringLiteral("figures"), QStringLiteral("--config"), config,
                 QStringLiteral("--out"), out, QStringLiteral("--set"),
                 QStringLiteral("task.samples=2048")});
        QVERIFY(p.waitForFinished(60000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        for (const char* n : {"spectrum.svg", "spectrum.pdf", "spectrum.png", "spectrum.csv",
                              "heads.svg", "lambda_trace.png", "experiment.json", "result.json"})
            QVERIFY2(QFile::exists(out + u'/' + QString::fromLatin1(n)), n);
        QCOMPARE(experimentFromFile(out + QStringLiteral("/experiment.json")).task.samples, 2048LL);

        // The same folder again: refused (exit 2) unless --force.
        const QStringList again{QStringLiteral("figures"), QStringLiteral("--config"), config,
                                QStringLiteral("--out"), out};
        QProcess refused;
        refused.setProcessEnvironment(env);
        refused.start(QStringLiteral(MHLA_BINARY), again);
        QVERIFY(refused.waitForFinished(60000));
        QCOMPARE(refused.exitCode(), 2);
        QVERIFY(refused.readAllStandardError().contains("--force"));
        QProcess forced;
        forced.setProcessEnvironment(env);
        forced.start(QStringLiteral(MHLA_BINARY), again + QStringList{QStringLiteral("--force")});
        QVERIFY(forced.waitForFinished(60000));
        QCOMPARE(forced.exitCode(), 0);
        QCOMPARE(experimentFromFile(out + QStringLiteral("/experiment.json")).task.samples, 4096LL);

        QProcess bad;
        bad.setProcessEnvironment(env);
        bad.start(QStringLiteral(MHLA_BINARY),
                  {QStringLiteral("figures"), QStringLiteral("--config"), config,
                   QStringLiteral("--out"), out, QStringLiteral("--set"),
                   QStringLiteral("task.samples=0")});
        QVERIFY(bad.waitForFinished(60000));
        QCOMPARE(bad.exitCode(), 2);
        QVERIFY(bad.readAllStandardError().contains("task.samples"));

        QProcess missing;
        missing.start(QStringLiteral(MHLA_BINARY),
                      {QStringLiteral("figures"), QStringLiteral("--out"), out});
        QVERIFY(missing.waitForFinished(60000));
        QCOMPARE(missing.exitCode(), 2);
    }

    // figures writes the data files with core's writer: the same names, schemas and values as
    // `solve --out` (issue 7.5); plot CSVs with a data file's name get their own name.
    void figuresDataFilesMatchSolve() {
        const QString config =
            QStringLiteral(MHLA_SOURCE_DIR "/resources/presets/") + defaultPresetFile();
        const QString figOut = m_dir.filePath(QStringLiteral("same_fig")),
                      solveOut = m_dir.filePath(QStringLiteral("same_solve"));
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        QProcess fig, solve;
        fig.setProcessEnvironment(env);
        solve.setProcessEnvironment(env);
        fig.start(QStringLiteral(MHLA_BINARY),
                  {QStringLiteral("figures"), QStringLiteral("--config"), config,
                   QStringLiteral("--out"), figOut});
        QVERIFY(fig.waitForFinished(120000));
        QVERIFY2(fig.exitCode() == 0, fig.readAllStandardError().constData());
        solve.start(QStringLiteral(MHLA_BINARY),
                    {QStringLiteral("solve"), QStringLiteral("--config"), config,
                     QStringLiteral("--out"), solveOut});
        QVERIFY(solve.waitForFinished(120000));
        QVERIFY2(solve.exitCode() == 0, solve.readAllStandardError().constData());
        for (const char* n : {"spectrum.csv", "heads.csv", "lambda_trace.csv", "experiment.json"}) {
            const QByteArray a = readAll(figOut + u'/' + QString::fromLatin1(n));
            QVERIFY2(!a.isEmpty(), n);
            QCOMPARE(a, readAll(solveOut + u'/' + QString::fromLatin1(n)));
        }
        QVERIFY(QFile::exists(figOut + QStringLiteral("/spectrum_plot.csv")));
    }

    // --out is checked before the run: an unusable folder fails at once with exit 2.
    void figuresChecksOutFirst() {
        const QString config =
            QStringLiteral(MHLA_SOURCE_DIR "/resources/presets/") + defaultPresetFile();
        const QString blocker = m_dir.filePath(QStringLiteral("a_file"));
        QFile f(blocker);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.close();
        QProcess p;
        p.start(QStringLiteral(MHLA_BINARY),
                {QStringLiteral("figures"), QStringLiteral("--config"), config,
                 QStringLiteral("--out"), blocker + QStringLiteral("/sub")});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 2);
        const QByteArray err = p.readAllStandardError();
        QVERIFY2(!err.contains("100%"), err.constData()); // nothing was run
        QProcess bad;
        bad.start(QStringLiteral(MHLA_BINARY),
                  {QStringLiteral("figures"), QStringLiteral("--config"),
                   m_dir.filePath(QStringLiteral("missing.json")), QStringLiteral("--out"),
                   m_dir.filePath(QStringLiteral("x"))});
        QVERIFY(bad.waitForFinished(60000));
        QCOMPARE(bad.exitCode(), 2);
        QVERIFY(bad.readAllStandardError().contains("missing.json"));
    }
};

QTEST_MAIN(TstGuiExport)
#include "tst_gui_export.moc"
