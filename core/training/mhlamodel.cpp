#include "core/training/mhlamodel.h"
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <type_traits>

namespace mhla::training {

namespace {

struct MhlaWorkspace : TrainableModel::Workspace {
    Mat zq, q, t, r, g, sg; // columns = samples of a chunk
    Mat S;                  // predict(): S(Z)
    void reserve(Index d, Index Hd, Index dOut, Index B) {
        if (zq.cols() >= B && zq.rows() == d) return;
        zq.resize(d, B);
        q.resize(Hd, B);
        t.resize(Hd, B);
        r.resize(dOut, B);
        g.resize(Hd, B);
        sg.resize(Hd, B);
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

/// The same product for d = 4 and 8, where a column of S fits one vector (GCC vector
/// extensions; split into what the target has): S's columns stay in registers and each column
/// of T is d multiply-adds of whole vectors. Eigen's fixed-size lazy product took 2.5x as long
/// (about a fifth of a d = 8, H = 8 Adam step).
using V4 = double __attribute__((vector_size(32)));
using V8 = double __attribute__((vector_size(64)));
template <int D> void sweepProduct(const double* S, const double* X, double* T, Index H) {
    // (A dependent vector_size would be dropped by GCC: the types are spelled out.)
    using V = std::conditional_t<D == 4, V4, V8>;
    static_assert(sizeof(V) == sizeof(double) * D);
    V s[D];
    for (int j = 0; j < D; ++j) std::memcpy(&s[j], S + j * D, sizeof(V));
    for (Index c = 0; c < H; ++c) {
        const double* x = X + c * D;
        V acc = s[0] * x[0];
        for (int j = 1; j < D; ++j) acc += s[j] * x[j];
        std::memcpy(T + c * D, &acc, sizeof(V));
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

double MhlaModel::workPerSample(Index) const { return 3.0 * static_cast<double>(m_theta.size()); }

double MhlaModel::sumSquaredError(const TrainingData& data, const long long* idx, int count,
                                  double* grad, Workspace& wsBase) const {
    if (data.S.cols() != data.size() || data.S.rows() != static_cast<Index>(m_d) * m_d)
        throw std::invalid_argument(
            "MhlaModel: TrainingData without moments (prepare with moments=true)");
    auto& ws = static_cast<MhlaWorkspace&>(wsBase);
    const Index d = m_d, H = m_heads, Hd = H * d, B = count;
    ws.reserve(d, Hd, m_dOut, B);
    const auto V = view(m_V);
    const auto Q = view(m_Q);
    const Mat& Y = *data.Y;

    auto zq = ws.zq.leftCols(B);
    for (Index j = 0; j < B; ++j) zq.col(j) = data.Zq.col(idx[j]);
    ws.q.leftCols(B).noalias() = Q * zq;
    for (Index j = 0; j < B; ++j) {
        Eigen::Map<const Mat> S(data.S.col(idx[j]).data(), d, d);
        smallProduct(S.data(), ws.q.col(j).data(), ws.t.col(j).data(), d, H);
    }
    auto r = ws.r.leftCols(B);
    r.noalias() = V * ws.t.leftCols(B);
    for (Index j = 0; j < B; ++j) r.col(j) -= Y.col(idx[j]);
    const double sum = r.squaredNorm();
    if (!grad) return sum;

    r *= 2.0; // d(sum of squares)/d(prediction)
    gradView(grad, m_V).noalias() += r * ws.t.leftCols(B).transpose();
    ws.g.leftCols(B).noalias() = V.transpose() * r;
    for (Index j = 0; j < B; ++j) {
        Eigen::Map<const Mat> S(data.S.col(idx[j]).data(), d, d);
        smallProduct(S.data(), ws.g.col(j).data(), ws.sg.col(j).data(), d, H);
    }
    gradView(grad, m_Q).noalias() += ws.sg.leftCols(B) * zq.transpose();
    return sum;
}

void MhlaModel::predict(const Mat& Z, Vec& out, Workspace& wsBase) const {
    auto& ws = static_cast<MhlaWorkspace&>(wsBase);
    const Index d = m_d, H = m_heads, Hd = H * d;
    ws.reserve(d, Hd, m_dOut, 1);
    ws.S.noalias() = Z * Z.transpose();
    ws.q.col(0).noalias() = view(m_Q) * Z.col(Z.cols() - 1);
    Eigen::Map<Mat>(ws.t.col(0).data(), d, H).noalias() =
        ws.S * Eigen::Map<const Mat>(ws.q.col(0).data(), d, H);
    out.noalias() = view(m_V) * ws.t.col(0);
}

} // namespace mhla::training
