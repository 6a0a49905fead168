// The experiment key table: one row per key of an experiment file (section, key, type,
// range, default, help, tooltip, and which tasks and solvers read it), built once by
// experimentKeys(). The GUI form, the CLI help, parsing and serialising all read this table.
#include "core/base/text.h"
#include "core/experiment/config.h"
#include "core/experiment/keytabledetail.h"
#include <QStringList>
#include <functional>

namespace mhla {

namespace {

using detail::kMaxExactInt;
using T = KeyInfo::Type;
struct Accessor {
    std::function<double(const ExperimentConfig&)> get;
    std::function<void(ExperimentConfig&, double)> set;
};
struct TextAccessor {
    std::function<QString(const ExperimentConfig&)> get;
    std::function<void(ExperimentConfig&, const QString&)> set;
};

constexpr unsigned bit(TaskKind k) { return 1u << static_cast<int>(k); }
constexpr unsigned bit(SolverKind k) { return 1u << static_cast<int>(k); }
constexpr unsigned bit(OptimizerKind k) { return 1u << static_cast<int>(k); }
constexpr unsigned kRandom = bit(TaskKind::RandomMhla), kAssoc = bit(TaskKind::AssociativeMemory),
                   kAuto = bit(TaskKind::Automaton), kData = bit(TaskKind::Dataset);
constexpr unsigned kPoly = bit(SolverKind::Poly), kTrainers = Applicability::kTrainers;

/// Builds one row of the key table.
class K {
public:
    K(const char* section, const char* key, T type, Accessor a) {
        m_k.section = q(section);
        m_k.key = q(key);
        m_k.type = type;
        m_k.min = 0;
        m_k.max = type == T::Bool ? 1 : 0;
        m_k.get = std::move(a.get);
        m_k.set = std::move(a.set);
    }
    /// A Path key (a string value).
    K(const char* section, const char* key, TextAccessor a) : K(section, key, T::Path, {}) {
        m_k.getText = std::move(a.get);
        m_k.setText = std::move(a.set);
        m_k.get = [](const ExperimentConfig&) { return 0.0; };
        m_k.set = [](ExperimentConfig&, double) {};
    }
    K& range(double lo, double hi, bool loOpen = false, bool hiOpen = false) {
        m_k.min = lo, m_k.max = hi, m_k.minOpen = loOpen, m_k.maxOpen = hiOpen;
        return *this;
    }
    K& choices(QStringList c) {
        m_k.choices = std::move(c);
        return *this;
    }
    K& tasks(unsigned t) {
        m_k.applies.tasks = t;
        return *this;
    }
    K& solvers(unsigned s) {
        m_k.applies.solvers = s;
        return *this;
    }
    K& optimizers(unsigned o) {
        m_k.applies.optimizers = o;
        return *this;
    }
    K& exactOnly() {
        m_k.applies.exactOnly = true;
        return *this;
    }
    /// label and tooltip: UTF-16 literals (symbols, sub/superscripts); help: plain ASCII.
    K& text(const char16_t* label, const char* help, const char16_t* tooltip) {
        m_k.label = QString::fromUtf16(label);
        m_k.help = q(help);
        m_k.tooltip = QString::fromUtf16(tooltip);
        return *this;
    }
    /// The same with help and tooltip built at run time (e.g. naming a constant's value).
    K& text(const char16_t* label, const QString& help, const QString& tooltip) {
        m_k.label = QString::fromUtf16(label);
        m_k.help = help;
        m_k.tooltip = tooltip;
        return *this;
    }
    operator KeyInfo() { return std::move(m_k); }

private:
    KeyInfo m_k;
};

/// Getter and setter of one field of one section, as doubles (choices as their index).
template <typename S, typename F> Accessor field(S ExperimentConfig::*section, F S::*member) {
    return {[=](const ExperimentConfig& c) { return static_cast<double>(c.*section.*member); },
            [=](ExperimentConfig& c, double v) {
                (c.*section).*member = static_cast<F>(static_cast<long long>(v));
            }};
}
template <typename S> Accessor field(S ExperimentConfig::*section, double S::*member) {
    return {[=](const ExperimentConfig& c) { return c.*section.*member; },
            [=](ExperimentConfig& c, double v) { (c.*section).*member = v; }};
}
TextAccessor taskText(QString TaskConfig::*m) {
    return {[=](const ExperimentConfig& c) { return c.task.*m; },
            [=](ExperimentConfig& c, const QString& v) { c.task.*m = v; }};
}
template <typename F> Accessor taskField(F TaskConfig::*m) {
    return field(&ExperimentConfig::task, m);
}
template <typename F> Accessor solverField(F SolverConfig::*m) {
    return field(&ExperimentConfig::solver, m);
}
template <typename F> Accessor evalField(F EvalConfig::*m) {
    return field(&ExperimentConfig::eval, m);
}

} // namespace

namespace detail {

// One function on purpose: the table reads top to bottom as the file format does, one
// K(...) row per key, and splitting it would scatter the sections over helpers that each
// run once.
std::vector<KeyInfo> buildKeys() {
    const QStringList tasks{q("random_mhla"), q("associative_memory"), q("automaton"),
                            q("dataset")};
    const QStringList embeddings{q("onehot"), q("orthogonal"), q("gaussian")};
    const QStringList samplers{q("haar"), q("qr_unsigned")};
    const QStringList tokenScales{q("inverse_length"), q("unit")};
    const QStringList rngs{q("philox"), q("xoshiro_ziggurat")};
    const QStringList solvers{q("poly"), q("mhla"), q("multilayer"), q("softmax")};
    const QStringList optimizers{q("sgd"), q("adam")};
    const QStringList schedules{q("constant"), q("cosine")};
    const QStringList spectra{q("auto"), q("full"), q("none")};
    std::vector<KeyInfo> keys;
    auto add = [&keys](K& k) { keys.push_back(std::move(k)); };

    // ---- task
    add(K("task", "kind", T::Choice, taskField(&TaskConfig::kind))
            .choices(tasks)
            .text(
                u"Task",
                "Which task gives the prompts Z (d x n) and labels y: a synthetic one, or dataset "
                "(read from task.prompts and task.targets).",
                u"<b>Task</b>: which data the model learns from.<br>random_mhla: labels from a random "
                u"multi-head linear attention teacher.<br>associative_memory: recall the value stored "
                u"under a key.<br>automaton: look up a DFA's transition table given in the prompt.<br>"
                u"dataset: your own prompts and targets, read from .npy files."));
    add(K("task", "seed", T::Integer, taskField(&TaskConfig::seed))
            .range(0, kMaxExactInt)
            .text(
                u"Task seed",
                "Seed of the teacher and of every sample (sample i of a stream is a function of "
                "(seed, stream, i) only).",
                u"<b>Task seed</b>: seeds the teacher and every data stream (train, validation, OOD, "
                u"execution). Same seed ⇒ same data, bit for bit, for any thread count."));
    add(K("task", "rng", T::Choice, taskField(&TaskConfig::rng))
            .choices(rngs)
            .tasks(Applicability::kAllTasks & ~kData)
            .text(
                u"Random generator",
                "Generator of the task's draws (teacher, train, validation, OOD and execution "
                "streams): philox (default: Philox4x32-10, the counter-based generator of Random123, "
                "keyed by the seed, counter (draw, sample index, stream); normals by the Box-Muller "
                "transform, computed in SIMD lanes) or xoshiro_ziggurat (xoshiro256** seeded per "
                "(seed, stream, sample), normals by the ziggurat: the generator of every experiment "
                "written before this key existed). A file without task.rng reads as "
                "xoshiro_ziggurat, so that it reproduces bit for bit; new experiments and every file "
                "written now carry the key. The trainers' initialisation and shuffling do not "
                "depend on it.",
                u"<b>Random generator</b> of the task's data: <i>philox</i> (default: Philox4x32-10, "
                u"counter-based, normals by Box–Muller in SIMD lanes) or <i>xoshiro_ziggurat</i> "
                u"(xoshiro256** and the ziggurat, the generator of every experiment written before "
                u"this key existed; a file without the key reads as this one, so old results "
                u"reproduce bit for bit). Sample i of a stream is a function of (seed, stream, i) "
                u"under either."));
    add(K("task", "samples", T::Integer, taskField(&TaskConfig::samples))
            .range(1, 1e10)
            .tasks(Applicability::kAllTasks & ~kData)
            .text(
                u"Training samples N", "Training samples N (Lambda = (1/N) sum psi psi^T).",
                u"<b>N</b>: number of training prompts. Λ = (1/N) Σ<sub>s</sub> ψ(Z<sub>s</sub>)"
                u"ψ(Z<sub>s</sub>)ᵀ is accumulated from them. The certificate needs N ≥ D (the feature "
                u"dimension) at the very least."));
    add(K("task", "d", T::Integer, taskField(&TaskConfig::d))
            .range(1, 64)
            .tasks(kRandom)
            .text(
                u"Token dimension d", "Token dimension d (feature dimension D = d^2(d+1)/2).",
                u"<b>d</b>: dimension of each token z<sub>t</sub> ∈ ℝ<sup>d</sup>. Feature dimension "
                u"D = d²(d+1)/2 (d = 4 → 40, 8 → 288, 16 → 2176). Cost O(N D²) time, O(D²) memory."));
    add(K("task", "tokens", T::Integer, taskField(&TaskConfig::tokens))
            .range(1, 100000)
            .tasks(kRandom)
            .text(
                u"Tokens per prompt n", "Tokens per prompt n, query token included.",
                u"<b>n</b>: tokens per prompt, the query token z<sub>q</sub> = z<sub>n</sub> included. "
                u"Prompt entries are N(0, 1/n)."));
    add(K("task", "d_out", T::Integer, taskField(&TaskConfig::dOut))
            .range(1, 4096)
            .tasks(kRandom)
            .text(u"Output dimension d_out", "Output dimension d_out.",
                  u"<b>d_out</b>: dimension of the output f(Z) = Σ<sub>h</sub> V<sub>h</sub> S(Z) "
                  u"Q<sub>h</sub> z<sub>q</sub> ∈ ℝ<sup>d_out</sup>."));
    add(K("task", "teacher_heads", T::Integer, taskField(&TaskConfig::teacherHeads))
            .range(1, 4096)
            .tasks(kRandom)
            .text(
                u"Teacher heads H*",
                "Heads H* of the random teacher, entries of V*_h, Q*_h ~ N(0, 1/d).",
                u"<b>H*</b>: heads of the random teacher; V*<sub>h</sub>, Q*<sub>h</sub> have i.i.d. "
                u"N(0, 1/d) entries."));
    add(K("task", "noise", T::Real, taskField(&TaskConfig::noise))
            .range(0, 1e6)
            .tasks(kRandom)
            .text(
                u"Label noise σ",
                "Label noise sigma: y = f*(Z) + sigma eps, eps ~ N(0, I) (0 = realizable).",
                u"<b>σ</b>: labels y = f*(Z) + σε with ε ~ N(0, I). σ = 0 is realizable; σ &gt; 0 is "
                u"the agnostic setting."));
    add(K("task", "token_scale", T::Choice, taskField(&TaskConfig::tokenScale))
            .choices(tokenScales)
            .tasks(kRandom)
            .text(
                u"Token scale",
                "Variance of the prompt entries: inverse_length (N(0, 1/T), T = tokens per prompt; "
                "default, as MATH.md 7 and the paper's Sec 4.1) or unit (N(0, 1)).",
                u"<b>Token scale</b>: prompt entries are N(0, 1/T) with T the tokens per prompt "
                u"(<i>inverse_length</i>, default: S(Z) stays O(1) as T grows, as in the paper's "
                u"Sec 4.1) or N(0, 1) (<i>unit</i>)."));
    add(K("task", "causal", T::Bool, taskField(&TaskConfig::causal))
            .tasks(kRandom)
            .text(
                u"Causal (every position)",
                "Causal all-positions targets (the paper's Sec 4.1): position t of a prompt is a "
                "sample with S_t = sum_{s<=t} z_s z_s^T, query z_t and label f*(z_1..z_t), so a prompt "
                "of T tokens gives T samples; task.samples and eval.val_samples count these (prompt, "
                "position) samples. Default false: one sample per prompt, at its last token.",
                u"<b>Causal</b>: every position t is a target, as in the paper's Sec 4.1: it sees "
                u"S<sub>t</sub> = Σ<sub>s≤t</sub> z<sub>s</sub>z<sub>s</sub>ᵀ and the query "
                u"z<sub>t</sub>, label f*(z<sub>1</sub>…z<sub>t</sub>). A prompt of T tokens gives T "
                u"samples (ψ<sub>t</sub>, y<sub>t</sub>); N and the validation size count these. The "
                u"exact solver and every trainer regress the same all-positions objective. Off "
                u"(default): one target per prompt, at its last token."));
    add(K("task", "pairs", T::Integer, taskField(&TaskConfig::pairs))
            .range(1, 32)
            .tasks(kAssoc)
            .text(
                u"Key–value pairs m", "Key-value pairs m (d = 2m, n = m + 1, d_out = m).",
                u"<b>m</b>: pairs stored in each prompt. Token dimension d = 2m, tokens n = m + 1, "
                u"output d_out = m."));
    add(K("task", "orthogonal_prob", T::Real, taskField(&TaskConfig::orthogonalProb))
            .range(0, 1)
            .tasks(kAssoc)
            .text(
                u"Orthogonal probability p",
                "Probability p that a prompt's keys and values are Haar-orthogonal (p = 1: the "
                "certificate fails).",
                u"<b>p</b>: probability that a prompt's keys and values are Haar-random orthogonal "
                u"matrices (otherwise Gaussian columns scaled to unit length). p = 1 makes "
                u"k<sub>t</sub>ᵀk<sub>j</sub> exactly 0/1 in every prompt and breaks the certificate; "
                u"lowering p restores it."));
    add(K("task", "orthogonal_sampler", T::Choice, taskField(&TaskConfig::orthogonalSampler))
            .choices(samplers)
            .tasks(kAssoc)
            .text(
                u"Orthogonal sampler",
                "How orthogonal keys and values are drawn: haar (exactly Haar: QR of a Gaussian with "
                "the signs of R fixed; default) or qr_unsigned (the authors' torch.qr of a Gaussian "
                "without the sign fix: for m = 2 always a reflection, det -1; null_dim 12 instead of 4 "
                "at p = 1 and the minimum-norm fit misses the teacher, distance_p_rel ~ 0.69).",
                u"<b>Sampler</b> of the orthogonal keys and values: <i>haar</i> (exactly Haar-random; "
                u"default) or <i>qr_unsigned</i> (the authors' script: Q of an unsigned QR of a Gaussian "
                u"matrix, which for m = 2 is always a reflection, det −1). With qr_unsigned at p = 1 the "
                u"null space of Λ is 12-dimensional and holds 69% of ‖P*‖, so even the minimum-norm fit "
                u"misses the teacher; with Haar it is 4-dimensional and orthogonal to P*."));
    add(K("task", "states", T::Integer, taskField(&TaskConfig::states))
            .range(2, 32)
            .tasks(kAuto)
            .text(u"DFA states s", "DFA states s.",
                  u"<b>s</b>: number of states of each random DFA. Value codes have dimension s."));
    add(K("task", "alphabet", T::Integer, taskField(&TaskConfig::alphabet))
            .range(1, 32)
            .tasks(kAuto)
            .text(
                u"Alphabet size k", "Alphabet size k (s*k table entries).",
                u"<b>k</b>: letters of the alphabet; the table has s·k (state, letter) pairs, key codes "
                u"have dimension s·k, so d = s·k + s."));
    add(K("task", "embedding", T::Choice, taskField(&TaskConfig::embedding))
            .choices(embeddings)
            .tasks(kAuto)
            .text(
                u"Embedding",
                "Codes of keys and values: one-hot, one-hot rotated by fresh Haar matrices, or fresh "
                "random unit vectors.",
                u"<b>Codes</b> of keys and values: onehot (never certifiable: most cubic features are "
                u"identically zero), orthogonal (one-hot rotated by a fresh Haar-random rotation per "
                u"prompt) or gaussian (fresh random unit vectors per prompt; crosstalk makes even the "
                u"teacher imperfect)."));
    add(K("task", "coverage", T::Real, taskField(&TaskConfig::coverage))
            .range(0, 1, true)
            .tasks(kAuto)
            .text(
                u"Table coverage",
                "Fraction of the transition table listed in a training prompt (the queried pair is "
                "always listed).",
                u"<b>Coverage</b>: fraction of the transition table listed in each training prompt, "
                u"⌈coverage · s·k⌉ pairs (the queried pair is always included)."));
    add(K("task", "query_filler", T::Real, taskField(&TaskConfig::queryFiller))
            .range(0, 1e6)
            .tasks(kAuto)
            .text(
                u"Query filler σ_f",
                "sigma_f: the query token is [key(q,a); sigma_f g], g ~ N(0, I).",
                u"<b>σ<sub>f</sub></b>: the query token is [key(q,a); σ<sub>f</sub> g] with g ~ N(0, I). "
                u"Without a filler (σ<sub>f</sub> = 0) no encoding can be certified."));
    add(K("task", "word_length", T::Integer, taskField(&TaskConfig::wordLength))
            .range(1, 100000)
            .tasks(kAuto)
            .text(
                u"Word length L", "Length L of the words executed at evaluation.",
                u"<b>L</b>: letters per word when executing the DFA (one table query per letter)."));
    add(K("task", "prompts", taskText(&TaskConfig::prompts))
            .tasks(kData)
            .text(
                u"Prompts file",
                "The prompts: a .npy file of shape N x n x d (float64 or float32, little-endian, C "
                "or Fortran order), tokens as rows, the last token the query. N, n and d come from "
                "its header. An array of a .npz archive (np.savez, np.savez_compressed) is named "
                "ARCHIVE.npz:NAME (NAME as np.load keys it); ARCHIVE.npz alone is its only array. "
                "A relative path is resolved against the experiment file's folder (the working "
                "directory for --set).",
                u"<b>Prompts</b>: a NumPy <tt>.npy</tt> file of shape N × n × d (float64 or float32), "
                u"or an array of a <tt>.npz</tt> archive as <tt>data.npz:prompts</tt>; "
                u"tokens as rows, the query token last. Nothing is normalised or centred: ψ, Λ and C "
                u"are those of the file's values."));
    add(K("task", "targets", taskText(&TaskConfig::targets))
            .tasks(kData)
            .text(
                u"Targets file",
                "The targets: a .npy file of shape N x d_out (float64 or float32), row s the label "
                "of prompt s. A relative path is resolved as for task.prompts. Optional: without "
                "targets the run certifies the prompts (lambda_min, the spectrum, the null "
                "dimension) and fits nothing.",
                u"<b>Targets</b>: a NumPy <tt>.npy</tt> file of shape N × d<sub>out</sub>, row s the "
                u"label y<sub>s</sub> of prompt s. Optional: leave it empty to certify the prompts "
                u"alone (λ<sub>min</sub>, spectrum, null dimension); nothing is fitted."));

    add(K("task", "validation_prompts", taskText(&TaskConfig::validationPrompts))
            .tasks(kData)
            .text(
                u"Validation prompts",
                "A held-out set (optional): a .npy file of shape N_val x n x d with the training "
                "prompts' n and d; set it with task.validation_targets. The run reports val_mse on "
                "it (eval.val_samples is N_val). A relative path is resolved as for task.prompts.",
                u"<b>Validation prompts</b>: an optional held-out set, a <tt>.npy</tt> file of shape "
                u"N<sub>val</sub> × n × d (the training prompts' n and d), with its targets file. "
                u"val_mse is measured on it; λ<sub>min</sub> and the fit use the training files alone."));
    add(K("task", "validation_targets", taskText(&TaskConfig::validationTargets))
            .tasks(kData)
            .text(u"Validation targets",
                  "The held-out set's targets: a .npy file of shape N_val x d_out, row s the label "
                  "of validation prompt s; set with task.validation_prompts.",
                  u"<b>Validation targets</b>: a <tt>.npy</tt> file of shape N<sub>val</sub> × "
                  u"d<sub>out</sub>, row s the label of validation prompt s."));

    // ---- solver
    add(K("solver", "kind", T::Choice, solverField(&SolverConfig::kind))
            .choices(solvers)
            .text(
                u"Solver",
                "poly: the polynomial-time least-squares solver; mhla, multilayer, softmax: "
                "gradient-trained baselines.",
                u"<b>Solver</b>: poly = the exact polynomial-time algorithm (solve P Λ = C, then heads "
                u"from the SVD of unfold(P)); mhla = H-head MHLA trained by SGD/Adam; multilayer = L "
                u"causal linear-attention layers; softmax = a softmax Transformer block."));
    add(K("solver", "ridge", T::Real, solverField(&SolverConfig::ridge))
            .range(0, 1e12)
            .exactOnly()
            .text(
                u"Ridge ρ", "Ridge rho: P = C (Lambda + rho I)^-1 (0 = exact least squares).",
                u"<b>ρ</b>: P = C (Λ + ρ I)⁻¹. 0 = exact: Cholesky when certified, the minimum-norm "
                u"solution otherwise. Trainers use it for their exact reference."));
    add(K("solver", "heads", T::Integer, solverField(&SolverConfig::heads))
            .range(0, 1 << 20)
            .text(
                u"Heads H",
                "poly: keep the top H heads of the SVD of unfold(P) (0 = all, at most "
                "min(d_out*d, d^2)); trainers: heads per layer (>= 1; softmax: at most d, head width "
                "d/H when H divides d, else d).",
                u"<b>H</b>: poly: keep the top H heads of the SVD of unfold(P) (0 = all of the "
                u"numerical rank, at most min(d<sub>out</sub>·d, d²); fewer changes the function). "
                u"Trainers: heads per layer (≥ 1; softmax: at most d)."));
    add(K("solver", "tolerance", T::Real, solverField(&SolverConfig::tolerance))
            .range(0, 1, true, true)
            .exactOnly()
            .text(
                u"Certificate tolerance τ/λ_max",
                "Certificate tolerance relative to lambda_max: tau = tolerance * lambda_max.",
                u"<b>Relative tolerance</b>: certified ⇔ λ<sub>min</sub>(Λ) &gt; τ with τ = tolerance · "
                u"λ<sub>max</sub>. Null dimension = the number of eigenvalues ≤ τ."));
    add(K("solver", "rank_tolerance", T::Real, solverField(&SolverConfig::rankTolerance))
            .range(0, 1, true, true)
            .text(
                u"Rank tolerance",
                "Numerical rank of unfold(P): singular values > rank_tolerance * sigma_1.",
                u"<b>Rank tolerance</b>: the numerical rank of unfold(P) (learned and teacher) counts "
                u"the singular values above rank_tolerance · σ<sub>1</sub>."));
    add(K("solver", "layers", T::Integer, solverField(&SolverConfig::layers))
            .range(1, 64)
            .solvers(bit(SolverKind::Multilayer))
            .text(
                u"Layers L", "Linear-attention layers L.",
                u"<b>L</b>: causal linear-attention layers with residual connections; the last reads "
                u"out the query token."));
    add(K("solver", "optimizer", T::Choice, solverField(&SolverConfig::optimizer))
            .choices(optimizers)
            .solvers(kTrainers)
            .text(u"Optimizer", "SGD with momentum, or Adam (beta1 = 0.9, beta2 = 0.999).",
                  u"<b>Optimizer</b> of the MSE: sgd (with momentum) or adam (β<sub>1</sub> = 0.9, "
                  u"β<sub>2</sub> = 0.999, fixed)."));
    add(K("solver", "lr", T::Real, solverField(&SolverConfig::lr))
            .range(0, 1e6, true)
            .solvers(kTrainers)
            .text(u"Learning rate η", "Peak learning rate.",
                  u"<b>η</b>: step size (the peak value of the schedule)."));
    add(K("solver", "momentum", T::Real, solverField(&SolverConfig::momentum))
            .range(0, 1, false, true)
            .solvers(kTrainers)
            .optimizers(bit(OptimizerKind::Sgd))
            .text(u"Momentum β", "SGD momentum (Adam does not read it).",
                  u"<b>β</b>: SGD momentum, m ← β m + g. Adam does not read it."));
    add(K("solver", "batch", T::Integer, solverField(&SolverConfig::batch))
            .range(1, 1e9)
            .solvers(kTrainers)
            .text(u"Batch size B", "Minibatch size (at most task.samples).",
                  u"<b>B</b>: prompts per minibatch step (at most N)."));
    add(K("solver", "epochs", T::Integer, solverField(&SolverConfig::epochs))
            .range(1, 1e7)
            .solvers(kTrainers)
            .text(u"Epochs", "Maximum number of epochs.",
                  u"<b>Epochs</b>: passes over the N training prompts."));
    add(K("solver", "schedule", T::Choice, solverField(&SolverConfig::schedule))
            .choices(schedules)
            .solvers(kTrainers)
            .text(u"LR schedule",
                  "Learning-rate schedule after the linear warm-up: constant, or cosine decay.",
                  u"<b>Schedule</b> after the linear warm-up: constant, or cosine decay to 0."));
    add(K("solver", "warmup", T::Real, solverField(&SolverConfig::warmup))
            .range(0, 1)
            .solvers(kTrainers)
            .text(
                u"Warm-up fraction",
                "Warm-up as a fraction of all steps (linear ramp of the rate).",
                u"<b>Warm-up</b>: fraction of all steps with a linear ramp of η (both schedules)."));
    add(K("solver", "clip", T::Real, solverField(&SolverConfig::clip))
            .range(0, 1e12)
            .solvers(kTrainers)
            .text(u"Gradient clip", "Gradient-norm clipping threshold (0 = off).",
                  u"<b>Clip</b>: the gradient is rescaled to this norm when longer (0 = off)."));
    add(K("solver", "target_loss", T::Real, solverField(&SolverConfig::targetLoss))
            .range(0, 1e12)
            .solvers(kTrainers)
            .text(u"Target loss", "Stop when train_mse <= target_loss (0 = off).",
                  u"<b>Target</b>: stop when the training MSE ≤ target (0 = off)."));
    add(K("solver", "seed", T::Integer, solverField(&SolverConfig::seed))
            .range(0, kMaxExactInt)
            .solvers(kTrainers)
            .text(
                u"Solver seed",
                "Seed of initialisation and shuffling (mhla: N(0, 1/d) entries; multilayer: Q and the "
                "readout N(0, 1/d), V N(0, 0.01/(d H L)); softmax: weights N(0, 1/fan-in), the ReLU "
                "layer N(0, 2/fan-in), LayerNorm gains 1, biases 0).",
                u"<b>Solver seed</b>: initialisation and shuffling of the trainer. mhla: entries "
                u"N(0, 1/d); multilayer: Q and the readout N(0, 1/d), V N(0, 0.01/(d·H·L)) so the "
                u"residual stream starts near identity; softmax: weights N(0, 1/fan-in), the ReLU layer "
                u"N(0, 2/fan-in), LayerNorm gains 1, biases 0. Same seed ⇒ same run."));
    add(K("solver", "log_every", T::Integer, solverField(&SolverConfig::logEvery))
            .range(1, 1e7)
            .solvers(kTrainers)
            .text(u"Log every (epochs)", "Epochs between history points.",
                  u"Epochs between points of the training curves."));
    add(K("solver", "compare_exact", T::Bool, solverField(&SolverConfig::compareExact))
            .solvers(kTrainers)
            .text(
                u"Compare with exact solver",
                "Also run the exact solver on the same data and report the distance to it.",
                u"Also run the exact solver on the same data: its losses are drawn as dashed reference "
                u"lines and the distance ‖P − P<sub>exact</sub>‖/‖P<sub>exact</sub>‖ is tracked."));

    // ---- eval
    add(K("eval", "val_samples", T::Integer, evalField(&EvalConfig::valSamples))
            .range(1, 1e9)
            .tasks(Applicability::kAllTasks & ~kData) // data from files has no validation set
            .text(u"Validation samples", "Fresh samples of the task for val_mse.",
                  u"Fresh prompts of the task distribution for val_mse = mean (ŷ − y)²."));
    add(K("eval", "ood_samples", T::Integer, evalField(&EvalConfig::oodSamples))
            .range(1, 1e9)
            .text(u"OOD samples",
                  "Generic prompts (N(0,1) entries) for ood_rel_mse = E|f - f*|^2 / E|f*|^2.",
                  u"Generic prompts (i.i.d. N(0,1) entries) for ood_rel_mse = E‖f̂(Z) − f*(Z)‖² / "
                  u"E‖f*(Z)‖². Certified ⇒ ≈ 0."));
    add(K("eval", "words", T::Integer, evalField(&EvalConfig::words))
            .range(1, 1e7)
            .tasks(kAuto)
            .text(u"Words executed", "Words executed on fresh DFAs.",
                  u"Random words run on fresh DFAs to measure step and word accuracy."));
    add(K("eval", "spectrum", T::Choice, evalField(&EvalConfig::spectrum))
            .choices(spectra)
            .exactOnly()
            .text(u"Spectrum of Λ",
                  q("Eigenvalues of Lambda: auto = all when D <= %1, full = always, none = only "
                    "lambda_min and lambda_max.")
                      .arg(kAutoSpectrumMaxFeatureDim),
                  QString::fromUtf16(u"Eigenvalues of Λ to compute: auto (all when D ≤ %1), full, "
                                     u"none (λ<sub>min</sub> and λ<sub>max</sub> only).")
                      .arg(kAutoSpectrumMaxFeatureDim)));
    add(K("eval", "lambda_trace", T::Integer, evalField(&EvalConfig::lambdaTrace))
            .range(0, 100)
            .exactOnly()
            .text(
                u"λ_min checkpoints",
                q("Checkpoints of lambda_min against samples seen (0 = off; skipped when D > %1).")
                    .arg(kLambdaTraceMaxFeatureDim),
                QString::fromUtf16(u"Checkpoints of λ<sub>min</sub>(Λ) over the first k samples, "
                                   u"showing the certificate appear (0 = off; skipped when D &gt; "
                                   u"%1, where each checkpoint is a large eigenproblem).")
                    .arg(kLambdaTraceMaxFeatureDim)));
    add(K("eval", "identifiability", T::Choice, evalField(&EvalConfig::identifiability))
            .choices(spectra)
            .solvers(kPoly)
            .text(
                u"Identifiability explorer",
                "Explore what the data identify (poly): fewest heads, samples the certificate needs, "
                "null relations and H-head probes when not certified, noise prediction. auto = when "
                "D <= 300, full = always, none = off.",
                u"<b>Explorer</b>: min_heads (fewest heads that give the learned function), "
                u"certificate_samples (smallest N with λ<sub>min</sub> &gt; τ), and when not certified the "
                u"null relations among the features and whether another exact fit with H = 1, 2, 4 heads "
                u"exists; the noise prediction E‖P̂ − P*‖² ≈ σ² d<sub>out</sub> tr(Λ⁻¹)/N. auto: when "
                u"D ≤ 300; full: always (slow for large D); none: off."));
    return keys;
}

} // namespace detail

bool Applicability::reads(const ExperimentConfig& cfg) const {
    if (!(tasks & bit(cfg.task.kind)) || !(solvers & bit(cfg.solver.kind))) return false;
    const bool trainer = cfg.solver.kind != SolverKind::Poly;
    if (trainer && !(optimizers & bit(cfg.solver.optimizer))) return false;
    if (exactOnly && trainer && !cfg.solver.compareExact) return false;
    return true;
}

QString Applicability::text() const {
    QStringList parts;
    if (tasks != kAllTasks) {
        QStringList t;
        for (TaskKind k : {TaskKind::RandomMhla, TaskKind::AssociativeMemory, TaskKind::Automaton,
                           TaskKind::Dataset})
            if (tasks & bit(k)) t << toString(k);
        parts << t.join(q(", "));
    }
    if (solvers == kTrainers) parts << q("trainers");
    else if (solvers != kAllSolvers) {
        QStringList t;
        for (SolverKind k :
             {SolverKind::Poly, SolverKind::Mhla, SolverKind::Multilayer, SolverKind::Softmax})
            if (solvers & bit(k)) t << toString(k);
        parts << t.join(q(", "));
    }
    if (optimizers != kAllOptimizers) {
        QStringList t;
        for (OptimizerKind k : {OptimizerKind::Sgd, OptimizerKind::Adam})
            if (optimizers & bit(k)) t << toString(k);
        parts << q("optimizer ") + t.join(q(", "));
    }
    if (exactOnly) parts << q("poly, or trainers with compare_exact");
    return parts.isEmpty() ? q("all") : parts.join(q("; "));
}

const std::vector<KeyInfo>& experimentKeys() {
    static const std::vector<KeyInfo> keys = detail::buildKeys();
    return keys;
}

} // namespace mhla
