#pragma once
// One pre-LayerNorm softmax-attention Transformer block with a linear readout (MATH.md §8).
#include "core/base/rng.h"
#include "core/run/training/trainablemodel.h"

namespace mhla::training {

/// For a prompt X = Z (d x n), with LN(x) = gain * (x - mean) / sqrt(var + 1e-5) + bias:
///     a_t  = LN1(x_t)                                    (every token)
///     head h: q = Wq_h a_n, k_t = Wk_h a_t, v_t = Wv_h a_t, p = softmax_t(q.k_t / sqrt(dh)),
///             o_h = sum_t p_t v_t                        (causal: the query sees every t <= n)
///     x1 = x_n + Wo [o_1; ..; o_H]                       (residual)
///     x2 = x1 + W2 relu(W1 LN2(x1) + b1) + b2            (ReLU MLP d -> 2d -> d, residual)
///     f(Z) = R x2                                        (linear readout of the last token)
/// The head width dh is d/H when H divides d, else d. Only the query position feeds the
/// readout, and a single causal block's query attends to every token, so only the query row
/// of the attention is computed.
///
/// Blocks: "ln1_gain", "ln1_bias" (d x 1), "Wq", "Wk", "Wv" (H*dh x d, rows h*dh.. = head h),
/// "Wo" (d x H*dh), "ln2_gain", "ln2_bias", "W1" (2d x d), "b1" (2d x 1), "W2" (d x 2d),
/// "b2" (d x 1), "R" (d_out x d). Initialisation: gains 1, biases 0, Wq/Wk/Wv/R N(0, 1/d),
/// Wo N(0, 1/(H dh)), W1 N(0, 2/d) (He), W2 N(0, 1/(2d)).
class SoftmaxModel : public TrainableModel {
public:
    static constexpr double kLayerNormEps = 1e-5;

    SoftmaxModel(int d, int dOut, int heads, Rng& rng);

    std::string name() const override { return "softmax"; }
    int headCount() const { return m_heads; }
    int headDim() const { return m_dh; }

    std::unique_ptr<Workspace> makeWorkspace() const override;
    /// Bytes one workspace holds for prompts of `tokens` tokens (the count admission uses).
    static double workspaceBytes(int d, int dOut, int heads, Index tokens);
    double sumSquaredError(const TrainingData& data, const long long* idx, int count, double* grad,
                           Workspace& ws) const override;
    void predict(const Mat& Z, Vec& out, Workspace& ws) const override;
    using TrainableModel::predict;

protected:
    double workPerSample(Index n) const override;

private:
    void forward(const Mat& Z, Workspace& ws) const;
    int m_heads, m_dh;
    Block m_g1, m_b1ln, m_Wq, m_Wk, m_Wv, m_Wo, m_g2, m_b2ln, m_W1, m_c1, m_W2, m_c2, m_R;
};

} // namespace mhla::training
