#pragma once
// Philox4x32-10 (Salmon, Moraes, Dror and Shaw, SC'11: the counter-based generator of
// Random123, NumPy, JAX, cuRAND and PyTorch) and standard normals from it by the Box-Muller
// transform, both computed in SIMD lanes within one stream: word i of a stream is a pure
// function of (key, counter, i), so consecutive words are independent lanes.
//
// A stream is a key (two 32-bit words) and the upper three words of the counter; block j has
// the counter (j, c1, c2, c3). Word i of the stream is half of block i / 2: x0 | x1 << 32 for
// even i, x2 | x3 << 32 for odd i.
//
// Normal k of normals(first, ...) comes from the words a = w[first + 2m], b = w[first + 2m + 1]
// of its pair m = k / 2: u1 = 2 - (1 + (a >> 12) 2^-52) in (0, 1], u2 = (b >> 12) 2^-52 in
// [0, 1), r = sqrt(-2 log u1), normal 2m = r cos(2 pi u2), normal 2m + 1 = r sin(2 pi u2). log,
// sin and cos are polynomials (fdlibm's e_log.c, __kernel_sin, __kernel_cos on an exact
// reduction of 2 pi u2 to [-pi/4, pi/4]), accurate to a few ulp (tst_rng measures it against
// long double), written with separate multiplies and adds (compiled without FMA contraction)
// so that every ISA copy gives the same bits. |normal| <= sqrt(-2 log 2^-52) = 8.49.
#include "core/base/rngkind.h"
#include <array>
#include <cstddef>
#include <cstdint>

namespace mhla::philox {

using Block = std::array<std::uint32_t, 4>;
using Key = std::array<std::uint32_t, 2>;

/// One block of Philox4x32-10: Random123's philox4x32(ctr, key) (10 rounds).
[[nodiscard]] constexpr Block philox4x32_10(Block c, Key k) {
    constexpr std::uint32_t M0 = 0xD2511F53u, M1 = 0xCD9E8D57u;
    constexpr std::uint32_t W0 = 0x9E3779B9u, W1 = 0xBB67AE85u;
    for (int r = 0; r < 10; ++r) {
        if (r > 0) k[0] += W0, k[1] += W1;
        const std::uint64_t p0 = static_cast<std::uint64_t>(M0) * c[0];
        const std::uint64_t p1 = static_cast<std::uint64_t>(M1) * c[2];
        c = {static_cast<std::uint32_t>(p1 >> 32) ^ c[1] ^ k[0], static_cast<std::uint32_t>(p1),
             static_cast<std::uint32_t>(p0 >> 32) ^ c[3] ^ k[1], static_cast<std::uint32_t>(p0)};
    }
    return c;
}

/// A stream: the key and the counter's words 1-3 (word 0 counts the blocks).
struct StreamKey {
    Key key{};
    std::uint32_t c1 = 0, c2 = 0, c3 = 0;
};

/// The stream of a task sample: key = the seed, counter = (block, index low, index high,
/// stream); the stream's upper 32 bits (never used by the tasks) go into the key.
[[nodiscard]] constexpr StreamKey streamKey(std::uint64_t seed, std::uint64_t stream,
                                            std::uint64_t index) {
    StreamKey s;
    s.key = {static_cast<std::uint32_t>(seed),
             static_cast<std::uint32_t>(seed >> 32) ^ static_cast<std::uint32_t>(stream >> 32)};
    s.c1 = static_cast<std::uint32_t>(index);
    s.c2 = static_cast<std::uint32_t>(index >> 32);
    s.c3 = static_cast<std::uint32_t>(stream);
    return s;
}

/// Word i of a stream (one block computed).
[[nodiscard]] constexpr std::uint64_t word(const StreamKey& s, std::uint64_t i) {
    const Block b = philox4x32_10({static_cast<std::uint32_t>(i >> 1), s.c1, s.c2, s.c3}, s.key);
    return (i & 1) ? (b[2] | static_cast<std::uint64_t>(b[3]) << 32)
                   : (b[0] | static_cast<std::uint64_t>(b[1]) << 32);
}

/// The copies of the kernels below, one per instruction set (chosen at start-up by the CPU;
/// MHLA_PHILOX_KERNEL=build|v3|v4 forces one it supports). All give the same bits.
struct Kernel {
    /// Words [first, first + count) of the stream into out.
    void (*words)(const StreamKey& s, std::uint64_t first, std::size_t count, std::uint64_t* out);
    /// `count` (even) normals, times `scale`, from words [first, first + count) (see the top).
    void (*normals)(const StreamKey& s, std::uint64_t first, std::size_t count, double scale,
                    double* out);
    const char* name;
};
/// The kernel this CPU runs.
[[nodiscard]] const Kernel& kernel();
/// Every kernel this CPU can run (the build target's first): for the tests.
[[nodiscard]] std::array<const Kernel*, 3> availableKernels();

/// One Box-Muller pair from the words a, b, computed one lane at a time by the build target's
/// copy: for the tests of the transform's accuracy.
void boxMuller(std::uint64_t a, std::uint64_t b, double* z0, double* z1);

} // namespace mhla::philox
