#pragma once
// Wall-clock timing of the phases of a run (timings_ms in the result), and the CPU time of the
// calling thread (what the window's live redraw budget counts).
#include <chrono>
#include <ctime>

namespace mhla {

using Clock = std::chrono::steady_clock;

/// Milliseconds since t0.
[[nodiscard]] inline double msSince(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

/// CPU seconds the calling thread has used (CLOCK_THREAD_CPUTIME_ID), or -1 where the system
/// does not measure it.
[[nodiscard]] inline double threadCpuSeconds() {
#ifdef CLOCK_THREAD_CPUTIME_ID
    timespec ts{};
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0)
        return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
#endif
    return -1;
}

} // namespace mhla
