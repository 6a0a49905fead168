#include "core/experiment/config.h"
#include "core/base/npy.h"
#include "core/base/text.h"
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QLocale>
#include <QSet>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>

namespace mhla {

namespace {

std::string str(const QString& s) { return s.toStdString(); }
constexpr double kMaxExactInt = 9007199254740992.0; // 2^53

QString describe(const QJsonValue& v) {
    switch (v.type()) {
    case QJsonValue::Null: return q("null");
    case QJsonValue::Bool: return v.toBool() ? q("true") : q("false");
    case QJsonValue::Double: return numberText(v.toDouble());
    case QJsonValue::String: return q("a string (\"") + v.toString() + q("\")");
    case QJsonValue::Array: return q("an array");
    case QJsonValue::Object: return q("an object");
    default: return q("an undefined value");
    }
}

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

const KeyInfo* findKey(const QString& section, const QString& key) {
    for (const auto& k : experimentKeys())
        if (k.section == section && k.key == key) return &k;
    return nullptr;
}

QString knownKeys(const QString& section) {
    QStringList names;
    for (const auto& k : experimentKeys())
        if (k.section == section) names << k.key;
    return names.join(q(", "));
}

void setFromJson(const KeyInfo& k, const QJsonValue& v, ExperimentConfig& cfg) {
    const QString where = k.path() + q(": ");
    const auto fail = [&k](const QString& msg) { throw ConfigError(str(msg), k.path()); };
    switch (k.type) {
    case T::Path:
        // "" is the default (no file): every experiment echoes the key, read or not.
        if (!v.isString())
            fail(where + describe(v) + q(" is not allowed; expected ") + k.allowed());
        k.setText(cfg, v.toString());
        return;
    case T::Bool:
        if (!v.isBool()) fail(where + describe(v) + q(" is not allowed; expected true or false"));
        k.set(cfg, v.toBool() ? 1.0 : 0.0);
        return;
    case T::Choice: {
        if (!v.isString())
            fail(where + describe(v) + q(" is not allowed; expected ") + k.allowed());
        const int idx = static_cast<int>(k.choices.indexOf(v.toString()));
        if (idx < 0)
            fail(where + q("\"") + v.toString() + q("\" is not allowed; expected ") + k.allowed());
        k.set(cfg, idx);
        return;
    }
    case T::Integer:
    case T::Real: {
        if (!v.isDouble())
            fail(where + describe(v) + q(" is not allowed; expected ") + k.allowed());
        const double x = v.toDouble();
        if (!std::isfinite(x))
            fail(where + q("NaN and infinite values are not allowed; expected ") + k.allowed());
        if (k.type == T::Integer && std::floor(x) != x)
            fail(where + numberText(x) + q(" is not an integer; expected ") + k.allowed());
        // The JSON parser keeps an integer literal exactly (toInteger); above 2^53 its double
        // is rounded (9007199254740993 reads as ...992): refuse it rather than run another seed.
        if (k.type == T::Integer) {
            constexpr qint64 kNotInteger = std::numeric_limits<qint64>::min();
            const qint64 exact = v.toInteger(kNotInteger);
            if (exact != kNotInteger &&
                (exact > static_cast<qint64>(k.max) || exact < static_cast<qint64>(k.min)))
                fail(where + QString::number(exact) + q(" is out of range; expected ") +
                     k.allowed());
        }
        const bool below = k.minOpen ? x <= k.min : x < k.min;
        const bool above = k.maxOpen ? x >= k.max : x > k.max;
        if (below || above)
            fail(where + numberText(x) + q(" is out of range; expected ") + k.allowed());
        k.set(cfg, x);
        return;
    }
    }
}

} // namespace

QString numberText(double v) {
    if (std::floor(v) == v && std::abs(v) < 1e16) return QString::number(static_cast<long long>(v));
    return QString::number(v, 'g', QLocale::FloatingPointShortest);
}

QString integerLiteralProblem(const KeyInfo& k, QStringView literal) {
    // sign, digits, [. digits], [e [sign] digits]: JSON's number grammar, already checked.
    qsizetype i = 0;
    if (i < literal.size() && literal[i] == QLatin1Char('-')) ++i;
    QString digits;
    qsizetype fractionDigits = 0;
    bool inFraction = false;
    for (; i < literal.size(); ++i) {
        const QChar c = literal[i];
        if (c == QLatin1Char('.')) inFraction = true;
        else if (c.isDigit()) {
            digits += c;
            if (inFraction) ++fractionDigits;
        } else break;
    }
    long long exponent = 0;
    if (i < literal.size() && (literal[i] == QLatin1Char('e') || literal[i] == QLatin1Char('E'))) {
        bool ok = false;
        exponent = literal.mid(i + 1).toLongLong(&ok);
        if (!ok) return {}; // beyond any integer key's range: the value's own check refuses it
    }
    // value = digits × 10^(exponent − fractionDigits)
    long long shift = exponent - fractionDigits;
    while (!digits.isEmpty() && digits.front() == QLatin1Char('0')) digits.remove(0, 1);
    if (digits.isEmpty()) return {};
    for (; shift < 0; ++shift) {
        if (digits.back() != QLatin1Char('0'))
            return literal.toString() + q(" is not an integer; expected ") + k.allowed();
        digits.chop(1);
    }
    // 2^53 = 9007199254740992 has 16 digits; every larger integer is not held exactly.
    const QString limit = q("9007199254740992");
    const bool above = digits.size() + shift > limit.size() ||
                       (digits.size() + shift == limit.size() &&
                        digits + QString(static_cast<qsizetype>(shift), QLatin1Char('0')) > limit);
    if (above && k.max >= kMaxExactInt) // below that, the value's own range check refuses it
        return literal.toString() + q(" is out of range; expected ") + k.allowed() +
               q(" (a double holds every integer exactly only up to 2^53 = 9007199254740992)");
    return {};
}

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

QString KeyInfo::tooltipHtml() const {
    return tooltip + q("<br><i>Allowed:</i> ") + allowed().toHtmlEscaped() +
           q(". <i>Read by:</i> ") + applies.text().toHtmlEscaped() + q(". <i>Key:</i> <tt>") +
           path() + q("</tt>");
}

QString KeyInfo::allowed() const {
    switch (type) {
    case Type::Path:
        return q(
            "the path of a .npy file, or ARCHIVE.npz:NAME for an array of a .npz archive (a string)");
    case Type::Bool: return q("true or false");
    case Type::Choice: return q("one of ") + choices.join(q(", "));
    case Type::Integer:
        // Wide ranges read better as two bounds (and keep both visible).
        if (max >= 1e6)
            return q("an integer >= ") + numberText(min) + q(" and <= ") + numberText(max);
        return q("an integer in [") + numberText(min) + q(", ") + numberText(max) + q("]");
    case Type::Real:
        if (max >= 1e6 && !maxOpen)
            return q("a number ") + (minOpen ? q("> ") : q(">= ")) + numberText(min) +
                   q(" and <= ") + numberText(max);
        return q("a number in ") + (minOpen ? q("(") : q("[")) + numberText(min) + q(", ") +
               numberText(max) + (maxOpen ? q(")") : q("]"));
    }
    return {};
}

QJsonValue KeyInfo::value(const ExperimentConfig& cfg) const {
    if (type == Type::Path) return QJsonValue(getText(cfg));
    const double v = get(cfg);
    switch (type) {
    case Type::Path: break;
    case Type::Bool: return QJsonValue(v != 0.0);
    case Type::Choice: return QJsonValue(choices.value(static_cast<int>(v)));
    case Type::Integer: return QJsonValue(static_cast<qint64>(v));
    case Type::Real: return QJsonValue(v);
    }
    return {};
}

const std::vector<KeyInfo>& experimentKeys() {
    static const std::vector<KeyInfo> keys = buildKeys();
    return keys;
}

TaskDims taskDims(const TaskConfig& task) {
    switch (task.kind) {
    case TaskKind::RandomMhla: return {task.d, task.tokens, task.dOut};
    case TaskKind::AssociativeMemory: return {2 * task.pairs, task.pairs + 1, task.pairs};
    case TaskKind::Automaton:
        return {task.states * task.alphabet + task.states, automatonListedPairs(task) + 1,
                task.states};
    case TaskKind::Dataset: return {task.dataD, task.dataTokens, task.dataDOut};
    }
    return {};
}

TaskKindTraits taskKindTraits(const TaskConfig& task) {
    if (task.kind == TaskKind::Dataset)
        return {/*teacher=*/false, /*validation=*/!task.validationPrompts.isEmpty()};
    return {};
}

int ExperimentConfig::promptDim() const { return taskDims(task).d; }
int ExperimentConfig::tokenCount() const { return taskDims(task).n; }
int ExperimentConfig::outputDim() const { return taskDims(task).dOut; }

int automatonListedPairs(const TaskConfig& task) {
    const int total = task.states * task.alphabet;
    // The 1e-12 keeps ceil(0.5 * 6) at 3 despite round-off in coverage * total.
    const int listed = static_cast<int>(std::ceil(task.coverage * total - 1e-12));
    return std::clamp(listed, 1, total);
}

namespace {

/// Cross-key constraints of a parsed configuration (what any machine would refuse).
std::vector<ConfigIssue> crossKeyIssues(const ExperimentConfig& cfg) {
    std::vector<ConfigIssue> out;
    const auto issue = [&out](const char* keyPath, const QString& msg) {
        out.push_back({q(keyPath), q(keyPath) + q(": ") + msg});
    };
    const int d = cfg.promptDim();
    const int dOut = cfg.outputDim();
    const bool trainer = cfg.solver.kind != SolverKind::Poly;
    if (trainer && cfg.task.kind == TaskKind::Dataset)
        issue("solver.kind", q("\"") + toString(cfg.solver.kind) +
                                 q("\" is not available for task.kind \"dataset\" yet; expected "
                                   "poly"));
    if (trainer && cfg.solver.heads < 1)
        issue("solver.heads", q("0 is not allowed for solver.kind \"") + toString(cfg.solver.kind) +
                                  q("\"; expected an integer >= 1"));
    const bool noTargets = cfg.task.kind == TaskKind::Dataset && dOut == 0;
    if (noTargets && cfg.solver.heads > 0)
        issue("solver.heads",
              QString::number(cfg.solver.heads) +
                  q(" heads cannot be kept: without task.targets the run certifies the prompts and "
                    "fits nothing; expected 0, or set task.targets"));
    else if (!trainer) {
        const long long maxHeads = std::min<long long>(1LL * dOut * d, 1LL * d * d);
        if (cfg.solver.heads > maxHeads)
            issue("solver.heads",
                  QString::number(cfg.solver.heads) +
                      q(" heads is more than unfold(P) can have: its rank is at most "
                        "min(d_out*d, d^2) = ") +
                      QString::number(maxHeads) + q(" here; expected an integer in [0, ") +
                      QString::number(maxHeads) + q("] (0 = all)"));
    }
    if (trainer && cfg.solver.batch > cfg.task.samples)
        issue("solver.batch", QString::number(cfg.solver.batch) +
                                  q(" is larger than the data set (task.samples = ") +
                                  QString::number(cfg.task.samples) +
                                  q("); expected an integer in [1, task.samples]"));
    if (cfg.solver.kind == SolverKind::Softmax && cfg.solver.heads > d)
        issue("solver.heads", QString::number(cfg.solver.heads) +
                                  q(" heads do not fit a softmax block of width d = ") +
                                  QString::number(d) + q("; expected an integer in [1, d]"));
    return out;
}

/// Parses every key of obj into cfg; problems go to issues (all of them, not just the first).
void parseInto(const QJsonObject& obj, ExperimentConfig& cfg, std::vector<ConfigIssue>& issues) {
    for (auto it = obj.begin(); it != obj.end(); ++it) {
        const QString section = it.key();
        if (section != q("task") && section != q("solver") && section != q("eval")) {
            issues.push_back({section, q("unknown key \"") + section +
                                           q("\" at the top level; allowed: task, solver, eval") +
                                           (section == q("sweep") || section == q("figures") ||
                                                    section == q("verdicts")
                                                ? q(" (this file describes a sweep: run it with "
                                                    "mhla-lab sweep --config FILE, or draw it with "
                                                    "mhla-lab figures --config FILE --out DIR)")
                                                : QString())});
            continue;
        }
        if (!it.value().isObject()) {
            issues.push_back({section, section + q(": ") + describe(it.value()) +
                                           q(" is not allowed; expected an object")});
            continue;
        }
        const QJsonObject sec = it.value().toObject();
        for (auto kt = sec.begin(); kt != sec.end(); ++kt) {
            const KeyInfo* k = findKey(section, kt.key());
            if (!k) {
                issues.push_back(
                    {section + q(".") + kt.key(), q("unknown key \"") + section + q(".") +
                                                      kt.key() + q("\"; the keys of ") + section +
                                                      q(" are: ") + knownKeys(section)});
                continue;
            }
            try {
                setFromJson(*k, kt.value(), cfg);
            } catch (const ConfigError& e) {
                issues.push_back({e.key(), QString::fromStdString(e.what())});
            }
        }
    }
}

[[noreturn]] void throwIssue(const ConfigIssue& i) { throw ConfigError(str(i.message), i.key); }

/// A dataset task's shape into cfg (from knownShape, else from the files' headers).
void applyDatasetShape(ExperimentConfig& cfg, const DatasetShape* knownShape) {
    if (cfg.task.kind != TaskKind::Dataset) return;
    const DatasetShape shape = knownShape ? *knownShape : readDatasetShape(cfg.task);
    cfg.task.samples = shape.samples;
    cfg.task.dataD = shape.dims.d;
    cfg.task.dataTokens = shape.dims.n;
    cfg.task.dataDOut = shape.dims.dOut;
    // A held-out set's size is its file's N_val (a finished result's config holds it already).
    if (!knownShape && shape.validationSamples > 0) cfg.eval.valSamples = shape.validationSamples;
    cfg.task.dataValidationSamples = cfg.task.validationPrompts.isEmpty() ? 0 : cfg.eval.valSamples;
}

/// Takes vp and vt as out's held-out set when their shapes fit out's prompts and targets, and
/// says so in the returned note (named as `names`); else leaves them out and says why.
QString takeHeldOutSet(DataFiles& out, const QString& vp, const QString& vt, const QString& names) {
    try {
        const std::vector<long long> targetShape = readNpyHeader(out.targets).shape;
        const DatasetShape train = checkDatasetShape(readNpyHeader(out.prompts).shape, &targetShape,
                                                     out.prompts, out.targets);
        (void)checkValidationShape(train, readNpyHeader(vp).shape, readNpyHeader(vt).shape, vp, vt);
    } catch (const std::exception& e) { // ConfigError or NpyError: not taken, and why
        return names + q(" are not taken as the held-out set: ") + QString::fromStdString(e.what());
    }
    out.validationPrompts = vp;
    out.validationTargets = vt;
    return names + q(" are taken as the held-out set (val MSE; clear task.validation_prompts "
                     "and task.validation_targets to leave it)");
}

/// One .npz archive as Open data takes it: the arrays named prompts, targets,
/// validation_prompts and validation_targets (the names `export-data` gives its files) when
/// it has prompts; otherwise its arrays, one or two, paired by shape as files are.
DataFiles pairNpzArchive(const QString& archive, const QStringList& members,
                         const std::function<DataFiles(const QStringList&)>& byShape) {
    const auto member = [&archive](const QString& name) {
        return archive + QLatin1Char(':') + name;
    };
    if (members.contains(q("prompts"))) {
        DataFiles out;
        out.prompts = member(q("prompts"));
        if (members.contains(q("targets"))) out.targets = member(q("targets"));
        QString heldOut;
        if (!out.targets.isEmpty() && members.contains(q("validation_prompts")) &&
            members.contains(q("validation_targets")))
            heldOut = takeHeldOutSet(out, member(q("validation_prompts")),
                                     member(q("validation_targets")),
                                     q("the arrays validation_prompts and validation_targets"));
        QStringList taken;
        for (const QString* p :
             {&out.prompts, &out.targets, &out.validationPrompts, &out.validationTargets})
            if (!p->isEmpty()) taken << p->mid(archive.size() + 1);
        out.note =
            q("from %1: the arrays %2").arg(QFileInfo(archive).fileName(), taken.join(q(", ")));
        if (out.targets.isEmpty())
            out.note += q("; no array 'targets': the run certifies the prompts and fits nothing");
        if (!heldOut.isEmpty() && out.validationPrompts.isEmpty()) out.note += q("; ") + heldOut;
        return out;
    }
    if (members.isEmpty() || members.size() > 2)
        throw ConfigError(str(q("%1: holds %2 arrays (%3); expected an array named 'prompts' "
                                "(N x n x d), and optionally 'targets' (N x d_out), or one or "
                                "two arrays told apart by their shapes")
                                  .arg(archive)
                                  .arg(members.size())
                                  .arg(members.isEmpty() ? q("none") : members.join(q(", ")))),
                          q("task.prompts"));
    QStringList paths;
    for (const QString& m : members) paths << member(m);
    return byShape(paths);
}
} // namespace

DataFiles pairDataFiles(const QStringList& paths) {
    if (paths.size() == 1 && paths.front().endsWith(q(".npz"), Qt::CaseInsensitive)) {
        QStringList members;
        try {
            members = npzMembers(paths.front());
        } catch (const NpyError& e) {
            throw ConfigError(e.what(), q("task.prompts"));
        }
        return pairNpzArchive(paths.front(), members, pairDataFiles);
    }
    if (paths.isEmpty() || paths.size() > 2)
        throw ConfigError(str(q("choose one or two .npy files (the prompts, N x n x d, and "
                                "optionally the targets, N x d_out), or one .npz archive; got %1")
                                  .arg(paths.size())),
                          q("task.prompts"));
    DataFiles out;
    for (const QString& path : paths) {
        if (!path.endsWith(q(".npy"), Qt::CaseInsensitive) && !parseNpzPath(path))
            throw ConfigError(str(q("%1: not a .npy file; allowed: NumPy .npy arrays (prompts "
                                    "N x n x d, targets N x d_out) or one .npz archive")
                                      .arg(path)),
                              q("task.prompts"));
        std::vector<long long> shape;
        try {
            shape = readNpyHeader(path).shape;
        } catch (const NpyError& e) {
            throw ConfigError(e.what(), q("task.prompts"));
        }
        // One file per role: a second prompts (or targets) file is refused, naming both.
        const auto take = [&](QString& slot, const char* what, const char* key) {
            if (!slot.isEmpty())
                throw ConfigError(str(q("%1 and %2 both hold %3; choose one prompts file "
                                        "(N x n x d) and at most one targets file (N x d_out)")
                                          .arg(slot, path, q(what))),
                                  q(key));
            slot = path;
        };
        if (shape.size() == 3) {
            take(out.prompts, "prompts (3-D arrays)", "task.prompts");
        } else if (shape.size() == 2) {
            take(out.targets, "targets (2-D arrays)", "task.targets");
        } else
            throw ConfigError(str(q("%1: a %2-D array; allowed: prompts N x n x d (3-D) or "
                                    "targets N x d_out (2-D)")
                                      .arg(path)
                                      .arg(shape.size())),
                              q("task.prompts"));
    }
    if (out.prompts.isEmpty())
        throw ConfigError(str(q("%1 holds targets (a 2-D array); choose the prompts (N x n x d) "
                                "too, or the prompts alone to certify them")
                                  .arg(out.targets)),
                          q("task.prompts"));
    if (out.targets.isEmpty() && QFileInfo(out.prompts).fileName() == q("prompts.npy")) {
        const QString beside = QFileInfo(out.prompts).dir().filePath(q("targets.npy"));
        if (QFileInfo::exists(beside)) {
            out.targets = beside;
            out.note = q("targets.npy beside prompts.npy is taken as the targets (clear "
                         "task.targets to certify the prompts alone)");
        }
    }
    if (!out.targets.isEmpty() && QFileInfo(out.prompts).fileName() == q("prompts.npy")) {
        const QDir dir = QFileInfo(out.prompts).dir();
        const QString vp = dir.filePath(q("validation_prompts.npy"));
        const QString vt = dir.filePath(q("validation_targets.npy"));
        if (QFileInfo::exists(vp) && QFileInfo::exists(vt)) {
            const QString taken = takeHeldOutSet(
                out, vp, vt, q("validation_prompts.npy and validation_targets.npy beside them"));
            out.note = out.note.isEmpty() ? taken : out.note + q("; ") + taken;
        }
    }
    if (out.targets.isEmpty() && out.note.isEmpty())
        out.note = q("no targets: the run certifies the prompts and fits nothing (choose a "
                     "targets file too to fit a model)");
    return out;
}

DatasetShape readDatasetShape(const TaskConfig& task) {
    const auto header = [](const char* keyPath, const QString& path) {
        if (path.isEmpty())
            throw ConfigError(str(q(keyPath) +
                                  q(": required for task.kind \"dataset\"; expected ") +
                                  q("the path of a .npy file (or ARCHIVE.npz:NAME)")),
                              q(keyPath));
        try {
            return readNpyHeader(path);
        } catch (const NpyError& e) {
            throw ConfigError(str(q(keyPath) + q(": ") + QString::fromStdString(e.what())),
                              q(keyPath));
        }
    };
    // The prompts are judged before the targets are read: their error comes first.
    const NpyHeader p = header("task.prompts", task.prompts);
    const DatasetShape promptsOnly = checkDatasetShape(p.shape, nullptr, task.prompts, {});
    const bool validation = !task.validationPrompts.isEmpty() || !task.validationTargets.isEmpty();
    if (task.targets.isEmpty()) {
        if (validation)
            throw ConfigError(str(q("task.validation_prompts: a held-out set needs task.targets: "
                                    "without targets nothing is fitted, so there is nothing to "
                                    "validate; set task.targets, or clear the validation files")),
                              q("task.validation_prompts"));
        return promptsOnly; // certify the prompts, fit nothing
    }
    const NpyHeader t = header("task.targets", task.targets);
    DatasetShape out = checkDatasetShape(p.shape, &t.shape, task.prompts, task.targets);
    if (!validation) return out;
    // Both or neither: a held-out set is prompts with their targets.
    if (task.validationPrompts.isEmpty() != task.validationTargets.isEmpty()) {
        const char* missing = task.validationPrompts.isEmpty() ? "task.validation_prompts"
                                                               : "task.validation_targets";
        throw ConfigError(str(q(missing) + q(": a held-out set is task.validation_prompts with "
                                             "task.validation_targets; set both files, or "
                                             "neither")),
                          q(missing));
    }
    const NpyHeader vp = header("task.validation_prompts", task.validationPrompts);
    const NpyHeader vt = header("task.validation_targets", task.validationTargets);
    out.validationSamples = checkValidationShape(out, vp.shape, vt.shape, task.validationPrompts,
                                                 task.validationTargets);
    return out;
}

long long checkValidationShape(const DatasetShape& train, const std::vector<long long>& p,
                               const std::vector<long long>& t, const QString& promptsName,
                               const QString& targetsName) {
    const auto bad = [](const char* keyPath, const QString& path, const QString& what) {
        throw ConfigError(str(q(keyPath) + q(": ") + path + q(": ") + what), q(keyPath));
    };
    const TaskDims& dims = train.dims;
    const QString expected =
        q("; expected N_val x %1 x %2 (the training prompts' n and d)").arg(dims.n).arg(dims.d);
    if (p.size() != 3 || p[1] != dims.n || p[2] != dims.d)
        bad("task.validation_prompts", promptsName,
            q("shape ") + npyShapeText(p) + q(" is not allowed") + expected);
    if (p[0] < 1)
        bad("task.validation_prompts", promptsName,
            q("shape ") + npyShapeText(p) + q(" has N_val = 0 samples") + expected +
                q(" with N_val >= 1"));
    if (t.size() != 2 || t[1] != dims.dOut)
        bad("task.validation_targets", targetsName,
            q("shape ") + npyShapeText(t) +
                q(" is not allowed; expected N_val x %1 (the training targets' d_out)")
                    .arg(dims.dOut));
    if (t[0] != p[0])
        bad("task.validation_targets", targetsName,
            q("shape ") + npyShapeText(t) + q(" has ") + QString::number(t[0]) +
                q(" rows, but the validation prompts (") + promptsName + q(") hold N_val = ") +
                QString::number(p[0]) + q(" samples; expected one target row per prompt"));
    return p[0];
}

DatasetShape checkDatasetShape(const std::vector<long long>& p,
                               const std::vector<long long>* targets, const QString& promptsName,
                               const QString& targetsName) {
    const auto bad = [](const char* keyPath, const QString& path, const QString& what) {
        throw ConfigError(str(q(keyPath) + q(": ") + path + q(": ") + what), q(keyPath));
    };
    if (p.size() != 3)
        bad("task.prompts", promptsName,
            q("shape ") + npyShapeText(p) +
                q(" is not allowed; expected 3 dimensions N x n x d (samples, tokens, coordinates)"));
    const KeyInfo* dKey = findExperimentKey(q("task.d"));
    if (p[0] < 1)
        bad("task.prompts", promptsName,
            q("shape ") + npyShapeText(p) + q(" has N = 0 samples; expected N >= 1"));
    if (p[1] < 1 || p[1] > 100000)
        bad("task.prompts", promptsName,
            q("shape ") + npyShapeText(p) + q(" has n = ") + QString::number(p[1]) +
                q(" tokens; expected n in [1, 100000]"));
    if (p[2] < static_cast<long long>(dKey->min) || p[2] > static_cast<long long>(dKey->max))
        bad("task.prompts", promptsName,
            q("shape ") + npyShapeText(p) + q(" has token dimension d = ") + QString::number(p[2]) +
                q("; expected ") + dKey->allowed());
    const long long N = p[0];
    DatasetShape out;
    out.samples = N;
    out.dims = {static_cast<int>(p[2]), static_cast<int>(p[1]), 0};
    if (!targets) return out;
    const std::vector<long long>& t = *targets;
    if (t.size() != 2)
        bad("task.targets", targetsName,
            q("shape ") + npyShapeText(t) +
                q(" is not allowed; expected 2 dimensions N x d_out (samples, outputs)"));
    if (t[0] != N)
        bad("task.targets", targetsName,
            q("shape ") + npyShapeText(t) + q(" has ") + QString::number(t[0]) +
                q(" rows, but the prompts (") + promptsName + q(") hold N = ") +
                QString::number(N) + q(" samples; expected one target row per prompt"));
    const KeyInfo* outKey = findExperimentKey(q("task.d_out"));
    if (t[1] < static_cast<long long>(outKey->min) || t[1] > static_cast<long long>(outKey->max))
        bad("task.targets", targetsName,
            q("shape ") + npyShapeText(t) + q(" has d_out = ") + QString::number(t[1]) +
                q("; expected ") + outKey->allowed());
    out.dims.dOut = static_cast<int>(t[1]);
    return out;
}

void validate(const ExperimentConfig& cfg) {
    const auto issues = crossKeyIssues(cfg);
    if (!issues.empty()) throwIssue(issues.front());
}

std::vector<ConfigIssue> validateAll(const QJsonObject& obj) {
    ExperimentConfig cfg;
    std::vector<ConfigIssue> issues;
    parseInto(obj, cfg, issues);
    if (issues.empty()) {
        try {
            applyDatasetShape(cfg, nullptr);
        } catch (const ConfigError& e) {
            return {{e.key(), QString::fromStdString(e.what())}};
        }
        issues = crossKeyIssues(cfg);
    }
    return issues;
}

QStringList unreadKeys(const QJsonObject& obj, const ExperimentConfig& cfg) {
    QStringList out;
    const ExperimentConfig defaults;
    for (const auto& k : experimentKeys()) {
        const QJsonObject sec = obj.value(k.section).toObject();
        if (sec.contains(k.key) && !k.applies.reads(cfg) && k.value(cfg) != k.value(defaults))
            out << k.path();
    }
    return out;
}

ExperimentConfig experimentFromJson(const QJsonObject& obj, const DatasetShape* knownShape) {
    ExperimentConfig cfg;
    // A file written before task.rng existed was drawn with that generator (kRngWhenAbsent).
    if (!obj.value(q("task")).toObject().contains(q("rng"))) cfg.task.rng = kRngWhenAbsent;
    std::vector<ConfigIssue> issues;
    parseInto(obj, cfg, issues);
    if (!issues.empty()) throwIssue(issues.front());
    applyDatasetShape(cfg, knownShape);
    validate(cfg);
    return cfg;
}

namespace {

/// One pass over valid JSON text: the first repeated key (QJsonDocument keeps the last of
/// repeated keys silently) and every number literal with the dotted path of the key it is the
/// value of (an array's elements take the array's key). Returns the repeated key's path, or
/// empty; `number` is called for each literal until a repeat is found.
QString scanJsonText(const QByteArray& text,
                     const std::function<void(const QString& path, QStringView literal)>& number) {
    struct Level {
        bool object;
        bool expectKey;
        QString name;
        QSet<QString> keys;
    };
    std::vector<Level> stack;
    QString pendingKey;
    const auto pathHere = [&] {
        QStringList path;
        for (const Level& l : stack)
            if (!l.name.isEmpty()) path << l.name;
        if (!stack.empty() && stack.back().object) path << pendingKey;
        return path.join(QLatin1Char('.'));
    };
    for (qsizetype i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '"') {
            const qsizetype start = i;
            for (++i; i < text.size() && text[i] != '"'; ++i)
                if (text[i] == '\\') ++i;
            if (!stack.empty() && stack.back().object && stack.back().expectKey) {
                const QJsonDocument one =
                    QJsonDocument::fromJson("[" + text.mid(start, i - start + 1) + "]");
                const QString key = one.array().at(0).toString();
                if (stack.back().keys.contains(key)) {
                    pendingKey = key;
                    return pathHere();
                }
                stack.back().keys.insert(key);
                stack.back().expectKey = false;
                pendingKey = key;
            }
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            const qsizetype start = i;
            while (i + 1 < text.size() && std::strchr("0123456789+-.eE", text[i + 1]) != nullptr &&
                   text[i + 1] != '\0')
                ++i;
            if (number) number(pathHere(), QString::fromLatin1(text.mid(start, i - start + 1)));
        } else if (c == '{' || c == '[') {
            const bool parentObject = !stack.empty() && stack.back().object;
            stack.push_back({c == '{', c == '{', parentObject ? pendingKey : QString(), {}});
        } else if (c == '}' || c == ']') {
            if (!stack.empty()) stack.pop_back();
        } else if (c == ',' && !stack.empty() && stack.back().object) {
            stack.back().expectKey = true;
        }
    }
    return {};
}

/// The integer key an experiment file's number at `path` is the value of: `section.key`, or a
/// sweep grid's `sweep.grid.section.key`; null for any other path or a non-integer key.
const KeyInfo* integerKeyAt(const QString& path) {
    static const QString grid = QStringLiteral("sweep.grid.");
    const KeyInfo* k = findExperimentKey(path.startsWith(grid) ? path.mid(grid.size()) : path);
    return k != nullptr && k->type == T::Integer ? k : nullptr;
}

} // namespace

