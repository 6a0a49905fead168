#include "app/sweep.h"
#include "app/cli.h"
#include "app/options.h"
#include "core/base/fileio.h"
#include "core/base/parallel.h"
#include "core/base/process.h"
#include "core/base/text.h"
#include "core/experiment/loader.h"
#include "core/records/resultio.h"
#include "core/run/runner.h"
#include "core/sweep/sweep.h"
#include "core/sweep/sweeprun.h"
#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QProcess>
#include <QRegularExpression>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <optional>
#include <thread>

namespace mhla::cli {

namespace {

void err(const QString& s) { printMessage(s); }

const char kSweepHelp[] = R"(Usage:
  mhla-lab sweep --config FILE --out DIR [--grid KEY=VALUES ...] [--set KEY=VALUE ...]
                 [--seeds K] [--jobs J] [--shard i/n] [--yes] [--quiet]
  mhla-lab sweep merge [--out DEST] DIR [DIR ...]
  mhla-lab sweep slurm --config FILE --out DIR --shards n [--partition P] [--time HH:MM:SS]
                 [--cpus C] [--grid ...] [--set ...] [--seeds K] [--submit]

Runs every (grid point, seed) of the experiment file's "sweep" (and --grid) into
DIR/runs/<index>-<key=value>-s<task seed>/ (result.json and the CSVs of `solve --out`), then
writes DIR/runs.csv (one row per run: swept keys, seeds, every scalar metric), DIR/summary.csv
(per point and metric: mean, std, median, q10, q90, min, max, runs), DIR/timings.csv (wall ms
per run; kept apart so runs.csv and summary.csv are the same bytes on any machine, for any
--jobs and any sharding) and DIR/sweep.json (base experiment + resolved sweep: an experiment
file that reproduces the sweep).

Rerunning skips runs whose result.json is complete (result.json is written last, atomically):
Ctrl+C loses nothing finished. A DIR whose sweep.json describes another sweep is refused.
`mhla-lab figures --config FILE --out DIR` on the same FILE and DIR resumes (nothing runs
again) and draws the file's "figures" (bands over seeds, scatters, learning curves).

Options:
  --grid KEY=VALUES  add or replace a swept key: a:b:step, logspace(a,b,n), [json, list] or
                     v1,v2,... (e.g. --grid solver.heads=1,2,4,8)
  --set KEY=VALUE    override a key of the base experiment
  --seeds K          seeds per point (task.seed and solver.seed + 0..K-1), 1 to 1000
  --jobs J           runs in parallel (threads), 1 to 256; results do not depend on it
  --shard i/n        run only the runs with index mod n == i (0 <= i < n); no CSVs are
                     written: join the shards with `sweep merge`
  --yes              allow more than 1000 runs
  --quiet            no progress lines
merge: joins the runs of shard folders into DEST (default: the first DIR) and writes the CSVs;
       every folder must hold the same sweep.json. Exit 1 if runs are missing.
slurm: writes DIR/sweep.sbatch (a job array, one task per shard, each running this binary
       with --shard $SLURM_ARRAY_TASK_ID/n --jobs C) and DIR/merge.sbatch (afterok on the
       array); --submit runs sbatch for both and prints the job ids.

Grammar of VALUES, product/zip and seeds: see core/sweep/sweep.h and docs/paper.md.
Exit codes: 0 success, 1 a run failed or runs are missing, 2 invalid input, 130 cancelled.
)";

/// Why `path` cannot go into a generated script, or empty.
[[nodiscard]] QString slurmPathProblem(const QString& path) {
    for (const QChar ch : path) {
        const char16_t u = ch.unicode();
        if (u < 0x20 || (u >= 0x7f && u <= 0x9f))
            return q("the path \"") + escapeControlCharacters(path) +
                   q("\" holds a control character (newline, tab, escape...); allowed: paths "
                     "without control characters");
        if (u == u'"' || u == u'\\')
            return q("the path \"") + path +
                   q("\" holds a double quote or a backslash, which #SBATCH lines cannot quote; "
                     "allowed: paths without them");
    }
    return {};
}

/// A #SBATCH value in double quotes; `pattern` (e.g. "%a") is appended as Slurm reads it.
[[nodiscard]] QString sbatchValue(const QString& value, const QString& pattern = {}) {
    QString v = value;
    v.replace(QLatin1Char('%'), q("%%")); // Slurm's filename patterns: %% is a literal %
    return QLatin1Char('"') + v + pattern + QLatin1Char('"');
}

} // namespace

