#pragma once
// Deterministic, portable random numbers. Every sample draws from its own generator seeded
// by (experiment seed, stream, sample index), so data never depends on the thread count or
// on the order in which samples are produced.
#include "core/base/philox.h"
#include "core/base/rngkind.h"
#include "core/base/types.h"
#include <bit>
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
    // The identifiability explorer's own draws (values are ASCII tags, kept from when they were
    // literals at their call sites, so that every saved result reproduces bit for bit).
    GenericRank = 0x6E6E,      ///< genericMinHeads: random factors of a generic W ("nn")
    MinHeadsStart = 0x4D48,    ///< minHeads: random kernel elements added to starts ("MH")
    MinHeadsContinue = 0x4D43, ///< minHeads: random factor starts below an exact fit ("MC")
    ProbeStart = 0x5052,       ///< the H-head probe's random starts ("PR")
};

[[nodiscard]] inline std::uint64_t splitmix64(std::uint64_t& x) {
    std::uint64_t z = (x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/// The generator of one (seed, stream, index), of either kind (portable: no std::
/// distributions, whose output differs between standard libraries).
/// - XoshiroZiggurat (the default of this class, so that the trainers and the identifiability
///   probes, which task.rng does not govern, keep their numbers): xoshiro256** seeded by
///   splitmix64 from (seed, stream, index), normals by the ziggurat.
/// - Philox (task.rng's default): word i is Philox4x32-10 of the counter (i / 2, index, stream)
///   under the key seed (core/base/philox.h); next(), uniform() and below() read one word,
///   normals come in Box-Muller pairs of words (normal() keeps the pair's second for the next
///   call; normalFill uses a kept one first), computed in SIMD lanes.
class Rng {
public:
    explicit Rng(std::uint64_t seed, std::uint64_t stream = 0, std::uint64_t index = 0,
                 RngKind kind = RngKind::XoshiroZiggurat)
        : m_kind(kind) {
        if (kind == RngKind::Philox) {
            m_philox = philox::streamKey(seed, stream, index);
            return;
        }
        std::uint64_t x = seed ^ (0xD1B54A32D192ED03ull * (stream + 1));
        std::uint64_t mix = splitmix64(x) ^ (index * 0xA0761D6478BD642Full);
        for (auto& s : m_s) s = splitmix64(mix);
    }
    Rng(std::uint64_t seed, Stream stream, std::uint64_t index = 0,
        RngKind kind = RngKind::XoshiroZiggurat)
        : Rng(seed, static_cast<std::uint64_t>(stream), index, kind) {}

    RngKind kind() const { return m_kind; }
    std::uint64_t next() {
        if (m_kind == RngKind::Philox) return philoxWord();
        return step(m_s);
    }
    /// Uniform in [0, 1).
    double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
    /// Uniform integer in [0, n).
    std::uint64_t below(std::uint64_t n) {
        return static_cast<std::uint64_t>(uniform() * static_cast<double>(n)) % n;
    }
    /// Standard normal: the ziggurat method (Marsaglia and Tsang 2000, 256 layers) on one 64-bit
    /// draw per normal in 98.8% of cases: bits 0-7 pick the layer, bit 8 the sign, bits 11-63
    /// the position. No trigonometry; a logarithm only in the rare tail and wedge draws. About
    /// 10x faster than the Box-Muller transform this generator used in 0.1 (which drew a
    /// different, equally distributed, sequence).
    double normal() {
        if (m_kind == RngKind::Philox) return philoxNormal();
        return normalFrom(m_s);
    }
    Mat normalMatrix(Index rows, Index cols, double stddev = 1.0) {
        Mat m(rows, cols);
        normalFill(m, stddev);
        return m;
    }
    /// Fills m with N(0, stddev^2) draws in column-major order: the numbers normalMatrix draws.
    void normalFill(Mat& m, double stddev = 1.0) {
        if (m_kind == RngKind::Philox) {
            philoxFill(m.data(), m.size(), stddev);
            return;
        }
        // The state in locals while the draws take the common path, so that it stays in
        // registers (through m_s, each draw waited on a store and a load of it).
        std::uint64_t s[4] = {m_s[0], m_s[1], m_s[2], m_s[3]};
        double* p = m.data();
        const Index size = m.size();
        for (Index k = 0; k < size; ++k) p[k] = stddev * normalFrom(s);
        for (int j = 0; j < 4; ++j) m_s[j] = s[j];
    }
    /// A Haar-distributed random orthogonal matrix (QR of a Gaussian matrix, signs fixed).
    Mat haarOrthogonal(Index n);

    /// The ziggurat's layers: x[0] = v / f(r) (the base strip's width), x[1] = r, x[256] = 0,
    /// f[i] = exp(-x[i]^2 / 2). Built once from r and v (the layer area) with libm.
    struct ZigguratTables {
        static constexpr double r = 3.6541528853610088;
        static constexpr double v = 0.00492867323399;
        double x[257];
        double f[257];
        ZigguratTables();
    };
    static const ZigguratTables kZiggurat;

private:
    /// xoshiro256**'s step on the state s: the output, and s advanced.
    static std::uint64_t step(std::uint64_t (&s)[4]) {
        const std::uint64_t result = rotl(s[1] * 5, 7) * 9;
        const std::uint64_t t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = rotl(s[3], 45);
        return result;
    }
    /// normal() on the state s (this generator's, or a copy of it that normalFill keeps in
    /// registers): the common path inline; the rare one runs on m_s, so s goes there and back.
    double normalFrom(std::uint64_t (&s)[4]) {
        const std::uint64_t u = step(s);
        const unsigned i = static_cast<unsigned>(u & 0xFF);
        const double x = static_cast<double>(u >> 11) * 0x1.0p-53 * kZiggurat.x[i];
        // The sign without a branch (a coin-flip branch mispredicts half the time and cost
        // a fifth of the draw): bit 8 moved to the sign bit; x's own sign bit is clear.
        const double sx =
            std::bit_cast<double>(std::bit_cast<std::uint64_t>(x) ^ ((u & 0x100) << 55));
        if (x < kZiggurat.x[i + 1]) [[likely]]
            return sx;
        if (&s[0] == &m_s[0]) return normalSlow(u, x, sx);
        for (int j = 0; j < 4; ++j) m_s[j] = s[j];
        const double r = normalSlow(u, x, sx);
        for (int j = 0; j < 4; ++j) s[j] = m_s[j];
        return r;
    }
    /// The rare rest of normal() for the draw u (x = its position, sx = x with its sign): the
    /// tail beyond r or the wedge test; a rejected draw starts over with the next one. Out of
    /// line so that the common path keeps the generator's state in registers.
    double normalSlow(std::uint64_t u, double x, double sx);
    /// Uniform in (0, 1).
    double openUniform() {
        double t = uniform();
        while (t <= 0.0) t = uniform();
        return t;
    }
    static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
    /// Philox: the next word (one block computed per two words).
    std::uint64_t philoxWord() {
        const std::uint64_t block = m_word >> 1;
        if (block != m_cachedBlock) {
            m_cachedBlock = block;
            const philox::Block b = philox::philox4x32_10(
                {static_cast<std::uint32_t>(block), m_philox.c1, m_philox.c2, m_philox.c3},
                m_philox.key);
            m_cached[0] = b[0] | static_cast<std::uint64_t>(b[1]) << 32;
            m_cached[1] = b[2] | static_cast<std::uint64_t>(b[3]) << 32;
        }
        return m_cached[m_word++ & 1];
    }
    double philoxNormal();
    void philoxFill(double* p, Index count, double stddev);

    RngKind m_kind;
    std::uint64_t m_s[4] = {};
    philox::StreamKey m_philox;
    std::uint64_t m_word = 0;                        ///< Philox: the next word's index
    std::uint64_t m_cachedBlock = ~std::uint64_t{0}; ///< Philox: the block in m_cached
    std::uint64_t m_cached[2] = {};
    double m_spare = 0; ///< Philox: the second normal of the last pair, when m_hasSpare
    bool m_hasSpare = false;
};

} // namespace mhla
