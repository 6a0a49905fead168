#pragma once
// Wall-clock timing of the phases of a run (timings_ms in the result).
#include <chrono>

namespace mhla {

using Clock = std::chrono::steady_clock;

/// Milliseconds since t0.
inline double msSince(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

} // namespace mhla
