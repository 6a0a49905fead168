#include "core/parallel.h"
#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace mhla {

int resolveThreads(int requested) {
    if (requested > 0) return requested;
    const unsigned hw = std::thread::hardware_concurrency();
    return hw == 0 ? 1 : static_cast<int>(hw);
}

void parallelFor(long long n, int threads, const std::function<void(long long)>& body) {
    if (n <= 0) return;
    const int t = static_cast<int>(std::min<long long>(resolveThreads(threads), n));
    if (t <= 1) {
        for (long long i = 0; i < n; ++i) body(i);
        return;
    }
    std::atomic<long long> next{0};
    std::exception_ptr error;
    std::mutex errorMutex;
    auto worker = [&] {
        for (;;) {
            const long long i = next.fetch_add(1, std::memory_order_relaxed);
            if (i >= n) return;
            try {
                body(i);
            } catch (...) {
                std::lock_guard<std::mutex> lock(errorMutex);
                if (!error) error = std::current_exception();
                next.store(n, std::memory_order_relaxed);
                return;
            }
        }
    };
    std::vector<std::thread> pool;
    pool.reserve(static_cast<size_t>(t - 1));
    // The OS may refuse a thread (ulimit -u, memory): run with the threads that did start.
    // Work items are fixed up front, so the results do not depend on how many that is.
    for (int k = 1; k < t; ++k) {
        try {
            pool.emplace_back(worker);
        } catch (const std::system_error&) {
            break;
        }
    }
    worker();
    for (auto& th : pool) th.join();
    if (error) std::rethrow_exception(error);
}

} // namespace mhla
