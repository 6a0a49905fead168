// `mhla-lab bench`: times each phase of the exact solver (and the trainers) at a few sizes.
// Medians over repeats; the machine is noisy, so compare ratios measured in the same run.
#include "app/cli.h"
#include "app/options.h"
#include "core/algebra/certificate.h"
#include "core/algebra/cholesky.h"
#include "core/algebra/features.h"
#include "core/algebra/solver.h"
#include "core/base/parallel.h"
#include "core/base/philox.h"
#include "core/base/process.h"
#include "core/kernels/gemmkernel.h"
#include "core/run/runner.h"
#include "core/run/training/training.h"
#include <QCoreApplication>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QStringList>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

namespace mhla::cli {

namespace {

using Clock = std::chrono::steady_clock;
double seconds(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}
double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
template <typename F> double medianTime(int repeats, F&& f) {
    std::vector<double> t;
    for (int r = 0; r < repeats; ++r) {
        const auto t0 = Clock::now();
        f();
        t.push_back(seconds(t0));
    }
    return median(t);
}

struct Size {
    int d, n;
    long long N;
    int heads;
};

/// Random-MHLA data of one size, generated in blocks as the runner does.
struct Blocks {
    std::vector<Mat> U, Qz, Y;
};

/// Fills b with the blocks of samples [0, N), reusing its storage when it has the sizes: the
/// runner reuses its block's storage too, so after the first repeat the timing holds no first
/// touch of fresh pages (which cost more than the draws on a paravirtualised machine).
void generateInto(Blocks& b, const Task& task, long long N, long long B, int threads) {
    const size_t blocks = static_cast<size_t>((N + B - 1) / B);
    b.U.resize(blocks);
    b.Qz.resize(blocks);
    b.Y.resize(blocks);
    for (size_t k = 0; k < blocks; ++k) {
        const long long s0 = static_cast<long long>(k) * B;
        fillSampleBlock(task, Stream::Train, s0, std::min(B, N - s0), b.U[k], b.Qz[k], b.Y[k],
                        threads);
    }
}

Blocks generate(const Task& task, long long N, long long B, int threads) {
    Blocks b;
    generateInto(b, task, N, B, threads);
    return b;
}

/// Draws the prompts Z (d x n normals) of samples [0, N) of the training stream with the
/// task's generator, one generator per sample as the tasks do, and nothing else: the normals'
/// share of the generation.
void drawPrompts(const Task& task, long long N, int threads) {
    constexpr long long kItem = 256;
    const double sd = 1.0 / std::sqrt(static_cast<double>(task.tokens()));
    std::vector<double> sums(static_cast<size_t>((N + kItem - 1) / kItem));
    parallelFor(static_cast<long long>(sums.size()), threads, [&](long long item) {
        thread_local Mat Z;
        Z.resize(task.d(), task.tokens());
        double sum = 0;
        for (long long i = item * kItem; i < std::min(N, (item + 1) * kItem); ++i) {
            Rng rng = task.rng(Stream::Train, i);
            rng.normalFill(Z, sd);
            sum += Z(0, 0);
        }
        sums[static_cast<size_t>(item)] = sum; // kept, so that the draws are not optimised away
    });
    volatile double keep = std::accumulate(sums.begin(), sums.end(), 0.0);
    (void)keep;
}

/// The environment the NumPy reference runs in. Debian's OpenBLAS may not recognise a newer
/// CPU and fall back to a slow generic kernel (13 vs 71 GFLOP/s measured on an AVX-512 Xeon),
/// which would flatter us: probe the core types with a dgemm and keep the fastest.
QProcessEnvironment referenceEnvironment() {
    static const QProcessEnvironment best = [] {
        const QString probe = QStringLiteral(
            "import numpy as np, time\n"
            "a = np.random.rand(2000, 2000); b = np.random.rand(2000, 2000); a @ b\n"
            "t = time.perf_counter(); a @ b; print(2 * 2000**3 / (time.perf_counter() - t) / 1e9)\n");
        QProcessEnvironment bestEnv = QProcessEnvironment::systemEnvironment();
        double bestRate = -1;
        QString bestName;
        for (const QString& core :
             {QString(), QStringLiteral("Haswell"), QStringLiteral("SkylakeX"),
              QStringLiteral("Zen"), QStringLiteral("Sandybridge")}) {
            QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
            env.remove(QStringLiteral("OPENBLAS_CORETYPE"));
            env.remove(QStringLiteral("OPENBLAS_L2_SIZE"));
            if (!core.isEmpty()) env.insert(QStringLiteral("OPENBLAS_CORETYPE"), core);
            QProcess p;
            p.setProcessEnvironment(env);
            p.start(QStringLiteral("/usr/bin/python3"), {QStringLiteral("-c"), probe});
            if (!p.waitForFinished(120000) || p.exitCode() != 0) continue;
            const double rate = QString::fromUtf8(p.readAllStandardOutput()).trimmed().toDouble();
            std::printf("     numpy dgemm with OPENBLAS_CORETYPE=%s: %.1f GFLOP/s\n",
                        core.isEmpty() ? "(unset)" : core.toUtf8().constData(), rate);
            if (rate > bestRate) bestRate = rate, bestEnv = env, bestName = core;
        }
        std::printf("     the NumPy reference runs with OPENBLAS_CORETYPE=%s (fastest)\n",
                    bestName.isEmpty() ? "(unset)" : bestName.toUtf8().constData());
        return bestEnv;
    }();
    return best;
}

/// Times of the NumPy reference (shared/bench/numpy_ref.py) for one size: {syrk, total}.
std::optional<std::pair<double, double>> runReference(const QString& script, const Size& s) {
    QProcess p;
    p.setProcessEnvironment(referenceEnvironment());
    p.start(QStringLiteral("/usr/bin/python3"), {script, QString::number(s.d), QString::number(s.n),
                                                 QString::number(s.N), QString::number(s.heads)});
    if (!p.waitForFinished(600000) || p.exitCode() != 0) return std::nullopt;
    const QString out = QString::fromUtf8(p.readAllStandardOutput());
    const auto syrk = QRegularExpression(QStringLiteral("Sigma\\(syrk\\) ([0-9.]+)s")).match(out);
    const auto total = QRegularExpression(QStringLiteral("total ([0-9.]+)s")).match(out);
    if (!syrk.hasMatch() || !total.hasMatch()) return std::nullopt;
    return std::make_pair(syrk.captured(1).toDouble(), total.captured(1).toDouble());
}

/// This machine's own limit: the aggregate double-precision GEMM rate (FLOP/s) of `threads`
/// threads, each multiplying its own 768 x 768 matrices with Eigen's GEMM compiled for the same
/// x86-64 level as the accumulation's kernel (core/kernels/gemmkernel.h). Median of
/// `repeats`.
double measureDgemmRate(int threads, int repeats) {
    constexpr Index n = 768;
    const int t = resolveThreads(threads);
    const kernels::GemmAtB gemm = kernels::accumulationGemm().run;
    std::vector<Mat> A(static_cast<size_t>(t)), B(A.size()), C(A.size());
    for (size_t k = 0; k < A.size(); ++k) {
        A[k] = Mat::Random(n, n);
        B[k] = Mat::Random(n, n);
        C[k] = Mat::Zero(n, n);
    }
    const auto multiply = [&](long long k) {
        const size_t i = static_cast<size_t>(k);
        gemm(n, n, n, A[i].data(), n, B[i].data(), n, C[i].data(), n);
    };
    parallelFor(t, t, multiply);
    const double sec = medianTime(std::max(3, repeats), [&] { parallelFor(t, t, multiply); });
    return 2.0 * static_cast<double>(n) * n * n * t / sec;
}

void printSolverHeader(double limit, int repeats, int threads) {
    std::printf(
        "\n== This machine's limit: dgemm (Eigen, kernel %s, %d thread(s), 768^3 each) %.1f "
        "GFLOP/s ==\n",
        kernels::accumulationGemm().name, resolveThreads(threads), limit * 1e-9);
    std::printf(
        "Fractions below: the time the phase's useful FLOPs would take at that rate, divided\n"
        "by the measured time (1.0 = at the machine's dgemm limit). Accumulation: N D^2/4\n"
        "multiply-adds (the distinct entries of psi psi^T); solve: D^3/3 (Cholesky) or\n"
        "~9 D^3 (dense eigen-decomposition).\n");
    std::printf("\n== Exact solver: random MHLA, d_out = d, median of %d runs, %d thread(s) ==\n",
                repeats, resolveThreads(threads));
    std::printf("Generation (gen s) with task.rng = %s (the default; Philox kernel %s); the line\n"
                "below each size also times it with %s (the generator before task.rng) and the\n"
                "normals alone (a generator per sample, the prompt's d n draws: the cap of the\n"
                "generation phase, what remains is the teacher's output and the rows' copies).\n",
                toString(RngKind::Philox).toUtf8().constData(), philox::kernel().name,
                toString(RngKind::XoshiroZiggurat).toUtf8().constData());
    std::printf("%4s %4s %7s %6s | %9s %9s %9s %9s %9s | %8s %8s | %s\n", "d", "n", "N", "D",
                "gen s", "accum s", "cert+sol", "heads s", "total s", "GF/s exe", "GF/s eq",
                "check");
}

/// One size's phase times (medians) and the solution, for the row and the ratios below it.
struct SolverTimes {
    double gen = 0, genOld = 0, genFresh = 0, normals = 0, normalsOld = 0;
    double acc = 0, solve = 0, heads = 0;
    double solvePath = 0;  ///< the same size through `solve` (runExperiment, eval defaults)
    ExperimentResult path; ///< its result (phase timings, explorer)
    PolySolution sol;
    double relError = 0; ///< |P - P*| / |P*|
    double total() const { return gen + acc + solve + heads; }
};

SolverTimes timeSolver(const Size& s, int repeats, int threads) {
    ExperimentConfig cfg;
    cfg.task.kind = TaskKind::RandomMhla;
    cfg.task.d = s.d;
    cfg.task.tokens = s.n;
    cfg.task.dOut = s.d;
    cfg.task.teacherHeads = s.heads;
    cfg.task.samples = s.N;
    cfg.eval.spectrum = SpectrumMode::None;
    cfg.eval.lambdaTrace = 0;
    cfg.task.rng = RngKind::Philox;
    const auto task = makeTask(cfg.task);
    const int d = s.d;
    const long long B = kAccumulationBlock;
    SolverTimes t;
    // The generation with the generator of older experiments, its blocks dropped before
    // the default's are made.
    TaskConfig oldTask = cfg.task;
    oldTask.rng = RngKind::XoshiroZiggurat;
    {
        const auto old = makeTask(oldTask);
        Blocks b;
        t.genOld = medianTime(repeats, [&] { generateInto(b, *old, s.N, B, threads); });
    }
    t.normals = medianTime(repeats, [&] { drawPrompts(*task, s.N, threads); });
    const auto oldForNormals = makeTask(oldTask);
    t.normalsOld = medianTime(repeats, [&] { drawPrompts(*oldForNormals, s.N, threads); });
    // The same into fresh storage each time (how this bench timed it before): the
    // difference is the first touch of the pages.
    t.genFresh = medianTime(repeats, [&] { const Blocks b = generate(*task, s.N, B, threads); });
    Blocks blocks;
    t.gen = medianTime(repeats, [&] { generateInto(blocks, *task, s.N, B, threads); });
    Mat L, C;
    t.acc = medianTime(repeats, [&] {
        MomentAccumulator acc(d, d);
        for (size_t k = 0; k < blocks.U.size(); ++k)
            acc.addBlock(blocks.U[k], blocks.Qz[k], blocks.Y[k], threads);
        L = acc.lambda();
        C = acc.crossMoment();
    });
    CertifyOptions opt;
    t.solve = medianTime(repeats, [&] { t.sol = solveCertified(L, C, 0.0, opt); });
    HeadDecomposition hd;
    t.heads = medianTime(repeats, [&] { hd = headsFromP(t.sol.P, d); });
    t.relError = (t.sol.P - task->teacherP()).norm() / task->teacherP().norm();
    // What a user runs: the same experiment through solve's own path with the eval defaults
    // (the lambda_min trace, train/validation/OOD errors, the explorer where its default runs).
    ExperimentConfig user = cfg;
    user.eval = EvalConfig{};
    RunContext ctx;
    ctx.threads = threads;
    t.solvePath = medianTime(repeats, [&] { t.path = runExperiment(user, ctx); });
    return t;
}

void printSolverRow(const Size& s, const SolverTimes& t, double limit) {
    const int d = s.d, P = pairCount(d);
    const long long D = featureDim(d);
    // Flops: executed = what the kernel does (core/algebra/features.cpp): the rows (p <= p') of
    // Lambda's distinct entries times the query pairs padded to 8, and C's P x (d d_out)
    // padded, 2 flops each per sample; equivalent = what a plain SYRK Phi^T Phi would need
    // (N D^2).
    const double exe = 2.0 * static_cast<double>(s.N) *
                       (static_cast<double>(P) * (P + 1) / 2 * kernels::outerSumPad(P) +
                        static_cast<double>(P) * kernels::outerSumPad(static_cast<long>(d) * d));
    const double eq = static_cast<double>(s.N) * static_cast<double>(D) * static_cast<double>(D);
    std::printf("%4d %4d %7lld %6lld | %9.4f %9.4f %9.4f %9.4f %9.4f | %8.1f %8.1f | "
                "lambda_min %.2e, |P-P*|/|P*| %.1e, %s\n",
                d, s.n, s.N, D, t.gen, t.acc, t.solve, t.heads, t.total(), exe / t.acc * 1e-9,
                eq / t.acc * 1e-9, t.sol.certificate.lambdaMin, t.relError,
                t.sol.certificate.method.c_str());
    const double usefulAcc =
        2.0 * static_cast<double>(s.N) * static_cast<double>(D) * static_cast<double>(D) / 4.0;
    const double Dd = static_cast<double>(D);
    const double usefulSolve =
        t.sol.certificate.method == "dense" ? 9.0 * Dd * Dd * Dd : Dd * Dd * Dd / 3.0;
    std::printf("     fraction of the dgemm limit: accumulation %.2f, certificate+solve %.2f; "
                "generation takes %.0f%% of the accumulation time\n",
                usefulAcc / limit / t.acc, usefulSolve / limit / t.solve, 100.0 * t.gen / t.acc);
    const double draws = static_cast<double>(s.N) * s.d * s.n;
    std::printf("     generation, gen s and gen/accum: %s %.4f s %.0f%%, %s %.4f s %.0f%% "
                "(%.2fx); normals alone (the cap): %.4f s (%.2f ns each) vs %.4f s (%.2f ns); "
                "%s into fresh storage %.4f s\n",
                toString(RngKind::Philox).toUtf8().constData(), t.gen, 100.0 * t.gen / t.acc,
                toString(RngKind::XoshiroZiggurat).toUtf8().constData(), t.genOld,
                100.0 * t.genOld / t.acc, t.genOld / t.gen, t.normals, t.normals / draws * 1e9,
                t.normalsOld, t.normalsOld / draws * 1e9,
                toString(RngKind::Philox).toUtf8().constData(), t.genFresh);
    QStringList phases;
    for (const auto& [name, ms] : t.path.timingsMs)
        if (name != "total") phases << QString::asprintf("%s %.4f", name.c_str(), ms * 1e-3);
    std::printf("     through solve (the eval defaults): %.4f s = %.2fx the phases above; "
                "per phase (s): %s\n",
                t.solvePath, t.solvePath / t.total(),
                phases.join(QStringLiteral(", ")).toUtf8().constData());
}

/// The NumPy reference on the same size, `repeats` times, as ratios against this run's times.
void printReference(const QString& reference, const Size& s, int repeats, const SolverTimes& t) {
    std::vector<double> syrk, total;
    for (int r = 0; r < repeats; ++r)
        if (const auto ref = runReference(reference, s)) {
            syrk.push_back(ref->first);
            total.push_back(ref->second);
        }
    if (syrk.empty()) {
        std::printf("     numpy reference failed to run (%s)\n", reference.toUtf8().constData());
        return;
    }
    std::printf("     numpy reference (median of %zu): Sigma %.4f s, total %.4f s  ->  "
                "accumulation %.2fx, whole pipeline %.2fx faster here (through solve "
                "%.2fx)\n",
                syrk.size(), median(syrk), median(total), median(syrk) / t.acc,
                median(total) / t.total(), median(total) / t.solvePath);
}

void benchSolver(const std::vector<Size>& sizes, int repeats, int threads,
                 const QString& reference) {
    const double limit = measureDgemmRate(threads, repeats);
    printSolverHeader(limit, repeats, threads);
    for (const Size& s : sizes) {
        const SolverTimes t = timeSolver(s, repeats, threads);
        printSolverRow(s, t, limit);
        if (!reference.isEmpty()) printReference(reference, s, repeats, t);
    }
}

void benchCrossover(const std::vector<int>& ds, int repeats) {
    std::printf(
        "\n== Certificate: dense eigenvalues vs Cholesky + Lanczos (Spectra), median of %d ==\n",
        repeats);
    std::printf("%4s %6s | %10s %10s %8s | %s\n", "d", "D", "dense s", "lanczos s", "ratio",
                "lambda_min dense / lanczos");
    for (int d : ds) {
        ExperimentConfig cfg;
        cfg.task.kind = TaskKind::RandomMhla;
        cfg.task.d = d;
        cfg.task.tokens = d + 1;
        cfg.task.dOut = 1;
        const long long D = featureDim(d);
        const auto task = makeTask(cfg.task);
        MomentAccumulator acc(d, 1);
        const Blocks b = generate(*task, 2 * D, 4096, 0);
        for (size_t k = 0; k < b.U.size(); ++k) acc.addBlock(b.U[k], b.Qz[k], b.Y[k], 0);
        const Mat L = acc.lambda();
        CertifyOptions opt;
        Certificate cd, cl;
        const double td = medianTime(repeats, [&] { cd = certify(L, opt, "dense"); });
        const double tl = medianTime(repeats, [&] { cl = certify(L, opt, "lanczos"); });
        std::printf("%4d %6lld | %10.4f %10.4f %8.2f | %.6e / %.6e (%s)\n", d, D, td, tl, td / tl,
                    cd.lambdaMin, cl.lambdaMin, cl.method.c_str());
    }
}

/// Eigen's one-core LLT against the blocked parallel factorisation (core/algebra/cholesky.h)
/// on random positive definite matrices, each as a fraction of the dgemm limit (D^3 / 3
/// flops), with the residual ||L L^T - A|| / ||A|| of the blocked factor.
void benchCholesky(const std::vector<Index>& dims, int repeats, int threads) {
    const double limit = measureDgemmRate(threads, repeats);
    std::printf("\n== Cholesky: Eigen LLT (one core) vs blocked parallel (%d thread(s)), median "
                "of %d; fraction of the dgemm limit %.1f GFLOP/s ==\n",
                resolveThreads(threads), repeats, limit * 1e-9);
    std::printf("%6s | %9s %6s | %9s %6s | %8s | %s\n", "D", "Eigen s", "frac", "blocked s", "frac",
                "speedup", "residual");
    for (const Index D : dims) {
        const Mat X = Mat::Random(D + 64, D);
        Mat A = X.transpose() * X / static_cast<double>(D);
        A.diagonal().array() += 1.0;
        const double flops = static_cast<double>(D) * D * D / 3.0; // D^3 / 6 multiply-adds
        std::shared_ptr<const Eigen::LLT<Mat>> blocked;
        const double te = medianTime(repeats, [&] { const Eigen::LLT<Mat> l(A); });
        const double tb = medianTime(repeats, [&] { blocked = choleskyFactor(A, threads); });
        const Mat L = blocked->matrixL();
        const double residual = (L * L.transpose() - A).norm() / A.norm();
        std::printf("%6lld | %9.4f %6.2f | %9.4f %6.2f | %7.2fx | %.1e%s\n",
                    static_cast<long long>(D), te, flops / limit / te, tb, flops / limit / tb,
                    te / tb, residual,
                    D < kParallelCholeskyMinDim ? " (Eigen below the crossover)" : "");
    }
}

/// Microseconds per Adam step of the PyTorch reference (shared/bench/torch_sgd_ref.py) at one
/// size with `torchThreads` intra-op threads, or nothing when it fails.
std::optional<double> runTorchReference(const QString& script, const TrainerBenchRow& row,
                                        int torchThreads) {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("OMP_NUM_THREADS"), QString::number(torchThreads));
    env.insert(QStringLiteral("MKL_NUM_THREADS"), QString::number(torchThreads));
    QProcess p;
    p.setProcessEnvironment(env);
    // N = 4096 prompts, 3 epochs: 384 steps per run, enough to time and quick to start.
    p.start(QStringLiteral("/usr/bin/python3"),
            {script, QString::number(row.d), QString::number(row.tokens), QStringLiteral("4096"),
             QString::number(row.heads), QString::number(row.batch), QStringLiteral("3")});
    if (!p.waitForFinished(600000) || p.exitCode() != 0) return std::nullopt;
    const auto m = QRegularExpression(QStringLiteral("\\(([0-9.]+) us/step\\)"))
                       .match(QString::fromUtf8(p.readAllStandardOutput()));
    if (!m.hasMatch()) return std::nullopt;
    return m.captured(1).toDouble();
}

/// Runs the PyTorch reference for the one-layer MHLA rows, at its best of 1 and all cores'
/// intra-op threads (small steps are often faster on one), and prints the ratios.
void benchTorchReference(const QString& script, const std::vector<TrainerBenchRow>& rows,
                         int repeats) {
    std::printf("\n== PyTorch reference (%s: Adam, no clipping; ours: Adam + clipping, one "
                "thread), median of %d ==\n",
                script.toUtf8().constData(), repeats);
    const int cores = resolveThreads(0);
    for (const TrainerBenchRow& row : rows) {
        if (row.label != "mhla" || row.layers != 1) continue;
        double best = -1;
        int bestThreads = 0;
        for (int t : {1, cores}) {
            std::vector<double> us;
            for (int r = 0; r < repeats; ++r)
                if (const auto x = runTorchReference(script, row, t)) us.push_back(*x);
            if (us.empty()) continue;
            const double m = median(us);
            std::printf("  torch d=%-2d H=%-2d n=%d batch=%d, %d thread(s): %9.1f us/step\n", row.d,
                        row.heads, row.tokens, row.batch, t, m);
            if (best < 0 || m < best) best = m, bestThreads = t;
            if (cores == 1) break;
        }
        if (best < 0) {
            std::printf("  torch reference failed to run for d=%d H=%d (is python3-torch "
                        "installed?)\n",
                        row.d, row.heads);
            continue;
        }
        std::printf("  -> d=%d H=%d: ours %.2f us/step, torch at its best (%d thread(s)) %.1f "
                    "us/step: %.0fx\n",
                    row.d, row.heads, row.usPerStep, bestThreads, best, best / row.usPerStep);
    }
}

/// The one-layer MHLA steps as a fraction of one core's dgemm limit (the trainers run one
/// thread). Useful work: the step's seven products per sample, Q z_q, S q_h and V t forward,
/// V's gradient, V^T r, S g_h and Q's gradient: 4 H d^2 + 3 d_out H d multiply-adds.
void benchTrainerFractions(const std::vector<TrainerBenchRow>& rows, int repeats) {
    const double limit = measureDgemmRate(1, repeats);
    std::printf("  fraction of one core's dgemm limit (%.1f GFLOP/s), useful FLOPs = batch "
                "(4 H d^2 + 3 d_out H d) multiply-adds:\n",
                limit * 1e-9);
    for (const TrainerBenchRow& row : rows) {
        if (row.label != "mhla" || row.layers != 1) continue;
        const double d = row.d, H = row.heads, dOut = row.d; // the bench models have d_out = d
        const double flops = 2.0 * row.batch * (4 * H * d * d + 3 * dOut * H * d);
        const double rate = flops / (row.usPerStep * 1e-6);
        std::printf("    mhla d=%-2d H=%-2d %6.1f GFLOP/s  %.2f\n", row.d, row.heads, rate * 1e-9,
                    rate / limit);
    }
}

void benchDefaultSolve(int repeats, int threads) {
    ExperimentConfig cfg; // the default experiment: associative memory, pairs 2, N = 16384
    RunContext ctx;
    ctx.threads = threads;
    ExperimentResult r;
    const double t = medianTime(repeats, [&] { r = runExperiment(cfg, ctx); });
    std::printf("\n== Default experiment (associative memory, pairs 2, N 16384, all metrics) ==\n"
                "whole solve: %.4f s median of %d (certified %s, lambda_min %.3e)\n",
                t, repeats, r.certificate.certified ? "yes" : "no", r.certificate.lambdaMin);
}

} // namespace

