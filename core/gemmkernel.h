#pragma once
// The one matrix product the exact solver spends its time in, C += A^T B (the accumulation of
// the distinct entries of Lambda, core/features.cpp), compiled for several x86-64 levels and
// chosen at run time from the CPU found, so a portable binary (the .deb) runs it with AVX2/FMA
// or AVX-512 where the CPU has them, not at the level of the build machine.
//
// Within one machine the same kernel is used for every call and every thread, so results stay
// bit-identical for any thread count; between CPUs of different levels the last bits of a
// result can differ (as they do between two native builds).

#include <vector>

namespace mhla::kernels {

/// C (m x n, column-major, leading dimension ldc) += A^T B, where A is k x m (lda) and B is
/// k x n (ldb), both column-major.
using GemmAtB = void (*)(long m, long n, long k, const double* A, long lda, const double* B,
                         long ldb, double* C, long ldc);

struct GemmKernel {
    GemmAtB run;
    const char* name; ///< "x86-64-v4 (AVX-512)", "x86-64-v3 (AVX2/FMA)" or "build target"
};

/// The kernel for this CPU, chosen once. MHLA_GEMM_KERNEL=build|v3|v4 overrides the choice
/// (a level the CPU lacks is refused and the automatic choice kept).
const GemmKernel& accumulationGemm();
/// Every kernel this CPU can run (the build target's first), for tests and the bench.
std::vector<GemmKernel> availableGemmKernels();

} // namespace mhla::kernels
