#pragma once
// Runs core's runExperiment on a worker thread. The worker is a QObject living on a QThread;
// inputs are copied in, results are emitted by value, progress is batched to ~30 signals/s.
#include "core/run/runner.h"
#include <QMetaType>
#include <QObject>
#include <atomic>
#include <memory>
#include <vector>

namespace mhla::ui {

/// A batch of progress since the previous signal.
struct RunProgress {
    QString phase;
    double fraction = 0;
    std::vector<HistoryPoint> newPoints;                ///< training points logged since
    std::vector<std::pair<long long, double>> newTrace; ///< (samples seen, lambda_min so far)
};

class RunWorker : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;
    /// Minimum interval between progress signals (ms).
    static constexpr int progressIntervalMs = 33;

    /// Runs on the worker thread (invoke with a queued call). Emits exactly one of finished,
    /// failed or cancelled, tagged with `generation`. `watchSpeed` (epochs per second, 0 = as
    /// fast as it goes; read at every logged epoch, so it can change during the run) paces a
    /// trainer: before the point of epoch e is delivered the worker waits until e / speed
    /// seconds after the first point, in slices of at most pacingSliceMs that check the cancel
    /// token (Stop never waits for the pace).
    void execute(quint64 generation, const mhla::ExperimentConfig& cfg,
                 std::shared_ptr<mhla::CancelToken> token,
                 std::shared_ptr<mhla::TrainingControl> control,
                 std::shared_ptr<const std::atomic<double>> watchSpeed = nullptr);
    static constexpr int pacingSliceMs = 5;

Q_SIGNALS:
    void progressed(quint64 generation, const mhla::ui::RunProgress& progress);
    void finished(quint64 generation, const mhla::ExperimentResult& result);
    void failed(quint64 generation, const QString& message);
    void cancelled(quint64 generation);
};

} // namespace mhla::ui

Q_DECLARE_METATYPE(mhla::ui::RunProgress)
Q_DECLARE_METATYPE(mhla::ExperimentResult)
