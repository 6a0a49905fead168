#include "core/features.h"
#include "core/parallel.h"
#include <unistd.h>

namespace mhla {

void promptVech(const Mat& Z, double* out) {
    const Index d = Z.rows();
    const Mat S = Z * Z.transpose();
    Index k = 0;
    for (Index a = 0; a < d; ++a)
        for (Index b = a; b < d; ++b) out[k++] = S(a, b);
}

void featureVectorInto(const Mat& Z, double* out) {
    const int d = static_cast<int>(Z.rows());
    const Mat S = Z * Z.transpose();
    const auto zq = Z.col(Z.cols() - 1);
    Index k = 0;
    for (int a = 0; a < d; ++a)
        for (int b = a; b < d; ++b)
            for (int c = 0; c < d; ++c) out[k++] = S(a, b) * zq(c);
}

Vec featureVector(const Mat& Z) {
    Vec psi(featureDim(static_cast<int>(Z.rows())));
    featureVectorInto(Z, psi.data());
    return psi;
}

MomentAccumulator::MomentAccumulator(int d, int dOut)
    : m_d(d), m_dOut(dOut), m_P(pairCount(d)), m_D(mhla::featureDim(d)) {
    m_blocks.assign(static_cast<size_t>(pairCount(d)), Mat::Zero(m_P, m_P));
    m_cRaw = Mat::Zero(dOut, m_D);
}

void MomentAccumulator::addBlock(const Mat& U, const Mat& Qz, const Mat& Y, int threads) {
    const Index B = U.rows();
    if (B == 0) return;
    const int nPairs = pairCount(m_d);
    // Work items: one per block (c <= c') of Lambda, then one per query coordinate c of C.
    parallelFor(nPairs + m_d, threads, [&](long long item) {
        if (item < nPairs) {
            // Decode item -> (c, c') in the same row-major pair order as the features.
            int c = 0, k = static_cast<int>(item);
            while (k >= m_d - c) {
                k -= m_d - c;
                ++c;
            }
            const int c2 = c + k;
            const Vec w = Qz.col(c).cwiseProduct(Qz.col(c2));
            const Mat T = w.asDiagonal() * U;
            m_blocks[static_cast<size_t>(item)].triangularView<Eigen::Lower>() += U.transpose() * T;
        } else {
            const int c = static_cast<int>(item - nPairs);
            const Mat T = Qz.col(c).asDiagonal() * U; // B x P
            const Mat Cc = Y.transpose() * T;         // d_out x P
            for (int p = 0; p < m_P; ++p) m_cRaw.col(static_cast<Index>(p) * m_d + c) += Cc.col(p);
        }
    });
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
    int item = 0;
    for (Index c = 0; c < d; ++c)
        for (Index c2 = c; c2 < d; ++c2, ++item) {
            const Mat& G = m_blocks[static_cast<size_t>(item)];
            for (Index p2 = 0; p2 < m_P; ++p2)
                for (Index p = p2; p < m_P; ++p) {
                    const double v = G(p, p2) * inv;
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

double estimateSolveBytes(int d, int dOut, int block) {
    const double D = static_cast<double>(mhla::featureDim(d));
    const double P = pairCount(d);
    // Accumulator blocks (P^3 ~ D^2/2), Lambda, and the solve's factor or eigenvectors plus
    // the eigen solver's workspace; then the sample block, C and P.
    return 8.0 * (P * P * P + 3.0 * D * D + block * (P + d + dOut) * 2.0 + 3.0 * dOut * D);
}

double physicalMemoryBytes() {
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long size = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && size > 0 ? static_cast<double>(pages) * static_cast<double>(size) : 0.0;
}

} // namespace mhla
