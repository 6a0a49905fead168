#pragma once
// The synthetic tasks of MATH.md §7. A task is a deterministic function of (seed, stream,
// index): sample(Stream::Train, 17) is the same on every thread and every run.
#include "core/algebra/model.h"
#include "core/base/rng.h"
#include "core/experiment/config.h"
#include <memory>
#include <vector>

namespace mhla {

struct Sample {
    Mat Z; ///< d x n prompt, query token last
    Vec y; ///< d_out label
    /// vech(S(Z)) as promptVech writes it, when the task formed S on the way to y (the tasks
    /// whose label is the teacher's output); else empty. Saves the features forming S again.
    std::vector<double> vech;
};

/// vech(S(Z)) of a drawn sample: the one its task formed (Sample::vech), else promptVech of Z
/// written to `scratch` (pairCount(d) doubles), which is then returned.
[[nodiscard]] const double* sampleVech(const Sample& s, double* scratch);

class Task {
public:
    virtual ~Task() = default;
    int d() const { return m_d; }
    int dOut() const { return m_dOut; }
    /// Tokens per prompt n (query included).
    int tokens() const { return m_n; }
    /// The ground-truth heads (one head for associative memory and automaton).
    const Heads& teacher() const { return m_teacher; }
    /// Folded teacher coefficients P*.
    const Mat& teacherP() const { return m_teacherP; }
    /// False for data without a teacher (the dataset task): teacher() and teacherP() are empty
    /// and every number that needs P* (distances, ood_rel_mse) is absent.
    bool hasTeacher() const { return m_teacher.count() > 0; }
    /// False when the task has no validation stream (the dataset task): val_mse is absent.
    virtual bool hasValidation() const { return true; }
    /// False for prompts without targets (the dataset task without task.targets): the run
    /// certifies and fits nothing. Such a task still has d_out = 1, every y = 0, so that no
    /// matrix of the accumulation has zero columns.
    virtual bool hasTargets() const { return true; }
    /// A sample of the task distribution (label includes noise where the task has noise).
    virtual Sample sample(Stream stream, long long index) const = 0;
    /// The same sample written into `out`, reusing its storage. The tasks on the exact solver's
    /// hot path (random MHLA, associative memory) override drawInto so that, once `out` has its
    /// sizes, drawing a sample allocates nothing. out.vech is cleared first, so it is never
    /// another prompt's.
    void sampleInto(Stream stream, long long index, Sample& out) const {
        out.vech.clear();
        drawInto(stream, index, out);
    }
    /// The generator of the task's draws (task.rng).
    RngKind rngKind() const { return m_rng; }
    /// The generator of sample `index` of a stream, of the task's kind.
    Rng rng(std::uint64_t stream, long long index = 0) const {
        return Rng(static_cast<std::uint64_t>(m_seed), stream, static_cast<std::uint64_t>(index),
                   m_rng);
    }
    Rng rng(Stream stream, long long index = 0) const {
        return rng(static_cast<std::uint64_t>(stream), index);
    }
    /// A generic prompt: i.i.d. N(0,1) entries, the task's d and n (MATH.md §6).
    Mat genericPrompt(long long index) const;
    /// genericPrompt(index) into Z, reusing its storage.
    void genericPromptInto(long long index, Mat& Z) const;

protected:
    /// The seed and the generator are cfg's.
    Task(const TaskConfig& cfg, TaskDims dims);
    /// sampleInto's draw (out.vech arrives empty).
    virtual void drawInto(Stream stream, long long index, Sample& out) const {
        out = sample(stream, index);
    }
    void setTeacher(Heads h);
    long long m_seed;
    RngKind m_rng;
    int m_d, m_dOut, m_n;
    Heads m_teacher;
    Mat m_teacherP;
};

/// One entry of the task registry: everything the rest of the program needs to know about a
/// task kind. Adding a task kind = its class, its keys in core/experiment/config.cpp's key table
/// (with their applicability), its dimensions in taskDims() there, and one entry here.
struct TaskKindInfo {
    TaskKind kind;
    std::unique_ptr<Task> (*make)(const TaskConfig&);
};

/// The registry, in TaskKind order.
[[nodiscard]] const std::vector<TaskKindInfo>& taskRegistry();
/// The registry entry of a task kind.
[[nodiscard]] const TaskKindInfo& taskKindInfo(TaskKind kind);

/// Creates the task of a (validated) configuration.
[[nodiscard]] std::unique_ptr<Task> makeTask(const TaskConfig& cfg);

// ---- Automaton (MATH.md §7) ------------------------------------------------------------------

/// A random DFA: next[q * k + a] = delta(q, a).
struct Dfa {
    int states = 0, alphabet = 0;
    std::vector<int> next;
    int delta(int q, int a) const { return next[static_cast<size_t>(q * alphabet + a)]; }
};

/// Codes of one prompt: keys (s*k columns of length s*k) and values (s columns of length s).
struct AutomatonCodes {
    Mat keys;   ///< key dim x (s*k), column q*k+a is key(q,a)
    Mat values; ///< s x s, column j is val(j)
};

class AutomatonTask : public Task {
public:
    explicit AutomatonTask(const TaskConfig& cfg);
    Sample sample(Stream stream, long long index) const override;
    int keyDim() const { return m_cfg.states * m_cfg.alphabet; }
    int valueDim() const { return m_cfg.states; }
    Dfa randomDfa(Rng& rng) const;
    AutomatonCodes randomCodes(Rng& rng) const;
    /// The prompt listing the pairs `order` of the table of `dfa` (in that order) and then
    /// querying (q, a) with the filler query_filler * g.
    Mat tablePrompt(const Dfa& dfa, const AutomatonCodes& codes, const std::vector<int>& order,
                    int q, int a, const Vec& g) const;
    const TaskConfig& config() const { return m_cfg; }

private:
    TaskConfig m_cfg;
};

/// Execution of words on fresh DFAs (MATH.md §7): accuracy of a model given by its folded
/// coefficients and of the teacher.
struct ExecutionResult {
    double stepAccuracy = 0, wordAccuracy = 0;
    double teacherStepAccuracy = 0, teacherWordAccuracy = 0;
    int words = 0, wordLength = 0;
    /// A word for display (the first one that visits the most distinct states, so that it
    /// shows the execution): table, letters, true and predicted state traces.
    Dfa exampleDfa;
    std::vector<int> exampleWord, exampleTrueStates, examplePredicted, exampleTeacherPredicted;
};
[[nodiscard]] ExecutionResult executeWords(const AutomatonTask& task, const Mat& P, int words,
                                           long long seed, const RunContext& ctx = {});

} // namespace mhla
