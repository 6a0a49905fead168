#pragma once
// Facts about the machine a run is admitted on (core/run/admission.h). Parsing never asks.

namespace mhla {

/// Physical memory of this machine in bytes (0 if unknown).
[[nodiscard]] double physicalMemoryBytes();

} // namespace mhla
