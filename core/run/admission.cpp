#include "core/run/admission.h"
#include "core/algebra/features.h"
#include "core/algebra/model.h"
#include "core/base/machine.h"
#include "core/base/types.h"
#include <algorithm>

namespace mhla {

namespace {
QString q(const char* s) { return QString::fromUtf8(s); }
} // namespace

double estimateRunBytes(const ExperimentConfig& cfg) {
    const int d = cfg.promptDim();
    const int dOut = cfg.outputDim();
    const bool trainer = cfg.solver.kind != SolverKind::Poly;
    const bool needsExact = !trainer || cfg.solver.compareExact;
    double bytes = needsExact ? estimateSolveBytes(d, dOut, static_cast<int>(kAccumulationBlock),
                                                   cfg.task.samples)
                              : 0.0;
    if (trainer) {
        bytes += 8.0 * static_cast<double>(cfg.task.samples + cfg.eval.valSamples) *
                 (static_cast<double>(d) * cfg.tokenCount() + dOut);
        const double H = cfg.solver.heads,
                     L = cfg.solver.kind == SolverKind::Multilayer ? cfg.solver.layers : 1;
        const double params = cfg.solver.kind == SolverKind::Softmax
                                  ? 4.0 * H * d * d + 4.0 * d * d + 1.0 * dOut * d
                                  : L * H * d * (1.0 * d + d) + 1.0 * dOut * d;
        // theta, gradient, two optimizer moments, a gradient and a workspace per thread
        bytes += 8.0 * params * 8.0 + 8.0 * H * L * d * cfg.tokenCount() * 4.0;
        bytes += 400.0 * static_cast<double>(
                             std::min<long long>(cfg.solver.epochs / cfg.solver.logEvery + 2,
                                                 static_cast<long long>(kMaxHistoryPoints)));
    }
    return bytes;
}

std::vector<ConfigIssue> admissionIssues(const ExperimentConfig& cfg, double ramBytes) {
    std::vector<ConfigIssue> out;
    const int d = cfg.promptDim();
    const bool trainer = cfg.solver.kind != SolverKind::Poly;
    const bool needsExact = !trainer || cfg.solver.compareExact;
    const double ram = ramBytes < 0 ? physicalMemoryBytes() : ramBytes;
    const double bytes = estimateRunBytes(cfg);
    if (ram > 0 && bytes > 0.8 * ram) {
        const double gib = 1024.0 * 1024.0 * 1024.0;
        const char* keyPath = cfg.task.kind == TaskKind::AssociativeMemory ? "task.pairs"
                              : cfg.task.kind == TaskKind::Automaton       ? "task.states"
                                                                           : "task.d";
        if (trainer && !needsExact) keyPath = "solver.heads";
        QString what = q("d = ") + QString::number(d) + q(" (feature dimension D = ") +
                       QString::number(featureDim(d)) + q(")");
        if (cfg.task.kind == TaskKind::AssociativeMemory)
            what = q("task.pairs = ") + QString::number(cfg.task.pairs) + q(", ") + what;
        if (cfg.task.kind == TaskKind::Automaton)
            what = q("task.states = ") + QString::number(cfg.task.states) +
                   q(", task.alphabet = ") + QString::number(cfg.task.alphabet) + q(", ") + what;
        if (trainer)
            what +=
                q(", ") + QString::number(cfg.solver.heads) + q(" heads x ") +
                QString::number(cfg.solver.kind == SolverKind::Multilayer ? cfg.solver.layers : 1) +
                q(" layers, ") + QString::number(cfg.task.samples) + q(" samples");
        out.push_back(
            {q(keyPath), what + q(" needs about ") + QString::number(bytes / gib, 'f', 1) +
                             q(" GiB of memory; this machine has ") +
                             QString::number(ram / gib, 'f', 1) +
                             q(" GiB. Allowed: sizes whose estimate fits in 80% of RAM.")});
    }
    return out;
}

void admit(const ExperimentConfig& cfg) {
    const auto issues = admissionIssues(cfg);
    if (!issues.empty())
        throw ConfigError(issues.front().message.toStdString(), issues.front().key);
}

} // namespace mhla
