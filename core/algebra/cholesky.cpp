#include "core/algebra/cholesky.h"
#include "core/base/parallel.h"
#include "core/kernels/gemmkernel.h"
#include <algorithm>
#include <cmath>

namespace mhla {

namespace {

/// An Eigen::LLT whose factor was computed by blockedCholesky() (LLT keeps its members
/// protected for exactly this).
class BlockedLLT : public Eigen::LLT<Mat> {
public:
    BlockedLLT(Mat&& factor, bool success, double l1Norm) {
        m_matrix = std::move(factor);
        m_l1_norm = l1Norm;
        m_isInitialized = true;
        m_info = success ? Eigen::Success : Eigen::NumericalIssue;
    }
};

/// The L1 norm of the symmetric matrix whose lower triangle A holds, as Eigen::LLT computes it
/// (for rcond()).
double symmetricL1Norm(const Mat& A) {
    // Column c's sum is its part on and below the diagonal plus row c left of it, which is
    // A(c, j) of the columns j < c: one pass down the columns adds each entry to both sums
    // (reading row c directly strides through memory: 0.5 s at D = 7200).
    const Index n = A.rows();
    Vec sums = Vec::Zero(n);
    for (Index j = 0; j < n; ++j) {
        sums(j) += std::abs(A(j, j));
        for (Index i = j + 1; i < n; ++i) {
            const double a = std::abs(A(i, j));
            sums(j) += a;
            sums(i) += a;
        }
    }
    return n > 0 ? sums.maxCoeff() : 0.0;
}

/// Right-looking blocked Cholesky of A in place (lower triangle): per panel of kCholeskyPanel
/// columns, the diagonal block by Eigen, the panel below it by a triangular solve (row blocks
/// in parallel), then the trailing matrix minus the panel's outer product, column block by
/// column block in parallel with the GEMM kernel. False when a pivot is not positive.
bool blockedCholesky(Mat& A, int threads) {
    const Index n = A.rows();
    const kernels::GemmAtB gemm = kernels::accumulationGemm().run;
    constexpr Index kRowBlock = 256;
    Mat panelT, negPanelT;
    for (Index k = 0; k < n; k += kCholeskyPanel) {
        const Index kb = std::min(kCholeskyPanel, n - k), m = n - k - kb;
        // 1. The diagonal block.
        const Eigen::LLT<Mat> diag(A.block(k, k, kb, kb));
        if (diag.info() != Eigen::Success) return false;
        A.block(k, k, kb, kb).triangularView<Eigen::Lower>() = diag.matrixL();
        if (m == 0) break;
        // 2. L21 = A21 L11^{-T}, row blocks independent.
        const auto L11 = A.block(k, k, kb, kb).triangularView<Eigen::Lower>();
        parallelFor((m + kRowBlock - 1) / kRowBlock, threads, [&](long long b) {
            const Index r0 = static_cast<Index>(b) * kRowBlock;
            auto rows = A.block(k + kb + r0, k, std::min(kRowBlock, m - r0), kb);
            L11.transpose().solveInPlace<Eigen::OnTheRight>(rows);
        });
        // 3. A22 -= L21 L21^T on and below the diagonal, one column block per call: with
        // T = L21^T (kb x m), block J is C += (-T_J..)^T T_J, rows from J's first column down.
        panelT = A.block(k + kb, k, m, kb).transpose();
        negPanelT = -panelT;
        const Index blocks = (m + kCholeskyPanel - 1) / kCholeskyPanel;
        parallelFor(blocks, threads, [&](long long j) {
            const Index c0 = static_cast<Index>(j) * kCholeskyPanel;
            const Index cw = std::min(kCholeskyPanel, m - c0);
            double* C = A.data() + (k + kb + c0) * n + (k + kb + c0);
            gemm(static_cast<long>(m - c0), static_cast<long>(cw), static_cast<long>(kb),
                 negPanelT.data() + c0 * kb, static_cast<long>(kb), panelT.data() + c0 * kb,
                 static_cast<long>(kb), C, static_cast<long>(n));
        });
    }
    return true;
}

} // namespace

std::shared_ptr<const Eigen::LLT<Mat>> choleskyFactor(const Mat& lambda, int threads) {
    if (lambda.rows() < kParallelCholeskyMinDim)
        return std::make_shared<const Eigen::LLT<Mat>>(lambda);
    Mat A = lambda;
    const double l1 = symmetricL1Norm(A);
    const bool ok = blockedCholesky(A, resolveThreads(threads));
    return std::make_shared<const BlockedLLT>(std::move(A), ok, l1);
}

} // namespace mhla
