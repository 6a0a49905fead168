#pragma once
// The command-line tool: `solve`, `bench` and the help texts. Headless (QCoreApplication).

namespace mhla::cli {

/// Exit codes of every subcommand.
enum ExitCode { Success = 0, InternalError = 1, InvalidInput = 2, Interrupted = 130 };

/// True if argv[1] names a headless subcommand handled here.
bool isCliCommand(const char* arg);
/// Runs a headless subcommand (argv[1] is its name) or the top-level --help / --version.
int run(int argc, char** argv);
/// The top-level usage text.
const char* usage();
/// `mhla-lab bench`.
int runBench(int argc, char** argv);

} // namespace mhla::cli
