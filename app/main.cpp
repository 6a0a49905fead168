// mhla-lab: with a subcommand it runs headless; with none it opens the desktop app, or, when
// there is no display to open it on, runs the default experiment headless and writes its
// results and figures into ./mhla-results (a fresh folder, never overwriting an earlier run).
#include "app/cli.h"
#include "core/config.h"
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
#include "ui/guimain.h"
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
    std::vector<std::string> args{argv0, "figures", "--config", config.toStdString(), "--out", out.toStdString()};
    std::vector<char*> argvv;
    for (auto& a : args) argvv.push_back(a.data());
    argvv.push_back(nullptr);
    return mhla::ui::runFigures(static_cast<int>(args.size()), argvv.data());
}
#endif

} // namespace

int main(int argc, char** argv) {
    if (argc > 1 && mhla::cli::isCliCommand(argv[1])) return mhla::cli::run(argc, argv);
    if (argc > 1 && argv[1][0] != '-' && std::strcmp(argv[1], "figures") != 0) {
        std::fprintf(stderr, "mhla-lab: unknown command \"%s\"\n\n%s", argv[1], mhla::cli::usage());
        return mhla::cli::InvalidInput;
    }
#ifdef MHLA_HAVE_GUI
    if (argc > 1 && std::strcmp(argv[1], "figures") == 0) return mhla::ui::runFigures(argc, argv);
    if (argc == 1 && !haveDisplay()) return runDefaultHeadless(argv[0]);
    return mhla::ui::runGui(argc, argv);
#else
    if (argc > 1 && std::strcmp(argv[1], "figures") == 0) {
        std::fputs("mhla-lab figures: this build has no GUI layer (MHLA_BUILD_GUI=OFF)\n", stderr);
        return mhla::cli::InvalidInput;
    }
    (void)haveDisplay;
    std::fputs(mhla::cli::usage(), stdout);
    return argc > 1 ? mhla::cli::InvalidInput : mhla::cli::Success;
#endif
}
