#pragma once
// The folded cubic feature map psi (MATH.md §2) and the streaming accumulation of the
// uncentred second moment Lambda and the cross moment C (MATH.md §3-4).
#include "core/algebra/model.h"
#include "core/base/types.h"
#include "core/kernels/gemmkernel.h"
#include <vector>

namespace mhla {

/// psi(Z)_{(a,b),c} = S_ab z_{q,c}, index pairIndex(a,b)*d + c. Length featureDim(d).
[[nodiscard]] Vec featureVector(const Mat& Z);
/// Writes psi(Z) to out[0..D).
void featureVectorInto(const Mat& Z, double* out);
/// psi from vech(S) = u and the query z_q (d entries) into out[0..D): u_p z_{q,c}, the numbers
/// featureVectorInto writes. u may be the last d(d+1)/2 entries of out itself.
void featureVectorFromVech(const double* u, const double* zq, int d, double* out);
/// vech(S(Z)) in pair order (length d(d+1)/2).
void promptVech(const Mat& Z, double* out);

/// Accumulates Lambda = (1/N) sum psi psi^T and C = (1/N) sum y psi^T from blocks of samples,
/// never forming the N x D feature matrix.
///
/// psi psi^T = (u u^T) kron (z_q z_q^T) with u = vech(S), so the distinct entries of Lambda are
/// G[(p <= p'), (c <= c')] = sum_s u_p' (u_p q_c q_c')_s: for each p, the sum of the outer
/// products of the samples' rows u_{p..P-1} with their query pairs scaled by u_p (about D^2/4
/// multiply-adds per sample, the useful work). A register-tiled kernel chosen for the CPU at run
/// time (core/kernels/gemmkernel.h, OuterSum) reads the rows as they are, with nothing packed, and
/// each entry of G (and of C) is a sum, in sample order, of sums over chunks of 64 samples, so the
/// result does not depend on the thread count or on how the work is cut into items. Memory O(D^2/4
/// + block * D^(2/3)).
class MomentAccumulator {
public:
    MomentAccumulator(int d, int dOut);

    /// Adds a block: U is B x pairCount(d) (rows vech(S)), Qz is B x d (rows z_q), Y is B x d_out.
    /// Polls `cancel` between chunks of work (a few ms each) and throws Cancelled when it is set;
    /// the accumulator is then unusable.
    void addBlock(const Mat& U, const Mat& Qz, const Mat& Y, int threads = 1,
                  const CancelToken* cancel = nullptr);
    /// Convenience: adds prompts and labels one block at a time.
    void addSamples(const std::vector<Mat>& Z, const std::vector<Vec>& y, int threads = 1);

    long long count() const { return m_count; }
    int d() const { return m_d; }
    int dOut() const { return m_dOut; }
    long long featureDim() const { return m_D; }
    /// Lambda (D x D, symmetric, full storage), normalised by the number of samples.
    Mat lambda() const;
    /// C (d_out x D), normalised by the number of samples.
    Mat crossMoment() const;

private:
    int m_d, m_dOut, m_P;
    long long m_D;
    long long m_count = 0;
    Index m_ldq, m_ldy;          ///< row lengths of m_g and m_c (padded for the kernel)
    kernels::AlignedDoubles m_g; ///< rows (p <= p') in order, columns the query pairs (c <= c')
    kernels::AlignedDoubles m_c; ///< rows p, columns (o, c): the unnormalised C
    kernels::AlignedDoubles m_ur, m_q2, m_yq; ///< a block's rows laid out for the kernel
    /// Fills m_ur, m_q2, m_yq with the block's rows (row-major, one sample per row).
    void layOutBlock(const Mat& U, const Mat& Qz, const Mat& Y, int threads);
};

/// Samples per accumulation block: the unit of the lambda_min trace, of progress reports and of
/// sample generation. A constant, so nothing in a result depends on the thread count.
constexpr long long kAccumulationBlock = 4096;

/// Most bytes the exact solver keeps of the training samples' rows (vech S, z_q, y) so that the
/// training error is computed without drawing the samples again; larger sets are redrawn.
constexpr double kTrainRowCacheBytes = 64.0 * 1024 * 1024;
/// Bytes of the rows of `samples` training samples (0 when they exceed kTrainRowCacheBytes).
[[nodiscard]] double trainRowCacheBytes(int d, int dOut, long long samples);
/// Bytes the accumulation and the solve of feature dimension D need (with a block of B samples,
/// and the cached rows of `samples` training samples when they are cached).
[[nodiscard]] double estimateSolveBytes(int d, int dOut, int block, long long samples = 0);

} // namespace mhla
