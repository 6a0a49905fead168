#include "ui/run/runworker.h"
#include <QElapsedTimer>
#include <cmath>
#include <exception>

namespace mhla::ui {

void RunWorker::execute(quint64 generation, const ExperimentConfig& cfg,
                        std::shared_ptr<CancelToken> token,
                        std::shared_ptr<TrainingControl> control) {
    RunProgress pending;
    QElapsedTimer clock;
    clock.start();
    qint64 lastEmit = -progressIntervalMs;
    auto flush = [&] {
        Q_EMIT progressed(generation, pending);
        pending.newPoints.clear();
        pending.newTrace.clear();
        lastEmit = clock.elapsed();
    };
    RunContext ctx;
    ctx.cancel = token.get();
    ctx.control = control.get();
    ctx.progress = [&](const ProgressEvent& e) {
        pending.phase = QString::fromStdString(e.phase);
        pending.fraction = e.fraction;
        if (e.point) pending.newPoints.push_back(*e.point);
        if (e.samplesSeen >= 0 && std::isfinite(e.lambdaMinSoFar))
            pending.newTrace.emplace_back(e.samplesSeen, e.lambdaMinSoFar);
        // A paused run sends nothing more: deliver everything so far at once.
        if (e.phase == "paused" || clock.elapsed() - lastEmit >= progressIntervalMs) flush();
    };
    try {
        ExperimentResult r = runExperiment(cfg, ctx);
        if (!pending.newPoints.empty() || !pending.newTrace.empty()) flush();
        Q_EMIT finished(generation, r);
    } catch (const Cancelled&) {
        Q_EMIT cancelled(generation);
    } catch (const ConfigError& e) {
        Q_EMIT failed(generation, QString::fromStdString(e.what()));
    } catch (const std::exception& e) {
        Q_EMIT failed(generation, tr("internal error: %1").arg(QString::fromStdString(e.what())));
    }
}

} // namespace mhla::ui
