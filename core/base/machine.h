#pragma once
// Facts about the machine a run is admitted on (core/run/admission.h), and the instruction
// sets its per-ISA kernels may use. Parsing never asks.

namespace mhla {

/// Physical memory of this machine in bytes (0 if unknown).
[[nodiscard]] double physicalMemoryBytes();

/// The CPU runs x86-64-v3 code (AVX2, FMA, BMI2): the kernels compiled for it may run. The one
/// test behind every per-ISA dispatch (the accumulation GEMM, the Philox generator).
[[nodiscard]] bool cpuHasX86_64V3();
/// The CPU runs x86-64-v4 code (AVX-512 F, DQ, BW, VL).
[[nodiscard]] bool cpuHasX86_64V4();

} // namespace mhla
