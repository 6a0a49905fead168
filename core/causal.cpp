#include "core/causal.h"
#include "core/features.h"

namespace mhla {

Mat causalFeatures(const Mat& Z) {
    const Index d = Z.rows(), n = Z.cols();
    Mat out(featureDim(static_cast<int>(d)), n);
    Mat S = Mat::Zero(d, d);
    for (Index t = 0; t < n; ++t) {
        S.noalias() += Z.col(t) * Z.col(t).transpose();
        Index k = 0;
        for (Index a = 0; a < d; ++a)
            for (Index b = a; b < d; ++b)
                for (Index c = 0; c < d; ++c) out(k++, t) = S(a, b) * Z(c, t);
    }
    return out;
}

namespace {

/// Label noise of the causal rows: its own random stream, apart from every stream of the base
/// task (whose per-prompt noise is discarded with its label).
constexpr std::uint64_t kCausalNoiseStream = 0x100;

class CausalPrefixTask : public Task {
public:
    CausalPrefixTask(std::unique_ptr<Task> base, const TaskConfig& cfg)
        : Task(cfg.seed, TaskDims{base->d(), base->tokens(), base->dOut()}),
          m_base(std::move(base)), m_noise(cfg.noise) {
        setTeacher(m_base->teacher());
    }
    Sample sample(Stream stream, long long index) const override {
        const long long prompt = index / m_n;
        const Index t = static_cast<Index>(index % m_n) + 1;
        Sample s;
        s.Z = m_base->sample(stream, prompt).Z.leftCols(t);
        s.y = mhlaOutput(m_teacher, s.Z);
        if (m_noise > 0) {
            Rng rng(static_cast<std::uint64_t>(m_seed),
                    kCausalNoiseStream + static_cast<std::uint64_t>(stream),
                    static_cast<std::uint64_t>(index));
            for (Index i = 0; i < s.y.size(); ++i) s.y(i) += m_noise * rng.normal();
        }
        return s;
    }

private:
    std::unique_ptr<Task> m_base;
    double m_noise;
};

} // namespace

std::unique_ptr<Task> makeCausalTask(std::unique_ptr<Task> base, const TaskConfig& cfg) {
    return std::make_unique<CausalPrefixTask>(std::move(base), cfg);
}

} // namespace mhla
