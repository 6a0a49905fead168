#pragma once
// Owns the worker thread and a queue of runs. Each dispatched run gets a generation number;
// anything a superseded run emits later is dropped. Stop cancels at once (the UI is told
// immediately; the worker unwinds at its next cancellation check).
#include "ui/run/runworker.h"
#include <QList>
#include <QObject>
#include <QThread>
#include <memory>

namespace mhla::ui {

class RunController : public QObject {
    Q_OBJECT
public:
    struct Job {
        int runId = 0;
        ExperimentConfig config;
    };

    explicit RunController(QObject* parent = nullptr);
    ~RunController() override;

    /// Appends runs; starts the first one if idle.
    void enqueue(const QList<Job>& jobs);
    /// Cancels the current run and drops the queue.
    void stop();
    bool isBusy() const { return m_currentRun != 0; }
    /// Live training control of the current run only: pause between epochs, run one epoch while
    /// paused, scale the learning rate. Every new run starts unpaused at scale 1 (controlsReset).
    void setPaused(bool paused);
    void stepEpoch();
    void setLearningRateScale(double scale);
    /// Watch speed of trainers in epochs per second (0 = as fast as the machine goes): the
    /// worker waits between logged epochs so that a class can watch the curves grow. Applies
    /// to the current run at once and to every later run.
    void setWatchSpeed(double epochsPerSecond);
    double watchSpeed() const { return m_watchSpeed->load(); }
    bool isPaused() const { return m_paused; }
    double learningRateScale() const { return m_lrScale; }
    int currentRun() const { return m_currentRun; }
    int queued() const { return static_cast<int>(m_queue.size()); }
    /// The worker (on its own thread): for a benchmark that times the worker's own signals.
    const RunWorker* worker() const { return m_worker; }

Q_SIGNALS:
    void started(int runId);
    void progressed(int runId, const mhla::ui::RunProgress& progress);
    void finished(int runId, const mhla::ExperimentResult& result);
    void failed(int runId, const QString& message);
    void cancelled(int runId);
    /// Emitted when the last queued run ends (finished, failed or stopped).
    void idle();
    /// The live controls went back to running at scale 1 (a new run started, or stop).
    void controlsReset();

private:
    void dispatchNext();
    void resetControls();
    bool accept(quint64 generation) const {
        return generation == m_generation && m_currentRun != 0;
    }

    QThread m_thread;
    RunWorker* m_worker = nullptr;
    QList<Job> m_queue;
    quint64 m_generation = 0;
    int m_currentRun = 0;
    std::shared_ptr<CancelToken> m_token;
    std::shared_ptr<TrainingControl> m_control;
    bool m_paused = false;
    double m_lrScale = 1.0;
    std::shared_ptr<std::atomic<double>> m_watchSpeed = std::make_shared<std::atomic<double>>(0.0);
};

} // namespace mhla::ui
