#include "core/base/rng.h"

namespace mhla {

Rng::ZigguratTables::ZigguratTables() {
    const auto density = [](double t) { return std::exp(-0.5 * t * t); };
    x[0] = v / density(r);
    x[1] = r;
    for (int i = 1; i < 255; ++i) x[i + 1] = std::sqrt(-2.0 * std::log(v / x[i] + density(x[i])));
    x[256] = 0.0;
    for (int i = 0; i < 257; ++i) f[i] = density(x[i]);
    f[0] = density(r); // the base strip's top is the density at r
}

const Rng::ZigguratTables Rng::kZiggurat;

double Rng::normalSlow(std::uint64_t u, double x, double sx) {
    const unsigned i = static_cast<unsigned>(u & 0xFF);
    if (i == 0) {
        // The tail beyond r (Marsaglia 1964).
        double a, b;
        do {
            a = -std::log(openUniform()) / kZiggurat.r;
            b = -std::log(openUniform());
        } while (b + b < a * a);
        return (u & 0x100) ? -(kZiggurat.r + a) : kZiggurat.r + a;
    }
    // The wedge between the layer's rectangle and the density.
    const double f0 = kZiggurat.f[i], f1 = kZiggurat.f[i + 1];
    if (f1 + uniform() * (f0 - f1) < std::exp(-0.5 * x * x)) return sx;
    return normal();
}

double Rng::philoxNormal() {
    if (m_hasSpare) {
        m_hasSpare = false;
        return m_spare;
    }
    double z[2];
    philox::kernel().normals(m_philox, m_word, 2, 1.0, z);
    m_word += 2;
    m_spare = z[1];
    m_hasSpare = true;
    return z[0];
}

void Rng::philoxFill(double* p, Index count, double stddev) {
    Index k = 0;
    if (count > 0 && m_hasSpare) {
        p[k++] = stddev * m_spare;
        m_hasSpare = false;
    }
    const Index pairs = (count - k) / 2;
    if (pairs > 0) {
        philox::kernel().normals(m_philox, m_word, static_cast<std::size_t>(2 * pairs), stddev,
                                 p + k);
        m_word += static_cast<std::uint64_t>(2 * pairs);
        k += 2 * pairs;
    }
    if (k < count) p[k] = stddev * philoxNormal(); // one left: a pair, its second kept
}

Mat Rng::haarOrthogonal(Index n) {
    const Mat g = normalMatrix(n, n);
    Eigen::HouseholderQR<Mat> qr(g);
    Mat q = qr.householderQ() * Mat::Identity(n, n);
    const Mat& r = qr.matrixQR();
    // Multiplying column j by sign(R_jj) makes the distribution exactly Haar.
    for (Index j = 0; j < n; ++j)
        if (r(j, j) < 0) q.col(j) = -q.col(j);
    return q;
}

} // namespace mhla
