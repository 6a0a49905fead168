#pragma once
// The chunk and the column padding of the OuterSum kernels (core/kernels/gemmkernel.h), in a header
// of their own because the kernels for each x86-64 level (core/kernels/gemmkernel_isa.inc) include
// nothing else of the project.

namespace mhla::kernels {

/// Samples per partial sum of the x86-64 OuterSum kernels.
constexpr long kOuterSumChunk = 64;
/// n rounded up to the column group of OuterSum (8).
[[nodiscard]] constexpr long outerSumPad(long n) { return (n + 7) / 8 * 8; }

} // namespace mhla::kernels
