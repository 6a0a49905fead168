#include "ui/guimain.h"
#include "core/config.h"
#include "core/runner.h"
#include "ui/appsettings.h"
#include "ui/exporter.h"
#include "ui/headspanel.h"
#include "ui/mainwindow.h"
#include "ui/presets.h"
#include "ui/runcontroller.h"
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QLineEdit>
#include <QTemporaryDir>
#include <QCheckBox>
#include <QSpinBox>
#include <QTimer>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>

namespace mhla::ui {

namespace {

/// A QChart needs a QApplication; without a display use the offscreen platform.
void ensurePlatform() {
    const bool haveDisplay = qEnvironmentVariableIsSet("DISPLAY") || qEnvironmentVariableIsSet("WAYLAND_DISPLAY");
    if (!haveDisplay && !qEnvironmentVariableIsSet("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
}

void setAppInfo() {
    QApplication::setApplicationName(QStringLiteral("MHLA Lab"));
    QApplication::setOrganizationName(QStringLiteral("MHLA Lab"));
    QApplication::setApplicationVersion(QStringLiteral(MHLA_VERSION));
    QApplication::setDesktopFileName(QStringLiteral("mhla-lab"));
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
    "\n"
    "Exit status: 0 success, 1 internal error, 2 invalid input.\n";

int usageError(const QString& msg) {
    std::fprintf(stderr, "mhla-lab figures: %s\n\n%s", qPrintable(msg), kFiguresUsage);
    return 2;
}

} // namespace

int runFigures(int argc, char** argv) {
    QString config, out;
    QStringList sets;
    QSize size(1600, 1000);
    int dpi = 200;
    bool force = false;
    for (int i = 2; i < argc; ++i) {
        const QString a = QString::fromLocal8Bit(argv[i]);
        auto next = [&](QString& dst) {
            if (i + 1 >= argc) return false;
            dst = QString::fromLocal8Bit(argv[++i]);
            return true;
        };
        QString v;
        if (a == u"--help" || a == u"-h") {
            std::fputs(kFiguresUsage, stdout);
            return 0;
        } else if (a == u"--force") {
            force = true;
        } else if (a == u"--config") {
            if (!next(config)) return usageError(QStringLiteral("--config needs a file"));
        } else if (a == u"--out") {
            if (!next(out)) return usageError(QStringLiteral("--out needs a folder"));
        } else if (a == u"--set") {
            if (!next(v)) return usageError(QStringLiteral("--set needs key=value"));
            sets << v;
        } else if (a == u"--size") {
            if (!next(v)) return usageError(QStringLiteral("--size needs WxH"));
            const QStringList wh = v.split(u'x');
            bool ok1 = false, ok2 = false;
            if (wh.size() == 2) size = QSize(wh[0].toInt(&ok1), wh[1].toInt(&ok2));
            if (!ok1 || !ok2 || size.width() < 16 || size.height() < 16 || size.width() > 20000 || size.height() > 20000)
                return usageError(QStringLiteral("--size must be WxH with 16..20000 pixels, got \"%1\"").arg(v));
        } else if (a == u"--dpi") {
            if (!next(v)) return usageError(QStringLiteral("--dpi needs a number"));
            bool ok = false;
            dpi = v.toInt(&ok);
            if (!ok || dpi < 36 || dpi > 2400) return usageError(QStringLiteral("--dpi must be 36..2400, got \"%1\"").arg(v));
        } else {
            return usageError(QStringLiteral("unknown argument \"%1\"").arg(a));
        }
    }
    if (config.isEmpty()) return usageError(QStringLiteral("--config FILE is required"));
    if (out.isEmpty()) return usageError(QStringLiteral("--out DIR is required"));
    auto refuse = [&out](const QString& what) {
        std::fprintf(stderr,
                     "mhla-lab figures: --out \"%s\" already holds %s; choose another folder or pass --force to "
                     "overwrite\n",
                     qPrintable(out), qPrintable(what));
        return 2;
    };

    ExperimentConfig cfg;
    try {
        QFile f(config);
        if (!f.open(QIODevice::ReadOnly)) throw ConfigError("cannot read " + config.toStdString() + ": " + f.errorString().toStdString());
        const QByteArray text = f.readAll();
        QJsonParseError pe;
        const QJsonDocument doc = QJsonDocument::fromJson(text, &pe);
        if (pe.error != QJsonParseError::NoError || !doc.isObject()) {
            experimentFromJsonText(text); // throws core's message (with the offset)
            throw ConfigError(config.toStdString() + ": the top level must be a JSON object");
        }
        QJsonObject obj = doc.object();
        for (const QString& s : sets) applyOverride(obj, s);
        cfg = experimentFromJson(obj);
        validate(cfg);
    } catch (const ConfigError& e) {
        std::fprintf(stderr, "mhla-lab figures: invalid input: %s\n", e.what());
        return 2;
    }
    if (!force)
        for (const char* name : {"result.json", "experiment.json", "spectrum.svg"})
            if (QFileInfo::exists(QDir(out).filePath(QString::fromLatin1(name))))
                return refuse(QStringLiteral("the results of a run (%1)").arg(QString::fromLatin1(name)));

    ensurePlatform();
    QApplication app(argc, argv);
    setAppInfo();
    QTemporaryDir settingsDir;
    AppSettings::useFile(settingsDir.filePath(QStringLiteral("settings.ini")));
    AppSettings settings;
    settings.setExportSize(size);
    settings.setExportDpi(dpi);

    ExperimentResult result;
    try {
        RunContext ctx;
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
        result = runExperiment(cfg, ctx);
        std::fprintf(stderr, "\r%-24s 100%%\n", "done");
    } catch (const ConfigError& e) {
        std::fprintf(stderr, "\nmhla-lab figures: invalid input: %s\n", e.what());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "\nmhla-lab figures: internal error: %s\n", e.what());
        return 1;
    }

    MainWindow window;
    window.addFinishedRun(QFileInfo(config).completeBaseName(), result);
    QStringList written, existing;
    QString err = window.exportAllTo(out, false, &written, &existing);
    if (!err.isEmpty() && !existing.isEmpty()) {
        if (!force) return refuse(QStringLiteral("%1 file(s) of this export, e.g. %2").arg(existing.size()).arg(existing.first()));
        std::fprintf(stderr, "mhla-lab figures: overwriting %lld existing file(s) in %s (--force)\n",
                     static_cast<long long>(existing.size()), qPrintable(out));
        written.clear();
        err = window.exportAllTo(out, true, &written);
    }
    if (!err.isEmpty()) {
        std::fprintf(stderr, "mhla-lab figures: %s\n", qPrintable(err));
        return 1;
    }
    for (const QString& w : written) std::printf("%s\n", qPrintable(QDir::cleanPath(w)));
    const auto& c = result.certificate;
    std::fprintf(stderr, "%s: lambda_min = %.4g, null dimension %d, ood_rel_mse = %.3g; %lld files in %s\n",
                 c.certified ? "certified identifiable" : "not certified", c.lambdaMin, c.nullDim,
                 result.metrics.oodRelMse, static_cast<long long>(written.size()), qPrintable(out));
    return 0;
}

int runGui(int argc, char** argv) {
    // Hidden developer options (used for the README screenshots):
    //   --preset N (1-based) --run --tab NAME --theme light|dark --screenshot FILE --size WxH --head H
    //   --seeds K --no-sweep --compare-preset N
    int preset = 0;
    bool run = false;
    QString tab, screenshot, theme;
    QSize size;
    int head = 0, seeds = 0;
    bool noSweep = false;
    int comparePreset = 0; // with --run: then run this preset too and overlay the spectra
    QStringList fields;
    for (int i = 1; i < argc; ++i) {
        const char* a = argv[i];
        auto val = [&]() -> const char* { return i + 1 < argc ? argv[++i] : ""; };
        if (!std::strcmp(a, "--preset")) preset = std::atoi(val());
        else if (!std::strcmp(a, "--run")) run = true;
        else if (!std::strcmp(a, "--tab")) tab = QString::fromLocal8Bit(val());
        else if (!std::strcmp(a, "--theme")) theme = QString::fromLocal8Bit(val());
        else if (!std::strcmp(a, "--screenshot")) screenshot = QString::fromLocal8Bit(val());
        else if (!std::strcmp(a, "--head")) head = std::atoi(val());
        else if (!std::strcmp(a, "--seeds")) seeds = std::atoi(val());
        else if (!std::strcmp(a, "--no-sweep")) noSweep = true;
        else if (!std::strcmp(a, "--compare-preset")) comparePreset = std::atoi(val());
        else if (!std::strcmp(a, "--field")) fields << QString::fromLocal8Bit(val());
        else if (!std::strcmp(a, "--size")) {
            const QStringList wh = QString::fromLocal8Bit(val()).split(u'x');
            if (wh.size() == 2) size = QSize(wh[0].toInt(), wh[1].toInt());
        }
    }
    QApplication app(argc, argv);
    setAppInfo();
    initResources();
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/mhla-lab.svg")));
    QTemporaryDir settingsDir;
    if (!screenshot.isEmpty()) AppSettings::useFile(settingsDir.filePath(QStringLiteral("settings.ini")));
    MainWindow w;
    if (theme == u"dark") w.applyTheme(ThemeChoice::Dark);
    else if (theme == u"light") w.applyTheme(ThemeChoice::Light);
    if (size.isValid()) w.resize(size);
    if (preset > 0) w.loadPreset(preset - 1);
    if (!tab.isEmpty()) w.showTab(tab);
    if (noSweep)
        if (auto* sweep = w.findChild<QCheckBox*>(QStringLiteral("sweepCheck"))) sweep->setChecked(false);
    if (seeds > 0)
        if (auto* spin = w.findChild<QSpinBox*>(QStringLiteral("seedsSpin"))) spin->setValue(seeds);
    for (const QString& f : fields) {
        const int eq = static_cast<int>(f.indexOf(u'='));
        if (auto* edit = w.findChild<QLineEdit*>(QStringLiteral("field_") + f.left(eq))) edit->setText(f.mid(eq + 1));
    }
    w.show();
    if (run) w.startRuns();
    if (!screenshot.isEmpty()) {
        auto grab = [&w, screenshot, head] {
            if (head > 0) w.headsPanel()->setHead(head - 1);
            QTimer::singleShot(400, &w, [&w, screenshot] {
                const bool ok = w.grab().save(screenshot);
                std::fprintf(stderr, "%s %s\n", ok ? "wrote" : "could not write", qPrintable(screenshot));
                QApplication::exit(ok ? 0 : 1);
            });
        };
        if (run && comparePreset > 0 && w.controller()->isBusy())
            QObject::connect(w.controller(), &RunController::idle, &w, [&w, comparePreset, grab] {
                w.loadPreset(comparePreset - 1);
                if (auto* overlay = w.findChild<QCheckBox*>(QStringLiteral("spectrumOverlayCheck")))
                    overlay->setChecked(true);
                QObject::connect(w.controller(), &RunController::idle, &w, grab, Qt::SingleShotConnection);
                w.startRuns();
            }, Qt::SingleShotConnection);
        else if (run && w.controller()->isBusy())
            QObject::connect(w.controller(), &RunController::idle, &w, grab, Qt::SingleShotConnection);
        else
            QTimer::singleShot(300, &w, grab);
    }
    return QApplication::exec();
}

} // namespace mhla::ui
