#pragma once
// Which generator draws a task's random numbers (the key task.rng, core/experiment/config.cpp).

namespace mhla {

/// Philox: Philox4x32-10 (counter-based, Random123) with the Box-Muller transform in SIMD lanes
/// (core/base/philox.h), the default of a new experiment. XoshiroZiggurat: xoshiro256** seeded
/// per (seed, stream, index) with the ziggurat, the generator of every experiment written
/// before task.rng existed (a file without the key reads as it, kRngWhenAbsent). In the key's
/// choice order.
enum class RngKind { Philox, XoshiroZiggurat };

} // namespace mhla
