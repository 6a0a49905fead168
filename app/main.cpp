// mhla-lab: with a subcommand it runs headless; with none it opens the desktop app, or, when
// there is no display to open it on, runs the default experiment headless and writes its
// results and figures into ./mhla-results (a fresh folder, never overwriting an earlier run).
#include "app/cli.h"
#include "app/options.h"
#include "core/base/process.h"
#include "core/experiment/config.h"
#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#ifdef MHLA_HAVE_GUI
#include "app/guimain.h"
#include "app/guioptions.h"
#endif

namespace {

bool haveDisplay() {
    const QByteArray platform = qgetenv("QT_QPA_PLATFORM");
    if (!platform.isEmpty()) return platform != "offscreen" && platform != "minimal";
    return !qgetenv("DISPLAY").isEmpty() || !qgetenv("WAYLAND_DISPLAY").isEmpty();
}

#ifdef MHLA_HAVE_GUI
int runDefaultHeadless(const char* argv0) {
    QString out = QStringLiteral("mhla-results");
    for (int k = 2; QFileInfo::exists(QDir(out).filePath(QStringLiteral("result.json"))); ++k)
        out = QStringLiteral("mhla-results-%1").arg(k);
    QTemporaryDir tmp;
    const QString config = tmp.filePath(QStringLiteral("default.json"));
    QFile f(config);
    mhla::ExperimentConfig cfg; // associative memory, pairs 2, 16384 samples: certified
    if (!tmp.isValid() || !f.open(QIODevice::WriteOnly) ||
        f.write(QJsonDocument(mhla::experimentToJson(cfg)).toJson()) < 0) {
        std::fputs("mhla-lab: cannot write a temporary experiment file\n", stderr);
        return mhla::cli::InternalError;
    }
    f.close();
    std::fprintf(stderr, "mhla-lab: no display; running the default experiment headless into %s/\n",
                 out.toLocal8Bit().constData());
    std::vector<std::string> args{argv0,   "figures",        "--config", config.toStdString(),
                                  "--out", out.toStdString()};
    std::vector<char*> argvv;
    for (auto& a : args) argvv.push_back(a.data());
    argvv.push_back(nullptr);
    return mhla::cli::runFigures(static_cast<int>(args.size()), argvv.data());
}
#endif

} // namespace

int main(int argc, char** argv) {
    // Before any file is opened: a closed stdout or stderr must not be taken by a result file.
    if (!mhla::reserveStandardDescriptors()) return mhla::cli::InternalError;
    if (argc > 1 && mhla::cli::isCliCommand(argv[1])) return mhla::cli::run(argc, argv);
    const bool figures = argc > 1 && std::strcmp(argv[1], "figures") == 0;
    if (argc > 1 && !figures) {
        // Before any GUI starts: an unknown word or --option is a usage error (exit 2), with a
        // suggestion. An existing file or folder opens in the app; single-dash options are Qt's
        // own (-platform, -style, ...).
        const QString arg = QString::fromLocal8Bit(argv[1]);
        const bool qtOption =
            arg.startsWith(QLatin1Char('-')) && !arg.startsWith(QStringLiteral("--"));
#ifdef MHLA_HAVE_GUI
        const QStringList guiWords = mhla::cli::guiOptionNames();
#else
        const QStringList guiWords;
#endif
        const bool guiOption = guiWords.contains(arg.section(QLatin1Char('='), 0, 0));
        if (!qtOption && !guiOption && !QFileInfo::exists(arg)) {
            const QString hint =
                mhla::cli::closestMatch(arg, mhla::cli::topLevelWords() + guiWords);
            std::fprintf(stderr, "mhla-lab: unknown %s \"%s\"%s\n\n%s",
                         arg.startsWith(QLatin1Char('-')) ? "option" : "command or file",
                         qUtf8Printable(mhla::escapeControlCharacters(arg)),
                         hint.isEmpty() ? ""
                                        : ("; did you mean " + hint.toStdString() + "?").c_str(),
                         mhla::cli::usage());
            return mhla::cli::InvalidInput;
        }
    }
#ifdef MHLA_HAVE_GUI
    if (figures) return mhla::cli::runFigures(argc, argv);
    // --screenshot draws the window into a file and quits: it needs no display, so without one
    // it draws offscreen (docs and tests make screenshots on headless machines).
    bool screenshot = false;
    for (int k = 1; k < argc; ++k)
        screenshot = screenshot || std::strcmp(argv[k], "--screenshot") == 0 ||
                     std::strncmp(argv[k], "--screenshot=", 13) == 0;
    if (!haveDisplay() && screenshot) {
        if (qgetenv("QT_QPA_PLATFORM").isEmpty()) qputenv("QT_QPA_PLATFORM", "offscreen");
        return mhla::cli::runGui(argc, argv);
    }
    if (!haveDisplay()) {
        if (argc == 1) return runDefaultHeadless(argv[0]);
        // Say why there is no display: a platform that draws nowhere, or no DISPLAY at all.
        const QByteArray platform = qgetenv("QT_QPA_PLATFORM");
        const std::string why =
            platform.isEmpty() ? std::string("DISPLAY is not set")
                               : "QT_QPA_PLATFORM=" +
                                     mhla::escapeControlCharacters(QString::fromLocal8Bit(platform))
                                         .toStdString() +
                                     " draws no window; unset it to use the display";
        std::fprintf(stderr,
                     "mhla-lab: there is no display to open the desktop app on (%s).\n"
                     "Headless commands: mhla-lab solve | figures | bench (see mhla-lab --help).\n",
                     why.c_str());
        return mhla::cli::InvalidInput;
    }
    return mhla::cli::runGui(argc, argv);
#else
    if (figures) {
        std::fputs("mhla-lab figures: this build has no GUI layer (MHLA_BUILD_GUI=OFF)\n", stderr);
        return mhla::cli::InvalidInput;
    }
    (void)haveDisplay;
    std::fputs(mhla::cli::usage(), stdout);
    return argc > 1 ? mhla::cli::InvalidInput : mhla::cli::Success;
#endif
}