int runBench(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    useCNumericLocale();
    QStringList args = app.arguments();
    args.removeFirst();
    args.removeFirst();
    BenchOptions opt;
    if (const QString e = parseBenchOptions(args, &opt); !e.isEmpty()) {
        std::fprintf(stderr, "mhla-lab bench: %s\n", e.toUtf8().constData());
        return InvalidInput;
    }
    if (opt.help) {
        std::puts(
            "Usage: mhla-lab bench [--repeats N] [--threads N] [--quick] [--reference numpy_ref.py]\n"
            "                      [--torch-reference torch_sgd_ref.py]\n"
            "Times each phase of the exact solver at d = 4, 8, 16 (the sizes of\n"
            "shared/bench/numpy_ref.py), the dense-vs-Lanczos certificate crossover, the\n"
            "default experiment end to end, and the trainers' steps per second.\n"
            "--quick: small sizes only, one repeat (a smoke test).\n"
            "--reference FILE: also run the NumPy reference script (shared/bench/numpy_ref.py)\n"
            "with the same d, n, N, heads, interleaved, and print the ratios.\n"
            "--torch-reference FILE: also run the PyTorch trainer reference\n"
            "(shared/bench/torch_sgd_ref.py) at the one-layer MHLA sizes, with 1 and all\n"
            "intra-op threads (the faster counts), and print the ratios per step.");
        return Success;
    }
    if (!opt.torchReference.isEmpty() && !QFileInfo(opt.torchReference).isFile()) {
        std::fprintf(stderr,
                     "mhla-lab bench: --torch-reference: \"%s\" is not a file; expected the path "
                     "of torch_sgd_ref.py\n",
                     opt.torchReference.toUtf8().constData());
        return InvalidInput;
    }
    if (!opt.reference.isEmpty() && !QFileInfo(opt.reference).isFile()) {
        std::fprintf(
            stderr,
            "mhla-lab bench: --reference: \"%s\" is not a file; expected the path of numpy_ref.py\n",
            opt.reference.toUtf8().constData());
        return InvalidInput;
    }
    const int repeats = opt.repeats, threads = opt.threads;
    const bool quick = opt.quick;
    const QString reference = opt.reference;
    const std::vector<Size> sizes =
        quick ? std::vector<Size>{{4, 3, 4096, 1}, {8, 9, 4096, 4}}
              : std::vector<Size>{{4, 3, 16384, 1}, {8, 9, 65536, 4}, {16, 17, 32768, 8}};
    benchSolver(sizes, repeats, threads, reference);
    benchCrossover(quick ? std::vector<int>{6, 8} : std::vector<int>{3, 4, 5, 6, 8, 10, 12, 14, 16},
                   std::min(repeats, 3));
    benchCholesky(quick ? std::vector<Index>{512, 1024} : std::vector<Index>{1024, 2176, 4096},
                  std::min(repeats, 3), threads);
    benchDefaultSolve(repeats, threads);
    const std::vector<TrainerBenchRow> rows = benchTrainers(std::cout, repeats);
    std::cout.flush();
    benchTrainerFractions(rows, repeats);
    if (!opt.torchReference.isEmpty())
        benchTorchReference(opt.torchReference, rows, std::min(repeats, 3));
    return Success;
}

} // namespace mhla::cli
