#pragma once
// Command-line options of every headless subcommand, parsed with QCommandLineParser into
// plain structs (tested on their own in tests/tst_options.cpp). A parse never exits: it
// returns an error message that names the option, the value and what is allowed.
#include <QString>
#include <QStringList>

class QCommandLineParser;

namespace mhla::cli {

struct SolveOptions {
    QString config;        ///< --config FILE (empty: the defaults)
    QStringList sets;      ///< --set KEY=VALUE, in order
    QString out;           ///< --out DIR (empty: stdout only)
    int threads = 0;       ///< --threads N (0: all cores)
    int seeds = 1;         ///< --seeds K
    bool progress = false; ///< --progress
    bool force = false;    ///< --force
    bool yes = false;      ///< --yes: run even when the time estimate is long
    bool help = false;
};

struct BenchOptions {
    int repeats = 5;
    int threads = 0;
    bool quick = false;
    QString reference;      ///< --reference numpy_ref.py
    QString torchReference; ///< --torch-reference torch_sgd_ref.py
    bool help = false;
};

struct ExportDataOptions {
    QString config;   ///< --config FILE (empty: the defaults)
    QStringList sets; ///< --set KEY=VALUE, in order
    QString out;      ///< --out DIR (required)
    bool npz = false; ///< --npz: one archive DIR/data.npz instead of four .npy files
    bool force = false;
    bool help = false;
};

/// Parses the arguments after the subcommand name ("solve"). Returns an error message, empty
/// on success.
QString parseSolveOptions(const QStringList& args, SolveOptions* out);
QString parseBenchOptions(const QStringList& args, BenchOptions* out);
QString parseExportDataOptions(const QStringList& args, ExportDataOptions* out);

/// Parses --name's value as an integer in [lo, hi] into *out (untouched when --name is not
/// given). Returns an error naming the option, the value and the range, or empty.
QString intOption(const QCommandLineParser& p, const char* name, int lo, int hi, int* out);

/// The closest of `known` to `given` (edit distance at most 2), or empty: "did you mean".
QString closestMatch(const QString& given, const QStringList& known);

/// Paths come from argv as bytes: the problem with --option's `path` when it is not UTF-8 (it
/// would be written under another, mangled name), or empty. Every subcommand asks it.
[[nodiscard]] QString pathArgumentProblem(const char* option, const QString& path);

/// The top-level words mhla-lab accepts before any subcommand.
QStringList topLevelWords();

} // namespace mhla::cli
