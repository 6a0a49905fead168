#pragma once
// The one matrix product the exact solver spends its time in, C += A^T B (the accumulation of
// the distinct entries of Lambda, core/algebra/features.cpp), compiled for several x86-64 levels
// and chosen at run time from the CPU found, so a portable binary (the .deb) runs it with AVX2/FMA
// or AVX-512 where the CPU has them, not at the level of the build machine.
//
// Within one machine the same kernel is used for every call and every thread, so results stay
// bit-identical for any thread count; between CPUs of different levels the last bits of a
// result can differ (as they do between two native builds).

#include "core/kernels/gemmchunk.h"
#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>
#include <vector>

namespace mhla::kernels {

/// C (m x n, column-major, leading dimension ldc) += A^T B, where A is k x m (lda) and B is
/// k x n (ldb), both column-major.
using GemmAtB = void (*)(long m, long n, long k, const double* A, long lda, const double* B,
                         long ldb, double* C, long ldc);

/// C (m x n, row-major, row i at C + i ldc) += A^T B, where A is k x m and B is k x n, both
/// row-major (row s at A + s lda, B + s ldb): the sum over s of the outer products of A's and
/// B's rows. Rows of samples are what the accumulation has, so a register-tiled kernel reads them
/// as they are, with nothing packed. The x86-64 kernels sum each entry over chunks of
/// kOuterSumChunk samples (from the first) and add the chunk sums to C in order: the rounding
/// error grows with kOuterSumChunk + k / kOuterSumChunk rather than with k, and a call over k
/// samples gives the same bits as calls over consecutive parts of k cut at multiples of the
/// chunk.
/// Columns are read in whole groups of 8: B's rows must hold outerSumPad(n) readable values,
/// zero past n, and C's rows as many writable ones (those past n then stay as they are).
/// With `scale` (not null), B's row s is first multiplied by scale[s lds].
using OuterSum = void (*)(long m, long n, long k, const double* A, long lda, const double* B,
                          long ldb, const double* scale, long lds, double* C, long ldc);

/// Zeroed doubles aligned to 64 bytes, so that rows of outerSumPad(n) doubles start on a cache
/// line and no vector load straddles two (which costs AVX-512 loads twice).
class AlignedDoubles {
public:
    AlignedDoubles() = default;
    explicit AlignedDoubles(std::size_t n)
        : m_size(n), m_data(static_cast<double*>(std::aligned_alloc(64, bytes(n)))) {
        if (!m_data) throw std::bad_alloc();
        std::fill_n(m_data.get(), n, 0.0);
    }
    AlignedDoubles(const AlignedDoubles& other) : AlignedDoubles(other.m_size) {
        std::copy_n(other.data(), m_size, data());
    }
    AlignedDoubles& operator=(const AlignedDoubles& other) {
        if (this != &other) *this = AlignedDoubles(other);
        return *this;
    }
    AlignedDoubles(AlignedDoubles&&) noexcept = default;
    AlignedDoubles& operator=(AlignedDoubles&&) noexcept = default;
    double* data() { return m_data.get(); }
    const double* data() const { return m_data.get(); }
    std::size_t size() const { return m_size; }
    double& operator[](std::size_t i) { return m_data.get()[i]; }
    double operator[](std::size_t i) const { return m_data.get()[i]; }

private:
    static std::size_t bytes(std::size_t n) { return (n * sizeof(double) + 63) / 64 * 64 + 64; }
    struct Free {
        void operator()(double* p) const { std::free(p); }
    };
    std::size_t m_size = 0;
    std::unique_ptr<double, Free> m_data;
};

struct GemmKernel {
    GemmAtB run;
    OuterSum outer;
    const char* name; ///< "x86-64-v4 (AVX-512)", "x86-64-v3 (AVX2/FMA)" or "build target"
};

/// The kernel for this CPU, chosen once. MHLA_GEMM_KERNEL=build|v3|v4 overrides the choice
/// (a level the CPU lacks is refused and the automatic choice kept).
[[nodiscard]] const GemmKernel& accumulationGemm();
/// Every kernel this CPU can run (the build target's first), for tests and the bench.
[[nodiscard]] std::vector<GemmKernel> availableGemmKernels();

} // namespace mhla::kernels
