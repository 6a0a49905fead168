#include "core/tasks/causal.h"
#include "core/algebra/features.h"
#include <atomic>
#include <cstdint>

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
        : Task(cfg, TaskDims{base->d(), base->tokens(), base->dOut()}), m_base(std::move(base)),
          m_noise(cfg.noise), m_id(++s_nextId) {
        setTeacher(m_base->teacher());
    }
    Sample sample(Stream stream, long long index) const override {
        Sample s;
        sampleInto(stream, index, s);
        return s;
    }

protected:
    void drawInto(Stream stream, long long index, Sample& s) const override {
        const long long prompt = index / m_n;
        const Index t = static_cast<Index>(index % m_n) + 1;
        // The rows of one prompt are consecutive indices, which a thread draws in a row: keep
        // the last base prompt per thread instead of drawing it again for each of its T
        // positions. The key names this task object by a unique id (not its address, which a
        // later task may reuse), the stream and the prompt.
        struct LastPrompt {
            std::uint64_t owner = 0;
            Stream stream = Stream::Train;
            long long prompt = -1;
            Sample base;
        };
        thread_local LastPrompt last;
        if (last.owner != m_id || last.stream != stream || last.prompt != prompt) {
            m_base->sampleInto(stream, prompt, last.base);
            last.owner = m_id;
            last.stream = stream;
            last.prompt = prompt;
        }
        s.Z = last.base.Z.leftCols(t);
        mhlaOutputInto(m_teacher, s.Z, s.y, &s.vech);
        if (m_noise > 0) {
            Rng rng = this->rng(kCausalNoiseStream + static_cast<std::uint64_t>(stream), index);
            for (Index i = 0; i < s.y.size(); ++i) s.y(i) += m_noise * rng.normal();
        }
    }

private:
    static inline std::atomic<std::uint64_t> s_nextId{0};
    std::unique_ptr<Task> m_base;
    double m_noise;
    std::uint64_t m_id; ///< unique per object, never 0: the key of the per-thread prompt cache
};

} // namespace

std::unique_ptr<Task> makeCausalTask(std::unique_ptr<Task> base, const TaskConfig& cfg) {
    return std::make_unique<CausalPrefixTask>(std::move(base), cfg);
}

} // namespace mhla
