#include "ui/run/runworker.h"
#include <QElapsedTimer>
#include <QThread>
#include <algorithm>
#include <cmath>
#include <exception>

namespace mhla::ui {

void RunWorker::execute(quint64 generation, const ExperimentConfig& cfg,
                        std::shared_ptr<CancelToken> token,
                        std::shared_ptr<TrainingControl> control,
                        std::shared_ptr<const std::atomic<double>> watchSpeed) {
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
    // Watch speed: a logged epoch e is delivered no sooner than (e - e0) / speed seconds after
    // the point before it (epoch e0) was. Counted from the previous point, not from the start:
    // a pause, a slower machine or a change of speed never leads to a burst that catches up.
    int lastEpoch = -1;
    qint64 lastMs = 0;
    auto pace = [&](int epoch) {
        const double speed = watchSpeed ? watchSpeed->load() : 0.0;
        if (speed > 0 && lastEpoch >= 0 && epoch > lastEpoch) {
            const qint64 due =
                lastMs + static_cast<qint64>(std::ceil(1000.0 * (epoch - lastEpoch) / speed));
            while (!token->isCancelled()) {
                const qint64 left = due - clock.elapsed();
                if (left <= 0 || watchSpeed->load() != speed) break; // a new speed: from here
                QThread::msleep(static_cast<unsigned long>(std::min<qint64>(left, pacingSliceMs)));
            }
            token->check(); // Stop while waiting: the run ends here, not after the pace
        }
        lastEpoch = epoch;
        lastMs = clock.elapsed();
    };
    ctx.progress = [&](const ProgressEvent& e) {
        if (e.point) pace(e.point->epoch);
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
