#pragma once
// The chunk of the OuterSum kernels (core/gemmkernel.h), in a header of its own because the
// kernels for each x86-64 level (core/gemmkernel_isa.inc) include nothing else of the project.

namespace mhla::kernels {

/// Samples per partial sum of the x86-64 OuterSum kernels.
constexpr long kOuterSumChunk = 64;

} // namespace mhla::kernels
