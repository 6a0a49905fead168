#include "core/kernels/gemmkernel.h"
#include "core/base/machine.h"
#include "core/base/types.h"
#include <cstdlib>
#include <cstring>

namespace mhla::kernels {

#if defined(__x86_64__)
void gemmAtB_v3(long m, long n, long k, const double* A, long lda, const double* B, long ldb,
                double* C, long ldc);
void gemmAtB_v4(long m, long n, long k, const double* A, long lda, const double* B, long ldb,
                double* C, long ldc);
void outerSum_v3(long m, long n, long k, const double* A, long lda, const double* B, long ldb,
                 const double* scale, long lds, double* C, long ldc);
void outerSum_v4(long m, long n, long k, const double* A, long lda, const double* B, long ldb,
                 const double* scale, long lds, double* C, long ldc);
#endif

namespace {

void gemmAtBBuild(long m, long n, long k, const double* A, long lda, const double* B, long ldb,
                  double* C, long ldc) {
    using Stride = Eigen::OuterStride<>;
    const Eigen::Map<const Mat, 0, Stride> a(A, k, m, Stride(lda));
    const Eigen::Map<const Mat, 0, Stride> b(B, k, n, Stride(ldb));
    Eigen::Map<Mat, 0, Stride> c(C, m, n, Stride(ldc));
    c.noalias() += a.transpose() * b;
}

void outerSumBuild(long m, long n, long k, const double* A, long lda, const double* B, long ldb,
                   const double* scale, long lds, double* C, long ldc) {
    using RowMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    using Stride = Eigen::OuterStride<>;
    const Eigen::Map<const RowMat, 0, Stride> a(A, k, m, Stride(lda));
    const Eigen::Map<const RowMat, 0, Stride> b(B, k, n, Stride(ldb));
    Eigen::Map<RowMat, 0, Stride> c(C, m, n, Stride(ldc));
    if (!scale) {
        c.noalias() += a.transpose() * b;
        return;
    }
    const Eigen::Map<const Vec, 0, Eigen::InnerStride<>> w(scale, k, Eigen::InnerStride<>(lds));
    c.noalias() += a.transpose() * (w.asDiagonal() * b);
}

const GemmKernel kBuild{gemmAtBBuild, outerSumBuild, "build target"};
#if defined(__x86_64__)
const GemmKernel kV3{gemmAtB_v3, outerSum_v3, "x86-64-v3 (AVX2/FMA)"};
const GemmKernel kV4{gemmAtB_v4, outerSum_v4, "x86-64-v4 (AVX-512)"};
#endif

GemmKernel choose() {
    const GemmKernel build = kBuild;
#if defined(__x86_64__)
    const GemmKernel v3 = kV3, v4 = kV4;
    const bool hasV3 = cpuHasX86_64V3(), hasV4 = cpuHasX86_64V4();
    if (const char* want = std::getenv("MHLA_GEMM_KERNEL")) {
        if (std::strcmp(want, "build") == 0) return build;
        if (std::strcmp(want, "v3") == 0 && hasV3) return v3;
        if (std::strcmp(want, "v4") == 0 && hasV4) return v4;
    }
    if (hasV4) return v4;
    if (hasV3) return v3;
#endif
    return build;
}

} // namespace

const GemmKernel& accumulationGemm() {
    static const GemmKernel kernel = choose();
    return kernel;
}

std::vector<GemmKernel> availableGemmKernels() {
    std::vector<GemmKernel> out{kBuild};
#if defined(__x86_64__)
    if (cpuHasX86_64V3()) out.push_back(kV3);
    if (cpuHasX86_64V4()) out.push_back(kV4);
#endif
    return out;
}

} // namespace mhla::kernels
