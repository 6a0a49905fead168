#pragma once
// Basic value types shared by the whole core.
#include <Eigen/Dense>
#include <algorithm>
#include <atomic>
#include <functional>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>

namespace mhla {

using Mat = Eigen::MatrixXd;
using Vec = Eigen::VectorXd;
using Index = Eigen::Index;

/// Thrown by long computations when their CancelToken is set.
class Cancelled : public std::runtime_error {
public:
    Cancelled() : std::runtime_error("cancelled") {}
};

/// A cancellation flag shared between the thread that runs a computation and the one that
/// may stop it. Checked between chunks of work (a block of samples, a minibatch).
class CancelToken {
public:
    void cancel() { m_flag.store(true, std::memory_order_relaxed); }
    void reset() { m_flag.store(false, std::memory_order_relaxed); }
    bool isCancelled() const { return m_flag.load(std::memory_order_relaxed); }
    /// Throws Cancelled when cancellation was requested.
    void check() const {
        if (isCancelled()) throw Cancelled();
    }

private:
    std::atomic<bool> m_flag{false};
};

/// Live control of a training run from another thread (the GUI): pause between epochs, run
/// single epochs while paused, and scale the learning rate without restarting. A default
/// control (not paused, scale 1) changes nothing, so runs stay reproducible.
struct TrainingControl {
    std::atomic<bool> paused{false};
    std::atomic<int> stepEpochs{0};   ///< epochs still to run while paused
    std::atomic<double> lrScale{1.0}; ///< multiplies the scheduled learning rate
};

/// A trainer's history keeps at most this many points: beyond it, every second point is
/// dropped (the first and the newest stay), so memory and result.json stay bounded.
constexpr size_t kMaxHistoryPoints = 10000;

/// One point of a training history (one per logged step). Fields that are undefined for a
/// model (e.g. distance_p for a softmax block) are NaN.
struct HistoryPoint {
    int epoch = 0;
    long long step = 0;
    double lr = 0;
    double trainMse = 0;
    double valMse = 0;
    double oodRelMse = std::numeric_limits<double>::quiet_NaN();
    double distanceP = std::numeric_limits<double>::quiet_NaN();
    double distancePRel = std::numeric_limits<double>::quiet_NaN();
    /// ||P - P_exact||_F / ||P_exact||_F against the exact solver on the same data.
    double distanceExactRel = std::numeric_limits<double>::quiet_NaN();
};

/// What a running computation reports. The progress contract: `fraction` is the progress of
/// the whole run in [0, 1] and never decreases. A callee that reports its own 0..1 is handed a
/// slice of its caller's context (RunContext::slice), which maps it into the caller's range.
struct ProgressEvent {
    std::string phase;   ///< "generate+accumulate", "certificate+solve", "evaluate", "generate",
                         ///< "train", "paused", "execute" or "done"
    double fraction = 0; ///< progress of the whole run, 0..1
    long long samplesSeen = -1; ///< accumulation: samples added so far
    double lambdaMinSoFar = std::numeric_limits<double>::quiet_NaN(); ///< certificate trace
    const HistoryPoint* point = nullptr; ///< training: the point just logged (or null)
};

using ProgressFn = std::function<void(const ProgressEvent&)>;

/// Everything a long computation needs from its caller besides its inputs.
struct RunContext {
    ProgressFn progress;                 ///< may be empty; called on the computing thread
    const CancelToken* cancel = nullptr; ///< may be null
    int threads = 0;                     ///< 0 = hardware concurrency; results never depend on it
    TrainingControl* control = nullptr;  ///< may be null; read by the trainers between minibatches

    void report(const ProgressEvent& e) const {
        if (progress) progress(e);
    }
    void checkCancel() const {
        if (cancel) cancel->check();
    }
    /// This context for a callee whose fractions [0, 1] stand for [start, end] of this one's.
    /// The slice's fractions never go back (an event below the slice's last is reported at
    /// the last). Without `keepTrace` the slice drops lambdaMinSoFar and samplesSeen: a callee's
    /// own checkpoints (the explorer's probes) are not the run's certificate trace.
    [[nodiscard]] RunContext slice(double start, double end, bool keepTrace = true) const {
        RunContext out = *this;
        if (!progress) return out;
        auto last = std::make_shared<double>(start);
        out.progress = [parent = progress, start, end, keepTrace, last](const ProgressEvent& e) {
            ProgressEvent scaled = e;
            const double f = std::clamp(e.fraction, 0.0, 1.0);
            *last = std::max(*last, start + (end - start) * f);
            scaled.fraction = *last;
            if (!keepTrace) {
                scaled.lambdaMinSoFar = std::numeric_limits<double>::quiet_NaN();
                scaled.samplesSeen = -1;
            }
            parent(scaled);
        };
        return out;
    }
};

} // namespace mhla
