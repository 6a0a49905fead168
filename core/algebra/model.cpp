#include "core/algebra/model.h"
#include "core/base/abandonable.h"
#include "core/base/vectors.h"
#include <algorithm>
#include <cmath>
#include <cstring>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace mhla {

Mat promptMoment(const Mat& Z) {
    Mat S(Z.rows(), Z.rows());
    promptMomentInto(Z, S.data());
    return S;
}

namespace {

// The small products of the model (S = Z Z^T and f(Z)) are specified entry by entry: each is
// its own sum, in ascending order of the summed index, from zero (or, for f, from the previous
// heads' value), with one fused multiply-add per term where the build targets a CPU that has
// it (one multiply and one add where not). The data and every result downstream depend on
// these bits, so the code must not leave the rounding to the vectoriser (0.2's loops were
// vectorised into products and a separate chain of adds in some entries, fused in others).
//
// Up to 32 rows they are computed down the columns: a column of up to L W entries is W vectors
// of L = 4 or 8 doubles (GCC splits them into what the target has), each lane its own entry. Lanes
// past a column's end hold whatever follows it in memory and are never read back, unless reading
// them would run past the matrix: those columns are loaded lane by lane, padded with zeros.
/// One multiply-add of the scalar path, rounded as the vector path rounds it.
inline double madd(double a, double b, double c) {
#ifdef __FP_FAST_FMA
    return std::fma(a, b, c);
#else
    return a * b + c;
#endif
}

using simd::V4;
using simd::V8;
template <int L> struct Lanes;
template <> struct Lanes<4> { using V = V4; };
template <> struct Lanes<8> { using V = V8; };

/// acc + x s, lane by lane, rounded as madd rounds: one fused multiply-add where the build has
/// FMA. Written out rather than left to GCC's contraction, which does not run below -O2 and
/// which some tunings (-mtune=znver2/3) decline for 256-bit chains.
template <typename V> inline void maddv(V& acc, const V& x, double s) {
#ifdef __FP_FAST_FMA
#if defined(__AVX512F__)
    if constexpr (sizeof(V) == 64) {
        const __m512d r = _mm512_fmadd_pd(reinterpret_cast<const __m512d&>(x), _mm512_set1_pd(s),
                                          reinterpret_cast<const __m512d&>(acc));
        std::memcpy(&acc, &r, sizeof(V));
        return;
    }
#endif
#if defined(__FMA__)
    if constexpr (sizeof(V) % 32 == 0) {
        constexpr int halves = sizeof(V) / 32;
        __m256d xs[halves], as[halves];
        std::memcpy(xs, &x, sizeof(V));
        std::memcpy(as, &acc, sizeof(V));
        for (int h = 0; h < halves; ++h) as[h] = _mm256_fmadd_pd(xs[h], _mm256_set1_pd(s), as[h]);
        std::memcpy(&acc, as, sizeof(V));
        return;
    }
#endif
    for (int i = 0; i < static_cast<int>(sizeof(V) / sizeof(double)); ++i)
        acc[i] = std::fma(x[i], s, acc[i]);
#else
    acc += x * s;
#endif
}

/// A column of up to L * W entries: W vectors of L doubles.
template <int L, int W> struct Col {
    using V = typename Lanes<L>::V;
    V v[W];
    double lane(Index i) const { return v[i / L][i % L]; }
};

/// The column of `len` entries at p, where `avail` doubles are readable from p.
template <int L, int W> Col<L, W> loadColumn(const double* p, Index len, Index avail) {
    Col<L, W> c;
    for (int w = 0; w < W; ++w) {
        if (L * w + L <= avail) {
            std::memcpy(&c.v[w], p + L * w, sizeof(c.v[w]));
        } else {
            c.v[w] = typename Col<L, W>::V{};
            for (Index i = L * w; i < std::min<Index>(len, L * w + L); ++i)
                c.v[w][i - L * w] = p[i];
        }
    }
    return c;
}

/// S = Z Z^T as d columns. Z's columns are first copied out whole (zero-padded), so each is
/// loaded lane by lane once, not once per column of S.
template <int L, int W> void momentColumns(const Mat& Z, Col<L, W>* S) {
    const Index d = Z.rows(), n = Z.cols();
    const double* z = Z.data();
    constexpr Index kStackTokens = 64;
    Col<L, W> stackZ[kStackTokens];
    thread_local std::vector<Col<L, W>> heapZ;
    Col<L, W>* zc = stackZ;
    if (n > kStackTokens) {
        if (heapZ.size() < static_cast<size_t>(n)) heapZ.resize(static_cast<size_t>(n));
        zc = heapZ.data();
    }
    for (Index t = 0; t < n; ++t) zc[t] = loadColumn<L, W>(z + t * d, d, d * (n - t));
    for (Index b = 0; b < d; ++b) {
        Col<L, W> acc{};
        for (Index t = 0; t < n; ++t) {
            const double zb = z[t * d + b];
            for (int w = 0; w < W; ++w) maddv(acc.v[w], zc[t].v[w], zb);
        }
        S[b] = acc;
    }
}

template <int L, int W> void momentInto(const Mat& Z, double* S) {
    const Index d = Z.rows();
    Col<L, W> cols[L * W];
    momentColumns<L, W>(Z, cols);
    for (Index b = 0; b < d; ++b) std::memcpy(S + b * d, &cols[b].v[0], sizeof(double) * d);
}

/// vech from S(a, b) = get(a, b): the upper triangle row by row.
template <typename Get> void vechInto(Index d, const Get& get, double* out) {
    Index k = 0;
    for (Index a = 0; a < d; ++a)
        for (Index b = a; b < d; ++b) out[k++] = get(a, b);
}

template <int L, int W, int LO, int WO>
void outputColumns(const Heads& heads, const Mat& Z, double* y, double* vech) {
    const Index d = Z.rows(), dOut = heads.V.front().rows();
    Col<L, W> S[L * W];
    momentColumns<L, W>(Z, S);
    if (vech)
        vechInto(
            d, [&](Index a, Index b) { return S[b].lane(a); }, vech);
    const double* zq = Z.data() + (Z.cols() - 1) * d;
    Col<LO, WO> out{};
    for (int h = 0; h < heads.count(); ++h) {
        const double* Q = heads.Q[static_cast<size_t>(h)].data(); // d x d, column-major
        const double* V = heads.V[static_cast<size_t>(h)].data(); // d_out x d, column-major
        Col<L, W> qz{}, sqz{};
        for (Index j = 0; j < d; ++j) {
            const Col<L, W> q = loadColumn<L, W>(Q + j * d, d, d * (d - j));
            for (int w = 0; w < W; ++w) maddv(qz.v[w], q.v[w], zq[j]);
        }
        for (Index j = 0; j < d; ++j) {
            const double c = qz.lane(j);
            for (int w = 0; w < W; ++w) maddv(sqz.v[w], S[j].v[w], c);
        }
        for (Index j = 0; j < d; ++j) {
            const Col<LO, WO> v = loadColumn<LO, WO>(V + j * dOut, dOut, dOut * (d - j));
            const double c = sqz.lane(j);
            for (int w = 0; w < WO; ++w) maddv(out.v[w], v.v[w], c);
        }
    }
    for (Index i = 0; i < dOut; ++i) y[i] = out.lane(i);
}

/// The column shapes: up to 4 rows one vector of 4, up to 8 one of 8, then 2 or 4 of 8; 0 past
/// 32 rows (the scalar path).
int columnShape(Index rows) {
    return rows <= 4 ? 4 : rows <= 8 ? 8 : rows <= 16 ? 16 : rows <= 32 ? 32 : 0;
}

template <int L, int W>
void outputColumnsFor(int shapeOut, const Heads& heads, const Mat& Z, double* y, double* vech) {
    switch (shapeOut) {
    case 4: return outputColumns<L, W, 4, 1>(heads, Z, y, vech);
    case 8: return outputColumns<L, W, 8, 1>(heads, Z, y, vech);
    case 16: return outputColumns<L, W, 8, 2>(heads, Z, y, vech);
    default: return outputColumns<L, W, 8, 4>(heads, Z, y, vech);
    }
}

} // namespace

