// Small experiment configurations shared by the suites that run core end to end: quick enough
// for every test, large enough for the quantities they check. Each suite keeps its own numbers.
#pragma once

#include "core/experiment/config.h"
#include "core/run/runner.h"
#include <QJsonObject>
#include <QStringList>

namespace mhla::test {

/// The automaton task at orthogonal-transition probability `p`: 4096 samples, 512 validation
/// and out-of-distribution samples.
inline ExperimentConfig smallAutomatonConfig(double p) {
    ExperimentConfig cfg;
    cfg.task.orthogonalProb = p;
    cfg.task.samples = 4096;
    cfg.eval.valSamples = cfg.eval.oodSamples = 512;
    return cfg;
}

/// A random multi-head linear attention teacher of `teacherHeads` heads on `tokens` tokens of
/// dimension `d` with `dOut` outputs, `samples` training and `evalSamples` validation and
/// out-of-distribution samples.
inline ExperimentConfig smallMhlaConfig(int d, int dOut, int tokens, int teacherHeads, int samples,
                                        int evalSamples) {
    ExperimentConfig cfg;
    cfg.task.kind = TaskKind::RandomMhla;
    cfg.task.d = d;
    cfg.task.dOut = dOut;
    cfg.task.tokens = tokens;
    cfg.task.teacherHeads = teacherHeads;
    cfg.task.samples = samples;
    cfg.eval.valSamples = cfg.eval.oodSamples = evalSamples;
    return cfg;
}

/// An experiment from its JSON sections, as an experiment file with these sections gives it
/// (keys left out take their defaults).
inline ExperimentConfig configFromSections(const QJsonObject& task, const QJsonObject& solver = {},
                                           const QJsonObject& eval = {}) {
    return experimentFromJson(QJsonObject{{QStringLiteral("task"), task},
                                          {QStringLiteral("solver"), solver},
                                          {QStringLiteral("eval"), eval}});
}

/// A small sweep file: 3 points x 2 seeds of the associative memory, poly, a few hundred samples.
inline constexpr char kSmallSweep[] = R"({
  "task": {"kind": "associative_memory", "pairs": 2, "samples": 400},
  "eval": {"val_samples": 200, "ood_samples": 200, "lambda_trace": 0},
  "sweep": {"grid": {"task.orthogonal_prob": "0:1:0.5"}, "seeds": 2}
})";

/// A whole run of the default experiment with `key=value` overrides (as --set).
inline ExperimentResult runWithOverrides(const QStringList& sets) {
    QJsonObject o;
    for (const QString& a : sets) applyOverride(o, a);
    return runExperiment(experimentFromJson(o));
}

} // namespace mhla::test
