#include "core/algebra/features.h"
#include "core/base/parallel.h"
#include "core/kernels/gemmkernel.h"
#include <algorithm>
#include <unistd.h>

namespace mhla {

void promptVech(const Mat& Z, double* out) {
    // S's upper triangle, row by row: promptMomentInto's numbers, so that the features and the
    // teacher's output see the same S.
    const Index d = Z.rows();
    double stackS[16 * 16];
    thread_local std::vector<double> heapS;
    double* S = stackS;
    if (d > 16) {
        if (heapS.size() < static_cast<size_t>(d * d)) heapS.resize(static_cast<size_t>(d * d));
        S = heapS.data();
    }
    promptMomentInto(Z, S);
    momentVech(S, d, out);
}

void featureVectorInto(const Mat& Z, double* out) {
    const int d = static_cast<int>(Z.rows());
    // vech(S) first, into the tail of `out` (pairCount(d) <= D values, read before overwritten:
    // pair p's features go to [p*d, p*d + d), at or before the tail's slot of pair p).
    const int P = pairCount(d);
    double* u = out + (featureDim(d) - P);
    promptVech(Z, u);
    featureVectorFromVech(u, Z.data() + (Z.cols() - 1) * d, d, out);
}

void featureVectorFromVech(const double* u, const double* zq, int d, double* out) {
    const int P = pairCount(d);
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
/// Samples per piece of the pre-pass that lays a block's rows out for the kernel.
constexpr Index kLayoutRows = 512;
/// Samples per piece of a work item: a piece's rows of u and of the query pairs stay in the L2
/// cache while the kernel reads them for every row (p, p') of the item.
constexpr Index kPieceRows = 8 * kernels::kOuterSumChunk;
/// Groups of G's rows per thread (more than one evens out the threads' work).
constexpr Index kGroupsPerThread = 3;
} // namespace

MomentAccumulator::MomentAccumulator(int d, int dOut)
    : m_d(d), m_dOut(dOut), m_P(pairCount(d)), m_D(mhla::featureDim(d)),
      m_ldq(kernels::outerSumPad(pairCount(d))), m_ldy(kernels::outerSumPad(Index{d} * dOut)) {
    const Index R = static_cast<Index>(m_P) * (m_P + 1) / 2;
    m_g = kernels::AlignedDoubles(static_cast<size_t>(R * m_ldq));
    m_c = kernels::AlignedDoubles(static_cast<size_t>(Index{m_P} * m_ldy));
}

void MomentAccumulator::layOutBlock(const Mat& U, const Mat& Qz, const Mat& Y, int threads) {
    const Index B = U.rows();
    const Index P = m_P, d = m_d, dOut = m_dOut, ldq = m_ldq, ldy = m_ldy;
    // The rows as the kernel reads them (row-major, one sample per row): u = vech(S),
    // the query's pair products q_c q_c' (zero-padded to ldq) and y (x) q (zero-padded to ldy).
    // Kept between blocks: only the columns before the padding are written, so it stays zero.
    if (static_cast<Index>(m_ur.size()) < B * P) {
        m_ur = kernels::AlignedDoubles(static_cast<size_t>(B * P));
        m_q2 = kernels::AlignedDoubles(static_cast<size_t>(B * ldq));
        m_yq = kernels::AlignedDoubles(static_cast<size_t>(B * ldy));
    }
    double* const ur = m_ur.data();
    double* const q2 = m_q2.data();
    double* const yq = m_yq.data();
    parallelFor((B + kLayoutRows - 1) / kLayoutRows, threads, [&](long long piece) {
        const Index begin = static_cast<Index>(piece) * kLayoutRows;
        const Index end = std::min(B, begin + kLayoutRows);
        // U is column-major: copy it over in tiles of 16 samples, reading its columns in runs.
        for (Index t0 = begin; t0 < end; t0 += 16) {
            const Index t1 = std::min(end, t0 + 16);
            for (Index p = 0; p < P; ++p) {
                const double* col = U.data() + p * B;
                for (Index s = t0; s < t1; ++s) ur[s * P + p] = col[s];
            }
        }
        std::vector<double> q(static_cast<size_t>(d));
        for (Index s = begin; s < end; ++s) {
            for (Index c = 0; c < d; ++c) q[static_cast<size_t>(c)] = Qz(s, c);
            double* qq = q2 + s * ldq;
            for (Index c = 0, k = 0; c < d; ++c)
                for (Index c2 = c; c2 < d; ++c2)
                    qq[k++] = q[static_cast<size_t>(c)] * q[static_cast<size_t>(c2)];
            double* yrow = yq + s * ldy;
            for (Index o = 0; o < dOut; ++o) {
                const double yo = Y(s, o);
                for (Index c = 0; c < d; ++c) yrow[o * d + c] = yo * q[static_cast<size_t>(c)];
            }
        }
    });
}

void MomentAccumulator::addBlock(const Mat& U, const Mat& Qz, const Mat& Y, int threads,
                                 const CancelToken* cancel) {
    const Index B = U.rows();
    if (B == 0) return;
    const Index P = m_P, d = m_d, dOut = m_dOut, ldq = m_ldq, ldy = m_ldy;
    layOutBlock(U, Qz, Y, threads);
    const double* const ur = m_ur.data();
    const double* const q2 = m_q2.data();
    const double* const yq = m_yq.data();
    const kernels::OuterSum outer = kernels::accumulationGemm().outer;
    // target (m x n, row length ldb) += the piece's sum of outer products of u's rows (from a)
    // and b's (scaled by `scale`), summed apart first: three levels of sums (the kernel's chunks,
    // the piece, the pieces), whose rounding error grows with 64 + 8 + N / 512, not with N.
    const auto addPiece = [&](Index m, Index n, Index rows, const double* a, const double* b,
                              Index ldb, const double* scale, double* target) {
        thread_local kernels::AlignedDoubles sum;
        const Index size = m * ldb;
        if (static_cast<Index>(sum.size()) < size)
            sum = kernels::AlignedDoubles(static_cast<size_t>(size));
        std::fill_n(sum.data(), size, 0.0);
        outer(m, n, rows, a, P, b, ldb, scale, P, sum.data(), ldb);
        for (Index i = 0; i < size; ++i) target[i] += sum[static_cast<size_t>(i)];
    };
    // Work items: C, then groups of G's rows. Group k holds the rows (p, p' >= p) of the p dealt
    // to it in snake order (0, 1, .., K-1, K-1, .., 0, 0, 1, ..), which gives the groups nearly
    // equal work. An item runs through the block one piece of samples at a time and, within a
    // piece, through its p: the piece's rows stay in the L2 cache while all of them are read.
    // Each entry of G and C is a sum, in sample order, of sums over chunks of kOuterSumChunk
    // samples (pieces are multiples of it), so the result does not depend on the grouping or on
    // the thread that runs an item.
    const Index groups = std::min<Index>(P, kGroupsPerThread * resolveThreads(threads));
    parallelFor(1 + groups, threads, [&](long long item) {
        if (item == 0) {
            // C's rows p, columns (o, c): sum_s u_p y_o q_c.
            for (Index s0 = 0; s0 < B; s0 += kPieceRows) {
                if (cancel && cancel->isCancelled()) return;
                addPiece(P, d * dOut, std::min(kPieceRows, B - s0), ur + s0 * P, yq + s0 * ldy, ldy,
                         nullptr, m_c.data());
            }
            return;
        }
        const Index group = static_cast<Index>(item) - 1;
        std::vector<Index> mine;
        for (Index p = 0; p < P; ++p) {
            const Index lap = p / groups, k = p % groups;
            if ((lap % 2 == 0 ? k : groups - 1 - k) == group) mine.push_back(p);
        }
        for (Index s0 = 0; s0 < B; s0 += kPieceRows) {
            const Index rows = std::min(kPieceRows, B - s0);
            for (const Index p : mine) {
                // Polled for every p: at most 512 x P x P multiply-adds (~8 ms at d = 32) apart.
                if (cancel && cancel->isCancelled()) return;
                // Rows (p, p'), p' = p..P-1: sum_s u_p' (u_p q_c q_c').
                const double* up = ur + s0 * P + p;
                addPiece(P - p, P, rows, up, q2 + s0 * ldq, ldq, up,
                         m_g.data() + (p * P - p * (p - 1) / 2) * ldq);
            }
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
    Index r = 0;
    for (Index p = 0; p < m_P; ++p)
        for (Index p2 = p; p2 < m_P; ++p2, ++r) {
            const double* g = m_g.data() + r * m_ldq;
            for (Index c = 0; c < d; ++c)
                for (Index c2 = c; c2 < d; ++c2) {
                    const double v =
                        g[pairIndex(static_cast<int>(c), static_cast<int>(c2), m_d)] * inv;
                    L(p * d + c, p2 * d + c2) = v;
                    L(p2 * d + c, p * d + c2) = v;
                    L(p * d + c2, p2 * d + c) = v;
                    L(p2 * d + c2, p * d + c) = v;
                }
        }
    return L;
}

Mat MomentAccumulator::crossMoment() const {
    Mat C(m_dOut, m_D);
    const double inv = m_count > 0 ? 1.0 / static_cast<double>(m_count) : 1.0;
    for (Index p = 0; p < m_P; ++p)
        for (Index o = 0; o < m_dOut; ++o)
            for (Index c = 0; c < m_d; ++c)
                C(o, p * m_d + c) = m_c[static_cast<size_t>(p * m_ldy + o * m_d + c)] * inv;
    return C;
}

double trainRowCacheBytes(int d, int dOut, long long samples) {
    const double bytes = 8.0 * static_cast<double>(samples) * (pairCount(d) + d + dOut);
    return bytes <= kTrainRowCacheBytes ? bytes : 0.0;
}

double estimateSolveBytes(int d, int dOut, int block, long long samples) {
    const double D = static_cast<double>(mhla::featureDim(d));
    const double P = pairCount(d);
    const double ldq = static_cast<double>(kernels::outerSumPad(pairCount(d)));
    const double ldy = static_cast<double>(kernels::outerSumPad(static_cast<long>(d) * dOut));
    // The accumulator's distinct entries of Lambda and C (P(P+1)/2 x ldq ~ D^2/4, P x ldy), its
    // block laid out for the kernel and a piece's sums per thread (counted for two), Lambda, and
    // the solve's factor or eigenvectors plus the eigen solver's workspace; then the sample block,
    // C and P; the cached training rows.
    return 8.0 * (P * (P + 1) / 2 * ldq + P * ldy + block * (P + ldq + ldy) + 3.0 * D * D +
                  block * (P + d + dOut) * 2.0 + 3.0 * dOut * D) +
           trainRowCacheBytes(d, dOut, samples);
}

} // namespace mhla
