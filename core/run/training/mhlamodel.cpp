#include "core/run/training/mhlamodel.h"
#include "core/base/vectors.h"
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <type_traits>

namespace mhla::training {

namespace {

struct MhlaWorkspace : TrainableModel::Workspace {
    Mat zq, q, t, r, g, sg; // columns = samples of a chunk
    Mat S;                  // predict(): S(Z)
    Mat vt;                 // V^T
    /// g and sg only with a gradient: the evaluation's 256-sample blocks need half the memory
    /// (with 65536 heads a block's workspace was 2 GiB, of which g and sg were never touched).
    void reserve(Index d, Index Hd, Index dOut, Index B, bool gradient) {
        if (zq.cols() < B || zq.rows() != d) {
            zq.resize(d, B);
            q.resize(Hd, B);
            t.resize(Hd, B);
            r.resize(dOut, B);
        }
        if (gradient && (g.cols() < B || g.rows() != Hd)) {
            g.resize(Hd, B);
            sg.resize(Hd, B);
        }
    }
};

/// T = S X for one sample: S is d x d, X and T are d x H (column-major). Far too small for the
/// packed GEMM path (packing costs more than the product): for d <= 16 a product with d fixed
/// at compile time (each column one unrolled, vectorised matrix-vector product), else a
/// coefficient-based one.
template <int D> void fixedProduct(const double* S, const double* X, double* T, Index H) {
    using Fixed = Eigen::Matrix<double, D, D>;
    using Cols = Eigen::Matrix<double, D, Eigen::Dynamic>;
    Eigen::Map<Cols>(T, D, H).noalias() =
        Eigen::Map<const Fixed>(S).lazyProduct(Eigen::Map<const Cols>(X, D, H));
}

/// The same product for d = 4 and 8, where a column of S fits one vector: S's columns stay in
/// registers and each column of T is d multiply-adds of whole vectors. Eigen's fixed-size lazy
/// product took 2.5x as long (about a fifth of a d = 8, H = 8 Adam step).
using simd::V4;
using simd::V8;
template <int D> void sweepProduct(const double* S, const double* X, double* T, Index H) {
    // With AVX2 but not AVX-512, d = 8 goes as two halves of 4 rows, so that S's columns fit
    // the 16 registers (a d = 8, H = 8 step 15 instead of 19 us); each entry's sum is the
    // same. An SSE build ran whole columns faster (26 against 34 us).
#if defined(__AVX__) && !defined(__AVX512F__)
    using V = V4;
#else
    using V = std::conditional_t<D == 4, V4, V8>;
#endif
    constexpr int L = static_cast<int>(sizeof(V) / sizeof(double));
    static_assert(D % L == 0);
    for (int part = 0; part < D; part += L) {
        V s[D];
        for (int j = 0; j < D; ++j) std::memcpy(&s[j], S + j * D + part, sizeof(V));
        for (Index c = 0; c < H; ++c) {
            const double* x = X + c * D;
            V acc = s[0] * x[0];
            for (int j = 1; j < D; ++j) acc += s[j] * x[j];
            std::memcpy(T + c * D + part, &acc, sizeof(V));
        }
    }
}

/// One register tile of C = / += A op(B): R vectors of L rows by NC columns. A is column-major
/// (lda); op(B)(l, j) is B[l + j ldb], or B[j + l ldb] when TransB. Each entry is one chain of
/// multiply-adds over l in ascending order, added to C at the end when Add.
template <typename V, int R, int NC, bool TransB, bool Add>
void gemmTile(Index k, const double* A, Index lda, const double* B, Index ldb, double* C,
              Index ldc) {
    constexpr int L = static_cast<int>(sizeof(V) / sizeof(double));
    V acc[R][NC];
    for (int r = 0; r < R; ++r)
        for (int c = 0; c < NC; ++c) acc[r][c] = V{};
    for (Index l = 0; l < k; ++l) {
        V a[R];
        for (int r = 0; r < R; ++r) std::memcpy(&a[r], A + l * lda + r * L, sizeof(V));
        for (int c = 0; c < NC; ++c) {
            const double b = TransB ? B[c + l * ldb] : B[l + c * ldb];
            for (int r = 0; r < R; ++r) acc[r][c] += a[r] * b;
        }
    }
    for (int c = 0; c < NC; ++c)
        for (int r = 0; r < R; ++r) {
            double* out = C + c * ldc + r * L;
            if constexpr (Add) {
                V cur;
                std::memcpy(&cur, out, sizeof(V));
                acc[r][c] += cur;
            }
            std::memcpy(out, &acc[r][c], sizeof(V));
        }
}

/// Rows [r0 L, (r0 + R) L) of C = / += A op(B): tiles of R vectors by NC columns, then the
/// columns left over one at a time.
template <typename V, int R, int NC, bool TransB, bool Add>
void gemmRowBand(Index r0, Index n, Index k, const double* A, Index lda, const double* B, Index ldb,
                 double* C, Index ldc) {
    constexpr Index L = static_cast<Index>(sizeof(V) / sizeof(double));
    // op(B)'s column j starts at B + j ldb (not transposed) or B + j (transposed).
    const Index colStep = TransB ? 1 : ldb;
    const double* a = A + r0 * L;
    Index j = 0;
    for (; j + NC <= n; j += NC)
        gemmTile<V, R, NC, TransB, Add>(k, a, lda, B + j * colStep, ldb, C + j * ldc + r0 * L, ldc);
    for (; j < n; ++j)
        gemmTile<V, R, 1, TransB, Add>(k, a, lda, B + j * colStep, ldb, C + j * ldc + r0 * L, ldc);
}

/// C (m x n) = / += A (m x k) op(B) for m a multiple of L = 4 or 8: bands of Band vectors in
/// tiles of 4 columns, the vectors left over in tiles of 8 columns.
template <typename V, int Band, bool TransB, bool Add>
void tiledGemm(Index m, Index n, Index k, const double* A, Index lda, const double* B, Index ldb,
               double* C, Index ldc) {
    const Index nv = m / static_cast<Index>(sizeof(V) / sizeof(double));
    Index r0 = 0;
    for (; r0 + Band <= nv; r0 += Band)
        gemmRowBand<V, Band, 4, TransB, Add>(r0, n, k, A, lda, B, ldb, C, ldc);
    for (; r0 < nv; ++r0) gemmRowBand<V, 1, 8, TransB, Add>(r0, n, k, A, lda, B, ldb, C, ldc);
}

/// C = / += A op(B) for the step's five small products (at d = 8, H = 8, batch 32 each is
/// 64 x 8 x 32 multiply-adds). Eigen's packed GEMM spent about half the step packing and
/// setting up for products this small; register tiles that read A and B as they are run at
/// vector speed. The tiles are sized to the build's registers: 4 x 4 vectors of 8 (or of 4)
/// with AVX-512's 32, 2 x 4 vectors of 4 with AVX2's 16. Other shapes and targets (where
/// 8-row tiles spilled: a d = 8, H = 8 step 2.5x slower than Eigen's on an SSE build, 3.7x on
/// an AVX2 one) keep Eigen's product.
template <bool TransB, bool Add, typename MA, typename MB, typename MC>
void smallGemm(const MA& A, const MB& Bop, MC& C) {
    const Index m = A.rows(), n = C.cols(), k = A.cols();
    [[maybe_unused]] const auto tiled = [&](auto vector, auto band) {
        tiledGemm<typename decltype(vector)::type, decltype(band)::value, TransB, Add>(
            m, n, k, A.data(), A.outerStride(), Bop.data(), Bop.outerStride(), C.data(),
            C.outerStride());
    };
#if defined(__AVX512F__)
    if (m % 8 == 0) return tiled(std::type_identity<V8>{}, std::integral_constant<int, 4>{});
    if (m % 4 == 0) return tiled(std::type_identity<V4>{}, std::integral_constant<int, 4>{});
#elif defined(__AVX2__) && defined(__FMA__)
    if (m % 4 == 0) return tiled(std::type_identity<V4>{}, std::integral_constant<int, 2>{});
#endif
    if constexpr (TransB) {
        if constexpr (Add) C.noalias() += A * Bop.transpose();
        else C.noalias() = A * Bop.transpose();
    } else {
        if constexpr (Add) C.noalias() += A * Bop;
        else C.noalias() = A * Bop;
    }
}

void smallProduct(const double* S, const double* X, double* T, Index d, Index H) {
    switch (d) {
    case 1: return fixedProduct<1>(S, X, T, H);
    case 2: return fixedProduct<2>(S, X, T, H);
    case 3: return fixedProduct<3>(S, X, T, H);
    case 4: return sweepProduct<4>(S, X, T, H);
    case 5: return fixedProduct<5>(S, X, T, H);
    case 6: return fixedProduct<6>(S, X, T, H);
    case 7: return fixedProduct<7>(S, X, T, H);
    case 8: return sweepProduct<8>(S, X, T, H);
    case 12: return fixedProduct<12>(S, X, T, H);
    case 16: return fixedProduct<16>(S, X, T, H);
    default:
        Eigen::Map<Mat>(T, d, H).noalias() =
            Eigen::Map<const Mat>(S, d, d).lazyProduct(Eigen::Map<const Mat>(X, d, H));
    }
}

} // namespace

MhlaModel::MhlaModel(int d, int dOut, int heads, Rng& rng)
    : TrainableModel(d, dOut), m_heads(heads) {
    if (heads < 1) throw std::invalid_argument("MhlaModel: heads must be >= 1");
    addBlock("V", dOut, static_cast<Index>(heads) * d);
    addBlock("Q", static_cast<Index>(heads) * d, d);
    allocateParameters();
    m_V = block("V");
    m_Q = block("Q");
    const double sd = 1.0 / std::sqrt(static_cast<double>(d));
    for (Index i = 0; i < m_theta.size(); ++i) m_theta(i) = sd * rng.normal();
}

Heads MhlaModel::heads() const {
    Heads h;
    const auto V = view(m_V);
    const auto Q = view(m_Q);
    for (int k = 0; k < m_heads; ++k) {
        h.V.push_back(V.middleCols(static_cast<Index>(k) * m_d, m_d));
        h.Q.push_back(Q.middleRows(static_cast<Index>(k) * m_d, m_d));
    }
    return h;
}

void MhlaModel::setHeads(const Heads& heads) {
    if (heads.count() != m_heads || static_cast<int>(heads.Q.size()) != m_heads)
        throw std::invalid_argument("MhlaModel::setHeads: expected " + std::to_string(m_heads) +
                                    " heads");
    auto V = view(m_V);
    auto Q = view(m_Q);
    for (int k = 0; k < m_heads; ++k) {
        const auto& v = heads.V[static_cast<size_t>(k)];
        const auto& q = heads.Q[static_cast<size_t>(k)];
        if (v.rows() != m_dOut || v.cols() != m_d || q.rows() != m_d || q.cols() != m_d)
            throw std::invalid_argument("MhlaModel::setHeads: head of the wrong size");
        V.middleCols(static_cast<Index>(k) * m_d, m_d) = v;
        Q.middleRows(static_cast<Index>(k) * m_d, m_d) = q;
    }
}

std::unique_ptr<TrainableModel::Workspace> MhlaModel::makeWorkspace() const {
    return std::make_unique<MhlaWorkspace>();
}

double MhlaModel::workspaceBytes(int d, int dOut, int heads, Index samples, bool gradient) {
    // MhlaWorkspace::reserve: zq (d), q, t (H d) and r (d_out) columns per sample, with a
    // gradient also g, sg (H d); S (d x d) for predict(); V^T (H d x d_out) for a gradient.
    const double Hd = static_cast<double>(heads) * d, B = static_cast<double>(samples);
    return 8.0 * (B * (d + (gradient ? 4.0 : 2.0) * Hd + dOut) + 1.0 * d * d +
                  (gradient ? Hd * dOut : 0.0));
}

double MhlaModel::workPerSample(Index) const { return 3.0 * static_cast<double>(m_theta.size()); }

double MhlaModel::sumSquaredError(const TrainingData& data, const long long* idx, int count,
                                  double* grad, Workspace& wsBase) const {
    if (data.S.cols() != data.size() || data.S.rows() != static_cast<Index>(m_d) * m_d)
        throw std::invalid_argument(
            "MhlaModel: TrainingData without moments (prepare with moments=true)");
    auto& ws = static_cast<MhlaWorkspace&>(wsBase);
    const Index d = m_d, H = m_heads, Hd = H * d, B = count;
    ws.reserve(d, Hd, m_dOut, B, grad != nullptr);
    const auto V = view(m_V);
    const auto Q = view(m_Q);
    const Mat& Y = *data.Y;

    auto zq = ws.zq.leftCols(B);
    for (Index j = 0; j < B; ++j) zq.col(j) = data.Zq.col(idx[j]);
    auto q = ws.q.leftCols(B);
    smallGemm<false, false>(Q, zq, q);
    for (Index j = 0; j < B; ++j) {
        Eigen::Map<const Mat> S(data.S.col(idx[j]).data(), d, d);
        smallProduct(S.data(), ws.q.col(j).data(), ws.t.col(j).data(), d, H);
    }
    const auto t = ws.t.leftCols(B);
    auto r = ws.r.leftCols(B);
    smallGemm<false, false>(V, t, r);
    for (Index j = 0; j < B; ++j) r.col(j) -= Y.col(idx[j]);
    const double sum = r.squaredNorm();
    if (!grad) return sum;

    r *= 2.0; // d(sum of squares)/d(prediction)
    auto gV = gradView(grad, m_V);
    smallGemm<true, true>(r, t, gV);
    ws.vt = V.transpose();
    auto g = ws.g.leftCols(B);
    smallGemm<false, false>(ws.vt, r, g);
    for (Index j = 0; j < B; ++j) {
        Eigen::Map<const Mat> S(data.S.col(idx[j]).data(), d, d);
        smallProduct(S.data(), ws.g.col(j).data(), ws.sg.col(j).data(), d, H);
    }
    auto gQ = gradView(grad, m_Q);
    smallGemm<true, true>(ws.sg.leftCols(B), zq, gQ);
    return sum;
}

void MhlaModel::predict(const Mat& Z, Vec& out, Workspace& wsBase) const {
    auto& ws = static_cast<MhlaWorkspace&>(wsBase);
    const Index d = m_d, H = m_heads, Hd = H * d;
    ws.reserve(d, Hd, m_dOut, 1, false);
    ws.S.noalias() = Z * Z.transpose();
    ws.q.col(0).noalias() = view(m_Q) * Z.col(Z.cols() - 1);
    Eigen::Map<Mat>(ws.t.col(0).data(), d, H).noalias() =
        ws.S * Eigen::Map<const Mat>(ws.q.col(0).data(), d, H);
    out.noalias() = view(m_V) * ws.t.col(0);
}

} // namespace mhla::training
