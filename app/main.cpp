// mhla-lab: with a subcommand it runs headless; with none it opens the desktop app.
#include "app/cli.h"
#include <cstdio>
#include <cstring>
#ifdef MHLA_HAVE_GUI
#include "ui/guimain.h"
#endif

int main(int argc, char** argv) {
    if (argc > 1 && mhla::cli::isCliCommand(argv[1])) return mhla::cli::run(argc, argv);
    if (argc > 1 && argv[1][0] != '-' && std::strcmp(argv[1], "figures") != 0) {
        std::fprintf(stderr, "mhla-lab: unknown command \"%s\"\n\n%s", argv[1], mhla::cli::usage());
        return mhla::cli::InvalidInput;
    }
#ifdef MHLA_HAVE_GUI
    if (argc > 1 && std::strcmp(argv[1], "figures") == 0) return mhla::ui::runFigures(argc, argv);
    return mhla::ui::runGui(argc, argv);
#else
    if (argc > 1 && std::strcmp(argv[1], "figures") == 0) {
        std::fputs("mhla-lab figures: this build has no GUI layer (MHLA_BUILD_GUI=OFF)\n", stderr);
        return mhla::cli::InvalidInput;
    }
    std::fputs(mhla::cli::usage(), stdout);
    return argc > 1 ? mhla::cli::InvalidInput : mhla::cli::Success;
#endif
}