namespace {

/// The most shards a sweep may be cut into (--shard i/n, sweep slurm --shards).
constexpr int kMaxShards = 100000;

/// The options of each sweep command (run, merge, slurm) in `p`; their names in `valued` (with
/// a value) and `flags`, for "did you mean".
void addSweepOptions(QCommandLineParser& p, SweepOptions::Command command, QStringList* valued,
                     QStringList* flags) {
    auto opt = [&](const char* name, const char* value) {
        p.addOption({q(name), q(name), q(value)});
        *valued << q(name);
    };
    auto flag = [&](const char* name) {
        p.addOption({q(name), q(name)});
        *flags << q(name);
    };
    p.addOption({{q("h"), q("help")}, q("help")});
    opt("out", "DIR");
    if (command != SweepOptions::Command::Merge) {
        opt("config", "FILE");
        opt("set", "KEY=VALUE");
        opt("grid", "KEY=VALUES");
        opt("seeds", "K");
    }
    if (command == SweepOptions::Command::Run) {
        opt("jobs", "J");
        opt("shard", "i/n");
        flag("yes");
        flag("quiet");
    }
    if (command == SweepOptions::Command::Slurm) {
        opt("shards", "n");
        opt("partition", "P");
        opt("time", "HH:MM:SS");
        opt("cpus", "C");
        flag("submit");
    }
}

/// --yes, --quiet and --shard i/n of `sweep` (run); an error or empty.
QString readRunOptions(const QCommandLineParser& p, SweepOptions* o) {
    o->yes = p.isSet(q("yes"));
    o->quiet = p.isSet(q("quiet"));
    if (p.isSet(q("shard"))) {
        const QString v = p.value(q("shard"));
        const QStringList parts = v.split(QLatin1Char('/'));
        bool ok1 = false, ok2 = false;
        const int i = parts.size() == 2 ? parts[0].trimmed().toInt(&ok1) : -1;
        const int n = parts.size() == 2 ? parts[1].trimmed().toInt(&ok2) : 0;
        if (!ok1 || !ok2 || n < 1 || n > kMaxShards || i < 0 || i >= n)
            return q("--shard: \"") + v +
                   q("\" is not allowed; expected i/n with integers 0 <= i < n <= ") +
                   QString::number(kMaxShards);
        o->shard = i;
        o->shards = n;
    }
    return {};
}

/// The options of `sweep slurm`; an error or empty.
QString readSlurmOptions(const QCommandLineParser& p, SweepOptions* o) {
    if (!p.isSet(q("shards")))
        return q("--shards: required; expected an integer in [1, ") + QString::number(kMaxShards) +
               q("]");
    if (QString e = intOption(p, "shards", 1, kMaxShards, &o->slurmShards); !e.isEmpty()) return e;
    if (QString e = intOption(p, "cpus", 1, kMaxThreads, &o->cpus); !e.isEmpty()) return e;
    o->partition = p.value(q("partition"));
    o->time = p.value(q("time"));
    static const QRegularExpression timeRe(q("^(\\d+-)?\\d+(:\\d\\d){0,2}$"));
    if (p.isSet(q("time")) && !timeRe.match(o->time).hasMatch())
        return q("--time: \"") + o->time +
               q("\" is not allowed; expected HH:MM:SS, MM or D-HH:MM:SS");
    static const QRegularExpression partRe(q("^[A-Za-z0-9_.,-]+$"));
    if (p.isSet(q("partition")) && !partRe.match(o->partition).hasMatch())
        return q("--partition: \"") + o->partition +
               q("\" is not allowed; expected a partition name");
    o->submit = p.isSet(q("submit"));
    // The paths go into #SBATCH lines and a shell command: nothing in them may end a line
    // or leave the quotes.
    for (const auto& [name, path] : {std::pair{"config", o->config}, std::pair{"out", o->out}})
        if (const QString e = slurmPathProblem(path); !e.isEmpty())
            return q("--") + q(name) + q(": ") + e;
    return {};
}

} // namespace

