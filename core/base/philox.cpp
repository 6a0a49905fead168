#include "core/base/philox.h"
#include "core/base/machine.h"
#include <cstdlib>
#include <cstring>

// The build target's copy of the kernels.
#define MHLA_PHILOX_ISA build
#include "core/base/philox_isa.inc"
#undef MHLA_PHILOX_ISA

namespace mhla::philox {

#if defined(__x86_64__)
namespace v3 {
void words(const StreamKey& s, std::uint64_t first, std::size_t count, std::uint64_t* out);
void normals(const StreamKey& s, std::uint64_t first, std::size_t count, double scale, double* out);
} // namespace v3
namespace v4 {
void words(const StreamKey& s, std::uint64_t first, std::size_t count, std::uint64_t* out);
void normals(const StreamKey& s, std::uint64_t first, std::size_t count, double scale, double* out);
} // namespace v4
#endif

namespace {

const Kernel kBuild{build::words, build::normals, "build target"};
#if defined(__x86_64__)
const Kernel kV3{v3::words, v3::normals, "x86-64-v3 (AVX2)"};
const Kernel kV4{v4::words, v4::normals, "x86-64-v4 (AVX-512)"};
#endif

const Kernel& choose() {
#if defined(__x86_64__)
    const bool hasV3 = cpuHasX86_64V3(), hasV4 = cpuHasX86_64V4();
    if (const char* want = std::getenv("MHLA_PHILOX_KERNEL")) {
        if (std::strcmp(want, "build") == 0) return kBuild;
        if (std::strcmp(want, "v3") == 0 && hasV3) return kV3;
        if (std::strcmp(want, "v4") == 0 && hasV4) return kV4;
    }
    if (hasV4) return kV4;
    if (hasV3) return kV3;
#endif
    return kBuild;
}

} // namespace

const Kernel& kernel() {
    static const Kernel& k = choose();
    return k;
}

std::array<const Kernel*, 3> availableKernels() {
    std::array<const Kernel*, 3> out{&kBuild, nullptr, nullptr};
#if defined(__x86_64__)
    if (cpuHasX86_64V3()) out[1] = &kV3;
    if (cpuHasX86_64V4()) out[2] = &kV4;
#endif
    return out;
}

void boxMuller(std::uint64_t a, std::uint64_t b, double* z0, double* z1) {
    build::boxMullerOne(a, b, z0, z1);
}

} // namespace mhla::philox
