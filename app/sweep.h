#pragma once
// `mhla-lab sweep`: run a grid of experiments times seeds (core/sweep/sweep.h), resume, shard,
// merge shard folders, and write Slurm job-array scripts.
#include <QString>
#include <QStringList>

namespace mhla::cli {

struct SweepOptions {
    enum class Command { Run, Merge, Slurm };
    Command command = Command::Run;
    QString config;            ///< --config FILE (empty: the defaults)
    QStringList sets;          ///< --set KEY=VALUE, in order
    QStringList grids;         ///< --grid KEY=VALUES, in order
    QString out;               ///< --out DIR (run, slurm: required; merge: optional target)
    int seeds = 0;             ///< --seeds K (0: from the file, else 1)
    int jobs = 1;              ///< --jobs J: runs in parallel
    int shard = 0, shards = 1; ///< --shard i/n
    bool yes = false;          ///< --yes: allow more than 1000 runs
    bool quiet = false;        ///< --quiet: no progress lines
    QStringList dirs;          ///< merge: the shard folders
    // slurm
    int slurmShards = 0;     ///< --shards n
    QString partition, time; ///< --partition P, --time HH:MM:SS
    int cpus = 1;            ///< --cpus C (also --jobs of each array task)
    bool submit = false;     ///< --submit
    bool help = false;
};

/// Parses the arguments after "sweep" (and after "merge" / "slurm"). Returns an error message
/// naming the option, the value and what is allowed; empty on success.
QString parseSweepOptions(const QStringList& args, SweepOptions* out);

/// `mhla-lab sweep ...` (argv[1] == "sweep").
int runSweep(int argc, char** argv);

} // namespace mhla::cli