ExperimentConfig experimentFromJsonText(const QByteArray& text) {
    return experimentFromJson(experimentObjectFromJsonText(text));
}

QJsonObject experimentObjectFromJsonText(const QByteArray& text) {
    QJsonParseError err;
    const QJsonDocument doc = QJsonDocument::fromJson(text, &err);
    const char* objectExpected =
        "the experiment must be a JSON object ({\"task\": {...}, \"solver\": "
        "{...}, \"eval\": {...}}), not ";
    if (err.error != QJsonParseError::NoError) {
        // Qt reads only objects and arrays at the top level: a lone number, string or null is
        // valid JSON, but not an experiment.
        QJsonParseError inner;
        const QJsonDocument wrapped = QJsonDocument::fromJson("[" + text + "]", &inner);
        if (inner.error == QJsonParseError::NoError && wrapped.array().size() == 1)
            throw ConfigError(str(q(objectExpected) + describe(wrapped.array().at(0))));
        // Notepad's "Unicode" is UTF-16: a byte-order mark, or a NUL beside every ASCII byte.
        if (text.startsWith("\xFF\xFE") || text.startsWith("\xFE\xFF") || text.contains('\0'))
            throw ConfigError(str(q("the file is UTF-16 (") +
                                  (text.contains('\0') ? q("it holds NUL bytes") : q("")) +
                                  (text.startsWith("\xFF\xFE") || text.startsWith("\xFE\xFF")
                                       ? q(text.contains('\0') ? ", " : "") +
                                             q("it starts with a UTF-16 byte-order mark")
                                       : q("")) +
                                  q("), not UTF-8; save it as UTF-8 (allowed: UTF-8 JSON)")));
        throw ConfigError(str(q("malformed JSON at offset ") + QString::number(err.offset) +
                              q(": ") + err.errorString()));
    }
    if (!doc.isObject())
        throw ConfigError(
            str(q("the experiment must be a JSON object ({\"task\": {...}, \"solver\": "
                  "{...}, \"eval\": {...}}), not ") +
                (doc.isArray() ? q("an array") : q("a single value"))));
    // The parser rounds a literal with a fraction or an exponent to a double: 9007199254740993.0
    // reads as ...992 and 4503599627370495.2 as ...495, both integers. An integer key's
    // literal is checked as written, before it is rounded.
    std::optional<ConfigError> inexact;
    const QString dup = scanJsonText(text, [&](const QString& path, QStringView literal) {
        if (inexact) return;
        if (const KeyInfo* k = integerKeyAt(path)) {
            if (const QString why = integerLiteralProblem(*k, literal); !why.isEmpty())
                inexact.emplace(str(path + q(": ") + why), path);
        }
    });
    if (!dup.isEmpty())
        throw ConfigError(
            str(q("the key \"") + dup + q("\" is given twice; each key may appear once")), dup);
    if (inexact) throw *inexact;
    return doc.object();
}

