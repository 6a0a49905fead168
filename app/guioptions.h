#pragma once
// The command lines of the desktop app and of `mhla-lab figures`, parsed with
// QCommandLineParser into plain structs (no atoi: junk is an error that names the option).
#include <QSize>
#include <QString>
#include <QStringList>

namespace mhla::cli {

/// The look of `figures`' exports: as on screen (title, notes, --size), or a paper figure of
/// one or two columns (PaperStyle: its size in inches at --dpi, its fonts, no title or notes).
enum class FigureStyle { Screen, PaperOneColumn, PaperTwoColumns };

/// `mhla-lab figures --config FILE --out DIR [--set key=value]... [--size WxH] [--dpi N] [--force]
/// [--jobs J] [--seeds K] [--grid KEY=VALUES]... [--yes] [--style screen|paper-1col|paper-2col]`
struct FiguresOptions {
    QString config;
    QString out;
    QStringList sets;
    QSize size{1600, 1000};
    int dpi = 200;
    int jobs = 1;      ///< --jobs J: runs of a sweep in parallel (results do not depend on it)
    int seeds = 0;     ///< --seeds K: a sweep file's seeds per point (0: the file's)
    QStringList grids; ///< --grid KEY=VALUES: add or replace a sweep file's axis
    bool force = false;
    bool yes = false;                        ///< --yes: allow a sweep of more than 1000 runs
    FigureStyle style = FigureStyle::Screen; ///< --style
    bool help = false;
};

/// The desktop app: an optional experiment file or results folder to open, and the developer
/// options used for the README screenshots.
struct GuiOptions {
    QString file;   ///< experiment file to open at start (positional)
    int preset = 0; ///< 1-based; 0 = the last used
    bool run = false;
    QString tab, theme, screenshot;
    QSize size;   ///< invalid = automatic
    int head = 0; ///< 1-based
    int seeds = 0;
    bool noSweep = false;
    int comparePreset = 0; ///< 1-based; with --run: run this preset too and overlay the spectra
    QStringList fields;    ///< "key=value" typed into the form
};

/// The long options the desktop app accepts ("--preset", "--run", …), for the entry point's
/// check of unknown words before any GUI starts.
QStringList guiOptionNames();

/// Parses argv[1..] (the "figures" word excluded). Returns an empty string or the error.
QString parseFiguresOptions(const QStringList& args, FiguresOptions* out);
/// Parses the GUI's arguments (args[0] is the program). Returns an empty string or the error.
QString parseGuiOptions(const QStringList& args, GuiOptions* out);

} // namespace mhla::cli
