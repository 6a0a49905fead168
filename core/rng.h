#pragma once
// Deterministic, portable random numbers. Every sample draws from its own generator seeded
// by (experiment seed, stream, sample index), so data never depends on the thread count or
// on the order in which samples are produced.
#include "core/types.h"
#include <cmath>
#include <cstdint>

namespace mhla {

/// Independent random streams of an experiment.
enum class Stream : std::uint64_t {
    Teacher = 1,
    Train = 2,
    Validation = 3,
    Ood = 4,
    Execution = 5,
    TrainInit = 6,
    TrainShuffle = 7,
};

inline std::uint64_t splitmix64(std::uint64_t& x) {
    std::uint64_t z = (x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/// xoshiro256** with a Box-Muller normal sampler (portable: no std:: distributions, whose
/// output differs between standard libraries).
class Rng {
public:
    explicit Rng(std::uint64_t seed, std::uint64_t stream = 0, std::uint64_t index = 0) {
        std::uint64_t x = seed ^ (0xD1B54A32D192ED03ull * (stream + 1));
        std::uint64_t mix = splitmix64(x) ^ (index * 0xA0761D6478BD642Full);
        for (auto& s : m_s) s = splitmix64(mix);
    }
    Rng(std::uint64_t seed, Stream stream, std::uint64_t index = 0)
        : Rng(seed, static_cast<std::uint64_t>(stream), index) {}

    std::uint64_t next() {
        const std::uint64_t result = rotl(m_s[1] * 5, 7) * 9;
        const std::uint64_t t = m_s[1] << 17;
        m_s[2] ^= m_s[0];
        m_s[3] ^= m_s[1];
        m_s[1] ^= m_s[2];
        m_s[0] ^= m_s[3];
        m_s[2] ^= t;
        m_s[3] = rotl(m_s[3], 45);
        return result;
    }
    /// Uniform in [0, 1).
    double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
    /// Uniform integer in [0, n).
    std::uint64_t below(std::uint64_t n) {
        return static_cast<std::uint64_t>(uniform() * static_cast<double>(n)) % n;
    }
    /// Standard normal.
    double normal() {
        if (m_hasSpare) {
            m_hasSpare = false;
            return m_spare;
        }
        double u1 = uniform();
        while (u1 <= 0.0) u1 = uniform();
        const double u2 = uniform();
        const double r = std::sqrt(-2.0 * std::log(u1));
        const double th = 2.0 * 3.14159265358979323846 * u2;
        m_spare = r * std::sin(th);
        m_hasSpare = true;
        return r * std::cos(th);
    }
    Mat normalMatrix(Index rows, Index cols, double stddev = 1.0) {
        Mat m(rows, cols);
        for (Index j = 0; j < cols; ++j)
            for (Index i = 0; i < rows; ++i) m(i, j) = stddev * normal();
        return m;
    }
    /// A Haar-distributed random orthogonal matrix (QR of a Gaussian matrix, signs fixed).
    Mat haarOrthogonal(Index n);

private:
    static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
    std::uint64_t m_s[4];
    double m_spare = 0;
    bool m_hasSpare = false;
};

} // namespace mhla
