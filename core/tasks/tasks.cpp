#include "core/tasks/tasks.h"
#include "core/algebra/features.h"
#include "core/base/parallel.h"
#include "core/tasks/causal.h"
#include "core/tasks/datasettask.h"
#include <algorithm>
#include <cmath>
#include <numeric>

namespace mhla {

const double* sampleVech(const Sample& s, double* scratch) {
    if (s.vech.size() == static_cast<size_t>(pairCount(static_cast<int>(s.Z.rows()))))
        return s.vech.data();
    promptVech(s.Z, scratch);
    return scratch;
}

void Task::setTeacher(Heads h) {
    m_teacher = std::move(h);
    m_teacherP = foldHeads(m_teacher, m_d, m_dOut);
}

Mat Task::genericPrompt(long long index) const {
    Mat Z;
    genericPromptInto(index, Z);
    return Z;
}

void Task::genericPromptInto(long long index, Mat& Z) const {
    Rng rng = this->rng(Stream::Ood, index);
    if (Z.rows() != m_d || Z.cols() != m_n) Z.resize(m_d, m_n);
    rng.normalFill(Z, 1.0);
}

namespace {

/// Fisher-Yates permutation of [0, n).
std::vector<int> permutation(int n, Rng& rng) {
    std::vector<int> p(static_cast<size_t>(n));
    std::iota(p.begin(), p.end(), 0);
    for (int i = n - 1; i > 0; --i)
        std::swap(p[static_cast<size_t>(i)], p[rng.below(static_cast<std::uint64_t>(i) + 1)]);
    return p;
}

/// Columns of i.i.d. normals scaled to unit length, drawn into m (kept at its size).
void unitColumnsInto(Mat& m, Rng& rng) {
    rng.normalFill(m);
    for (Index j = 0; j < m.cols(); ++j) {
        double sq = 0;
        for (Index i = 0; i < m.rows(); ++i) sq += m(i, j) * m(i, j);
        const double nrm = std::sqrt(sq);
        if (nrm > 0)
            for (Index i = 0; i < m.rows(); ++i) m(i, j) /= nrm;
    }
}

Mat unitColumns(Index rows, Index cols, Rng& rng) {
    Mat m(rows, cols);
    unitColumnsInto(m, rng);
    return m;
}

/// The one-head "copy the value whose key matches the query" teacher of MATH.md §7:
/// V* = [0 | I] (value block), Q* = [[I, 0], [0, 0]] (key block).
Heads lookupTeacher(int keyDim, int valueDim) {
    const int d = keyDim + valueDim;
    Heads h;
    Mat V = Mat::Zero(valueDim, d);
    V.rightCols(valueDim).setIdentity();
    Mat Q = Mat::Zero(d, d);
    Q.topLeftCorner(keyDim, keyDim).setIdentity();
    h.V.push_back(V);
    h.Q.push_back(Q);
    return h;
}

class RandomMhlaTask : public Task {
public:
    explicit RandomMhlaTask(const TaskConfig& cfg)
        : Task(cfg, taskDims(cfg)), m_noise(cfg.noise),
          m_tokenSd(cfg.tokenScale == TokenScale::Unit
                        ? 1.0
                        : 1.0 / std::sqrt(static_cast<double>(cfg.tokens))) {
        Rng rng = this->rng(Stream::Teacher);
        Heads h;
        const double sd = 1.0 / std::sqrt(static_cast<double>(cfg.d));
        for (int k = 0; k < cfg.teacherHeads; ++k) {
            h.V.push_back(rng.normalMatrix(cfg.dOut, cfg.d, sd));
            h.Q.push_back(rng.normalMatrix(cfg.d, cfg.d, sd));
        }
        setTeacher(std::move(h));
    }
    Sample sample(Stream stream, long long index) const override {
        Sample s;
        sampleInto(stream, index, s);
        return s;
    }

protected:
    void drawInto(Stream stream, long long index, Sample& s) const override {
        Rng rng = this->rng(stream, index);
        if (s.Z.rows() != m_d || s.Z.cols() != m_n) s.Z.resize(m_d, m_n);
        rng.normalFill(s.Z, m_tokenSd);
        mhlaOutputInto(m_teacher, s.Z, s.y, &s.vech);
        if (m_noise > 0)
            for (Index i = 0; i < s.y.size(); ++i) s.y(i) += m_noise * rng.normal();
    }

private:
    double m_noise;
    double m_tokenSd; ///< standard deviation of the prompt entries (task.token_scale)
};

class AssociativeMemoryTask : public Task {
public:
    explicit AssociativeMemoryTask(const TaskConfig& cfg)
        : Task(cfg, taskDims(cfg)), m_m(cfg.pairs), m_p(cfg.orthogonalProb),
          m_sampler(cfg.orthogonalSampler) {
        setTeacher(lookupTeacher(m_m, m_m));
    }
    Sample sample(Stream stream, long long index) const override {
        Sample s;
        sampleInto(stream, index, s);
        return s;
    }

protected:
    void drawInto(Stream stream, long long index, Sample& s) const override {
        Rng rng = this->rng(stream, index);
        const bool orthogonal = rng.uniform() < m_p;
        // Per-thread scratch for the key and value blocks (m x m each).
        thread_local Mat K, U;
        if (orthogonal) {
            K = orthogonalMatrix(rng);
            U = orthogonalMatrix(rng);
        } else {
            if (K.rows() != m_m || K.cols() != m_m) K.resize(m_m, m_m);
            if (U.rows() != m_m || U.cols() != m_m) U.resize(m_m, m_m);
            unitColumnsInto(K, rng);
            unitColumnsInto(U, rng);
        }
        const Index j = static_cast<Index>(rng.below(static_cast<std::uint64_t>(m_m)));
        if (s.Z.rows() != m_d || s.Z.cols() != m_n) s.Z.resize(m_d, m_n);
        s.Z.topLeftCorner(m_m, m_m) = K;
        s.Z.bottomLeftCorner(m_m, m_m) = U;
        s.Z.col(m_m).head(m_m) = K.col(j);
        for (Index i = 0; i < m_m; ++i) s.Z(m_m + i, m_m) = rng.normal();
        mhlaOutputInto(m_teacher, s.Z, s.y, &s.vech);
    }

private:
    Mat orthogonalMatrix(Rng& rng) const {
        if (m_sampler == OrthogonalSampler::Haar) return rng.haarOrthogonal(m_m);
        // The authors' sampler: torch.qr of a Gaussian, no sign fix. Householder QR (as
        // LAPACK): for m = 2 one reflector, so det Q = -1 always.
        const Mat g = rng.normalMatrix(m_m, m_m);
        Eigen::HouseholderQR<Mat> qr(g);
        return qr.householderQ() * Mat::Identity(m_m, m_m);
    }

