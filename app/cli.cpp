#include "app/cli.h"
#include "app/exportdata.h"
#include "app/options.h"
#include "app/sweep.h"
#include "core/base/fileio.h"
#include "core/base/parallel.h"
#include "core/base/process.h"
#include "core/base/text.h"
#include "core/experiment/config.h"
#include "core/experiment/loader.h"
#include "core/records/resultio.h"
#include "core/run/admission.h"
#include "core/run/estimate.h"
#include "core/run/runner.h"
#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSaveFile>
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <system_error>

namespace mhla::cli {

namespace {

void err(const QString& s) { printMessage(s); }

const char kUsage[] = R"(mhla-lab — learning multi-head linear attention with guarantees

Usage:
  mhla-lab [FILE | DIR]            open the desktop app (and an experiment file, a results
                                   folder from solve --out or Export all, a saved session,
                                   or prompts.npy / data.npz to certify your own data)
  mhla-lab solve --config FILE [--set section.key=value ...] [--out DIR] [--threads N]
                 [--progress] [--force]
                                   run one experiment headless, print its result as JSON
  mhla-lab figures --config FILE --out DIR [--set section.key=value ...]
                                   run one experiment and write every figure (SVG, PDF, PNG,
                                   CSV) without a window
  mhla-lab sweep --config FILE --out DIR [--grid key=values ...] [--seeds K] [--jobs J]
                 [--shard i/n]     run a grid of experiments x seeds (resumable); also
                                   `sweep merge DIR...` and `sweep slurm ...` (see sweep --help)
  mhla-lab bench [--repeats N] [--threads N] [--quick]
                                   time each phase of the solver and the trainers
  mhla-lab export-data [--config FILE] [--set ...] --out DIR [--npz]
                                   write a synthetic task's samples as prompts.npy and
                                   targets.npy (--npz: one data.npz), with dataset.json to solve
                                   them as your own data
  mhla-lab --help | --version

Exit codes: 0 success, 2 invalid input (the message names the key, the value and what is
allowed), 1 internal failure, 130 cancelled (Ctrl+C).
Run `mhla-lab solve --help` for every key of the experiment file.
)";

bool isHelp(const char* a) { return std::strcmp(a, "--help") == 0 || std::strcmp(a, "-h") == 0; }

QString solveHelp() {
    return q(R"(Usage: mhla-lab solve [--config FILE] [--set section.key=value ...] [--out DIR]
                      [--threads N] [--progress] [--force] [--seeds K] [--yes]

Runs one experiment and prints one JSON object on stdout.

Options:
  --config FILE        experiment file (JSON with sections task, solver, eval). Without it the
                       defaults below are used (associative memory, pairs 2, 16384 samples).
  --set KEY=VALUE      override one key, e.g. --set task.samples=1000 (repeatable; VALUE is
                       parsed as JSON, else taken as a string: --set task.kind=automaton)
  --out DIR            also write result.json, experiment.json, spectrum.csv, heads.csv,
                       lambda_trace.csv (and history.csv for trainers) into DIR (created if
                       needed; refuses a DIR that already holds a result.json unless --force)
  --threads N          worker threads, 1 to 256 (default: all cores). Results never depend on it.
  --progress           print progress lines on stderr
  --force              allow overwriting the files of an earlier run in --out DIR
  --yes                run even when the time estimate (printed first) exceeds 10 minutes
  --seeds K            run K times with task.seed and solver.seed + 0..K-1 and print
                       {seeds, summary (mean, std, min, max of every metric, certified_fraction),
                       runs (one result each), config}; --out also writes seeds.csv (the
                       other files describe the first seed)

Result fields:
  feature_dim          D = d^2(d+1)/2, the number of cubic features psi(Z)
  samples              N, training samples
  lambda_min/max       extreme eigenvalues of Lambda = (1/N) sum psi psi^T (uncentred)
  condition_number     lambda_max / lambda_min (null when lambda_min <= 0)
  tolerance            tau = solver.tolerance * lambda_max
  null_dim             eigenvalues of Lambda <= tau
  certified            lambda_min > tau: every empirical risk minimiser computes the same function
  certificate_method   dense (full eigen-decomposition) or lanczos (Cholesky + Spectra)
  solve_method         cholesky, min-norm (not certified), eigen, ridge, or the trainer's name
  train_mse, val_mse   mean squared error on the training set / on fresh task samples
  ood_rel_mse          E|f(Z) - f*(Z)|^2 / E|f*(Z)|^2 on generic N(0,1) prompts
  distance_p(_rel)     |P - P*|_F (/ |P*|_F) in folded coefficient space
  heads, rank          heads of the fitted model (a trainer's: solver.heads) / numerical
                       rank of unfold(P), the canonical heads in heads.csv; teacher_rank for P*
  singular_values      singular values of unfold(P), descending
  untruncated          (solver.heads > 0) the metrics before keeping the top heads
  null_witness         (not certified) metrics of another least-squares solution P + |P*| e1 v^T
                       with Lambda v = 0: same training fit, different function out of
                       distribution
  exact                (trainers) the exact solver's metrics on the same data
  history, stop_reason (trainers) one point per logged epoch; epochs, target_loss or diverged
  execution            (automaton) step/word accuracy of the model and of the teacher
  lambda_trace         [samples seen, lambda_min] pairs: the certificate appearing
  warnings             what you must know about these numbers (e.g. training diverged)
  timings_ms           per phase and total
  config               the resolved experiment (every default filled in)

Experiment keys (section.key, default, allowed values, task kinds that read it):)") +
           experimentKeysHelp();
}

/// Writes all of data to stdout; false when the stream refuses it (a full disk, /dev/full,
/// a closed pipe).
bool writeStdout(const QByteArray& data) {
    const size_t n = std::fwrite(data.constData(), 1, static_cast<size_t>(data.size()), stdout);
    return n == static_cast<size_t>(data.size()) && std::fflush(stdout) == 0 &&
           !std::ferror(stdout);
}

/// The estimate of the runs, printed with --progress or when over 10 s; why they are refused
/// (long, without --yes), or empty.
QString estimateRefusal(const std::vector<ExperimentConfig>& variants, const SolveOptions& opt) {
    std::vector<const ExperimentConfig*> runs;
    for (const ExperimentConfig& v : variants) runs.push_back(&v);
    const BatchEstimate est = estimateBatch(runs, 1);
    if (opt.progress || est.seconds > 10.0)
        err(q("mhla-lab solve: estimate: ") + QString::fromStdString(est.describe()));
    if (opt.yes) return {};
    return QString::fromStdString(
        longRunRefusal(est, variants.size() > 1 ? "these runs" : "this run"));
}

/// Why --out cannot take the results, checked before anything is computed: a folder that
/// cannot be made, a result file's name taken by something that is not a file (a folder, a
/// pipe: the write would fail after the whole run, --force or not), or an earlier run's
/// results without --force. Empty when it can.
QString outFolderProblem(const SolveOptions& opt) {
    if (opt.out.isEmpty()) return {};
    if (const QString e = prepareOutputFolder(opt.out); !e.isEmpty()) return e;
    const QStringList names = resultFileNames() << q("seeds.csv");
    for (const QString& name : names) {
        const QFileInfo fi(QDir(opt.out).filePath(name));
        if (fi.exists() && !fi.isFile())
            return q("\"") + fi.filePath() +
                   q("\" is not a regular file (a folder?); a run writes its ") + name +
                   q(" there. Remove or rename it, or choose another folder");
    }
    if (!opt.force && QFileInfo::exists(QDir(opt.out).filePath(q("result.json"))))
        return q("\"") + opt.out +
               q("\" already holds the results of a run (result.json); choose another folder "
                 "or pass --force to overwrite them");
    return {};
}

/// --progress: one line per event on stderr.
void printProgress(const ProgressEvent& e) {
    std::fprintf(stderr, "[%5.1f%%] %s", 100.0 * e.fraction, e.phase.c_str());
    if (e.samplesSeen >= 0) std::fprintf(stderr, "  samples %lld", e.samplesSeen);
    if (std::isfinite(e.lambdaMinSoFar))
        std::fprintf(stderr, "  lambda_min %.3e", e.lambdaMinSoFar);
    if (e.point)
        std::fprintf(stderr, "  epoch %d  train_mse %.3e  val_mse %.3e", e.point->epoch,
                     e.point->trainMse, e.point->valMse);
    std::fputc('\n', stderr);
}

/// Runs every seed variant into `results`; on failure says why on stderr and returns the exit
/// code (Success otherwise).
int runVariants(const std::vector<ExperimentConfig>& variants, const SolveOptions& opt,
                const RunContext& ctx, std::vector<ExperimentResult>* results) {
    try {
        for (size_t k = 0; k < variants.size(); ++k) {
            if (variants.size() > 1 && opt.progress)
                std::fprintf(stderr, "seed %zu/%zu (task.seed %lld)\n", k + 1, variants.size(),
                             variants[k].task.seed);
            results->push_back(runExperiment(variants[k], ctx));
        }
    } catch (const ConfigError& e) {
        err(q("mhla-lab solve: ") + QString::fromStdString(e.what()));
        return InvalidInput;
    } catch (const Cancelled&) {
        err(q("mhla-lab solve: cancelled"));
        return Interrupted;
    } catch (const std::bad_alloc&) {
        err(q("mhla-lab solve: out of memory; choose smaller sizes (task.samples, task.d, "
              "solver.heads)"));
        return InternalError;
    } catch (const std::system_error& e) {
        const bool limit = e.code() == std::errc::resource_unavailable_try_again;
        err(q("mhla-lab solve: internal error: ") + QString::fromUtf8(e.what()) +
            (limit ? q(" (the system refused a thread: a process or thread limit such as ulimit "
                       "-u; lower --threads, e.g. --threads 1)")
                   : QString()));
        return InternalError;
    } catch (const std::exception& e) {
        err(q("mhla-lab solve: internal error: ") + QString::fromUtf8(e.what()));
        return InternalError;
    }
    return Success;
}

/// What solve prints and writes as result.json: the run's result, or for several seeds every
/// run with their summary and the configuration.
QJsonObject solveJson(const std::vector<ExperimentResult>& results, const ExperimentConfig& cfg) {
    if (results.size() == 1) return resultToJson(results.front());
    QJsonObject out;
    QJsonArray runs;
    for (const ExperimentResult& r : results) runs.append(resultToJson(r));
    out.insert(q("mhla_lab_version"), q(MHLA_VERSION));
    out.insert(q("seeds"), static_cast<int>(results.size()));
    out.insert(q("summary"), seedSummaryJson(results));
    out.insert(q("runs"), runs);
    out.insert(q("config"), experimentToJson(cfg));
    return out;
}

/// The warnings, then result.json (and the other files) in --out, then the JSON on stdout:
/// files first, so that a closed or full stdout does not cost the results on disk. The exit
/// code.
int writeSolveOutput(const SolveOptions& opt, const std::vector<ExperimentResult>& results,
                     const ExperimentConfig& cfg) {
    const ExperimentResult& result = results.front();

    for (const ExperimentResult& r : results)
        for (const std::string& w : r.warnings)
            err(q("mhla-lab solve: warning: ") + QString::fromStdString(w));
    const QByteArray json = QJsonDocument(solveJson(results, cfg)).toJson(QJsonDocument::Indented);

    // Files first: a closed or full stdout must not cost the user the results on disk.
    if (!opt.out.isEmpty()) {
        auto files = resultFiles(result, json);
        if (results.size() > 1) files.emplace_back(q("seeds.csv"), seedsTable(results).bytes());
        if (const QString e = writeRunFolder(opt.out, std::move(files)); !e.isEmpty()) {
            err(q("mhla-lab solve: ") + e);
            return InternalError;
        }
    }
    if (!writeStdout(json)) {
        err(q("mhla-lab solve: cannot write the result to standard output: ") +
            QString::fromLocal8Bit(std::strerror(errno)) +
            (opt.out.isEmpty() ? QString() : q(" (the files in --out are complete)")));
        return InternalError;
    }
    return Success;
}

int solve(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    useCNumericLocale();
    QStringList args = app.arguments();
    args.removeFirst(); // the program
    args.removeFirst(); // the subcommand
    SolveOptions opt;
    if (const QString e = parseSolveOptions(args, &opt); !e.isEmpty()) {
        err(q("mhla-lab solve: ") + e);
        return InvalidInput;
    }
    if (opt.help) {
        return writeStdout(solveHelp().toUtf8()) ? Success : InternalError;
    }
    for (const auto& [name, path] : {std::pair{"config", opt.config}, std::pair{"out", opt.out}})
        if (const QString e = pathArgumentProblem(name, path); !e.isEmpty()) {
            err(q("mhla-lab solve: ") + e);
            return InvalidInput;
        }

    ExperimentConfig cfg;
    std::vector<ExperimentConfig> variants;
    try {
        const LoadedExperiment loaded = loadExperiment(opt.config, opt.sets);
        for (const QString& w : loaded.warnings) err(q("mhla-lab solve: warning: ") + w);
        cfg = loaded.config;
        admit(cfg);
        variants = seedVariants(cfg, opt.seeds);
    } catch (const ConfigError& e) {
        err(q("mhla-lab solve: ") + QString::fromStdString(e.what()));
        return InvalidInput;
    }

    // Hours of silence help nobody: estimate first, refuse long runs unless --yes.
    if (const QString e = estimateRefusal(variants, opt); !e.isEmpty()) {
        err(q("mhla-lab solve: ") + e);
        return InvalidInput;
    }

    if (const QString e = outFolderProblem(opt); !e.isEmpty()) {
        err(q("mhla-lab solve: --out: ") + e);
        return InvalidInput;
    }

    // A closed stdout (>&-) was given /dev/null: the result printed there is lost. Without --out
    // the run would be for nothing; with it, say where the result is.
    if (standardDescriptorWasClosed(1)) {
        if (opt.out.isEmpty()) {
            err(q("mhla-lab solve: standard output is closed (>&-), so the result cannot be "
                  "printed; pass --out DIR to write it to files, or run with stdout open"));
            return InvalidInput;
        }
        err(q("mhla-lab solve: standard output is closed (>&-); the result goes only to --out ") +
            opt.out);
    }

    CancelToken cancel;
    const CancelOnSignals onSignals(&cancel);
    // A closed stdout (| head) must not kill the process before its files are written.
    std::signal(SIGPIPE, SIG_IGN);
    RunContext ctx;
    ctx.cancel = &cancel;
    ctx.threads = opt.threads;
    if (opt.progress) ctx.progress = printProgress;

    std::vector<ExperimentResult> results;
    if (const int code = runVariants(variants, opt, ctx, &results); code != Success) return code;
    return writeSolveOutput(opt, results, cfg);
}

} // namespace

const char* usage() { return kUsage; }

bool isCliCommand(const char* arg) {
    return std::strcmp(arg, "solve") == 0 || std::strcmp(arg, "bench") == 0 ||
           std::strcmp(arg, "sweep") == 0 || std::strcmp(arg, "export-data") == 0 || isHelp(arg) ||
           std::strcmp(arg, "--version") == 0;
}

int run(int argc, char** argv) {
    const char* cmd = argv[1];
    if (isHelp(cmd)) {
        std::fputs(kUsage, stdout);
        return Success;
    }
    if (std::strcmp(cmd, "--version") == 0) {
        std::printf("mhla-lab %s\n", MHLA_VERSION);
        return Success;
    }
    if (std::strcmp(cmd, "solve") == 0) return solve(argc, argv);
    if (std::strcmp(cmd, "bench") == 0) return runBench(argc, argv);
    if (std::strcmp(cmd, "sweep") == 0) return runSweep(argc, argv);
    if (std::strcmp(cmd, "export-data") == 0) return runExportData(argc, argv);
    std::fprintf(stderr, "mhla-lab: unknown command \"%s\"\n%s",
                 qUtf8Printable(escapeControlCharacters(QString::fromLocal8Bit(cmd))), kUsage);
    return InvalidInput;
}

} // namespace mhla::cli
