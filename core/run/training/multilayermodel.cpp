#include "core/run/training/multilayermodel.h"
#include <cmath>
#include <stdexcept>

namespace mhla::training {

namespace {

struct MultilayerWorkspace : TrainableModel::Workspace {
    std::vector<Mat> X;        // L+1 activations, d x n
    std::vector<Mat> S, QV, T; // per layer: d*d x n, H*d x n, H*d x n (columns >= t0 used)
    Mat G, Gin, W, SW;         // backward: d x n, d x n, H*d x n, H*d x n
    Mat N, Sc;                 // d x d
    Vec r;
    Index n = -1;
    void reserve(Index d, Index Hd, int L, Index tokens) {
        if (n == tokens && static_cast<int>(S.size()) == L) return;
        n = tokens;
        X.assign(static_cast<size_t>(L) + 1, Mat::Zero(d, tokens));
        S.assign(static_cast<size_t>(L), Mat::Zero(d * d, tokens));
        QV.assign(static_cast<size_t>(L), Mat::Zero(Hd, tokens));
        T.assign(static_cast<size_t>(L), Mat::Zero(Hd, tokens));
        G = Mat::Zero(d, tokens);
        Gin = Mat::Zero(d, tokens);
        W = Mat::Zero(Hd, tokens);
        SW = Mat::Zero(Hd, tokens);
        N = Mat::Zero(d, d);
        Sc = Mat::Zero(d, d);
    }
};

/// "V3", "Q0", ... (built by appending: GCC 12 warns falsely on "V" + std::to_string(l)).
std::string layerBlockName(char matrix, int layer) {
    std::string name(1, matrix);
    name += std::to_string(layer);
    return name;
}

} // namespace

MultilayerModel::MultilayerModel(int d, int dOut, int heads, int layers, Rng& rng)
    : TrainableModel(d, dOut), m_heads(heads), m_layers(layers) {
    if (heads < 1 || layers < 1)
        throw std::invalid_argument("MultilayerModel: heads and layers must be >= 1");
    const Index Hd = static_cast<Index>(heads) * d;
    for (int l = 0; l < layers; ++l) {
        addBlock(layerBlockName('V', l), d, Hd);
        addBlock(layerBlockName('Q', l), Hd, d);
    }
    addBlock("R", dOut, d);
    allocateParameters();
    for (int l = 0; l < layers; ++l) {
        m_V.push_back(block(layerBlockName('V', l)));
        m_Q.push_back(block(layerBlockName('Q', l)));
    }
    m_R = block("R");
    const double sdQ = 1.0 / std::sqrt(static_cast<double>(d));
    const double sdV = 0.1 * sdQ / std::sqrt(static_cast<double>(heads) * layers);
    for (int l = 0; l < layers; ++l) {
        auto V = view(m_V[static_cast<size_t>(l)]);
        auto Q = view(m_Q[static_cast<size_t>(l)]);
        for (Index i = 0; i < V.size(); ++i) V.data()[i] = sdV * rng.normal();
        for (Index i = 0; i < Q.size(); ++i) Q.data()[i] = sdQ * rng.normal();
    }
    auto R = view(m_R);
    for (Index i = 0; i < R.size(); ++i) R.data()[i] = sdQ * rng.normal();
}

std::unique_ptr<TrainableModel::Workspace> MultilayerModel::makeWorkspace() const {
    return std::make_unique<MultilayerWorkspace>();
}

double MultilayerModel::workspaceBytes(int d, int dOut, int heads, int layers, Index tokens) {
    // MultilayerWorkspace::reserve: L + 1 activations (d x n), per layer S (d^2 x n), QV and T
    // (H d x n); G, Gin (d x n), W, SW (H d x n); N, Sc (d x d); r (d_out).
    const double Hd = static_cast<double>(heads) * d, n = static_cast<double>(tokens), L = layers,
                 dd = d;
    return 8.0 *
           (n * ((L + 1) * dd + L * dd * dd + 2 * L * Hd + 2 * dd + 2 * Hd) + 2 * dd * dd + dOut);
}

double MultilayerModel::workPerSample(Index n) const {
    return 3.0 * static_cast<double>(m_theta.size()) * static_cast<double>(n);
}

void MultilayerModel::forward(const Mat& Z, Workspace& wsBase) const {
    auto& ws = static_cast<MultilayerWorkspace&>(wsBase);
    const Index d = m_d, H = m_heads, Hd = H * d, n = Z.cols();
    if (Z.rows() != d || n < 1)
        throw std::invalid_argument("MultilayerModel: prompt of the wrong size");
    ws.reserve(d, Hd, m_layers, n);
    ws.X[0] = Z;
    for (int l = 0; l < m_layers; ++l) {
        const auto V = view(m_V[static_cast<size_t>(l)]);
        const auto Q = view(m_Q[static_cast<size_t>(l)]);
        const Mat& X = ws.X[static_cast<size_t>(l)];
        Mat& Xn = ws.X[static_cast<size_t>(l) + 1];
        Mat& S = ws.S[static_cast<size_t>(l)];
        Mat& QV = ws.QV[static_cast<size_t>(l)];
        Mat& T = ws.T[static_cast<size_t>(l)];
        const Index t0 = l + 1 == m_layers ? n - 1 : 0; // the last layer: query column only
        const Index m = n - t0;
        if (t0 == 0) {
            ws.Sc.setZero();
            for (Index t = 0; t < n; ++t) {
                ws.Sc.noalias() += X.col(t) * X.col(t).transpose();
                S.col(t) = Eigen::Map<const Vec>(ws.Sc.data(), d * d);
            }
        } else {
            Eigen::Map<Mat>(S.col(n - 1).data(), d, d).noalias() = X * X.transpose();
        }
        QV.middleCols(t0, m).noalias() = Q * X.middleCols(t0, m);
        for (Index t = t0; t < n; ++t)
            Eigen::Map<Mat>(T.col(t).data(), d, H).noalias() =
                Eigen::Map<const Mat>(S.col(t).data(), d, d) *
                Eigen::Map<const Mat>(QV.col(t).data(), d, H);
        Xn.middleCols(t0, m) = X.middleCols(t0, m);
        Xn.middleCols(t0, m).noalias() += V * T.middleCols(t0, m);
    }
}

double MultilayerModel::sumSquaredError(const TrainingData& data, const long long* idx, int count,
                                        double* grad, Workspace& wsBase) const {
    auto& ws = static_cast<MultilayerWorkspace&>(wsBase);
    const Index d = m_d, H = m_heads;
    const auto R = view(m_R);
    double sum = 0;
    for (int j = 0; j < count; ++j) {
        const Mat& Z = (*data.Z)[static_cast<size_t>(idx[j])];
        forward(Z, ws);
        const Index n = Z.cols();
        ws.r.noalias() = R * ws.X.back().col(n - 1);
        ws.r -= data.Y->col(idx[j]);
        sum += ws.r.squaredNorm();
        if (!grad) continue;

        ws.r *= 2.0;
        gradView(grad, m_R).noalias() += ws.r * ws.X.back().col(n - 1).transpose();
        ws.G.setZero();
        ws.G.col(n - 1).noalias() = R.transpose() * ws.r;
        for (int l = m_layers - 1; l >= 0; --l) {
            const auto V = view(m_V[static_cast<size_t>(l)]);
            const auto Q = view(m_Q[static_cast<size_t>(l)]);
            const Mat& X = ws.X[static_cast<size_t>(l)];
            const Mat& S = ws.S[static_cast<size_t>(l)];
            const Mat& QV = ws.QV[static_cast<size_t>(l)];
            const Mat& T = ws.T[static_cast<size_t>(l)];
            const Index t0 = l + 1 == m_layers ? n - 1 : 0;
            const Index m = n - t0;
            const auto Gm = ws.G.middleCols(t0, m);
            gradView(grad, m_V[static_cast<size_t>(l)]).noalias() +=
                Gm * T.middleCols(t0, m).transpose();
            ws.W.middleCols(t0, m).noalias() = V.transpose() * Gm;
            for (Index t = t0; t < n; ++t)
                Eigen::Map<Mat>(ws.SW.col(t).data(), d, H).noalias() =
                    Eigen::Map<const Mat>(S.col(t).data(), d, d) *
                    Eigen::Map<const Mat>(ws.W.col(t).data(), d, H);
            gradView(grad, m_Q[static_cast<size_t>(l)]).noalias() +=
                ws.SW.middleCols(t0, m) * X.middleCols(t0, m).transpose();
            if (l == 0) break; // no gradient needed with respect to the prompt
            ws.Gin.setZero();
            ws.Gin.middleCols(t0, m) = Gm;
            ws.Gin.middleCols(t0, m).noalias() += Q.transpose() * ws.SW.middleCols(t0, m);
            // S_t = sum_{s<=t} x_s x_s^T: with M_t = dL/dS_t = sum_h w_h q_h^T, x_s receives
            // (N_s + N_s^T) x_s where N_s = sum_{t>=s} M_t.
            ws.N.setZero();
            for (Index t = n - 1; t >= 0; --t) {
                if (t >= t0)
                    ws.N.noalias() += Eigen::Map<const Mat>(ws.W.col(t).data(), d, H) *
                                      Eigen::Map<const Mat>(QV.col(t).data(), d, H).transpose();
                ws.Gin.col(t).noalias() += ws.N * X.col(t);
                ws.Gin.col(t).noalias() += ws.N.transpose() * X.col(t);
            }
            std::swap(ws.G, ws.Gin);
        }
    }
    return sum;
}

void MultilayerModel::predict(const Mat& Z, Vec& out, Workspace& wsBase) const {
    forward(Z, wsBase);
    auto& ws = static_cast<MultilayerWorkspace&>(wsBase);
    out.noalias() = view(m_R) * ws.X.back().col(Z.cols() - 1);
}

} // namespace mhla::training