QJsonObject experimentToJson(const ExperimentConfig& cfg) {
    QJsonObject task, solver, eval;
    for (const auto& k : experimentKeys()) {
        QJsonObject& sec = k.section == q("task") ? task : k.section == q("solver") ? solver : eval;
        sec.insert(k.key, k.value(cfg));
    }
    return QJsonObject{{q("task"), task}, {q("solver"), solver}, {q("eval"), eval}};
}

void applyOverride(QJsonObject& obj, const QString& assignment) {
    const qsizetype eq = assignment.indexOf(QLatin1Char('='));
    if (eq <= 0)
        throw ConfigError(str(q("--set \"") + assignment +
                              q("\": expected dotted.key=value, e.g. task.samples=1000")));
    const QString path = assignment.left(eq).trimmed();
    const QString text = assignment.mid(eq + 1).trimmed();
    const QStringList parts = path.split(QLatin1Char('.'));
    if (parts.size() != 2 || parts[0].isEmpty() || parts[1].isEmpty())
        throw ConfigError(
            str(q("--set \"") + assignment +
                q("\": the key must be section.key with section task, solver or eval")));
    const QString lower = text.toLower();
    if (lower == q("nan") || lower == q("inf") || lower == q("-inf") || lower == q("infinity") ||
        lower == q("+inf") || lower == q("-infinity"))
        throw ConfigError(str(path + q(": ") + text +
                              q(" is not allowed; NaN and infinite values are never allowed")));
    QJsonValue value;
    QJsonParseError err;
    const QJsonDocument doc = QJsonDocument::fromJson((q("[") + text + q("]")).toUtf8(), &err);
    if (err.error == QJsonParseError::NoError && doc.isArray() && doc.array().size() == 1)
        value = doc.array().at(0);
    else value = QJsonValue(text);
    if (const KeyInfo* k = findExperimentKey(path);
        k != nullptr && k->type == KeyInfo::Type::Integer && value.isDouble())
        if (const QString why = integerLiteralProblem(*k, text); !why.isEmpty())
            throw ConfigError(str(path + q(": ") + why), path);
    QJsonObject section = obj.value(parts[0]).toObject();
    if (obj.contains(parts[0]) && !obj.value(parts[0]).isObject())
        throw ConfigError(str(parts[0] + q(": expected an object")));
    section.insert(parts[1], value);
    obj.insert(parts[0], section);
}

