#pragma once
// The identifiability explorer of a poly run (issue 11): how many heads the function needs,
// what the data leave free, how many samples the certificate needs, and how much noise blurs
// what was identified. Each answer comes from core/identifiability.h; this file decides what
// to compute for a run and collects it for result.json, the CLI and the GUI.
#include "core/result.h"
#include "core/tasks.h"
#include <QJsonObject>

namespace mhla {

/// Whether a run explores: eval.identifiability = full, or auto and D <= kExploreAutoMaxD.
constexpr long long kExploreAutoMaxD = 300;
bool explores(const ExperimentConfig& cfg, long long featureDim);

/// Computes the report for a poly run: P is the least-squares fit (before any truncation to
/// solver.heads), fit its metrics, lambda the second moment; r gives the certificate and P*.
/// Polls ctx's cancel token throughout.
IdentifiabilityReport exploreIdentifiability(const Task& task, const ExperimentConfig& cfg,
                                             const Mat& lambda, const Mat& P, const Metrics& fit,
                                             const ExperimentResult& r, const RunContext& ctx = {});

/// {"min_heads": ..., "certificate_samples": ..., "null_relations": ..., "probes": [...],
///  "noise": ...}: the blocks' own JSON (core/identifiability.h).
QJsonObject toJson(const IdentifiabilityReport& report);

} // namespace mhla