QString parseSweepOptions(const QStringList& argsIn, SweepOptions* out) {
    SweepOptions o;
    QStringList args = argsIn;
    if (!args.isEmpty() && args.first() == q("merge")) {
        o.command = SweepOptions::Command::Merge;
        args.removeFirst();
    } else if (!args.isEmpty() && args.first() == q("slurm")) {
        o.command = SweepOptions::Command::Slurm;
        args.removeFirst();
    }
    QCommandLineParser p;
    p.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    QStringList valued, flags{q("help")};
    addSweepOptions(p, o.command, &valued, &flags);
    QStringList argv{q("mhla-lab")};
    argv += args;
    const QString see = q(" (see mhla-lab sweep --help)");
    if (!p.parse(argv)) {
        for (const QString& u : p.unknownOptionNames())
            if (const QString m = closestMatch(u, valued + flags); !m.isEmpty())
                return q("unknown option \"--") + u + q("\"; did you mean --") + m + q("?") + see;
        return p.errorText() + see;
    }
    o.help = p.isSet(q("help"));
    if (o.help) {
        *out = o;
        return {};
    }
    if (o.command == SweepOptions::Command::Merge) {
        o.dirs = p.positionalArguments();
        o.out = p.value(q("out"));
        if (o.dirs.isEmpty()) return q("merge: expected at least one sweep folder") + see;
        *out = o;
        return {};
    }
    if (!p.positionalArguments().isEmpty())
        return q("unexpected argument \"") + p.positionalArguments().first() + q("\"") + see;
    o.config = p.value(q("config"));
    o.sets = p.values(q("set"));
    o.grids = p.values(q("grid"));
    o.out = p.value(q("out"));
    if (p.isSet(q("config")) && o.config.isEmpty())
        return q("--config: expected the path of an experiment file");
    if (o.out.isEmpty()) return q("--out: required; expected the path of a folder") + see;
    if (QString e = intOption(p, "seeds", 1, kMaxSeeds, &o.seeds); !e.isEmpty()) return e;
    if (o.command == SweepOptions::Command::Run) {
        if (QString e = intOption(p, "jobs", 1, kMaxThreads, &o.jobs); !e.isEmpty()) return e;
        if (QString e = readRunOptions(p, &o); !e.isEmpty()) return e;
    } else if (QString e = readSlurmOptions(p, &o); !e.isEmpty()) {
        return e + (e.startsWith(q("--shards: required")) ? see : QString());
    }
    *out = o;
    return {};
}

