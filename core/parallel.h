#pragma once
// A minimal deterministic parallel-for: work items are fixed up front (never split by thread
// count), so each item's arithmetic is identical whichever thread runs it.
#include <functional>

namespace mhla {

/// Number of threads to use for a request (0 = hardware concurrency, at least 1).
int resolveThreads(int requested);
/// Most threads a run may ask for (--threads and the GUI are bounded by it).
constexpr int kMaxThreads = 256;
/// Runs body(i) for i in [0, n) on up to `threads` threads (fewer when the OS refuses to start
/// more; the results are the same). Exceptions are rethrown (first one).
void parallelFor(long long n, int threads, const std::function<void(long long)>& body);

} // namespace mhla
