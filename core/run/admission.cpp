#include "core/run/admission.h"
#include "core/algebra/features.h"
#include "core/algebra/model.h"
#include "core/base/machine.h"
#include "core/base/text.h"
#include "core/base/types.h"
#include "core/run/estimate.h"
#include "core/run/training/trainer.h"
#include <algorithm>

namespace mhla {

double RunBytes::peak() const { return std::max(exact, data + model) + other; }

RunBytes runBytes(const ExperimentConfig& cfg, int threads) {
    RunBytes b;
    const int d = cfg.promptDim();
    const int dOut = cfg.outputDim();
    const bool trainer = cfg.solver.kind != SolverKind::Poly;
    const bool needsExact = !trainer || cfg.solver.compareExact;
    const double D = static_cast<double>(featureDim(d));
    if (needsExact)
        // The accumulator, Lambda and its shared copy, the factor or eigenvectors with the
        // solver's workspace, a block of samples, C and P, the cached rows; and one more D x D
        // (the dense path's eigenvectors beside the factor).
        b.exact =
            estimateSolveBytes(d, dOut, static_cast<int>(kAccumulationBlock), cfg.task.samples) +
            8.0 * D * D;
    if (trainer) {
        const training::TrainerBytes t = training::trainerPeakBytes(cfg, threads);
        b.data = t.data;
        b.model = t.model;
        b.other = t.other + (needsExact ? 2 * 8.0 * dOut * D : 0.0); // the exact P, twice
    }
    if (cfg.task.kind == TaskKind::Automaton) b.other += 16.0 * cfg.eval.words;
    // What no term above models: the workers' stacks, their allocator arenas and the run's
    // many small blocks. Measured 0.3-3.5 MiB above the modelled bytes (peak RSS less the RSS
    // before the run, 1 to 8192 trainer heads); counted as 8 MiB.
    b.other += kRunOverheadBytes;
    return b;
}

double estimateRunBytes(const ExperimentConfig& cfg, int threads) {
    return runBytes(cfg, threads).peak();
}

std::vector<ConfigIssue> admissionIssues(const ExperimentConfig& cfg, double ramBytes, int threads,
                                         int copies) {
    std::vector<ConfigIssue> out;
    const int d = cfg.promptDim();
    const bool trainer = cfg.solver.kind != SolverKind::Poly;
    const double ram = ramBytes < 0 ? physicalMemoryBytes() : ramBytes;
    const RunBytes parts = runBytes(cfg, threads);
    const double one = parts.peak();
    const double bytes = one * std::max(1, copies);
    if (!(ram > 0 && bytes > 0.8 * ram)) return out;
    const double gib = 1024.0 * 1024.0 * 1024.0;
    const int layers = cfg.solver.kind == SolverKind::Multilayer ? cfg.solver.layers : 1;
    // Name the key of the largest part: the one whose change helps most.
    QString key = cfg.task.kind == TaskKind::AssociativeMemory ? q("task.pairs")
                  : cfg.task.kind == TaskKind::Automaton       ? q("task.states")
                                                               : q("task.d");
    QString what = q("d = ") + QString::number(d) + q(" (feature dimension D = ") +
                   QString::number(featureDim(d)) + q(")");
    if (cfg.task.kind == TaskKind::AssociativeMemory)
        what = q("task.pairs = ") + QString::number(cfg.task.pairs) + q(", ") + what;
    if (cfg.task.kind == TaskKind::Automaton)
        what = q("task.states = ") + QString::number(cfg.task.states) + q(", task.alphabet = ") +
               QString::number(cfg.task.alphabet) + q(", ") + what;
    const QString heads =
        q("solver.heads = ") + QString::number(cfg.solver.heads) +
        (layers > 1 ? q(" x solver.layers = ") + QString::number(layers) : q("")) + q(" (") +
        QString::fromStdString(formatBytes(parts.model)) +
        q(" for the parameters, optimiser state and workspaces)");
    const QString samples = q("task.samples = ") + QString::number(cfg.task.samples) + q(" (") +
                            QString::fromStdString(formatBytes(parts.data)) +
                            q(" for the training and validation sets)");
    if (trainer && parts.model >= parts.data && parts.model >= parts.exact) {
        key = q("solver.heads");
        what = heads + q(", ") + samples + q(", ") + what;
    } else if (trainer && parts.data >= parts.exact) {
        key = q("task.samples");
        what = samples + q(", ") + heads + q(", ") + what;
    } else if (trainer) {
        what += q(", ") + heads + q(", ") + samples;
    }
    QString message =
        what + q(" needs about ") + QString::number(one / gib, 'f', 1) + q(" GiB of memory");
    if (copies > 1) {
        message += q(" per run, ") + QString::number(bytes / gib, 'f', 1) + q(" GiB for ") +
                   QString::number(copies) + q(" runs at once (--jobs)");
        // A single run fits: fewer jobs is the change to make.
        if (one <= 0.8 * ram) key = q("--jobs");
    }
    message += q("; this machine has ") + QString::number(ram / gib, 'f', 1) +
               q(" GiB. Allowed: sizes whose estimate fits in 80% of RAM.");
    out.push_back({key, message});
    return out;
}

void admit(const ExperimentConfig& cfg, int threads) {
    const auto issues = admissionIssues(cfg, -1, threads);
    if (!issues.empty())
        throw ConfigError(issues.front().message.toStdString(), issues.front().key);
}

} // namespace mhla