namespace {

SweepPlan planFrom(const QString& config, const QStringList& grids, int seeds,
                   const QStringList& sets, long long maxRuns = 0) {
    return planSweepFile(config, grids, seeds, sets, nullptr, maxRuns);
}

QString runDir(const QString& dir, const SweepRun& r) { return sweepRunDir(dir, r); }
QJsonObject finishedResult(const QString& dir, const SweepRun& r) {
    return finishedSweepResult(dir, r);
}
QString claimFolder(const QString& dir, const SweepPlan& plan) {
    return claimSweepFolder(dir, plan);
}

QString writeTables(const QString& dir, const SweepPlan& plan, int* missing) {
    return writeSweepTables(dir, plan, readSweepResults(dir, plan, missing));
}

QString duration(double s) {
    const long long t = static_cast<long long>(s + 0.5);
    return t >= 3600 ? QString::asprintf("%lld:%02lld:%02lld", t / 3600, t / 60 % 60, t % 60)
                     : QString::asprintf("%lld:%02lld", t / 60, t % 60);
}

/// The same admission and 10-minute rule as solve, for the runs still to do, then the folder
/// claimed; nullopt (after saying why) when the sweep may not start.
std::optional<SweepAdmission> admitAndClaim(const SweepOptions& opt, const SweepPlan& plan,
                                            const SweepExecution& ex) {
    SweepAdmission admission = admitSweep(plan, opt.out, ex);
    if (!admission.issues.empty()) {
        err(q("mhla-lab sweep: ") + admission.issues.front().key + q(": ") +
            admission.issues.front().message);
        return std::nullopt;
    }
    if (admission.pending > 0 && (!opt.quiet || admission.estimate.seconds > 10.0))
        err(q("mhla-lab sweep: estimate: ") +
            QString::fromStdString(admission.estimate.describe()));
    if (!opt.yes)
        if (const std::string e = longRunRefusal(admission.estimate, "this sweep"); !e.empty()) {
            err(q("mhla-lab sweep: ") + QString::fromStdString(e));
            return std::nullopt;
        }
    if (const QString e = claimFolder(opt.out, plan); !e.isEmpty()) {
        err(q("mhla-lab sweep: ") + e);
        return std::nullopt;
    }
    return admission;
}

int runCommand(const SweepOptions& opt) {
    SweepPlan plan;
    try {
        // The count before anything else: more than 1000 runs need --yes, and a 10^6-point
        // grid is refused before a single point is validated.
        plan = planFrom(opt.config, opt.grids, opt.seeds, opt.sets,
                        opt.yes ? 0 : kSweepRunsWithoutYes);
    } catch (const ConfigError& e) {
        err(q("mhla-lab sweep: ") + QString::fromUtf8(e.what()) +
            (e.key() == q("--yes")
                 ? q("; pass --yes to run more than ") + QString::number(kSweepRunsWithoutYes) +
                       q(", or shard them (--shard i/n, sweep slurm)")
                 : QString()));
        return InvalidInput;
    }
    SweepExecution ex;
    ex.jobs = opt.jobs;
    ex.shard = opt.shard;
    ex.shards = opt.shards;
    const std::optional<SweepAdmission> admission = admitAndClaim(opt, plan, ex);
    if (!admission) return InvalidInput;
    const int mine = admission->mine, pendingCount = admission->pending;
    if (!opt.quiet)
        err(QString::asprintf("mhla-lab sweep: %zu points x %d seeds = %zu runs",
                              plan.points.size(), plan.spec.seeds, plan.runs.size()) +
            (opt.shards > 1
                 ? QString::asprintf("; shard %d/%d: %d runs", opt.shard, opt.shards, mine)
                 : QString()) +
            QString::asprintf("; %d already done, %d to run on %d jobs", mine - pendingCount,
                              pendingCount, opt.jobs));

    CancelToken cancel;
    std::optional<CancelOnSignals> onSignals(&cancel);
    ex.cancel = &cancel;
    ex.onRunDone = [&opt](const SweepProgress& p) {
        if (opt.quiet && !p.failed) return;
        err(QString::asprintf("[%d/%d] ", p.done, p.total) + p.run->folder + q(": ") + p.message +
            q("; elapsed ") + duration(p.elapsedSeconds) + q(", ETA ") + duration(p.etaSeconds));
    };
    const SweepOutcome outcome = executeSweep(plan, opt.out, ex);
    const int failed = outcome.failed;
    onSignals.reset();

    if (cancel.isCancelled()) {
        err(q(
            "mhla-lab sweep: cancelled; finished runs are kept, rerun the same command to resume"));
        return Interrupted;
    }
    if (opt.shards > 1) {
        if (!opt.quiet)
            err(q("mhla-lab sweep: shard done; join the shards with `mhla-lab sweep merge ") +
                opt.out + q("`"));
        return failed ? InternalError : Success;
    }
    int missing = 0;
    if (const QString e = writeTables(opt.out, plan, &missing); !e.isEmpty()) {
        err(q("mhla-lab sweep: ") + e);
        return InternalError;
    }
    if (failed || missing) {
        err(QString::asprintf("mhla-lab sweep: %d runs failed, %d missing; rerun to retry them",
                              failed, missing));
        return InternalError;
    }
    if (!opt.quiet)
        err(q("mhla-lab sweep: wrote ") + QDir(opt.out).filePath(q("runs.csv")) +
            q(" and summary.csv"));
    return Success;
}

int mergeCommand(const SweepOptions& opt) {
    const QString target = opt.out.isEmpty() ? opt.dirs.first() : opt.out;
    QByteArray sweepJson;
    QString error;
    if (!readRegularFile(QDir(opt.dirs.first()).filePath(q("sweep.json")), &sweepJson, &error)) {
        err(q("mhla-lab sweep merge: ") + error);
        return InvalidInput;
    }
    for (const QString& d : opt.dirs) {
        QByteArray other;
        if (!readRegularFile(QDir(d).filePath(q("sweep.json")), &other, &error)) {
            err(q("mhla-lab sweep merge: ") + error);
            return InvalidInput;
        }
        if (other != sweepJson) {
            err(q("mhla-lab sweep merge: \"") + d + q("\" holds another sweep than \"") +
                opt.dirs.first() + q("\" (sweep.json differs)"));
            return InvalidInput;
        }
    }
    SweepPlan plan;
    try {
        const SweepFile sf = parseSweep(experimentObjectFromJsonText(sweepJson));
        plan = planSweep(sf.base, sf.spec);
    } catch (const ConfigError& e) {
        err(q("mhla-lab sweep merge: sweep.json: ") + QString::fromUtf8(e.what()));
        return InvalidInput;
    }
    if (plan.sweepJson() != sweepJson) {
        err(q("mhla-lab sweep merge: sweep.json was not written by this version of mhla-lab"));
        return InvalidInput;
    }
    if (QDir(target).absolutePath() != QDir(opt.dirs.first()).absolutePath()) {
        if (const QString e = claimFolder(target, plan); !e.isEmpty()) {
            err(q("mhla-lab sweep merge: ") + e);
            return InvalidInput;
        }
    }
    int copied = 0;
    for (const QString& src : opt.dirs) {
        if (QDir(src).absolutePath() == QDir(target).absolutePath()) continue;
        for (const SweepRun& r : plan.runs) {
            if (finishedResult(src, r).isEmpty() || !finishedResult(target, r).isEmpty()) continue;
            const QDir from(runDir(src, r));
            std::vector<std::pair<QString, QByteArray>> files;
            QByteArray resultJson;
            for (const QString& name : from.entryList(QDir::Files, QDir::Name)) {
                QByteArray data;
                if (!readRegularFile(from.filePath(name), &data, &error)) {
                    err(q("mhla-lab sweep merge: ") + error);
                    return InternalError;
                }
                if (name == q("result.json")) resultJson = data;
                else files.emplace_back(name, data);
            }
            files.emplace_back(q("result.json"), resultJson);
            QString e = prepareOutputFolder(runDir(target, r));
            if (e.isEmpty()) e = writeFiles(runDir(target, r), files);
            if (!e.isEmpty()) {
                err(q("mhla-lab sweep merge: ") + e);
                return InternalError;
            }
            ++copied;
        }
    }
    int missing = 0;
    if (const QString e = writeTables(target, plan, &missing); !e.isEmpty()) {
        err(q("mhla-lab sweep merge: ") + e);
        return InternalError;
    }
    err(QString::asprintf("mhla-lab sweep merge: %d runs copied, %zu of %zu present", copied,
                          plan.runs.size() - static_cast<size_t>(missing), plan.runs.size()));
    if (missing) {
        err(QString::asprintf("mhla-lab sweep merge: %d runs missing; the CSVs list the others",
                              missing));
        return InternalError;
    }
    return Success;
}

QString shellQuote(const QString& s) {
    QString e = s;
    e.replace(q("'"), q("'\\''"));
    return QLatin1Char('\'') + e + QLatin1Char('\'');
}

/// The array job's script (one task per shard) and the merge job's, both with the #SBATCH
/// header of `opt` (values quoted by sbatchValue).
std::pair<QString, QString> slurmScripts(const SweepOptions& opt, const QString& dir,
                                         const QString& bin, const QString& logs) {
    const int n = opt.slurmShards;
    auto header = [&](const QString& name, const QString& log, const QString& pattern) {
        const auto line = [](const char* key, const QString& value, const QString& pat = {}) {
            return q("#SBATCH --") + q(key) + q("=") + sbatchValue(value, pat) + q("\n");
        };
        QString s = q("#!/bin/bash\n") + line("job-name", name) + line("output", log, pattern) +
                    line("ntasks", q("1")) + line("cpus-per-task", QString::number(opt.cpus));
        if (!opt.partition.isEmpty()) s += line("partition", opt.partition);
        if (!opt.time.isEmpty()) s += line("time", opt.time);
        return s;
    };
    const QString sweep =
        header(q("mhla-sweep"), QDir(logs).filePath(q("shard-")), q("%a.out")) +
        q("#SBATCH --array=\"0-") + QString::number(n - 1) + q("\"") +
        q("\n# One array task per shard; written by mhla-lab sweep slurm.\nexec ") +
        shellQuote(bin) + q(" sweep --config ") + shellQuote(QDir(dir).filePath(q("sweep.json"))) +
        q(" --out ") + shellQuote(dir) + q(" --shard \"$SLURM_ARRAY_TASK_ID/") +
        QString::number(n) + q("\" --jobs ") + QString::number(opt.cpus) + q(" --yes\n");
    const QString merge =
        header(q("mhla-sweep-merge"), QDir(logs).filePath(q("merge.out")), {}) +
        q("# Runs after every shard succeeded (sbatch --dependency=afterok:<array job>).\nexec ") +
        shellQuote(bin) + q(" sweep merge ") + shellQuote(dir) + q("\n");
    return {sweep, merge};
}

/// Runs sbatch with `args`; empty on success with the job id in *id, else what went wrong.
QString runSbatch(const QStringList& args, QString* id) {
    QProcess p;
    p.start(q("sbatch"), args);
    if (!p.waitForStarted(10000)) return q("cannot start sbatch (is Slurm installed and on PATH?)");
    if (!p.waitForFinished(120000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0)
        return q("sbatch failed: ") + QString::fromLocal8Bit(p.readAllStandardError()).trimmed();
    *id =
        QString::fromLocal8Bit(p.readAllStandardOutput()).trimmed().section(QLatin1Char(';'), 0, 0);
    return id->isEmpty() ? q("sbatch printed no job id") : QString();
}

/// Submits DIR's array job and the merge job that waits for it; prints both ids on stdout.
int submitSlurm(const QString& dir) {
    QString arrayId, mergeId;
    if (QString e = runSbatch({q("--parsable"), QDir(dir).filePath(q("sweep.sbatch"))}, &arrayId);
        !e.isEmpty()) {
        err(q("mhla-lab sweep slurm: ") + e);
        return InternalError;
    }
    if (QString e = runSbatch({q("--parsable"), q("--dependency=afterok:") + arrayId,
                               QDir(dir).filePath(q("merge.sbatch"))},
                              &mergeId);
        !e.isEmpty()) {
        err(q("mhla-lab sweep slurm: ") + e + q(" (the array job ") + arrayId +
            q(" is submitted)"));
        return InternalError;
    }
    const QByteArray line =
        (q("array job ") + arrayId + q("\nmerge job ") + mergeId + q("\n")).toUtf8();
    std::fwrite(line.constData(), 1, static_cast<size_t>(line.size()), stdout);
    std::fflush(stdout);
    return Success;
}

int slurmCommand(const SweepOptions& opt) {
    SweepPlan plan;
    try {
        plan = planFrom(opt.config, opt.grids, opt.seeds, opt.sets);
    } catch (const ConfigError& e) {
        err(q("mhla-lab sweep slurm: ") + QString::fromUtf8(e.what()));
        return InvalidInput;
    }
    // The shards read DIR/sweep.json back as an experiment file with a "sweep", whose grid may
    // not be empty: refuse here rather than write a script whose every task fails.
    if (plan.spec.axes.empty()) {
        err(q("mhla-lab sweep slurm: the sweep has no swept key (no --grid and no \"sweep\" grid "
              "in the experiment file); allowed: at least one --grid KEY=VALUES or a file with "
              "a \"sweep\" grid. One experiment needs no job array: run mhla-lab solve"));
        return InvalidInput;
    }
    if (static_cast<size_t>(opt.slurmShards) > plan.runs.size()) {
        err(q("mhla-lab sweep slurm: --shards: ") + QString::number(opt.slurmShards) +
            q(" is more than the ") + QString::number(plan.runs.size()) +
            q(" runs of this sweep; expected an integer in [1, ") +
            QString::number(plan.runs.size()) + q("]"));
        return InvalidInput;
    }
    const QString dir = QDir(opt.out).absolutePath();
    const QString bin = QCoreApplication::applicationFilePath();
    for (const auto& [what, path] : {std::pair{"--out", dir}, std::pair{"this binary", bin}})
        if (const QString e = slurmPathProblem(path); !e.isEmpty()) {
            err(q("mhla-lab sweep slurm: ") + q(what) + q(": ") + e);
            return InvalidInput;
        }
    if (const QString e = claimFolder(opt.out, plan); !e.isEmpty()) {
        err(q("mhla-lab sweep slurm: ") + e);
        return InvalidInput;
    }
    const QString logs = QDir(dir).filePath(q("slurm"));
    if (const QString e = prepareOutputFolder(logs); !e.isEmpty()) {
        err(q("mhla-lab sweep slurm: ") + e);
        return InvalidInput;
    }
    const int n = opt.slurmShards;
    const auto [sweep, merge] = slurmScripts(opt, dir, bin, logs);
    for (const auto& [name, text] :
         {std::pair{q("sweep.sbatch"), sweep}, std::pair{q("merge.sbatch"), merge}})
        if (const QString e = writeFileAtomic(QDir(dir).filePath(name), text.toUtf8());
            !e.isEmpty()) {
            err(q("mhla-lab sweep slurm: ") + e);
            return InternalError;
        }
    err(QString::asprintf("mhla-lab sweep slurm: %zu runs in %d shards; wrote ", plan.runs.size(),
                          n) +
        QDir(dir).filePath(q("sweep.sbatch")) + q(" and merge.sbatch"));
    return opt.submit ? submitSlurm(dir) : Success;
}

} // namespace

int runSweep(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    useCNumericLocale();
    QStringList args = app.arguments();
    args.removeFirst();
    args.removeFirst();
    SweepOptions opt;
    if (const QString e = parseSweepOptions(args, &opt); !e.isEmpty()) {
        err(q("mhla-lab sweep: ") + e);
        return InvalidInput;
    }
    if (opt.help) {
        std::fputs(kSweepHelp, stdout);
        return Success;
    }
    for (const QString& path : QStringList{opt.config, opt.out} + opt.dirs)
        if (path.contains(QChar::ReplacementCharacter)) {
            err(q("mhla-lab sweep: a path is not valid UTF-8; allowed: paths in UTF-8"));
            return InvalidInput;
        }
    switch (opt.command) {
    case SweepOptions::Command::Merge: return mergeCommand(opt);
    case SweepOptions::Command::Slurm: return slurmCommand(opt);
    case SweepOptions::Command::Run: break;
    }
    return runCommand(opt);
}

} // namespace mhla::cli
