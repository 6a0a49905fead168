#include "ui/run/runcontroller.h"
#include <cmath>

namespace mhla::ui {

RunController::RunController(QObject* parent) : QObject(parent) {
    qRegisterMetaType<mhla::ui::RunProgress>();
    qRegisterMetaType<mhla::ExperimentResult>();
    m_worker = new RunWorker;
    m_worker->moveToThread(&m_thread);
    connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    m_thread.setObjectName(QStringLiteral("mhla-worker"));
    m_thread.start();

    connect(m_worker, &RunWorker::progressed, this, [this](quint64 gen, const RunProgress& p) {
        if (accept(gen)) Q_EMIT progressed(m_currentRun, p);
    });
    connect(m_worker, &RunWorker::finished, this, [this](quint64 gen, const ExperimentResult& r) {
        if (!accept(gen)) return;
        const int id = m_currentRun;
        m_currentRun = 0;
        Q_EMIT finished(id, r);
        dispatchNext();
    });
    connect(m_worker, &RunWorker::failed, this, [this](quint64 gen, const QString& msg) {
        if (!accept(gen)) return;
        const int id = m_currentRun;
        m_currentRun = 0;
        Q_EMIT failed(id, msg);
        dispatchNext();
    });
    connect(m_worker, &RunWorker::cancelled, this, [this](quint64 gen) {
        if (!accept(gen)) return;
        const int id = m_currentRun;
        m_currentRun = 0;
        Q_EMIT cancelled(id);
        dispatchNext();
    });
}

RunController::~RunController() {
    if (m_token) m_token->cancel();
    m_thread.quit();
    m_thread.wait();
}

void RunController::enqueue(const QList<Job>& jobs) {
    m_queue.append(jobs);
    if (m_currentRun == 0) dispatchNext();
}

void RunController::stop() {
    m_queue.clear();
    if (m_token) m_token->cancel();
    const int id = m_currentRun;
    ++m_generation; // whatever the cancelled run still emits is dropped
    m_currentRun = 0;
    resetControls();
    if (id != 0) Q_EMIT cancelled(id);
    Q_EMIT idle();
}

void RunController::resetControls() {
    const bool changed = m_paused || m_lrScale != 1.0;
    m_paused = false;
    m_lrScale = 1.0;
    if (changed) Q_EMIT controlsReset();
}

void RunController::setPaused(bool paused) {
    if (m_currentRun == 0) paused = false; // nothing to pause: the next run must not start paused
    m_paused = paused;
    if (m_control) m_control->paused = paused;
}

void RunController::stepEpoch() {
    if (m_control && m_paused) m_control->stepEpochs.fetch_add(1);
}

void RunController::setLearningRateScale(double scale) {
    if (m_currentRun == 0) return; // a scale belongs to the run it was applied to
    m_lrScale = scale;
    if (m_control) m_control->lrScale = scale;
}

void RunController::setWatchSpeed(double epochsPerSecond) {
    m_watchSpeed->store(std::isfinite(epochsPerSecond) && epochsPerSecond > 0 ? epochsPerSecond
                                                                              : 0.0);
}

void RunController::dispatchNext() {
    // Live controls belong to the run they were applied to: every run starts afresh.
    resetControls();
    if (m_queue.isEmpty()) {
        Q_EMIT idle();
        return;
    }
    const Job job = m_queue.takeFirst();
    const quint64 gen = ++m_generation;
    m_currentRun = job.runId;
    m_token = std::make_shared<CancelToken>();
    m_control = std::make_shared<TrainingControl>();
    m_control->paused = m_paused;
    m_control->lrScale = m_lrScale;
    RunWorker* w = m_worker;
    auto token = m_token;
    auto control = m_control;
    std::shared_ptr<const std::atomic<double>> speed = m_watchSpeed;
    const ExperimentConfig cfg = job.config;
    QMetaObject::invokeMethod(
        m_worker,
        [w, gen, cfg, token, control, speed] { w->execute(gen, cfg, token, control, speed); },
        Qt::QueuedConnection);
    Q_EMIT started(job.runId);
}

} // namespace mhla::ui
