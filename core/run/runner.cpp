#include "core/run/runner.h"
#include "core/algebra/features.h"
#include "core/base/stopwatch.h"
#include "core/run/admission.h"
#include "core/run/learner.h"
#include "core/run/progressplan.h"

namespace mhla {

ExperimentResult runExperiment(const ExperimentConfig& cfg, const RunContext& ctx) {
    validate(cfg);
    admit(cfg);
    const auto tStart = Clock::now();
    ExperimentResult r;
    r.config = cfg;
    const auto task = makeTask(cfg.task);
    r.d = task->d();
    r.tokens = task->tokens();
    r.dOut = task->hasTargets() ? task->dOut() : 0; // no targets: nothing is fitted
    r.featureDim = featureDim(r.d);
    r.samples = cfg.task.samples;
    r.teacherP = task->teacherP();

    // The learner's share of the run; the automaton's execution takes [0.95, 1].
    const bool executes = cfg.task.kind == TaskKind::Automaton;
    learnerFor(cfg.solver.kind).learn(*task, cfg, ctx, executes ? progress::kLearnerEnd : 1.0, r);

    if (task->hasTeacher())
        r.teacherHeads = headsFromP(r.teacherP, r.d, 0, cfg.solver.rankTolerance, ctx);
    if (cfg.task.kind == TaskKind::Automaton && r.P.size() > 0) {
        ctx.report(ProgressEvent{"execute", progress::kExecuteStart});
        const auto t0 = Clock::now();
        r.execution = executeWords(static_cast<const AutomatonTask&>(*task), r.P, cfg.eval.words,
                                   cfg.task.seed, ctx);
        r.timingsMs.emplace_back("execute", msSince(t0));
    }
    r.timingsMs.emplace_back("total", msSince(tStart));
    ctx.report(ProgressEvent{"done", 1.0});
    return r;
}

} // namespace mhla