    int m_m;
    double m_p;
    OrthogonalSampler m_sampler;
};

} // namespace

AutomatonTask::AutomatonTask(const TaskConfig& cfg) : Task(cfg, taskDims(cfg)), m_cfg(cfg) {
    setTeacher(lookupTeacher(keyDim(), valueDim()));
}

Dfa AutomatonTask::randomDfa(Rng& rng) const {
    Dfa dfa;
    dfa.states = m_cfg.states;
    dfa.alphabet = m_cfg.alphabet;
    dfa.next.resize(static_cast<size_t>(dfa.states * dfa.alphabet));
    for (auto& t : dfa.next)
        t = static_cast<int>(rng.below(static_cast<std::uint64_t>(dfa.states)));
    return dfa;
}

AutomatonCodes AutomatonTask::randomCodes(Rng& rng) const {
    AutomatonCodes codes;
    switch (m_cfg.embedding) {
    case Embedding::OneHot:
        codes.keys = Mat::Identity(keyDim(), keyDim());
        codes.values = Mat::Identity(valueDim(), valueDim());
        break;
    case Embedding::Orthogonal:
        codes.keys = rng.haarOrthogonal(keyDim());
        codes.values = rng.haarOrthogonal(valueDim());
        break;
    case Embedding::Gaussian:
        codes.keys = unitColumns(keyDim(), keyDim(), rng);
        codes.values = unitColumns(valueDim(), valueDim(), rng);
        break;
    }
    return codes;
}

Mat AutomatonTask::tablePrompt(const Dfa& dfa, const AutomatonCodes& codes,
                               const std::vector<int>& order, int q, int a, const Vec& g) const {
    const int kd = keyDim(), vd = valueDim();
    Mat Z(m_d, static_cast<Index>(order.size()) + 1);
    for (size_t t = 0; t < order.size(); ++t) {
        const int pair = order[t];
        const int state = pair / dfa.alphabet, letter = pair % dfa.alphabet;
        Z.col(static_cast<Index>(t)).head(kd) = codes.keys.col(pair);
        Z.col(static_cast<Index>(t)).tail(vd) = codes.values.col(dfa.delta(state, letter));
    }
    Z.col(Z.cols() - 1).head(kd) = codes.keys.col(q * dfa.alphabet + a);
    Z.col(Z.cols() - 1).tail(vd) = m_cfg.queryFiller * g;
    return Z;
}

Sample AutomatonTask::sample(Stream stream, long long index) const {
    Rng rng = this->rng(stream, index);
    const Dfa dfa = randomDfa(rng);
    const AutomatonCodes codes = randomCodes(rng);
    std::vector<int> order = permutation(m_cfg.states * m_cfg.alphabet, rng);
    order.resize(static_cast<size_t>(m_n - 1));
    const int pair = order[rng.below(order.size())];
    Vec g(valueDim());
    for (Index i = 0; i < g.size(); ++i) g(i) = rng.normal();
    Sample s;
    s.Z = tablePrompt(dfa, codes, order, pair / m_cfg.alphabet, pair % m_cfg.alphabet, g);
    s.y = mhlaOutput(m_teacher, s.Z);
    return s;
}

namespace {
int decodeState(const Vec& y, const Mat& values) {
    Index best = 0;
    (values.transpose() * y).maxCoeff(&best);
    return static_cast<int>(best);
}
} // namespace

namespace {

struct WordOutcome {
    int modelSteps = 0, teacherSteps = 0;
    bool modelWord = true, teacherWord = true;
    int statesVisited = 0; ///< distinct true states after the start
};
struct WordTrace {
    Dfa dfa;
    std::vector<int> letters, trueStates, predicted, teacherPredicted;
};

/// Word w executed by the model P and by the teacher, step by step; the same for a given
/// (seed, w) whatever the thread count.
WordOutcome runWord(const AutomatonTask& task, const Mat& P, long long seed, long long w,
                    WordTrace& wt) {
    const TaskConfig& cfg = task.config();
    const int L = cfg.wordLength;
    Rng rng(static_cast<std::uint64_t>(seed), Stream::Execution, static_cast<std::uint64_t>(w),
            task.rngKind());
    wt.dfa = task.randomDfa(rng);
    const Dfa& dfa = wt.dfa;
    const AutomatonCodes codes = task.randomCodes(rng);
    const std::vector<int> order = permutation(cfg.states * cfg.alphabet, rng);
    int model = 0, teacher = 0, truth = 0;
    WordOutcome o;
    Vec psi(featureDim(task.d()));
    std::vector<char> seen(static_cast<size_t>(std::max(cfg.states, 1)), 0);
    for (int step = 0; step < L; ++step) {
        const int a = static_cast<int>(rng.below(static_cast<std::uint64_t>(cfg.alphabet)));
        Vec g(task.valueDim());
        for (Index i = 0; i < g.size(); ++i) g(i) = rng.normal();
        const Mat Zm = task.tablePrompt(dfa, codes, order, model, a, g);
        featureVectorInto(Zm, psi.data());
        const int nextModel = decodeState(P * psi, codes.values);
        if (nextModel == dfa.delta(model, a)) ++o.modelSteps;
        else o.modelWord = false;
        const Mat Zt = task.tablePrompt(dfa, codes, order, teacher, a, g);
        const int nextTeacher = decodeState(mhlaOutput(task.teacher(), Zt), codes.values);
        if (nextTeacher == dfa.delta(teacher, a)) ++o.teacherSteps;
        else o.teacherWord = false;
        truth = dfa.delta(truth, a);
        model = nextModel;
        teacher = nextTeacher;
        if (truth >= 0 && truth < static_cast<int>(seen.size()) && !seen[truth]) {
            seen[truth] = 1;
            ++o.statesVisited;
        }
        wt.letters.push_back(a);
        wt.trueStates.push_back(truth);
        wt.predicted.push_back(model);
        wt.teacherPredicted.push_back(teacher);
    }
    return o;
}

} // namespace

ExecutionResult executeWords(const AutomatonTask& task, const Mat& P, int words, long long seed,
                             const RunContext& ctx) {
    ExecutionResult r;
    const TaskConfig& cfg = task.config();
    r.words = words;
    r.wordLength = cfg.wordLength;
    const int L = cfg.wordLength;
    std::vector<WordOutcome> outcomes(static_cast<size_t>(words));
    parallelFor(words, ctx.threads, [&](long long w) {
        ctx.checkCancel();
        WordTrace wt;
        outcomes[static_cast<size_t>(w)] = runWord(task, P, seed, w, wt);
    });
    // The example shown is the first word that visits the most states (a word that falls into
    // an absorbing state at once shows nothing of the execution); it is run again to trace it.
    size_t example = 0;
    for (size_t w = 1; w < outcomes.size(); ++w)
        if (outcomes[w].statesVisited > outcomes[example].statesVisited) example = w;
    WordTrace ex;
    if (words > 0) runWord(task, P, seed, static_cast<long long>(example), ex);
    const Dfa& exDfa = ex.dfa;
    const std::vector<int>&exWord = ex.letters, &exTrue = ex.trueStates, &exPred = ex.predicted,
          &exTeacher = ex.teacherPredicted;
    long long ms = 0, ts = 0, mw = 0, tw = 0;
    for (const auto& o : outcomes) {
        ms += o.modelSteps;
        ts += o.teacherSteps;
        mw += o.modelWord;
        tw += o.teacherWord;
    }
    const double steps = static_cast<double>(words) * L;
    r.stepAccuracy = steps > 0 ? ms / steps : 0;
    r.teacherStepAccuracy = steps > 0 ? ts / steps : 0;
    r.wordAccuracy = words > 0 ? static_cast<double>(mw) / words : 0;
    r.teacherWordAccuracy = words > 0 ? static_cast<double>(tw) / words : 0;
    r.exampleDfa = exDfa;
    r.exampleWord = exWord;
    r.exampleTrueStates = exTrue;
    r.examplePredicted = exPred;
    r.exampleTeacherPredicted = exTeacher;
    return r;
}

namespace {
template <typename T> std::unique_ptr<Task> make(const TaskConfig& cfg) {
    return std::make_unique<T>(cfg);
}
} // namespace

const std::vector<TaskKindInfo>& taskRegistry() {
    static const std::vector<TaskKindInfo> registry{
        {TaskKind::RandomMhla, &make<RandomMhlaTask>},
        {TaskKind::AssociativeMemory, &make<AssociativeMemoryTask>},
        {TaskKind::Automaton, &make<AutomatonTask>},
        {TaskKind::Dataset, &make<DatasetTask>},
    };
    return registry;
}

const TaskKindInfo& taskKindInfo(TaskKind kind) {
    for (const TaskKindInfo& info : taskRegistry())
        if (info.kind == kind) return info;
    throw std::logic_error("task kind missing from the registry");
}

std::unique_ptr<Task> makeTask(const TaskConfig& cfg) {
    // task.causal applies to random_mhla only (its key's applicability in
    // core/experiment/config.cpp).
    if (cfg.causal && cfg.kind == TaskKind::RandomMhla)
        return makeCausalTask(taskKindInfo(cfg.kind).make(cfg), cfg);
    return taskKindInfo(cfg.kind).make(cfg);
}

Task::Task(const TaskConfig& cfg, TaskDims dims)
    : m_seed(cfg.seed), m_rng(cfg.rng), m_d(dims.d), m_dOut(dims.dOut), m_n(dims.n) {}

} // namespace mhla
