// `mhla-lab bench` part for the trainers: minibatch steps per second (MATH.md §8).
#include "core/base/rng.h"
#include "core/run/training/trainer.h"
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <numeric>

namespace mhla {

namespace {

struct BenchCase {
    const char* label;
    SolverKind kind;
    int d, heads, layers, tokens, batch;
};

/// Steps per second of one timed run (Adam, clipping on, the trainer's own step path).
double stepsPerSecond(const BenchCase& c, const training::TrainingData& data, long long N) {
    SolverConfig solver;
    solver.kind = c.kind;
    solver.heads = c.heads;
    solver.layers = c.layers;
    solver.optimizer = OptimizerKind::Adam;
    solver.lr = 1e-4;
    solver.clip = 5.0;
    auto model = training::makeModel(solver, c.d, c.d);
    training::MinibatchStep step(*model, solver, 1);
    std::vector<long long> idx(static_cast<size_t>(N));
    std::iota(idx.begin(), idx.end(), 0LL);
    const long long perEpoch = N / c.batch;
    for (long long b = 0; b < perEpoch; ++b)
        step(data, idx.data() + b * c.batch, c.batch, 1e-4); // warm
    using Clock = std::chrono::steady_clock;
    const auto start = Clock::now();
    long long steps = 0;
    double elapsed = 0;
    do {
        for (long long b = 0; b < perEpoch; ++b)
            step(data, idx.data() + b * c.batch, c.batch, 1e-4);
        steps += perEpoch;
        elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    } while (elapsed < 0.2);
    return static_cast<double>(steps) / elapsed;
}

} // namespace

std::vector<TrainerBenchRow> benchTrainers(std::ostream& out, int repeats) {
    std::vector<TrainerBenchRow> rows;
    const BenchCase cases[] = {
        {"mhla", SolverKind::Mhla, 4, 4, 1, 20, 32},
        {"mhla", SolverKind::Mhla, 8, 8, 1, 20, 32},
        {"mhla", SolverKind::Mhla, 8, 64, 1, 20, 32},
        {"multilayer", SolverKind::Multilayer, 4, 4, 2, 20, 32},
        {"softmax", SolverKind::Softmax, 4, 4, 1, 20, 32},
    };
    repeats = std::max(1, repeats);
    out << "== Trainers (minibatch steps: Adam + clipping, one thread, median of " << repeats
        << " runs of >= 0.2 s) ==\n";
    for (const auto& c : cases) {
        const long long N = 1024;
        Rng rng(12345, 0);
        Dataset ds;
        for (long long i = 0; i < N; ++i)
            ds.Z.push_back(
                rng.normalMatrix(c.d, c.tokens, 1.0 / std::sqrt(static_cast<double>(c.tokens))));
        ds.Y = rng.normalMatrix(c.d, N);
        auto probe = training::makeModel(
            [&] {
                SolverConfig s;
                s.kind = c.kind;
                s.heads = c.heads;
                s.layers = c.layers;
                return s;
            }(),
            c.d, c.d);
        const auto data = training::prepareTrainingData(ds, probe->usesMoments());
        std::vector<double> rates;
        for (int r = 0; r < repeats; ++r) rates.push_back(stepsPerSecond(c, data, N));
        std::sort(rates.begin(), rates.end());
        const double median = rates[rates.size() / 2];
        char line[200];
        std::snprintf(line, sizeof line,
                      "  %-10s d=%-2d H=%-2d L=%d n=%-3d batch=%-3d params=%-6lld %10.0f steps/s "
                      "%9.2f us/step\n",
                      c.label, c.d, c.heads, c.layers, c.tokens, c.batch,
                      static_cast<long long>(probe->parameterCount()), median, 1e6 / median);
        out << line;
        rows.push_back(
            TrainerBenchRow{c.label, c.d, c.heads, c.layers, c.tokens, c.batch, 1e6 / median});
    }
    return rows;
}

} // namespace mhla
