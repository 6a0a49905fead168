#include "app/guimain.h"
#include "app/cli.h"
#include "app/guioptions.h"
#include "app/options.h"
#include "core/base/fileio.h"
#include "core/base/plural.h"
#include "core/base/process.h"
#include "core/experiment/config.h"
#include "core/experiment/loader.h"
#include "core/run/admission.h"
#include "core/run/estimate.h"
#include "core/run/runner.h"
#include "core/sweep/sweepfigure.h"
#include "core/sweep/sweeprun.h"
#include "core/sweep/sweepverdict.h"
#include "ui/experiment/presets.h"
#include "ui/export/exporter.h"
#include "ui/panels/headspanel.h"
#include "ui/panels/resultpanel.h"
#include "ui/panels/sweepfigures.h"
#include "ui/plot/colormap.h"
#include "ui/plot/plotwidget.h"
#include "ui/run/runcontroller.h"
#include "ui/run/runlist.h"
#include "ui/shell/appsettings.h"
#include "ui/shell/mainwindow.h"
#include <QApplication>
#include <QCheckBox>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QLineEdit>
#include <QMessageBox>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTimer>
#include <cmath>
#include <cstdio>
#include <exception>
#include <memory>
#include <optional>
#include <vector>

namespace mhla::cli {

using namespace mhla::ui;

namespace {

/// A QChart needs a QApplication; without a display use the offscreen platform.
void ensurePlatform() {
    const bool haveDisplay =
        qEnvironmentVariableIsSet("DISPLAY") || qEnvironmentVariableIsSet("WAYLAND_DISPLAY");
    if (!haveDisplay && !qEnvironmentVariableIsSet("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
}

void setAppInfo() {
    QApplication::setApplicationName(QStringLiteral("MHLA Lab"));
    QApplication::setOrganizationName(QStringLiteral("MHLA Lab"));
    QApplication::setApplicationVersion(QStringLiteral(MHLA_VERSION));
    QApplication::setDesktopFileName(QStringLiteral("mhla-lab"));
}

/// The QApplication of a headless `figures` run (a QChart needs one): the offscreen platform
/// without a display, the C numeric locale, the application's names and its resources. argc
/// must outlive it.
std::unique_ptr<QApplication> headlessApp(int& argc, char** argv) {
    ensurePlatform();
    auto app = std::make_unique<QApplication>(argc, argv);
    useCNumericLocale();
    setAppInfo();
    initResources();
    return app;
}

const char* kFiguresUsage =
    "usage: mhla-lab figures --config FILE --out DIR [--set key=value]...\n"
    "\n"
    "Runs the experiment in FILE (the same JSON as `mhla-lab solve` and the desktop app) and writes\n"
    "every figure of the app into DIR without opening a window: SVG, PDF and PNG of the spectrum of\n"
    "Lambda, lambda_min vs samples, loss and distance curves, heads, P and singular values, each with\n"
    "its data as CSV, plus experiment.json and result.json. Every file carries the experiment, its\n"
    "seeds and the app version. A DIR that already holds figures or results is refused unless\n"
    "--force is given.\n"
    "\n"
    "  --config FILE     experiment file (JSON)\n"
    "  --out DIR         output folder (created if needed)\n"
    "  --set key=value   override a key, e.g. --set task.samples=8192 (repeatable)\n"
    "  --size WxH        PNG size in pixels (default 1600x1000)\n"
    "  --dpi N           PNG resolution (default 200)\n"
    "  --force           overwrite the files of an earlier run in DIR\n"
    "  --jobs J          runs of a sweep in parallel (1..256, default 1; same results for any J)\n"
    "  --seeds K         a sweep file's seeds per point (1..1000; default: the file's)\n"
    "  --grid KEY=VALUES add or replace a sweep file's swept key (as in mhla-lab sweep)\n"
    "  --yes             run a sweep of more than 1000 runs, or runs estimated at more than\n"
    "                    10 minutes (both refused without it, as by solve and sweep)\n"
    "  --style S         screen (default: title, notes, --size), paper-1col (3.4 x 2.4 in,\n"
    "                    8 pt) or paper-2col (7 x 2.8 in, 9 pt): a paper figure at --dpi, no\n"
    "                    title or notes; what the notes say (values at a log axis' floor,\n"
    "                    runs not certified) stays marked in the figure and its legend\n"
    "\n"
    "A FILE with a \"sweep\" runs the sweep into DIR exactly as `mhla-lab sweep --config FILE\n"
    "--out DIR` (runs/, runs.csv, summary.csv, sweep.json; rerunning resumes) and draws the figures\n"
    "of its \"figures\" block (or defaults): a metric against a swept key with a band over seeds,\n"
    "metric-vs-metric scatters, learning curves; each as SVG, PDF, PNG and the plotted data as CSV.\n"
    "\n"
    "Exit status: 0 success, 1 internal error, 2 invalid input.\n";

int usageError(const QString& msg) {
    std::fprintf(stderr, "mhla-lab figures: %s\n\n%s", qUtf8Printable(escapeControlCharacters(msg)),
                 kFiguresUsage);
    return InvalidInput;
}

/// True when the experiment file is a JSON object with a "sweep" (errors: false, the one
/// loader then reports them).
bool fileHasSweep(const QString& path) {
    QByteArray text;
    QString error;
    if (path.isEmpty() || !readRegularFile(path, &text, &error, 1024 * 1024)) return false;
    try {
        return experimentObjectFromJsonText(text).contains(QStringLiteral("sweep"));
    } catch (const ConfigError&) {
        return false;
    }
}

/// The paper style of --style (nullopt: as on screen).
std::optional<PaperStyle> paperStyleOf(FigureStyle s) {
    switch (s) {
    case FigureStyle::Screen: return std::nullopt;
    case FigureStyle::PaperOneColumn: return PaperStyle::oneColumn();
    case FigureStyle::PaperTwoColumns: return PaperStyle::twoColumns();
    }
    return std::nullopt;
}

/// `figures` on a sweep file: the sweep runner of `mhla-lab sweep`, then the sweep figures.
/// A sweep file's plan, figures and verdicts, or the exit code of why not (said on stderr).
int planSweepFigures(const FiguresOptions& opt, SweepPlan* plan,
                     std::vector<SweepFigureSpec>* specs,
                     std::vector<SweepVerdictSpec>* verdictSpecs) {
    try {
        QJsonValue figures, verdicts;
        // The count first (more than 1000 runs need --yes), before any run is validated.
        *plan = planSweepFile(opt.config, opt.grids, opt.seeds, opt.sets, &figures,
                              opt.yes ? 0 : kSweepRunsWithoutYes, &verdicts);
        *specs = parseSweepFigures(figures, *plan);
        *verdictSpecs = parseSweepVerdicts(verdicts, *plan);
    } catch (const ConfigError& e) {
        if (e.key() == QStringLiteral("--yes")) {
            printMessage(QString::asprintf(
                "mhla-lab figures: %s; more than %lld runs need --yes (or shard them "
                "with `mhla-lab sweep --shard i/n` and draw the merged folder)",
                e.what(), kSweepRunsWithoutYes));
            return InvalidInput;
        }
        printMessage(QString::asprintf("mhla-lab figures: invalid input: %s", e.what()));
        return InvalidInput;
    }
    return Success;
}

/// The same admission and 10-minute rule as solve and sweep for the runs still to do, and an
/// --out folder that can take the sweep; the exit code of why not (said on stderr), or Success.
int admitSweepFigures(const FiguresOptions& opt, const SweepPlan& plan) {
    const QString out = opt.out;
    {
        SweepExecution probe;
        probe.jobs = opt.jobs;
        const SweepAdmission admission = admitSweep(plan, out, probe);
        if (!admission.issues.empty()) {
            printMessage(QString::asprintf("mhla-lab figures: %s: %s",
                                           qUtf8Printable(admission.issues.front().key),
                                           qUtf8Printable(admission.issues.front().message)));
            return InvalidInput;
        }
        if (admission.pending > 0)
            printMessage(QString::asprintf("mhla-lab figures: estimate: %s",
                                           admission.estimate.describe().c_str()));
        if (const std::string e = longRunRefusal(admission.estimate, "this sweep");
            !e.empty() && !opt.yes) {
            printMessage(QString::asprintf("mhla-lab figures: %s", e.c_str()));
            return InvalidInput;
        }
    }
    if (const QString err = prepareOutputFolder(out); !err.isEmpty()) {
        printMessage(QString::asprintf("mhla-lab figures: cannot write to --out \"%s\": %s",
                                       qUtf8Printable(out), qUtf8Printable(err)));
        return InvalidInput;
    }
    if (!opt.force && QFileInfo::exists(QDir(out).filePath(QStringLiteral("result.json")))) {
        printMessage(
            QString::asprintf("mhla-lab figures: --out \"%s\" already holds the results of a run "
                              "(result.json); choose another folder or pass --force to overwrite",
                              qUtf8Printable(out)));
        return InvalidInput;
    }
    if (const QString e = claimSweepFolder(out, plan); !e.isEmpty()) {
        printMessage(QString::asprintf("mhla-lab figures: %s", qUtf8Printable(e)));
        return InvalidInput;
    }
    return Success;
}

/// verdict.txt and verdict.json beside the figures (added to `written`); an error or empty.
QString writeVerdicts(const QString& out, const std::vector<SweepVerdict>& verdicts,
                      QStringList* written) {
    for (const auto& [name, bytes] : {std::pair{"verdict.txt", verdictsText(verdicts)},
                                      std::pair{"verdict.json", verdictsJson(verdicts)}}) {
        const QString path = QDir(out).filePath(QString::fromLatin1(name));
        if (QString err = writeFileAtomic(path, bytes); !err.isEmpty()) return err;
        *written << path;
    }
    return {};
}

int runSweepFigures(const FiguresOptions& opt, int argc, char** argv) {
    const QString out = opt.out;
    SweepPlan plan;
    std::vector<SweepFigureSpec> specs;
    std::vector<SweepVerdictSpec> verdictSpecs;
    if (const int code = planSweepFigures(opt, &plan, &specs, &verdictSpecs); code != Success)
        return code;
    if (const int code = admitSweepFigures(opt, plan); code != Success) return code;
    const auto app = headlessApp(argc, argv);

    CancelToken cancel;
    std::optional<CancelOnSignals> onSignals(&cancel);
    SweepExecution ex;
    ex.jobs = opt.jobs;
    ex.cancel = &cancel;
    ex.onRunDone = [](const SweepProgress& p) {
        printMessage(QString::asprintf("[%d/%d] %s: %s; elapsed %.0f s, ETA %.0f s", p.done,
                                       p.total, qUtf8Printable(p.run->folder),
                                       qUtf8Printable(p.message), p.elapsedSeconds, p.etaSeconds));
    };
    printMessage(QString::asprintf("mhla-lab figures: %zu points x %d seeds = %zu runs on %d jobs",
                                   plan.points.size(), plan.spec.seeds, plan.runs.size(),
                                   opt.jobs));
    const SweepOutcome outcome = executeSweep(plan, out, ex);
    onSignals.reset();
    if (outcome.cancelled) {
        printMessage(
            QString::asprintf("mhla-lab figures: cancelled; finished runs are kept, rerun the same "
                              "command to resume"));
        return Interrupted;
    }
    int missing = 0;
    const std::vector<QJsonObject> results = readSweepResults(out, plan, &missing);
    QStringList written, skipped;
    QString err = writeSweepTables(out, plan, results);
    for (const char* name : {"runs.csv", "summary.csv", "timings.csv"})
        written << QDir(out).filePath(QString::fromLatin1(name));
    if (err.isEmpty()) {
        try {
            const std::optional<PaperStyle> paper = paperStyleOf(opt.style);
            err = writeSweepFigures(out, plan, results, specs, opt.size, opt.dpi, &written,
                                    &skipped, paper ? &*paper : nullptr);
        } catch (const ConfigError& e) {
            printMessage(QString::asprintf("mhla-lab figures: invalid input: %s", e.what()));
            return InvalidInput;
        }
    }
    // The verdict of each claim the file states (see core/sweep/sweepverdict.h).
    std::vector<SweepVerdict> verdicts;
    for (const SweepVerdictSpec& vs : verdictSpecs)
        verdicts.push_back(evaluateSweepVerdict(vs, plan, results));
    if (err.isEmpty() && !verdicts.empty()) err = writeVerdicts(out, verdicts, &written);
    if (!err.isEmpty()) {
        printMessage(QString::asprintf("mhla-lab figures: %s", qUtf8Printable(err)));
        return InternalError;
    }
    for (const QString& w : written) std::printf("%s\n", qPrintable(QDir::cleanPath(w)));
    for (const SweepVerdict& v : verdicts)
        printMessage(QString::asprintf("mhla-lab figures: %s", qUtf8Printable(v.line())));
    for (const QString& s : skipped)
        printMessage(QString::asprintf("mhla-lab figures: skipped %s", qUtf8Printable(s)));
    if (outcome.failed || missing) {
        printMessage(QString::asprintf(
            "mhla-lab figures: %d runs failed, %d missing; the figures show the others; "
            "rerun to retry them",
            outcome.failed, missing));
        return InternalError;
    }
    printMessage(QString::asprintf("mhla-lab figures: %zu runs, %zu figures; %lld files in %s",
                                   plan.runs.size(), specs.size(),
                                   static_cast<long long>(written.size()), qUtf8Printable(out)));
    return Success;
}

/// Loads and admits a single experiment (no sweep) with the estimate and the 10-minute/--yes
/// rule of solve; the exit code of why not (said on stderr), or Success.
int loadAndAdmit(const FiguresOptions& opt, ExperimentConfig* cfg) {
    try {
        *cfg = loadExperiment(opt.config, opt.sets).config;
        admit(*cfg);
    } catch (const ConfigError& e) {
        printMessage(QString::asprintf("mhla-lab figures: invalid input: %s", e.what()));
        return InvalidInput;
    }
    // Hours of silence help nobody: the estimate first, and the same 10-minute/--yes rule as
    // solve.
    {
        const BatchEstimate est = estimateBatch({cfg}, 1);
        if (est.seconds > 10.0)
            printMessage(
                QString::asprintf("mhla-lab figures: estimate: %s", est.describe().c_str()));
        if (const std::string e = longRunRefusal(est, "this run"); !e.empty() && !opt.yes) {
            printMessage(QString::asprintf("mhla-lab figures: %s", e.c_str()));
            return InvalidInput;
        }
    }
    return Success;
}

/// Runs `cfg` with its progress on stderr (a line per phase or 10%); a fatal signal cancels
/// it through `cancel`. The exit code of a failure (said on stderr), or Success.
int runWithProgress(const ExperimentConfig& cfg, CancelToken& cancel, ExperimentResult* out) {
    try {
        RunContext ctx;
        ctx.cancel = &cancel;
        int lastPct = -10;
        std::string lastPhase;
        ctx.progress = [&](const ProgressEvent& e) {
            const int pct = static_cast<int>(std::floor(e.fraction * 100));
            if (pct >= lastPct + 10 || e.phase != lastPhase) {
                std::fprintf(stderr, "\r%-24s %3d%%", e.phase.c_str(), pct);
                std::fflush(stderr);
                lastPct = pct;
                lastPhase = e.phase;
            }
        };
        *out = runExperiment(cfg, ctx);
        std::fprintf(stderr, "\r%-24s 100%%\n", "done");
    } catch (const ConfigError& e) {
        printMessage(QString::asprintf("\nmhla-lab figures: invalid input: %s", e.what()));
        return InvalidInput;
    } catch (const Cancelled&) {
        printMessage(QString::asprintf("\nmhla-lab figures: cancelled; nothing was written"));
        return Interrupted;
    } catch (const std::exception& e) {
        printMessage(QString::asprintf("\nmhla-lab figures: internal error: %s", e.what()));
        return InternalError;
    }

    return Success;
}

/// The figures and tables of the result panels showing one run (the window's list, without
/// the window); with --style paper-… each plot as a paper figure at the paper's size.
struct PanelFigures {
    QList<const Figure*> figures;
    QList<ExportTable> tables;
    QSize pixelSize;
    std::vector<std::unique_ptr<PaperFigure>> paperFigures; ///< owns the paper versions
};

PanelFigures panelFigures(const RunRecord& record, QWidget* host, const FiguresOptions& opt) {
    PanelFigures out;
    for (ResultPanel* panel : createResultPanels(host)) {
        panel->showRun(&record);
        panel->showRuns({&record});
        out.figures += panel->figures();
        out.tables += panel->tables();
    }
    out.pixelSize = opt.size;
    if (const std::optional<PaperStyle> paper = paperStyleOf(opt.style)) {
        for (const Figure*& f : out.figures)
            if (const auto* plot = dynamic_cast<const PlotWidget*>(f)) {
                out.paperFigures.push_back(std::make_unique<PaperFigure>(*plot, *paper));
                f = out.paperFigures.back().get();
            }
        out.pixelSize = QSize(static_cast<int>(std::lround(paper->widthInches * opt.dpi)),
                              static_cast<int>(std::lround(paper->heightInches * opt.dpi)));
    }
    return out;
}

/// Why --out is refused: it holds `what` (an earlier run's files) and --force is not given.
int refuseOut(const QString& out, const QString& what) {
    printMessage(
        QString::asprintf("mhla-lab figures: --out \"%s\" already holds %s; choose another "
                          "folder or pass --force to overwrite",
                          qUtf8Printable(out), qUtf8Printable(what)));
    return InvalidInput;
}

/// Exports every figure and table of the result panels showing `result` into --out, as the
/// window's Export all does (existing files of this export need --force); prints the files
/// written and the run's certificate. The exit code.
int exportRun(const FiguresOptions& opt, const ExperimentResult& result) {
    const QString& out = opt.out;
    auto refuse = [&out](const QString& what) { return refuseOut(out, what); };
    // The result panels alone (no main window): the same list and the same export path.
    RunRecord record;
    record.id = 1;
    record.name = QFileInfo(opt.config).completeBaseName();
    record.color = RunColorAssigner::colorOf(0); // the colour of a lone run in the window
    record.config = result.config;
    record.state = RunRecord::State::Finished;
    record.result = result;
    QWidget host;
    host.resize(1600, 1000);
    const PanelFigures pf = panelFigures(record, &host, opt);
    const QList<const Figure*>& figures = pf.figures;
    const QList<ExportTable>& tables = pf.tables;
    const QSize pixelSize = pf.pixelSize;
    ExportMetadata runMeta;
    runMeta.runs << qMakePair(record.name, experimentToJson(record.config));
    auto metaFor = [&runMeta](const Figure& f) {
        ExportMetadata m = runMeta;
        m.title = f.figureTitle();
        return m;
    };
    QStringList written, existing;
    QString err = exportAll(figures, tables, out, result, metaFor, runMeta, pixelSize, opt.dpi,
                            false, &written, &existing);
    if (!err.isEmpty() && !existing.isEmpty()) {
        if (!opt.force)
            return refuse(existing.size() == 1
                              ? QStringLiteral("1 file of this export, %1").arg(existing.first())
                              : QStringLiteral("%1 files of this export, e.g. %2")
                                    .arg(existing.size())
                                    .arg(existing.first()));
        printMessage(QString::asprintf(
            "mhla-lab figures: overwriting %s in %s (--force)",
            qUtf8Printable(countOf(existing.size(), QStringLiteral("existing file"),
                                   QStringLiteral("existing files"))),
            qUtf8Printable(out)));
        written.clear();
        err = exportAll(figures, tables, out, result, metaFor, runMeta, pixelSize, opt.dpi, true,
                        &written);
    }
    if (!err.isEmpty()) {
        printMessage(QString::asprintf("mhla-lab figures: %s", qUtf8Printable(err)));
        return InternalError;
    }
    for (const QString& w : written) std::printf("%s\n", qPrintable(QDir::cleanPath(w)));
    const auto& c = result.certificate;
    printMessage(QString::asprintf(
        "%s: lambda_min = %.4g, null dimension %d, ood_rel_mse = %.3g; %lld files in %s",
        c.certified ? "certified identifiable" : "not certified", c.lambdaMin, c.nullDim,
        result.metrics.oodRelMse, static_cast<long long>(written.size()), qUtf8Printable(out)));
    return Success;
}

} // namespace

int runFigures(int argc, char** argv) {
    QStringList args;
    for (int i = 2; i < argc; ++i) args << QString::fromLocal8Bit(argv[i]);
    FiguresOptions opt;
    if (const QString err = parseFiguresOptions(args, &opt); !err.isEmpty()) return usageError(err);
    if (opt.help) {
        std::fputs(kFiguresUsage, stdout);
        return Success;
    }
    for (const auto& [name, path] : {std::pair{"config", opt.config}, std::pair{"out", opt.out}})
        if (const QString e = pathArgumentProblem(name, path); !e.isEmpty()) return usageError(e);
    if (fileHasSweep(opt.config)) return runSweepFigures(opt, argc, argv);
    if (opt.seeds > 0 || !opt.grids.isEmpty())
        return usageError(QStringLiteral("--seeds and --grid apply to an experiment file with a "
                                         "\"sweep\"; %1 has none")
                              .arg(opt.config));
    const QString out = opt.out;
    auto refuse = [&out](const QString& what) { return refuseOut(out, what); };

    // The one loader: its messages name the file.
    ExperimentConfig cfg;
    if (const int code = loadAndAdmit(opt, &cfg); code != Success) return code;
    // Check the output folder before spending time on the run.
    if (const QString err = prepareOutputFolder(out); !err.isEmpty()) {
        printMessage(QString::asprintf("mhla-lab figures: cannot write to --out \"%s\": %s",
                                       qUtf8Printable(out), qUtf8Printable(err)));
        return InvalidInput;
    }
    if (!opt.force)
        for (const char* name : {"result.json", "experiment.json", "spectrum.svg"})
            if (QFileInfo::exists(QDir(out).filePath(QString::fromLatin1(name))))
                return refuse(
                    QStringLiteral("the results of a run (%1)").arg(QString::fromLatin1(name)));

    const auto app = headlessApp(argc, argv);

    // A fatal signal cancels the run (exit 130, nothing written); one that arrives while the
    // figures are exported waits for the export to finish, so the folder is whole.
    CancelToken cancel;
    const CancelOnSignals onSignals(&cancel);
    ExperimentResult result;
    if (const int code = runWithProgress(cfg, cancel, &result); code != Success) return code;

    return exportRun(opt, result);
}

int runGui(int argc, char** argv) {
    QApplication app(argc, argv); // consumes Qt's own options (-platform, -style, …)
    useCNumericLocale();
    GuiOptions opt;
    if (const QString err = parseGuiOptions(QApplication::arguments(), &opt); !err.isEmpty()) {
        printMessage(QString::asprintf("mhla-lab: %s", qUtf8Printable(err)));
        return InvalidInput;
    }
    const int preset = opt.preset, head = opt.head, seeds = opt.seeds,
              comparePreset = opt.comparePreset;
    const bool run = opt.run, noSweep = opt.noSweep;
    const QString tab = opt.tab, screenshot = opt.screenshot, theme = opt.theme;
    const QSize size = opt.size;
    const QStringList fields = opt.fields;

    setAppInfo();
    initResources();
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/mhla-lab.svg")));
    QTemporaryDir settingsDir;
    if (!screenshot.isEmpty())
        AppSettings::useFile(settingsDir.filePath(QStringLiteral("settings.ini")));
    MainWindow w;
    if (!screenshot.isEmpty()) w.setQuitWithoutAsking(true);
    if (theme == u"dark") w.applyTheme(ThemeChoice::Dark);
    else if (theme == u"light") w.applyTheme(ThemeChoice::Light);
    if (size.isValid()) w.resize(size);
    if (preset > 0) w.loadPreset(preset - 1);
    if (!tab.isEmpty()) w.showTab(tab);
    if (noSweep)
        if (auto* sweep = w.findChild<QCheckBox*>(QStringLiteral("sweepCheck")))
            sweep->setChecked(false);
    if (seeds > 0)
        if (auto* spin = w.findChild<QSpinBox*>(QStringLiteral("seedsSpin"))) spin->setValue(seeds);
    for (const QString& f : fields) {
        const int eq = static_cast<int>(f.indexOf(u'='));
        if (auto* edit = w.findChild<QLineEdit*>(QStringLiteral("field_") + f.left(eq)))
            edit->setText(f.mid(eq + 1));
    }
    w.show();
    if (!opt.file.isEmpty()) {
        const QString err = w.openPath(opt.file);
        // With --screenshot nobody is there to close a dialog: the reason goes to stderr.
        if (!err.isEmpty() && !screenshot.isEmpty())
            printMessage(QStringLiteral("mhla-lab: could not open %1: %2").arg(opt.file, err));
        else if (!err.isEmpty()) QMessageBox::warning(&w, QObject::tr("Could not open"), err);
    }
    if (run) w.startRuns();
    if (!screenshot.isEmpty()) {
        auto grab = [&w, screenshot, head] {
            if (head > 0) w.headsPanel()->setHead(head - 1);
            QTimer::singleShot(400, &w, [&w, screenshot] {
                const bool ok = w.grab().save(screenshot);
                printMessage(QString::asprintf("%s %s", ok ? "wrote" : "could not write",
                                               qUtf8Printable(screenshot)));
                QApplication::exit(ok ? Success : InternalError);
            });
        };
        if (run && comparePreset > 0 && w.controller()->isBusy())
            QObject::connect(
                w.controller(), &RunController::idle, &w,
                [&w, comparePreset, grab] {
                    w.loadPreset(comparePreset - 1);
                    if (auto* overlay =
                            w.findChild<QCheckBox*>(QStringLiteral("spectrumOverlayCheck")))
                        overlay->setChecked(true);
                    QObject::connect(w.controller(), &RunController::idle, &w, grab,
                                     Qt::SingleShotConnection);
                    w.startRuns();
                },
                Qt::SingleShotConnection);
        else if (run && w.controller()->isBusy())
            QObject::connect(w.controller(), &RunController::idle, &w, grab,
                             Qt::SingleShotConnection);
        else QTimer::singleShot(300, &w, grab);
    }
    return QApplication::exec();
}

} // namespace mhla::cli
