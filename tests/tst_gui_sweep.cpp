// Sweep figures in the ui layer: `mhla-lab figures` on a sweep file (runs the sweep like
// `mhla-lab sweep`, same runs.csv; draws each figure as SVG/PDF/PNG with its data CSV; resumes;
// a bad "figures" block fails before any run), the Sweep tab drawing the visible runs as they
// finish, the presets' sweeps parsed by core's parseSweep, and the automaton trace as a figure.
#include "core/records/resultio.h"
#include "core/run/runner.h"
#include "core/sweep/sweep.h"
#include "guitestutil.h"
#include "testutil.h"
#include "ui/experiment/experimentfile.h"
#include "ui/experiment/experimentpanel.h"
#include "ui/experiment/presets.h"
#include "ui/panels/automatonpanel.h"
#include "ui/panels/sweeppanel.h"
#include "ui/plot/elidedcombobox.h"
#include "ui/plot/plotwidget.h"
#include "ui/run/runlist.h"
#include "ui/shell/appsettings.h"
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>

using namespace mhla;
using namespace mhla::ui;
using namespace mhla::ui::test;

namespace {

using mhla::test::readAll;
using mhla::test::s;

using Proc = mhla::test::Outcome;

/// The binary, with a sweep's time limit (10 minutes).
Proc runBinary(const QStringList& args) { return mhla::test::runBinary(args, 600000); }

/// 3 values of p x 2 seeds, the exact solver, a band and a scatter.
const char kSweepFile[] = R"J({
  "task": {"kind": "associative_memory", "pairs": 2, "samples": 400},
  "eval": {"val_samples": 200, "ood_samples": 200, "lambda_trace": 0},
  "sweep": {"grid": {"task.orthogonal_prob": [0, 0.5, 1]}, "seeds": 2},
  "figures": [
    {"kind": "band", "name": "lmin", "x": "task.orthogonal_prob", "y": "lambda_min"},
    {"kind": "scatter", "name": "dist", "x": "-log10(lambda_min)", "y": "distance_p_rel",
     "colour": "task.orthogonal_prob"}
  ]
})J";

QString writeFile(const QTemporaryDir& dir, const QString& name, const QByteArray& text) {
    const QString path = dir.filePath(name);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly)) return {};
    f.write(text);
    return path;
}

int dataRows(const QByteArray& csv) {
    int n = 0;
    for (const QByteArray& line : csv.split('\n'))
        if (!line.isEmpty() && !line.startsWith('#')) ++n;
    return n - 1; // header
}

} // namespace

class TstGuiSweep : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;