void momentVech(const double* S, Index d, double* out) {
    vechInto(
        d, [&](Index a, Index b) { return S[b * d + a]; }, out);
}

void promptMomentInto(const Mat& Z, double* S) {
    const Index d = Z.rows(), n = Z.cols();
    switch (columnShape(d)) {
    case 4: return momentInto<4, 1>(Z, S);
    case 8: return momentInto<8, 1>(Z, S);
    case 16: return momentInto<8, 2>(Z, S);
    case 32: return momentInto<8, 4>(Z, S);
    default: break;
    }
    const double* z = Z.data();
    for (Index b = 0; b < d; ++b)
        for (Index a = 0; a <= b; ++a) {
            double s = 0;
            for (Index t = 0; t < n; ++t) s = madd(z[t * d + a], z[t * d + b], s);
            S[b * d + a] = s;
            S[a * d + b] = s;
        }
}

void mhlaOutputInto(const Heads& heads, const Mat& Z, Vec& out, std::vector<double>* vechOut) {
    const Index d = Z.rows();
    const Index dOut = heads.V.empty() ? 0 : heads.V.front().rows();
    if (out.size() != dOut) out.resize(dOut);
    out.setZero();
    double* vech = nullptr;
    if (vechOut) {
        vechOut->resize(static_cast<size_t>(pairCount(static_cast<int>(d))));
        vech = vechOut->data();
    }
    if (dOut == 0 && !vech) return;
    double* y = out.data();
    const int shape = columnShape(d), shapeOut = columnShape(dOut);
    if (dOut > 0 && shape > 0 && shapeOut > 0) {
        switch (shape) {
        case 4: return outputColumnsFor<4, 1>(shapeOut, heads, Z, y, vech);
        case 8: return outputColumnsFor<8, 1>(shapeOut, heads, Z, y, vech);
        case 16: return outputColumnsFor<8, 2>(shapeOut, heads, Z, y, vech);
        default: return outputColumnsFor<8, 4>(shapeOut, heads, Z, y, vech);
        }
    }
    // Larger sizes: the same sums, entry by entry. Scratch: S (d x d), Q_h z_q, S Q_h z_q.
    thread_local std::vector<double> buf;
    const Index need = d * d + 2 * d;
    if (buf.size() < static_cast<size_t>(need)) buf.resize(static_cast<size_t>(need));
    double* S = buf.data();
    double* qz = S + d * d;
    double* sqz = qz + d;
    promptMomentInto(Z, S);
    if (vech) momentVech(S, d, vech);
    const double* zq = Z.data() + (Z.cols() - 1) * d;
    for (int h = 0; h < heads.count(); ++h) {
        const double* Q = heads.Q[static_cast<size_t>(h)].data(); // d x d, column-major
        const double* V = heads.V[static_cast<size_t>(h)].data(); // d_out x d, column-major
        for (Index i = 0; i < d; ++i) {
            double acc = 0;
            for (Index j = 0; j < d; ++j) acc = madd(Q[j * d + i], zq[j], acc);
            qz[i] = acc;
        }
        for (Index i = 0; i < d; ++i) {
            double acc = 0;
            for (Index j = 0; j < d; ++j) acc = madd(S[i * d + j], qz[j], acc); // S symmetric
            sqz[i] = acc;
        }
        for (Index i = 0; i < dOut; ++i) {
            double acc = y[i];
            for (Index j = 0; j < d; ++j) acc = madd(V[j * dOut + i], sqz[j], acc);
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

int numericalRank(const Vec& singularValues, double relTol) {
    const double s1 = singularValues.size() ? singularValues(0) : 0.0;
    int rank = 0;
    for (Index r = 0; r < singularValues.size(); ++r)
        if (s1 > 0 && singularValues(r) > relTol * s1) ++rank;
    return rank;
}

HeadDecomposition headsFromP(const Mat& P, int d, int maxHeads, double rankTol,
                             const RunContext& ctx) {
    HeadDecomposition out;
    auto W = std::make_shared<const Mat>(unfoldP(P, d));
    const auto svdPtr = runAbandonable(ctx, [W] {
        return std::make_shared<const Eigen::BDCSVD<Mat>>(*W, Eigen::ComputeThinU |
                                                                  Eigen::ComputeThinV);
    });
    ctx.checkCancel();
    const Eigen::BDCSVD<Mat>& svd = *svdPtr;
    out.singularValues = svd.singularValues();
    out.rank = numericalRank(out.singularValues, rankTol);
    const int keep =
        maxHeads > 0 ? std::min(maxHeads, static_cast<int>(out.singularValues.size())) : out.rank;
    for (int r = 0; r < keep; ++r) {
        const double s = std::sqrt(out.singularValues(r));
        appendCanonicalHead(out.heads, svd.matrixU().col(r) * s, svd.matrixV().col(r) * s, d);
    }
    return out;
}

void appendCanonicalHead(Heads& heads, Vec u, Vec v, int d) {
    const Index dOut = u.size() / d;
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
    heads.V.push_back(std::move(V));
    heads.Q.push_back(std::move(Q));
}

} // namespace mhla
