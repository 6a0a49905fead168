#pragma once
// One-layer multi-head linear attention trained by gradient descent (MATH.md §1, §8).
#include "core/algebra/model.h"
#include "core/base/rng.h"
#include "core/run/training/trainablemodel.h"

namespace mhla::training {

/// f(Z) = sum_h V_h S(Z) Q_h z_q (a plain sum over heads). Parameters: block "V"
/// (d_out x H*d, columns h*d.. = V_h) and block "Q" (H*d x d, rows h*d.. = Q_h). A prompt is
/// seen only through (S(Z), z_q), which TrainingData precomputes, so a step costs
/// O(B H d (d + d_out)) whatever the number of tokens; a minibatch is processed as a few GEMMs.
class MhlaModel : public TrainableModel {
public:
    /// Entries of every V_h and Q_h i.i.d. N(0, 1/d) from `rng` (V block first, column-major).
    MhlaModel(int d, int dOut, int heads, Rng& rng);

    std::string name() const override { return "mhla"; }
    bool usesMoments() const override { return true; }
    int headCount() const { return m_heads; }

    /// The current heads.
    Heads heads() const;
    /// Sets the parameters from heads (count must equal headCount(), sizes d_out x d, d x d).
    void setHeads(const Heads& heads);

    std::unique_ptr<Workspace> makeWorkspace() const override;
    /// Bytes one workspace holds after processing `samples` samples at once (with the
    /// gradient: also V^T): the count admission uses (core/run/admission.h).
    static double workspaceBytes(int d, int dOut, int heads, Index samples, bool gradient);
    double sumSquaredError(const TrainingData& data, const long long* idx, int count, double* grad,
                           Workspace& ws) const override;
    void predict(const Mat& Z, Vec& out, Workspace& ws) const override;
    using TrainableModel::predict;

protected:
    double workPerSample(Index) const override;

private:
    int m_heads;
    Block m_V, m_Q;
};

} // namespace mhla::training
