#pragma once
// Vectors of 4 and 8 doubles (GCC/Clang vector extensions), for the small products written by
// hand (core/algebra/model.cpp, core/run/training/mhlamodel.cpp). The compiler splits them into
// what the target has (two AVX2 halves of a V8, SSE pairs). Spelled out, not built from a template
// parameter: GCC silently drops a dependent vector_size attribute.

namespace mhla::simd {

using V4 = double __attribute__((vector_size(32)));
using V8 = double __attribute__((vector_size(64)));

} // namespace mhla::simd