QString experimentKeysHelp() {
    const ExperimentConfig defaults;
    QString out;
    QString current;
    for (const auto& k : experimentKeys()) {
        if (k.section != current) {
            current = k.section;
            out += q("\n  ") + current + q(":\n");
        }
        const QJsonValue v = k.value(defaults);
        const QString def = v.isString() ? (v.toString().isEmpty() ? q("(none)") : v.toString())
                            : v.isBool() ? (v.toBool() ? q("true") : q("false"))
                                         : numberText(v.toDouble());
        out += q("    ") + k.path().leftJustified(22) + q(" default ") + def.leftJustified(18) +
               q(" ") + k.allowed() + q("; read by: ") + k.applies.text() + q("\n") +
               q("        ") + k.help + q("\n");
    }
    return out;
}

const KeyInfo* findExperimentKey(const QString& dottedPath) {
    const qsizetype dot = dottedPath.indexOf(QLatin1Char('.'));
    return dot < 0 ? nullptr : findKey(dottedPath.left(dot), dottedPath.mid(dot + 1));
}

QString toString(TaskKind k) { return experimentKeys()[0].choices.value(static_cast<int>(k)); }
QString toString(Embedding e) {
    return findKey(q("task"), q("embedding"))->choices.value(static_cast<int>(e));
}
QString toString(OrthogonalSampler s) {
    return findKey(q("task"), q("orthogonal_sampler"))->choices.value(static_cast<int>(s));
}
QString toString(TokenScale s) {
    return findKey(q("task"), q("token_scale"))->choices.value(static_cast<int>(s));
}
QString toString(RngKind k) {
    return findKey(q("task"), q("rng"))->choices.value(static_cast<int>(k));
}
QString toString(SolverKind k) {
    return findKey(q("solver"), q("kind"))->choices.value(static_cast<int>(k));
}
QString toString(OptimizerKind k) {
    return findKey(q("solver"), q("optimizer"))->choices.value(static_cast<int>(k));
}
QString toString(ScheduleKind k) {
    return findKey(q("solver"), q("schedule"))->choices.value(static_cast<int>(k));
}
QString toString(ExploreMode m) {
    return findKey(q("eval"), q("identifiability"))->choices.value(static_cast<int>(m));
}
QString toString(SpectrumMode m) {
    return findKey(q("eval"), q("spectrum"))->choices.value(static_cast<int>(m));
}

} // namespace mhla
