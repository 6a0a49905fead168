#include "core/model.h"
#include "core/certificate.h"
#include <algorithm>
#include <cmath>

namespace mhla {

Mat promptMoment(const Mat& Z) {
    Mat S(Z.rows(), Z.rows());
    promptMomentInto(Z, S.data());
    return S;
}

void promptMomentInto(const Mat& Z, double* S) {
    const Index d = Z.rows(), n = Z.cols();
    const double* z = Z.data();
    for (Index b = 0; b < d; ++b)
        for (Index a = 0; a <= b; ++a) {
            double s = 0;
            for (Index t = 0; t < n; ++t) s += z[t * d + a] * z[t * d + b];
            S[b * d + a] = s;
            S[a * d + b] = s;
        }
}

void mhlaOutputInto(const Heads& heads, const Mat& Z, Vec& out) {
    const Index d = Z.rows();
    const Index dOut = heads.V.empty() ? 0 : heads.V.front().rows();
    if (out.size() != dOut) out.resize(dOut);
    out.setZero();
    if (dOut == 0) return;
    // Scratch: S (d x d), Q_h z_q and S Q_h z_q; on the stack up to d = 16, else per thread.
    constexpr Index kStack = 16 * 16 + 2 * 16;
    double stackBuf[kStack];
    thread_local std::vector<double> heapBuf;
    const Index need = d * d + 2 * d;
    double* S = stackBuf;
    if (need > kStack) {
        if (heapBuf.size() < static_cast<size_t>(need)) heapBuf.resize(static_cast<size_t>(need));
        S = heapBuf.data();
    }
    double* qz = S + d * d;
    double* sqz = qz + d;
    double* y = out.data();
    promptMomentInto(Z, S);
    const double* zq = Z.data() + (Z.cols() - 1) * d;
    for (int h = 0; h < heads.count(); ++h) {
        const double* Q = heads.Q[static_cast<size_t>(h)].data(); // d x d, column-major
        const double* V = heads.V[static_cast<size_t>(h)].data(); // d_out x d, column-major
        // Each entry is a sum over j in ascending order, kept in a register (a memory
        // accumulator stalls on store-to-load forwarding at small d).
        for (Index i = 0; i < d; ++i) {
            double acc = 0;
            for (Index j = 0; j < d; ++j) acc += Q[j * d + i] * zq[j];
            qz[i] = acc;
        }
        for (Index i = 0; i < d; ++i) {
            double acc = 0;
            for (Index j = 0; j < d; ++j) acc += S[i * d + j] * qz[j]; // S is exactly symmetric
            sqz[i] = acc;
        }
        for (Index i = 0; i < dOut; ++i) {
            double acc = y[i];
            for (Index j = 0; j < d; ++j) acc += V[j * dOut + i] * sqz[j];
            y[i] = acc;
        }
    }
}

Vec mhlaOutput(const Heads& heads, const Mat& Z) {
    Vec out;
    mhlaOutputInto(heads, Z, out);
    return out;
}

Mat mhlaOutputCausal(const Heads& heads, const Mat& Z) {
    const Index d = Z.rows(), n = Z.cols();
    Mat out = Mat::Zero(heads.V.empty() ? 0 : heads.V.front().rows(), n);
    Mat S = Mat::Zero(d, d);
    for (Index t = 0; t < n; ++t) {
        S.noalias() += Z.col(t) * Z.col(t).transpose();
        for (int h = 0; h < heads.count(); ++h)
            out.col(t) += heads.V[h] * (S * (heads.Q[h] * Z.col(t)));
    }
    return out;
}

Mat foldW(const Mat& W, int d, int dOut) {
    const long long D = featureDim(d);
    Mat P(dOut, D);
    for (int i = 0; i < dOut; ++i)
        for (int a = 0; a < d; ++a)
            for (int b = a; b < d; ++b) {
                const Index base = static_cast<Index>(pairIndex(a, b, d)) * d;
                for (int c = 0; c < d; ++c) {
                    double v = W(i * d + a, b * d + c);
                    if (a != b) v += W(i * d + b, a * d + c);
                    P(i, base + c) = v;
                }
            }
    return P;
}

Mat headsToW(const Heads& heads, int d, int dOut) {
    Mat W = Mat::Zero(static_cast<Index>(dOut) * d, static_cast<Index>(d) * d);
    for (int h = 0; h < heads.count(); ++h) {
        // Row-major vec: vec(V)_{i*d+a} = V_ia.
        const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> V = heads.V[h];
        const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> Q = heads.Q[h];
        const Eigen::Map<const Vec> v(V.data(), V.size());
        const Eigen::Map<const Vec> q(Q.data(), Q.size());
        W.noalias() += v * q.transpose();
    }
    return W;
}

Mat foldHeads(const Heads& heads, int d, int dOut) {
    return foldW(headsToW(heads, d, dOut), d, dOut);
}

Mat unfoldP(const Mat& P, int d) {
    const Index dOut = P.rows();
    Mat W(dOut * d, static_cast<Index>(d) * d);
    for (Index i = 0; i < dOut; ++i)
        for (int a = 0; a < d; ++a)
            for (int b = 0; b < d; ++b) {
                const int lo = std::min(a, b), hi = std::max(a, b);
                const Index base = static_cast<Index>(pairIndex(lo, hi, d)) * d;
                const double scale = a == b ? 1.0 : 0.5;
                for (int c = 0; c < d; ++c) W(i * d + a, b * d + c) = scale * P(i, base + c);
            }
    return W;
}

HeadDecomposition headsFromP(const Mat& P, int d, int maxHeads, double rankTol,
                             const RunContext& ctx) {
    HeadDecomposition out;
    const Index dOut = P.rows();
    auto W = std::make_shared<const Mat>(unfoldP(P, d));
    const auto svdPtr = runAbandonable(ctx, [W] {
        return std::make_shared<const Eigen::BDCSVD<Mat>>(*W, Eigen::ComputeThinU |
                                                                  Eigen::ComputeThinV);
    });
    ctx.checkCancel();
    const Eigen::BDCSVD<Mat>& svd = *svdPtr;
    out.singularValues = svd.singularValues();
    const double s1 = out.singularValues.size() ? out.singularValues(0) : 0.0;
    for (Index r = 0; r < out.singularValues.size(); ++r)
        if (s1 > 0 && out.singularValues(r) > rankTol * s1) ++out.rank;
    const int keep =
        maxHeads > 0 ? std::min(maxHeads, static_cast<int>(out.singularValues.size())) : out.rank;
    for (int r = 0; r < keep; ++r) {
        const double s = std::sqrt(out.singularValues(r));
        Vec u = svd.matrixU().col(r) * s;
        Vec v = svd.matrixV().col(r) * s;
        Index imax = 0;
        u.cwiseAbs().maxCoeff(&imax);
        if (u(imax) < 0) {
            u = -u;
            v = -v;
        }
        Mat V(dOut, d), Q(d, d);
        for (Index i = 0; i < dOut; ++i)
            for (int a = 0; a < d; ++a) V(i, a) = u(i * d + a);
        for (int b = 0; b < d; ++b)
            for (int c = 0; c < d; ++c) Q(b, c) = v(b * d + c);
        out.heads.V.push_back(std::move(V));
        out.heads.Q.push_back(std::move(Q));
    }
    return out;
}

} // namespace mhla
