#include "core/features.h"
#include "core/gemmkernel.h"
#include "core/parallel.h"
#include <algorithm>
#include <unistd.h>

namespace mhla {

void promptVech(const Mat& Z, double* out) {
    const Index d = Z.rows(), n = Z.cols();
    const double* z = Z.data();
    Index k = 0;
    for (Index a = 0; a < d; ++a)
        for (Index b = a; b < d; ++b) {
            // The same sum, in the same order, as promptMomentInto.
            double s = 0;
            for (Index t = 0; t < n; ++t) s += z[t * d + a] * z[t * d + b];
            out[k++] = s;
        }
}

void featureVectorInto(const Mat& Z, double* out) {
    const int d = static_cast<int>(Z.rows());
    // vech(S) first, into the tail of `out` (pairCount(d) <= D values, read before overwritten:
    // pair p's features go to [p*d, p*d + d), at or before the tail's slot of pair p).
    const int P = pairCount(d);
    double* u = out + (featureDim(d) - P);
    promptVech(Z, u);
    const double* zq = Z.data() + (Z.cols() - 1) * d;
    for (int p = 0; p < P; ++p) {
        const double s = u[p];
        for (int c = 0; c < d; ++c) out[static_cast<Index>(p) * d + c] = s * zq[c];
    }
}

Vec featureVector(const Mat& Z) {
    Vec psi(featureDim(static_cast<int>(Z.rows())));
    featureVectorInto(Z, psi.data());
    return psi;
}

namespace {
/// Columns of G (pairs p <= p') per unit of work: large enough for an efficient GEMM, small
/// enough that one unit takes a few milliseconds (the cancel latency) and that d >= 8 gives
/// every thread several units.
/// Measured against 32 and 64 (`mhla-lab bench`, d = 4-16): 2-3x the old per-(c, c') triangular
/// products either way; 128 was best at d <= 12 and within the noise at d = 16.
constexpr Index kChunkColumns = 128;
/// Samples per sub-block inside a block: the pair products of one chunk (kSubBlock x 128
/// doubles, 512 KiB) stay in the L2 cache between being formed and being multiplied.
constexpr Index kSubBlock = 512;
} // namespace

MomentAccumulator::MomentAccumulator(int d, int dOut)
    : m_d(d), m_dOut(dOut), m_P(pairCount(d)), m_D(mhla::featureDim(d)) {
    const Index R = static_cast<Index>(m_P) * (m_P + 1) / 2;
    m_gT = Mat::Zero(m_P, R);
    m_pa.reserve(static_cast<size_t>(R));
    m_pb.reserve(static_cast<size_t>(R));
    for (int p = 0; p < m_P; ++p)
        for (int p2 = p; p2 < m_P; ++p2) {
            m_pa.push_back(p);
            m_pb.push_back(p2);
        }
    m_cRaw = Mat::Zero(dOut, m_D);
}

void MomentAccumulator::addBlock(const Mat& U, const Mat& Qz, const Mat& Y, int threads,
                                 const CancelToken* cancel) {
    const Index B = U.rows();
    if (B == 0) return;
    const Index R = m_gT.cols();
    // The d(d+1)/2 pair products of the query, in the features' pair order.
    Mat Q2(B, m_P);
    for (int c = 0; c < m_d; ++c)
        for (int c2 = c; c2 < m_d; ++c2)
            Q2.col(pairIndex(c, c2, m_d)) = Qz.col(c).cwiseProduct(Qz.col(c2));
    const long long chunks = (R + kChunkColumns - 1) / kChunkColumns;
    const kernels::GemmAtB gemm = kernels::accumulationGemm().run;
    // Work items: the chunks of G's columns, then one per query coordinate c of C.
    parallelFor(chunks + m_d, threads, [&](long long item) {
        if (cancel && cancel->isCancelled()) return;
        if (item < chunks) {
            const Index r0 = static_cast<Index>(item) * kChunkColumns;
            const Index m = std::min(kChunkColumns, R - r0);
            Mat X(std::min(kSubBlock, B), m);
            for (Index s0 = 0; s0 < B; s0 += kSubBlock) {
                const Index b = std::min(kSubBlock, B - s0);
                if (X.rows() != b) X.resize(b, m);
                for (Index j = 0; j < m; ++j)
                    X.col(j) =
                        U.col(m_pa[static_cast<size_t>(r0 + j)])
                            .segment(s0, b)
                            .cwiseProduct(U.col(m_pb[static_cast<size_t>(r0 + j)]).segment(s0, b));
                // m_gT(:, r0:r0+m) += Q2(s0:s0+b, :)^T X, by the kernel for this CPU.
                gemm(m_P, m, b, Q2.data() + s0, B, X.data(), X.rows(),
                     m_gT.data() + r0 * m_gT.rows(), m_gT.rows());
            }
        } else {
            const int c = static_cast<int>(item - chunks);
            const Mat T = Qz.col(c).asDiagonal() * U; // B x P
            const Mat Cc = Y.transpose() * T;         // d_out x P
            for (int p = 0; p < m_P; ++p) m_cRaw.col(static_cast<Index>(p) * m_d + c) += Cc.col(p);
        }
    });
    if (cancel) cancel->check();
    m_count += B;
}

void MomentAccumulator::addSamples(const std::vector<Mat>& Z, const std::vector<Vec>& y,
                                   int threads) {
    const Index B = static_cast<Index>(Z.size());
    Mat U(B, m_P), Qz(B, m_d), Y(B, m_dOut);
    Vec u(m_P);
    for (Index s = 0; s < B; ++s) {
        promptVech(Z[s], u.data());
        U.row(s) = u.transpose();
        Qz.row(s) = Z[s].col(Z[s].cols() - 1).transpose();
        Y.row(s) = y[s].transpose();
    }
    addBlock(U, Qz, Y, threads);
}

Mat MomentAccumulator::lambda() const {
    Mat L(m_D, m_D);
    const double inv = m_count > 0 ? 1.0 / static_cast<double>(m_count) : 0.0;
    const Index d = m_d;
    for (Index r = 0; r < m_gT.cols(); ++r) {
        const Index p = m_pa[static_cast<size_t>(r)], p2 = m_pb[static_cast<size_t>(r)];
        for (Index c = 0; c < d; ++c)
            for (Index c2 = c; c2 < d; ++c2) {
                const double v =
                    m_gT(pairIndex(static_cast<int>(c), static_cast<int>(c2), m_d), r) * inv;
                L(p * d + c, p2 * d + c2) = v;
                L(p2 * d + c, p * d + c2) = v;
                L(p * d + c2, p2 * d + c) = v;
                L(p2 * d + c2, p * d + c) = v;
            }
    }
    return L;
}

Mat MomentAccumulator::crossMoment() const {
    return m_count > 0 ? Mat(m_cRaw / static_cast<double>(m_count)) : Mat(m_cRaw);
}

double trainRowCacheBytes(int d, int dOut, long long samples) {
    const double bytes = 8.0 * static_cast<double>(samples) * (pairCount(d) + d + dOut);
    return bytes <= kTrainRowCacheBytes ? bytes : 0.0;
}

double estimateSolveBytes(int d, int dOut, int block, long long samples) {
    const double D = static_cast<double>(mhla::featureDim(d));
    const double P = pairCount(d);
    // Accumulator blocks (P^3 ~ D^2/2), Lambda, and the solve's factor or eigenvectors plus
    // the eigen solver's workspace; then the sample block, C and P; the cached training rows.
    return 8.0 * (P * P * P + 3.0 * D * D + block * (P + d + dOut) * 2.0 + 3.0 * dOut * D) +
           trainRowCacheBytes(d, dOut, samples);
}

double physicalMemoryBytes() {
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long size = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && size > 0 ? static_cast<double>(pages) * static_cast<double>(size) : 0.0;
}

} // namespace mhla
