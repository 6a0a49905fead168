#include "core/run/training/softmaxmodel.h"
#include <cmath>
#include <stdexcept>

namespace mhla::training {

namespace {

struct SoftmaxWorkspace : TrainableModel::Workspace {
    Mat Xhat1, A, K, Vv, P, dA, dK,
        dV;    // d x n, d x n, Hdh x n, Hdh x n, n x H, d x n, Hdh x n, Hdh x n
    Vec rstd1; // n
    Vec q, o, x1, xhat2, b, pre, hid, x2, r, g2, dhid, db, dxhat, g1, dO, dq, dp; // small
    double rstd2 = 0;
    Index n = -1;
    void reserve(Index d, Index Hdh, Index H, Index tokens) {
        if (n == tokens) return;
        n = tokens;
        Xhat1.resize(d, tokens);
        A.resize(d, tokens);
        K.resize(Hdh, tokens);
        Vv.resize(Hdh, tokens);
        P.resize(tokens, H);
        dA.resize(d, tokens);
        dK.resize(Hdh, tokens);
        dV.resize(Hdh, tokens);
        rstd1.resize(tokens);
        dp.resize(tokens);
    }
};

/// x_hat = (x - mean) / sqrt(var + eps) (biased variance); returns 1/sqrt(var + eps).
template <class In, class Out> double normalise(const In& x, Out&& xhat) {
    const double mean = x.mean();
    const double var = (x.array() - mean).square().mean();
    const double rstd = 1.0 / std::sqrt(var + SoftmaxModel::kLayerNormEps);
    xhat = (x.array() - mean) * rstd;
    return rstd;
}

/// Gradient through x_hat = normalise(x): dx = rstd (dxh - mean(dxh) - xhat mean(dxh * xhat)).
template <class V1, class V2, class Out>
void normaliseBackward(const V1& dxhat, const V2& xhat, double rstd, Out&& dx) {
    const double m1 = dxhat.mean();
    const double m2 = dxhat.cwiseProduct(xhat).mean();
    dx = rstd * (dxhat.array() - m1 - xhat.array() * m2);
}

} // namespace

SoftmaxModel::SoftmaxModel(int d, int dOut, int heads, Rng& rng)
    : TrainableModel(d, dOut), m_heads(heads), m_dh(d % heads == 0 ? d / heads : d) {
    if (heads < 1) throw std::invalid_argument("SoftmaxModel: heads must be >= 1");
    const Index Hdh = static_cast<Index>(heads) * m_dh;
    addBlock("ln1_gain", d, 1);
    addBlock("ln1_bias", d, 1);
    addBlock("Wq", Hdh, d);
    addBlock("Wk", Hdh, d);
    addBlock("Wv", Hdh, d);
    addBlock("Wo", d, Hdh);
    addBlock("ln2_gain", d, 1);
    addBlock("ln2_bias", d, 1);
    addBlock("W1", 2 * d, d);
    addBlock("b1", 2 * d, 1);
    addBlock("W2", d, 2 * d);
    addBlock("b2", d, 1);
    addBlock("R", dOut, d);
    allocateParameters();
    m_g1 = block("ln1_gain");
    m_b1ln = block("ln1_bias");
    m_Wq = block("Wq");
    m_Wk = block("Wk");
    m_Wv = block("Wv");
    m_Wo = block("Wo");
    m_g2 = block("ln2_gain");
    m_b2ln = block("ln2_bias");
    m_W1 = block("W1");
    m_c1 = block("b1");
    m_W2 = block("W2");
    m_c2 = block("b2");
    m_R = block("R");
    auto fill = [&](const Block& b, double variance) {
        auto M = view(b);
        const double sd = std::sqrt(variance);
        for (Index i = 0; i < M.size(); ++i) M.data()[i] = sd * rng.normal();
    };
    const double dd = d;
    view(m_g1).setOnes();
    view(m_g2).setOnes();
    fill(m_Wq, 1.0 / dd);
    fill(m_Wk, 1.0 / dd);
    fill(m_Wv, 1.0 / dd);
    fill(m_Wo, 1.0 / static_cast<double>(Hdh));
    fill(m_W1, 2.0 / dd);
    fill(m_W2, 1.0 / (2.0 * dd));
    fill(m_R, 1.0 / dd);
}

std::unique_ptr<TrainableModel::Workspace> SoftmaxModel::makeWorkspace() const {
    return std::make_unique<SoftmaxWorkspace>();
}

double SoftmaxModel::workspaceBytes(int d, int dOut, int heads, Index tokens) {
    // SoftmaxWorkspace::reserve: Xhat1, A, dA (d x n), K, Vv, dK, dV (H dh x n), P (n x H),
    // rstd1, dp (n); the small vectors: q, o, dO, dq (H dh), hid, pre, dhid, db (2d), the rest d.
    const double dh = d % heads == 0 ? d / heads : d, Hdh = heads * dh,
                 n = static_cast<double>(tokens);
    return 8.0 * (n * (3.0 * d + 4 * Hdh + heads + 2) + 4 * Hdh + 8.0 * d + 9.0 * d + dOut);
}

double SoftmaxModel::workPerSample(Index n) const {
    const double Hdh = static_cast<double>(m_heads) * m_dh;
    return 3.0 * (3.0 * Hdh * m_d * static_cast<double>(n) + 2.0 * Hdh * static_cast<double>(n) +
                  static_cast<double>(m_theta.size()));
}

void SoftmaxModel::forward(const Mat& Z, Workspace& wsBase) const {
    auto& ws = static_cast<SoftmaxWorkspace&>(wsBase);
    const Index d = m_d, H = m_heads, dh = m_dh, Hdh = H * dh, n = Z.cols();
    if (Z.rows() != d || n < 1)
        throw std::invalid_argument("SoftmaxModel: prompt of the wrong size");
    ws.reserve(d, Hdh, H, n);
    const auto g1 = view(m_g1);
    const auto bl1 = view(m_b1ln);
    for (Index t = 0; t < n; ++t) {
        ws.rstd1(t) = normalise(Z.col(t), ws.Xhat1.col(t));
        ws.A.col(t) = ws.Xhat1.col(t).cwiseProduct(g1.col(0)) + bl1.col(0);
    }
    ws.K.noalias() = view(m_Wk) * ws.A;
    ws.Vv.noalias() = view(m_Wv) * ws.A;
    ws.q.noalias() = view(m_Wq) * ws.A.col(n - 1);
    ws.o.resize(Hdh);
    const double scale = 1.0 / std::sqrt(static_cast<double>(dh));
    for (Index h = 0; h < H; ++h) {
        auto p = ws.P.col(h);
        p.noalias() = ws.K.middleRows(h * dh, dh).transpose() * ws.q.segment(h * dh, dh);
        p *= scale;
        const double mx = p.maxCoeff();
        p = (p.array() - mx).exp();
        p /= p.sum();
        ws.o.segment(h * dh, dh).noalias() = ws.Vv.middleRows(h * dh, dh) * p;
    }
    ws.x1 = Z.col(n - 1);
    ws.x1.noalias() += view(m_Wo) * ws.o;
    ws.xhat2.resize(d);
    ws.rstd2 = normalise(ws.x1, ws.xhat2);
    ws.b = ws.xhat2.cwiseProduct(view(m_g2).col(0)) + view(m_b2ln).col(0);
    ws.pre = view(m_c1).col(0);
    ws.pre.noalias() += view(m_W1) * ws.b;
    ws.hid = ws.pre.cwiseMax(0.0);
    ws.x2 = ws.x1 + view(m_c2).col(0);
    ws.x2.noalias() += view(m_W2) * ws.hid;
}

double SoftmaxModel::sumSquaredError(const TrainingData& data, const long long* idx, int count,
                                     double* grad, Workspace& wsBase) const {
    auto& ws = static_cast<SoftmaxWorkspace&>(wsBase);
    const Index d = m_d, H = m_heads, dh = m_dh;
    const double scale = 1.0 / std::sqrt(static_cast<double>(dh));
    const auto R = view(m_R);
    double sum = 0;
    for (int j = 0; j < count; ++j) {
        const Mat& Z = (*data.Z)[static_cast<size_t>(idx[j])];
        forward(Z, ws);
        const Index n = Z.cols();
        ws.r.noalias() = R * ws.x2;
        ws.r -= data.Y->col(idx[j]);
        sum += ws.r.squaredNorm();
        if (!grad) continue;

        ws.r *= 2.0;
        // readout and MLP
        gradView(grad, m_R).noalias() += ws.r * ws.x2.transpose();
        ws.g2.noalias() = R.transpose() * ws.r;
        gradView(grad, m_W2).noalias() += ws.g2 * ws.hid.transpose();
        gradView(grad, m_c2).col(0) += ws.g2;
        ws.dhid.noalias() = view(m_W2).transpose() * ws.g2;
        for (Index i = 0; i < ws.dhid.size(); ++i)
            if (ws.pre(i) <= 0) ws.dhid(i) = 0;
        gradView(grad, m_W1).noalias() += ws.dhid * ws.b.transpose();
        gradView(grad, m_c1).col(0) += ws.dhid;
        ws.db.noalias() = view(m_W1).transpose() * ws.dhid;
        // LN2
        gradView(grad, m_g2).col(0) += ws.db.cwiseProduct(ws.xhat2);
        gradView(grad, m_b2ln).col(0) += ws.db;
        ws.dxhat = ws.db.cwiseProduct(view(m_g2).col(0));
        ws.g1.resize(d);
        normaliseBackward(ws.dxhat, ws.xhat2, ws.rstd2, ws.g1);
        ws.g1 += ws.g2;
        // attention output projection
        gradView(grad, m_Wo).noalias() += ws.g1 * ws.o.transpose();
        ws.dO.noalias() = view(m_Wo).transpose() * ws.g1;
        ws.dq.resize(H * dh);
        for (Index h = 0; h < H; ++h) {
            const auto p = ws.P.col(h);
            const auto dOh = ws.dO.segment(h * dh, dh);
            ws.dV.middleRows(h * dh, dh).noalias() = dOh * p.transpose();
            ws.dp.noalias() = ws.Vv.middleRows(h * dh, dh).transpose() * dOh;
            const double pdp = p.dot(ws.dp);
            // de_t = p_t (dp_t - p.dp), scaled by 1/sqrt(dh) for the logits
            ws.dp = (p.array() * (ws.dp.array() - pdp) * scale).matrix();
            ws.dq.segment(h * dh, dh).noalias() = ws.K.middleRows(h * dh, dh) * ws.dp;
            ws.dK.middleRows(h * dh, dh).noalias() = ws.q.segment(h * dh, dh) * ws.dp.transpose();
        }
        gradView(grad, m_Wq).noalias() += ws.dq * ws.A.col(n - 1).transpose();
        gradView(grad, m_Wk).noalias() += ws.dK * ws.A.transpose();
        gradView(grad, m_Wv).noalias() += ws.dV * ws.A.transpose();
        ws.dA.noalias() = view(m_Wk).transpose() * ws.dK;
        ws.dA.noalias() += view(m_Wv).transpose() * ws.dV;
        ws.dA.col(n - 1).noalias() += view(m_Wq).transpose() * ws.dq;
        // LN1 (the prompt itself needs no gradient)
        gradView(grad, m_g1).col(0) += ws.dA.cwiseProduct(ws.Xhat1).rowwise().sum();
        gradView(grad, m_b1ln).col(0) += ws.dA.rowwise().sum();
    }
    return sum;
}

void SoftmaxModel::predict(const Mat& Z, Vec& out, Workspace& wsBase) const {
    forward(Z, wsBase);
    out.noalias() = view(m_R) * static_cast<SoftmaxWorkspace&>(wsBase).x2;
}

} // namespace mhla::training
