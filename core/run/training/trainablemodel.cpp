#include "core/run/training/trainablemodel.h"
#include "core/base/parallel.h"
#include "core/run/training/mhlamodel.h"
#include "core/run/training/multilayermodel.h"
#include "core/run/training/softmaxmodel.h"
#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace mhla::training {

TrainingData prepareTrainingData(const Dataset& data, bool moments, int threads) {
    TrainingData t;
    t.Z = &data.Z;
    t.Y = &data.Y;
    if (static_cast<long long>(data.Z.size()) != data.Y.cols())
        throw std::invalid_argument("prepareTrainingData: prompts and labels differ in count");
    if (!moments || data.Z.empty()) return t;
    const Index d = data.Z.front().rows();
    const long long N = data.Y.cols();
    t.S.resize(d * d, N);
    t.Zq.resize(d, N);
    constexpr long long block = 256;
    parallelFor((N + block - 1) / block, threads, [&](long long b) {
        const long long end = std::min(N, (b + 1) * block);
        for (long long s = b * block; s < end; ++s) {
            const Mat& Z = data.Z[static_cast<size_t>(s)];
            Eigen::Map<Mat>(t.S.col(s).data(), d, d).noalias() = Z * Z.transpose();
            t.Zq.col(s) = Z.col(Z.cols() - 1);
        }
    });
    return t;
}

void TrainableModel::setParameters(const Vec& theta) {
    if (theta.size() != m_theta.size())
        throw std::invalid_argument("setParameters: expected " + std::to_string(m_theta.size()) +
                                    " parameters, got " + std::to_string(theta.size()));
    m_theta = theta;
}

const TrainableModel::Block& TrainableModel::block(const std::string& name) const {
    for (const auto& b : m_blocks)
        if (b.name == name) return b;
    throw std::out_of_range("no parameter block " + name);
}

Index TrainableModel::addBlock(const std::string& name, Index rows, Index cols) {
    const Index offset = m_blocks.empty() ? 0 : m_blocks.back().offset + m_blocks.back().size();
    m_blocks.push_back(Block{name, offset, rows, cols});
    return offset;
}

void TrainableModel::allocateParameters() {
    const Index n = m_blocks.empty() ? 0 : m_blocks.back().offset + m_blocks.back().size();
    m_theta = Vec::Zero(n);
}

Vec TrainableModel::predict(const Mat& Z) const {
    auto ws = makeWorkspace();
    Vec out;
    predict(Z, out, *ws);
    return out;
}

double TrainableModel::lossAndGradient(const TrainingData& data, const long long* idx, int count,
                                       Vec* grad, int threads, const RunContext* ctx) {
    if (count <= 0) throw std::invalid_argument("lossAndGradient: empty minibatch");
    const int chunks = (count + kChunk - 1) / kChunk;
    // The per-chunk buffers of a full-batch step (2^20 samples: 65536 chunks) take seconds to
    // make the first time: poll the cancel token while making them too, so such a step stops
    // within a few hundred buffers, not after all of them (issue 26 item 11).
    auto poll = [ctx](size_t k) {
        if (ctx && k % 256 == 0) ctx->checkCancel();
    };
    while (static_cast<int>(m_stepWs.size()) < chunks) {
        poll(m_stepWs.size());
        m_stepWs.push_back(makeWorkspace());
    }
    if (static_cast<int>(m_chunkLoss.size()) < chunks)
        m_chunkLoss.resize(static_cast<size_t>(chunks));
    if (grad) {
        while (static_cast<int>(m_chunkGrad.size()) < chunks) {
            poll(m_chunkGrad.size());
            m_chunkGrad.emplace_back(m_theta.size());
        }
        for (int c = 0; c < chunks; ++c) {
            poll(static_cast<size_t>(c));
            m_chunkGrad[static_cast<size_t>(c)].setZero();
        }
    }
    auto runChunk = [&](long long c) {
        if (ctx) ctx->checkCancel();
        const int begin = static_cast<int>(c) * kChunk;
        const int n = std::min(kChunk, count - begin);
        double* g = grad ? m_chunkGrad[static_cast<size_t>(c)].data() : nullptr;
        m_chunkLoss[static_cast<size_t>(c)] =
            sumSquaredError(data, idx + begin, n, g, *m_stepWs[static_cast<size_t>(c)]);
    };
    const Index tokens = data.Z && !data.Z->empty() ? data.Z->front().cols() : 1;
    const double work = workPerSample(usesMoments() ? 1 : tokens) * count;
    if (chunks > 1 && work > 2e6 && resolveThreads(threads) > 1)
        parallelFor(chunks, threads, runChunk);
    else
        for (int c = 0; c < chunks; ++c) runChunk(c);

    const double scale = 1.0 / (static_cast<double>(count) * m_dOut);
    double sum = 0;
    for (int c = 0; c < chunks; ++c) sum += m_chunkLoss[static_cast<size_t>(c)];
    if (grad) {
        if (grad->size() != m_theta.size()) grad->resize(m_theta.size());
        *grad = m_chunkGrad[0];
        for (int c = 1; c < chunks; ++c) *grad += m_chunkGrad[static_cast<size_t>(c)];
        *grad *= scale;
    }
    return sum * scale;
}

double TrainableModel::mse(const TrainingData& data, int threads) const {
    const long long N = data.size();
    if (N == 0) return 0;
    const double sum = blockedSum(N, 256, threads, [&](long long begin, long long end) {
        auto ws = makeWorkspace();
        std::vector<long long> idx(static_cast<size_t>(end - begin));
        std::iota(idx.begin(), idx.end(), begin);
        return sumSquaredError(data, idx.data(), static_cast<int>(idx.size()), nullptr, *ws);
    });
    return sum / (static_cast<double>(N) * m_dOut);
}

std::unique_ptr<TrainableModel> makeModel(const SolverConfig& solver, int d, int dOut) {
    if (d < 1 || dOut < 1) throw std::invalid_argument("makeModel: d and d_out must be >= 1");
    if (solver.heads < 1) throw std::invalid_argument("makeModel: trainers need heads >= 1");
    Rng rng(static_cast<std::uint64_t>(solver.seed), Stream::TrainInit);
    switch (solver.kind) {
    case SolverKind::Mhla: return std::make_unique<MhlaModel>(d, dOut, solver.heads, rng);
    case SolverKind::Multilayer:
        if (solver.layers < 1) throw std::invalid_argument("makeModel: layers must be >= 1");
        return std::make_unique<MultilayerModel>(d, dOut, solver.heads, solver.layers, rng);
    case SolverKind::Softmax: return std::make_unique<SoftmaxModel>(d, dOut, solver.heads, rng);
    case SolverKind::Poly: break;
    }
    throw std::invalid_argument("makeModel: the poly solver is not a trainer");
}

} // namespace mhla::training
