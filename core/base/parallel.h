#pragma once
// A minimal deterministic parallel-for: work items are fixed up front (never split by thread
// count), so each item's arithmetic is identical whichever thread runs it.
#include <algorithm>
#include <functional>
#include <vector>

namespace mhla {

/// Number of threads to use for a request (0 = hardware concurrency, at least 1).
[[nodiscard]] int resolveThreads(int requested);
/// Most threads a run may ask for (--threads and the GUI are bounded by it).
constexpr int kMaxThreads = 256;
/// Runs body(i) for i in [0, n) on up to `threads` threads: the caller and workers of a pool
/// that is kept between calls (fewer when the OS refuses to start more; the results are the
/// same). A parallelFor inside an item of another runs serially. Exceptions are rethrown (first
/// one).
void parallelFor(long long n, int threads, const std::function<void(long long)>& body);

/// Deterministic sum: [0, count) is cut into fixed blocks of `block` items, blockSum(begin, end)
/// sums one block (in any way, e.g. with a per-block workspace), and the block sums are added
/// in block order. The result is the same for any thread count. The one reduction used by the
/// metrics and the trainers.
template <typename F>
double blockedSum(long long count, long long block, int threads, F&& blockSum) {
    if (count <= 0) return 0.0;
    const long long blocks = (count + block - 1) / block;
    std::vector<double> partial(static_cast<size_t>(blocks), 0.0);
    parallelFor(blocks, threads, [&](long long b) {
        partial[static_cast<size_t>(b)] = blockSum(b * block, std::min(count, (b + 1) * block));
    });
    double total = 0;
    for (double p : partial) total += p;
    return total;
}

} // namespace mhla
