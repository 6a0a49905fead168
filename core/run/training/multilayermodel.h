#pragma once
// A stack of causal linear-attention layers with residual connections (MATH.md §1, §8).
#include "core/base/rng.h"
#include "core/run/training/trainablemodel.h"

namespace mhla::training {

/// L layers of width d with H heads each. Layer l maps X (d x n) to X' with columns
///     x'_t = x_t + sum_h V_h S_t Q_h x_t,   S_t = sum_{s<=t} x_s x_s^T   (causal),
/// V_h, Q_h d x d. The last layer's query column (last token) is read out by R (d_out x d):
/// f(Z) = R x^{(L)}_n. Only the query column of the last layer is computed.
///
/// Blocks: "V<l>" (d x H*d, columns h*d.. = V_h), "Q<l>" (H*d x d, rows h*d.. = Q_h) for
/// l = 0..L-1, then "R". Initialisation: Q_h and R entries N(0, 1/d); V_h entries
/// N(0, 0.01/(d H L)). Each layer then starts as the identity plus a perturbation of about
/// 0.1/sqrt(L) of its input's norm (for S ~ I), so the residual stack is stable at any depth.
/// The extra factor 0.1 matters because a layer is cubic in its input: with few tokens S(Z)
/// has heavy tails, and at 1/sqrt(d H L) alone the outputs of L = 8 layers already overflow
/// on some training prompts at initialisation.
class MultilayerModel : public TrainableModel {
public:
    MultilayerModel(int d, int dOut, int heads, int layers, Rng& rng);

    std::string name() const override { return "multilayer"; }
    int headCount() const { return m_heads; }
    int layerCount() const { return m_layers; }

    std::unique_ptr<Workspace> makeWorkspace() const override;
    /// Bytes one workspace holds for prompts of `tokens` tokens (the count admission uses).
    static double workspaceBytes(int d, int dOut, int heads, int layers, Index tokens);
    double sumSquaredError(const TrainingData& data, const long long* idx, int count, double* grad,
                           Workspace& ws) const override;
    void predict(const Mat& Z, Vec& out, Workspace& ws) const override;
    using TrainableModel::predict;

protected:
    double workPerSample(Index n) const override;

private:
    struct Cache;
    /// Forward pass of one prompt; leaves activations in the workspace.
    void forward(const Mat& Z, Workspace& ws) const;
    int m_heads, m_layers;
    std::vector<Block> m_V, m_Q;
    Block m_R;
};

} // namespace mhla::training
