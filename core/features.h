#pragma once
// The folded cubic feature map psi (MATH.md §2) and the streaming accumulation of the
// uncentred second moment Lambda and the cross moment C (MATH.md §3-4).
#include "core/model.h"
#include <vector>

namespace mhla {

/// psi(Z)_{(a,b),c} = S_ab z_{q,c}, index pairIndex(a,b)*d + c. Length featureDim(d).
Vec featureVector(const Mat& Z);
/// Writes psi(Z) to out[0..D).
void featureVectorInto(const Mat& Z, double* out);
/// vech(S(Z)) in pair order (length d(d+1)/2).
void promptVech(const Mat& Z, double* out);

/// Accumulates Lambda = (1/N) sum psi psi^T and C = (1/N) sum y psi^T from blocks of samples,
/// never forming the N x D feature matrix.
///
/// psi psi^T = (u u^T) kron (z_q z_q^T) with u = vech(S): the accumulator keeps, for every
/// pair c <= c' of query coordinates, the lower triangle of sum_s (q_c q_c')_s u_s u_s^T, about
/// D^2/4 numbers updated per sample instead of D^2/2 for a plain rank-k update. Each such block
/// is one unit of work whose arithmetic never depends on the thread that runs it, so results
/// are bit-identical for any thread count. Memory O(D^2 + block * D).
class MomentAccumulator {
public:
    MomentAccumulator(int d, int dOut);

    /// Adds a block: U is B x pairCount(d) (rows vech(S)), Qz is B x d (rows z_q), Y is B x d_out.
    void addBlock(const Mat& U, const Mat& Qz, const Mat& Y, int threads = 1);
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
    std::vector<Mat> m_blocks; ///< lower triangles, one per (c <= c'), P x P
    Mat m_cRaw;                ///< d_out x D, unnormalised
};

/// Samples per accumulation block. A constant, so the summation order (and every bit of the
/// result) never depends on the thread count. Measured (`mhla-lab bench`, Eigen 3.4): the
/// triangular products run 4-5x faster with blocks of >= 2048 samples than with 256-1024.
constexpr long long kAccumulationBlock = 4096;

/// Bytes the accumulation and the solve of feature dimension D need (with a block of B samples).
double estimateSolveBytes(int d, int dOut, int block);
/// Physical memory of this machine in bytes (0 if unknown).
double physicalMemoryBytes();

} // namespace mhla