private Q_SLOTS:
    void initTestCase() { QVERIFY(useTestSettings(m_dir)); }

    // At x2 beside the docks the tab has ~540 px: the Sweep panel's row of choices made it wider
    // than that (a horizontal scroll bar, the plot's Export… cut). Its choices now give way.
    void sweepPanelFitsANarrowTab() {
        SweepPanel panel;
        for (QComboBox* c : panel.findChildren<QComboBox*>())
            c->addItem(QStringLiteral("a very long choice that names a whole batch of runs"));
        QVERIFY2(panel.minimumSizeHint().width() <= 480,
                 qPrintable(QString::number(panel.minimumSizeHint().width())));
        // Squeezed, a choice is elided with "…" (not cut mid-letter) and its tooltip gives the
        // whole text, then what the box is for.
        panel.resize(480, 400);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        auto* band = panel.findChild<ElidedComboBox*>(QStringLiteral("sweepBand"));
        QVERIFY(band);
        band->setCurrentIndex(band->count() - 1);
        band->setFixedWidth(band->fontMetrics().horizontalAdvance(QStringLiteral("automatic")));
        QTRY_VERIFY(band->isElided());
        QVERIFY(band->toolTip().startsWith(band->currentText() + u'\n'));
        QVERIFY(band->toolTip().contains(QStringLiteral("seeds of each grid point")));
        band->setFixedWidth(band->sizeHint().width());
        QTRY_VERIFY(!band->isElided());
        QCOMPARE(band->toolTip(), QStringLiteral("The band over the seeds of each grid point"));
        // A new, longer text of the current choice is elided at once, at the same width.
        const QString longer = band->currentText() + QStringLiteral(", and then some more words");
        band->setItemText(band->currentIndex(), longer);
        QVERIFY(band->isElided());
        QVERIFY(band->toolTip().startsWith(longer + u'\n'));
    }

    void figuresRunsTheSweepAndDrawsIt() {
        const QString config = writeFile(m_dir, s("sweep.json"), kSweepFile);
        const QString out = m_dir.filePath(s("fig")), ref = m_dir.filePath(s("ref"));
        const Proc p = runBinary({s("figures"), s("--config"), config, s("--out"), out, s("--jobs"),
                                  s("2"), s("--size"), s("800x500"), s("--dpi"), s("100")});
        QVERIFY2(p.code == 0, p.err.constData());
        for (const char* n : {"lmin.svg", "lmin.pdf", "lmin.png", "lmin.csv", "dist.png",
                              "dist.csv", "runs.csv", "summary.csv", "sweep.json"})
            QVERIFY2(QFile::exists(QDir(out).filePath(s(n))), n);
        QCOMPARE(QImage(QDir(out).filePath(s("lmin.png"))).size(), QSize(800, 500));
        // The band: one row per value of p; its header names the band's statistics.
        const QByteArray band = readAll(QDir(out).filePath(s("lmin.csv")));
        QVERIFY2(band.contains("series,task.orthogonal_prob,lambda_min_median,lambda_min_q10,"
                               "lambda_min_q90,runs\n"),
                 band.constData());
        QCOMPARE(dataRows(band), 3);
        QVERIFY(band.contains("# MHLA Lab")); // the metadata comment
        // The scatter: one row per run whose -log10(lambda_min) is finite (p = 1 is not).
        const QByteArray scatter = readAll(QDir(out).filePath(s("dist.csv")));
        QCOMPARE(dataRows(scatter), 4);
        // The same runs as `mhla-lab sweep` with one job: runs.csv byte for byte.
        const Proc r =
            runBinary({s("sweep"), s("--config"), config, s("--out"), ref, s("--quiet")});
        QVERIFY2(r.code == 0, r.err.constData());
        QCOMPARE(readAll(QDir(out).filePath(s("runs.csv"))),
                 readAll(QDir(ref).filePath(s("runs.csv"))));
        QCOMPARE(readAll(QDir(out).filePath(s("summary.csv"))),
                 readAll(QDir(ref).filePath(s("summary.csv"))));
        // The paper-scale grid is one option away: --grid and --seeds as for `sweep`.
        const QString more = m_dir.filePath(s("more"));
        const Proc m =
            runBinary({s("figures"), s("--config"), config, s("--out"), more, s("--grid"),
                       s("task.orthogonal_prob=0,0.25,0.5,1"), s("--seeds"), s("1")});
        QVERIFY2(m.code == 0, m.err.constData());
        QCOMPARE(dataRows(readAll(QDir(more).filePath(s("lmin.csv")))), 4);
        QCOMPARE(dataRows(readAll(QDir(more).filePath(s("runs.csv")))), 4);
        // Rerun: resumes (no run again), redraws the figures.
        const Proc again = runBinary({s("figures"), s("--config"), config, s("--out"), out});
        QVERIFY2(again.code == 0, again.err.constData());
        QVERIFY2(!again.err.contains("[1/"), again.err.constData());
        QCOMPARE(readAll(QDir(out).filePath(s("lmin.csv"))).split('\n').mid(2),
                 band.split('\n').mid(2));
    }

    void paperStyleAndAFileWithoutFigures() {
        // Issue 21 points 7 and 8: --style paper-1col gives a one-column figure (3.4 x 2.4 in at
        // --dpi); a sweep file without "figures" draws the defaults (it failed with "figures:
        // expected an array of figure objects").
        QJsonObject o = QJsonDocument::fromJson(kSweepFile).object();
        o.remove(s("figures"));
        const QString config =
            writeFile(m_dir, s("own.json"), QJsonDocument(o).toJson(QJsonDocument::Compact));
        const QString out = m_dir.filePath(s("paper"));
        const Proc p = runBinary({s("figures"), s("--config"), config, s("--out"), out,
                                  s("--style"), s("paper-1col"), s("--dpi"), s("100")});
        QVERIFY2(p.code == 0, p.err.constData());
        const QString png = QDir(out).filePath(s("sweep_band_lambda_min.png"));
        QCOMPARE(QImage(png).size(), QSize(340, 240));
        const Proc two = runBinary({s("figures"), s("--config"), config, s("--out"), out,
                                    s("--style"), s("paper-2col"), s("--dpi"), s("100")});
        QVERIFY2(two.code == 0, two.err.constData());
        QCOMPARE(QImage(png).size(), QSize(700, 280));
    }

    void badFiguresBlockFailsBeforeAnyRun() {
        QByteArray text(kSweepFile);
        text.replace("\"y\": \"lambda_min\"", "\"y\": \"lambda_mni\"");
        const QString config = writeFile(m_dir, s("bad.json"), text);
        const QString out = m_dir.filePath(s("bad"));
        const Proc p = runBinary({s("figures"), s("--config"), config, s("--out"), out});
        QCOMPARE(p.code, 2);
        QVERIFY2(p.err.contains("figures[0].y") && p.err.contains("lambda_mni"), p.err.constData());
        QVERIFY(!QFileInfo::exists(QDir(out).filePath(s("runs"))));
        // Another sweep into the same folder is refused, as by `mhla-lab sweep`.
        const QString other = writeFile(
            m_dir, s("other.json"), QByteArray(kSweepFile).replace("\"seeds\": 2", "\"seeds\": 1"));
        const QString used = m_dir.filePath(s("fig"));
        const Proc o = runBinary({s("figures"), s("--config"), other, s("--out"), used});
        QCOMPARE(o.code, 2);
        QVERIFY2(o.err.contains("another sweep"), o.err.constData());
        // --seeds / --grid: a sweep file only.
        const QString single = writeFile(
            m_dir, s("single.json"), R"({"task": {"kind": "associative_memory", "samples": 400}})");
        const Proc g = runBinary({s("figures"), s("--config"), single, s("--out"),
                                  m_dir.filePath(s("single")), s("--seeds"), s("3")});
        QCOMPARE(g.code, 2);
        QVERIFY2(g.err.contains("has none"), g.err.constData());
        const Proc j =
            runBinary({s("figures"), s("--config"), other, s("--out"), used, s("--jobs"), s("0")});
        QCOMPARE(j.code, 2);
        QVERIFY(j.err.contains("--jobs"));
        // More than 1000 runs (3 values x 334 seeds): refused before any run, and the message
        // names the way past (--yes).
        const QString big = m_dir.filePath(s("big"));
        const Proc b = runBinary(
            {s("figures"), s("--config"), other, s("--out"), big, s("--seeds"), s("334")});
        QCOMPARE(b.code, 2);
        QVERIFY2(b.err.contains("1002 runs") && b.err.contains("--yes"), b.err.constData());
        QVERIFY(!QFileInfo::exists(QDir(big).filePath(s("runs"))));
    }

    void sweepTabDrawsRunsAsTheyFinish() {
        SweepPanel panel;
        std::vector<std::unique_ptr<RunRecord>> records;
        QList<const RunRecord*> visible;
        int id = 0;
        for (const char* p : {"0", "0.5", "1"})
            for (int seed = 1; seed <= 2; ++seed) {
                QJsonObject o;
                for (const QString& a :
                     {s("task.samples=400"), s("eval.val_samples=100"), s("eval.ood_samples=100"),
                      s("eval.lambda_trace=0"), s("task.orthogonal_prob=") + s(p),
                      s("task.seed=") + QString::number(seed)})
                    applyOverride(o, a);
                auto r = std::make_unique<RunRecord>();
                r->id = ++id;
                r->config = experimentFromJson(o);
                r->name = QString::number(id);
                visible << r.get();
                records.push_back(std::move(r));
            }
        panel.showRuns(visible);
        QVERIFY(panel.data().empty());
        QVERIFY2(panel.status().contains(s("0 of 6 runs finished")), qPrintable(panel.status()));
        // Finish the runs one by one: the figure grows with each.
        int lastUsed = 0;
        for (auto& r : records) {
            r->result = runExperiment(r->config);
            r->state = RunRecord::State::Finished;
            panel.showRuns(visible);
            QVERIFY(panel.data().runsUsed > lastUsed);
            lastUsed = panel.data().runsUsed;
        }
        QCOMPARE(lastUsed, 6);
        QVERIFY2(panel.status().contains(s("task.orthogonal_prob")), qPrintable(panel.status()));
        QCOMPARE(panel.figures().size(), 1);
        const SweepFigureData& d = panel.data();
        const auto line = std::find_if(d.series.begin(), d.series.end(),
                                       [](const auto& sr) { return sr.name == s("λ_min"); });
        QVERIFY(line != d.series.end());
        QCOMPARE(line->x, (std::vector<double>{0, 0.5, 1}));
        // lambda_min falls with p (the paper's claim (ii)), here in the tab's own series.
        QVERIFY(line->y[0] > line->y[1]);
        QVERIFY(line->y[1] > line->y[2]);
        // p = 1 is not certified: its triangle is drawn, and the note counts the runs.
        const SweepPlotSeries& tri = d.series.back();
        QCOMPARE(tri.style, SweepPlotSeries::Style::Triangles);
        QVERIFY(std::find(tri.x.begin(), tri.x.end(), 1.0) != tri.x.end());
        QVERIFY2(d.runsNotCertified >= 2, qPrintable(d.note));
        // Runs that differ in seeds only: no sweep figure, a message instead.
        panel.showRuns({visible[0], visible[1]});
        QVERIFY(panel.figures().isEmpty());
        QVERIFY2(panel.status().contains(s("seeds only")), qPrintable(panel.status()));
        // The empty plot does not contradict it with "No data yet: run an experiment".
        auto* plot = panel.findChild<PlotWidget*>();
        QVERIFY(plot);
        QVERIFY2(!plot->note().contains(s("No data yet")), qPrintable(plot->note()));
        QVERIFY2(plot->note().contains(s("no single swept key")), qPrintable(plot->note()));
        // Nothing of the figure drawn before stays in its note.
        QVERIFY2(!plot->note().contains(s("band")), qPrintable(plot->note()));
    }

    // An opened sweep file's "figures" are what the Sweep tab draws first, as `figures` draws
    // them: their kinds, metrics, bands, titles and log axes (before, the tab drew its own
    // default whatever the file said).
    void sweepTabDrawsTheFilesFigures() {
        const SweepFile sf = parseSweep(QJsonDocument::fromJson(QByteArray(kSweepFile)).object());
        const SweepPlan plan = planSweep(sf.base, sf.spec);
        std::vector<std::unique_ptr<RunRecord>> records;
        QList<const RunRecord*> visible;
        std::vector<ExperimentConfig> configs;
        std::vector<QJsonObject> results;
        for (const SweepRun& run : plan.runs) {
            auto r = std::make_unique<RunRecord>();
            r->id = static_cast<int>(records.size()) + 1;
            r->batch = 1;
            r->config = run.config;
            r->name = QString::number(r->id);
            r->result = runExperiment(run.config);
            r->state = RunRecord::State::Finished;
            configs.push_back(r->config);
            results.push_back(resultToJson(*r->result));
            visible << r.get();
            records.push_back(std::move(r));
        }
        SweepPanel panel;
        panel.showRuns(visible);
        QCOMPARE(panel.data().name, s("sweep")); // the tab's own default
        auto* view = panel.findChild<QComboBox*>(s("sweepView"));
        auto* metric = panel.findChild<QComboBox*>(s("sweepMetric"));
        QVERIFY(view && metric);

        panel.setFileFigures(sf.figures, s("open.json"));
        QCOMPARE(view->count(), 4);
        QCOMPARE(view->itemText(0), s("open.json: lmin"));
        QCOMPARE(view->itemText(1), s("open.json: dist"));
        QCOMPARE(view->currentIndex(), 0);
        QVERIFY(!metric->isEnabled()); // the file's figure says its metric
        // What core's reduction gives for the file's figure on these runs, byte for byte.
        const SweepPlan fromRuns = sweepPlanFromConfigs(configs);
        const std::vector<SweepFigureSpec> specs = parseSweepFigures(sf.figures, fromRuns);
        QCOMPARE(panel.data().name, s("lmin"));
        QCOMPARE(panel.data().csv, reduceSweepFigure(specs[0], fromRuns, results).csv);
        view->setCurrentIndex(1);
        QCOMPARE(panel.data().name, s("dist"));
        QCOMPARE(panel.data().csv, reduceSweepFigure(specs[1], fromRuns, results).csv);
        QVERIFY2(panel.data().xTitle.contains(s("log₁₀")), qPrintable(panel.data().xTitle));

        // The file's log axis, band and title are kept: lambda_min <= 0 at p = 1 would turn the
        // automatic log axis off; the file asks for one, so those runs sit at the floor.
        const QJsonArray own = QJsonDocument::fromJson(R"J([{"kind": "band", "name": "lin",
            "x": "task.orthogonal_prob", "y": "lambda_min", "log_y": true, "band": "minmax",
            "title": "Certificate against p"}])J")
                                   .array();
        panel.setFileFigures(own, s("own.json"));
        QCOMPARE(view->itemText(0), s("own.json: lin")); // the name; the title in its tooltip
        QCOMPARE(view->itemData(0, Qt::ToolTipRole).toString(), s("Certificate against p"));
        QCOMPARE(view->count(), 3); // the earlier file's figures are gone
        const SweepFigureData& d = panel.data();
        QCOMPARE(d.title, s("Certificate against p"));
        QVERIFY(d.logY);
        QVERIFY2(d.floorY > 0 && d.runsAtFloor >= 2, qPrintable(d.note));
        QVERIFY2(d.csv.startsWith("series,task.orthogonal_prob,lambda_min_median,lambda_min_min,"),
                 d.csv.left(80).constData());

        // A figure that does not fit these runs: the default is drawn and the line says why.
        panel.setFileFigures(
            QJsonDocument::fromJson(R"J([{"kind": "band", "x": "task.pairs"}])J").array(),
            s("other.json"));
        QCOMPARE(panel.data().name, s("sweep"));
        QVERIFY2(panel.status().contains(s("The figures of other.json do not fit these runs")) &&
                     panel.status().contains(s("task.pairs")),
                 qPrintable(panel.status()));
        // Taken away (a preset loaded): the tab's own views only, and its boxes again.
        panel.setFileFigures(QJsonValue(), QString());
        QCOMPARE(view->count(), 2);
        QVERIFY(metric->isEnabled());
        QCOMPARE(panel.data().name, s("sweep"));
    }

    // The Sweep tab draws one sweep: the runs of one Run (their batch), the newest unless
    // another is chosen, not every visible run (a mixed list swept over unrelated keys).
    void sweepTabDrawsOneSweep() {
        SweepPanel panel;
        std::vector<std::unique_ptr<RunRecord>> records;
        QList<const RunRecord*> visible;
        const auto add = [&](int batch, const QString& key) {
            QJsonObject o;
            for (const QString& a : {s("task.samples=400"), s("eval.lambda_trace=0"), key})
                applyOverride(o, a);
            auto r = std::make_unique<RunRecord>();
            r->id = static_cast<int>(records.size()) + 1;
            r->batch = batch;
            r->config = experimentFromJson(o);
            r->name = QString::number(r->id);
            visible << r.get();
            records.push_back(std::move(r));
        };
        for (const char* p : {"0", "0.5", "1"}) add(1, s("task.orthogonal_prob=") + s(p));
        for (const char* n : {"300", "500"}) add(2, s("task.samples=") + s(n));
        add(3, s("task.kind=associative_memory")); // a single run: no group of its own
        panel.showRuns(visible);
        auto* group = panel.findChild<QComboBox*>(s("sweepGroup"));
        QVERIFY(group);
        QCOMPARE(group->count(), 3); // batch 1, batch 2, all visible runs
        QCOMPARE(group->itemText(0), s("Runs #1–#3 (3 runs)"));
        QCOMPARE(group->itemText(2), s("All visible runs (6 runs)"));
        // The newest sweep is drawn, and only it.
        QCOMPARE(group->currentData().toInt(), 2);
        QCOMPARE(panel.drawnRuns().size(), 2);
        QVERIFY2(panel.status().contains(s("0 of 2 runs finished; swept: task.samples;")),
                 qPrintable(panel.status()));
        // Another one chosen stays chosen while runs finish or change...
        group->setCurrentIndex(0);
        Q_EMIT group->activated(0);
        QVERIFY2(panel.status().contains(s("swept: task.orthogonal_prob;")),
                 qPrintable(panel.status()));
        panel.showRuns(visible);
        QCOMPARE(group->currentData().toInt(), 1);
        QCOMPARE(panel.drawnRuns().size(), 3);
        // ...until a new Run brings a new sweep, which is then drawn.
        for (const char* n : {"200", "250"}) add(4, s("task.samples=") + s(n));
        panel.showRuns(visible);
        QCOMPARE(group->currentData().toInt(), 4);
        QCOMPARE(panel.drawnRuns().size(), 2);
        // One group holding every run: nothing to choose, every run drawn.
        panel.showRuns({visible[0], visible[1], visible[2]});
        QVERIFY(group->isHidden());
        QCOMPARE(panel.drawnRuns().size(), 3);
        // All visible runs, from several Run clicks and differing in several keys, are not a
        // sweep: nothing drawn, nothing for Export all, and the status names the keys.
        panel.showRuns(visible);
        group->setCurrentIndex(group->count() - 1); // all visible runs
        Q_EMIT group->activated(group->currentIndex());
        QVERIFY2(panel.status().contains(
                     s("These 8 runs differ in 2 keys (task.orthogonal_prob, task.samples)")),
                 qPrintable(panel.status()));
        QVERIFY(panel.figures().isEmpty());
        // Runs made one by one that differ in one key are a sweep made by hand.
        panel.showRuns({visible[3], visible[4], visible[6], visible[7]});
        QVERIFY2(panel.status().contains(s("swept: task.samples;")), qPrintable(panel.status()));
        auto* band = panel.findChild<QComboBox*>(s("sweepBand"));
        QVERIFY(band);
        QVERIFY(!band->isEnabled()); // one seed per point: no band to choose
        // A single run says so, not "differ in their seeds only".
        panel.showRuns({visible[5]});
        QVERIFY2(panel.status().startsWith(s("One run:")), qPrintable(panel.status()));
    }

    void presetsSweepsGoThroughCore() {
        bool sawSweep = false;
        for (const Preset& p : builtinPresets()) {
            if (p.sweep.axes.empty()) continue;
            sawSweep = true;
            QCOMPARE(p.sweepKey, p.sweep.axes.front().key);
            QVERIFY(!p.sweepValues.isEmpty());
        }
        QVERIFY(sawSweep);
        // The index's short form and the experiment file's grid form are one grammar.
        const Preset grid = presetFromIndexEntry(QJsonObject{
            {s("file"), s("x.json")},
            {s("sweep"), QJsonObject{{s("grid"), QJsonObject{{s("solver.heads"), s("1:3:1")}}}}}});
        QCOMPARE(grid.sweepValues, (QJsonArray{1, 2, 3}));
        bool threw = false;
        try {
            presetFromIndexEntry(
                QJsonObject{{s("file"), s("broken.json")},
                            {s("sweep"), QJsonObject{{s("key"), s("solver.hedas")},
                                                     {s("values"), QJsonArray{1}}}}});
        } catch (const ConfigError& e) {
            threw = true;
            QVERIFY2(QString::fromUtf8(e.what()).contains(s("broken.json")), e.what());
        }
        QVERIFY(threw);
        // The panel's jobs: one per sweep point (the heads preset: 1, 2, 4, 8).
        ExperimentPanel panel;
        int heads = -1;
        for (int i = 0; i < builtinPresets().size(); ++i)
            if (builtinPresets()[i].sweepKey == s("solver.heads")) heads = i;
        QVERIFY(heads >= 0);
        panel.loadPreset(heads);
        const auto jobs = panel.jobs();
        QCOMPARE(jobs.size(), builtinPresets()[heads].sweepValues.size());
        for (qsizetype k = 0; k < jobs.size(); ++k) {
            QCOMPARE(jobs[k].config.solver.heads, builtinPresets()[heads].sweepValues[k].toInt());
            QVERIFY2(jobs[k].name.contains(s("heads=")), qPrintable(jobs[k].name));
        }
    }

    // Issue 22: the window plans its runs with core's planSweep, as `mhla-lab sweep` does. A
    // sweep point that an edit makes invalid is named and Run is refused; the panel used to
    // drop such points silently and run the rest (here softmax, whose heads are at most d = 3:
    // the preset's 4- and 8-head points).
    void aBadSweepPointIsNamedNotDropped() {
        ExperimentPanel panel;
        int heads = -1;
        for (int i = 0; i < builtinPresets().size(); ++i)
            if (builtinPresets()[i].sweepKey == s("solver.heads")) heads = i;
        QVERIFY(heads >= 0);
        panel.loadPreset(heads);
        QVERIFY(panel.isValid());
        QCOMPARE(panel.jobs().size(), 4);
        auto* kind = panel.findChild<QComboBox*>(s("field_solver.kind"));
        QVERIFY(kind);
        const int softmax = kind->findText(s("softmax"), Qt::MatchContains);
        QVERIFY(softmax >= 0);
        kind->setCurrentIndex(softmax);
        QVERIFY(!panel.isValid());
        const QString why = panel.generalError();
        QVERIFY2(why.contains(s("sweep point 2 (solver.heads=4)")), qPrintable(why));
        QCOMPARE(panel.planProblem(), why);
        QVERIFY(panel.jobs().isEmpty());
        // Without the sweep the form's own experiment (1 head) runs.
        panel.findChild<QCheckBox*>(s("sweepCheck"))->setChecked(false);
        QVERIFY2(panel.isValid(), qPrintable(panel.generalError()));
        QCOMPARE(panel.jobs().size(), 1);
        QVERIFY(panel.jobs().first().config.solver.kind == SolverKind::Softmax);
    }

    // Opening a paper file in the app: its base goes into the form, Run starts the same runs
    // as `mhla-lab sweep` (same configs, same order), the seeds box takes the file's seeds.
    void openingASweepFileRunsItsGrid() {
        const QString config = writeFile(m_dir, s("open.json"), kSweepFile);
        const ExperimentFileRead read = readExperimentFile(config);
        QVERIFY2(read.usable && read.valid, qPrintable(read.error));
        QVERIFY(read.hasSweep);
        QVERIFY(!read.json.contains(s("sweep")) && !read.json.contains(s("figures")));
        QCOMPARE(read.figures.toArray().size(), 2); // for the Sweep tab
        QVERIFY2(read.warnings.join(u' ').contains(s("6 runs")),
                 qPrintable(read.warnings.join(u' ')));
        ExperimentPanel panel;
        QVERIFY(panel.setExperiment(read.json).isEmpty());
        panel.setFileSweep(read.sweep);
        const auto jobs = panel.jobs();
        const SweepFile sf = parseSweep(QJsonDocument::fromJson(QByteArray(kSweepFile)).object());
        const SweepPlan plan = planSweep(sf.base, sf.spec);
        QCOMPARE(static_cast<size_t>(jobs.size()), plan.runs.size());
        for (qsizetype i = 0; i < jobs.size(); ++i)
            QCOMPARE(experimentToJson(jobs[i].config),
                     experimentToJson(plan.runs[static_cast<size_t>(i)].config));
        QVERIFY2(jobs[2].name.contains(s("orthogonal_prob=0.5")), qPrintable(jobs[2].name));
        // Saving the form over the file would drop its sweep: the window asks first.
        QVERIFY(!overwriteRisk(config, read.bytes).isEmpty());
        // Unchecking the sweep runs the base experiment (times the seeds box).
        panel.findChild<QCheckBox*>(s("sweepCheck"))->setChecked(false);
        QCOMPARE(panel.jobs().size(), 2);
        // A file whose base lacks a swept key (a trainer's heads): the form gets the first
        // point, so it is valid and Run starts the grid.
        const QString paper = s(MHLA_SOURCE_DIR "/resources/paper/heads_layers_softmax.json");
        const ExperimentFileRead hls = readExperimentFile(paper);
        QVERIFY2(hls.valid, qPrintable(hls.error));
        ExperimentPanel trainers;
        QVERIFY2(trainers.setExperiment(hls.json).isEmpty(),
                 qPrintable(trainers.setExperiment(hls.json)));
        trainers.setFileSweep(hls.sweep);
        QVERIFY(trainers.isValid());
        QCOMPARE(trainers.jobs().size(), 40); // 8 (kind, heads) pairs (zip) x 5 seeds
        // The swept solver.kind names each run by its own kind, not the form's (the form holds
        // the first point, mhla): "softmax · random_mhla · heads=1 · seed 3".
        for (const auto& job : trainers.jobs()) {
            const QString kind = toString(job.config.solver.kind);
            QVERIFY2(job.name.startsWith(kind + s(" · random_mhla · heads=")),
                     qPrintable(job.name + s(" for ") + kind));
            QVERIFY2(!job.name.contains(s("kind=")), qPrintable(job.name));
        }
        // A bad sweep: not usable, the message names the key; nothing is put in the form.
        QByteArray bad(kSweepFile);
        bad.replace("\"seeds\": 2", "\"seeds\": 0");
        const ExperimentFileRead refused =
            readExperimentFile(writeFile(m_dir, s("badsweep.json"), bad));
        QVERIFY(!refused.usable);
        QVERIFY2(refused.error.contains(s("sweep.seeds")), qPrintable(refused.error));
    }

    void automatonTraceIsAFigure() {
        QJsonObject o;
        for (const QString& a :
             {s("task.kind=automaton"), s("task.embedding=gaussian"), s("task.samples=1500"),
              s("eval.words=10"), s("eval.val_samples=100"), s("eval.ood_samples=100")})
            applyOverride(o, a);
        RunRecord r;
        r.id = 1;
        r.name = s("automaton");
        r.color = Qt::blue;
        r.config = experimentFromJson(o);
        r.result = runExperiment(r.config);
        r.state = RunRecord::State::Finished;
        QVERIFY(r.result->execution.has_value());
        AutomatonPanel panel;
        panel.showRun(&r);
        const auto figs = panel.figures();
        QCOMPARE(figs.size(), 1);
        QCOMPARE(figs.first()->figureName(), s("automaton_states"));
        QVERIFY(figs.first()->hasData());
        // One true state per step (0..L) in the plot's data, as in the trace table.
        const int L = static_cast<int>(r.result->execution->exampleWord.size());
        const QString csv = figs.first()->csv();
        QVERIFY2(csv.contains(s("true state")), qPrintable(csv.left(300)));
        const auto* plot = dynamic_cast<const PlotWidget*>(figs.first());
        QVERIFY(plot);
        QCOMPARE(plot->series().first().points.size(), L + 1);
        int learned = 0;
        for (const PlotSeries& ps : plot->series())
            if (ps.name.startsWith(s("learned"))) learned += static_cast<int>(ps.points.size());
        QCOMPARE(learned, L + 1);
        // The trace table as core's CsvTable writes it: a header, then one row per step 0..L
        // with the step, the letter read (none at step 0) and three integer states; the true
        // states are the plot's.
        const QStringList rows = panel.traceCsv().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(rows.first(), s("step,letter,true_state,learned_state,teacher_state"));
        QCOMPARE(rows.size(), L + 2);
        for (int k = 0; k <= L; ++k) {
            const QStringList cells = rows[k + 1].split(QLatin1Char(','));
            QCOMPARE(cells.size(), 5);
            QCOMPARE(cells[0], QString::number(k));
            QCOMPARE(cells[1].isEmpty(), k == 0);
            QCOMPARE(cells[2].toDouble(), plot->series().first().points[k].y());
        }
        QCOMPARE(panel.tables().size(), 1);
        QCOMPARE(panel.tables().first().csv, panel.traceCsv());
        panel.showRun(nullptr);
        QVERIFY(panel.figures().isEmpty());
    }
};

QTEST_MAIN(TstGuiSweep)
#include "tst_gui_sweep.moc"
