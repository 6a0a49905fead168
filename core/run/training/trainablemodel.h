#pragma once
// The trainable baselines of MATH.md §8 behind one interface: a flat parameter vector, the MSE
// of a minibatch and its hand-written gradient. Exposed so that tests can check every gradient
// against central finite differences and set initial parameters.
#include "core/experiment/config.h"
#include "core/run/training/training.h"
#include <memory>
#include <string>
#include <vector>

namespace mhla::training {

/// A data set in the form the trainers consume: pointers into a Dataset (which must outlive
/// this view) plus, for models that see a prompt only through (S(Z), z_q), those quantities
/// computed once so that a training step costs nothing per token.
struct TrainingData {
    const std::vector<Mat>* Z = nullptr; ///< prompts, d x n
    const Mat* Y = nullptr;              ///< d_out x N labels
    Mat S;  ///< d*d x N, column s = vec(S(Z_s)) (column-major); empty unless requested
    Mat Zq; ///< d x N, column s = query token of Z_s; empty unless requested
    long long size() const { return Y ? Y->cols() : 0; }
};

/// Wraps `data`; with `moments` also computes S(Z_s) and z_q for every sample.
[[nodiscard]] TrainingData prepareTrainingData(const Dataset& data, bool moments, int threads = 1);

/// A model trained by minibatch gradient descent on the MSE. Parameters live in one flat
/// vector made of named blocks (column-major matrices), so optimisers, clipping and finite
/// differences work on every model alike.
class TrainableModel {
public:
    /// Scratch memory of one forward/backward pass (one per concurrently processed chunk).
    struct Workspace {
        virtual ~Workspace() = default;
    };
    /// A named parameter matrix at `offset` in the flat vector (rows x cols, column-major).
    struct Block {
        std::string name;
        Index offset = 0, rows = 0, cols = 0;
        Index size() const { return rows * cols; }
    };
    /// Samples per chunk of a minibatch. Each chunk's gradient is computed into its own buffer
    /// and the buffers are summed in chunk order, so a step is bit-identical whether chunks run
    /// serially or in parallel.
    static constexpr int kChunk = 16;

    virtual ~TrainableModel() = default;
    TrainableModel(const TrainableModel&) = delete;
    TrainableModel& operator=(const TrainableModel&) = delete;

    /// "mhla", "multilayer" or "softmax".
    virtual std::string name() const = 0;
    int d() const { return m_d; }
    int dOut() const { return m_dOut; }
    /// True if the model needs TrainingData::S and ::Zq (prepareTrainingData(..., true)).
    virtual bool usesMoments() const { return false; }

    Index parameterCount() const { return m_theta.size(); }
    const Vec& parameters() const { return m_theta; }
    /// Replaces every parameter; throws std::invalid_argument on a size mismatch.
    void setParameters(const Vec& theta);
    /// In-place access for optimisers.
    Vec& mutableParameters() { return m_theta; }
    const std::vector<Block>& blocks() const { return m_blocks; }
    /// The block called `name` (throws std::out_of_range if none).
    const Block& block(const std::string& name) const;

    virtual std::unique_ptr<Workspace> makeWorkspace() const = 0;
    /// Sum over the samples idx[0..count) of ||f(Z_s) - y_s||^2. If `grad` is non-null, adds
    /// the gradient of that sum with respect to the parameters into grad[0..parameterCount()).
    /// Const and thread-safe given distinct workspaces.
    virtual double sumSquaredError(const TrainingData& data, const long long* idx, int count,
                                   double* grad, Workspace& ws) const = 0;
    /// Output at the query token of prompt Z (d x n) into `out` (resized to d_out).
    virtual void predict(const Mat& Z, Vec& out, Workspace& ws) const = 0;
    /// Convenience: allocates a workspace. Thread-safe.
    Vec predict(const Mat& Z) const;

    /// Minibatch loss L = (1/(count*d_out)) sum_s ||f(Z_s) - y_s||^2 and, if `grad` is
    /// non-null, dL/dtheta (grad is resized). Uses preallocated buffers (no allocation after
    /// the first call with a given batch size). Independent of `threads`. With `ctx`, its
    /// cancel token is polled before every chunk (kChunk samples), so a full-batch step of 2^20
    /// samples stops within one chunk (throws Cancelled; the parameters are untouched).
    double lossAndGradient(const TrainingData& data, const long long* idx, int count, Vec* grad,
                           int threads = 1, const RunContext* ctx = nullptr);
    /// MSE over the whole data set (fixed chunks summed in order: identical for any threads).
    double mse(const TrainingData& data, int threads = 1) const;

protected:
    TrainableModel(int d, int dOut) : m_d(d), m_dOut(dOut) {}
    /// Declares a block (in the constructor, before allocateParameters()); returns its offset.
    Index addBlock(const std::string& name, Index rows, Index cols);
    /// Sizes the flat vector after every block was declared (zero-filled).
    void allocateParameters();
    /// Rough multiply-adds of one sample's forward+backward pass with n tokens (for deciding
    /// whether a step is worth running on several threads; never changes results).
    virtual double workPerSample(Index n) const = 0;

    Eigen::Map<const Mat> view(const Block& b) const {
        return Eigen::Map<const Mat>(m_theta.data() + b.offset, b.rows, b.cols);
    }
    Eigen::Map<Mat> view(const Block& b) {
        return Eigen::Map<Mat>(m_theta.data() + b.offset, b.rows, b.cols);
    }
    static Eigen::Map<Mat> gradView(double* grad, const Block& b) {
        return Eigen::Map<Mat>(grad + b.offset, b.rows, b.cols);
    }

    int m_d, m_dOut;
    Vec m_theta;
    std::vector<Block> m_blocks;

private:
    std::vector<std::unique_ptr<Workspace>> m_stepWs;
    std::vector<Vec> m_chunkGrad;
    std::vector<double> m_chunkLoss;
};

/// Creates the (randomly initialised, Rng(solver.seed, Stream::TrainInit)) model of a
/// trainer configuration for prompts of dimension d and outputs of dimension dOut.
/// Throws std::invalid_argument for SolverKind::Poly or invalid sizes.
[[nodiscard]] std::unique_ptr<TrainableModel> makeModel(const SolverConfig& solver, int d,
                                                        int dOut);

} // namespace mhla::training
