#include "core/base/parallel.h"
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
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

namespace {

/// One parallelFor call: its items, handed out one at a time to whoever runs it.
struct Job {
    const std::function<void(long long)>* body = nullptr;
    long long n = 0;
    std::atomic<long long> next{0};
    std::mutex errorMutex;
    std::exception_ptr error;
    int active = 0; ///< pool workers inside run(); guarded by the pool's mutex
    std::condition_variable finished;

    void run() {
        for (;;) {
            const long long i = next.fetch_add(1, std::memory_order_relaxed);
            if (i >= n) return;
            try {
                (*body)(i);
            } catch (...) {
                std::lock_guard<std::mutex> lock(errorMutex);
                if (!error) error = std::current_exception();
                next.store(n, std::memory_order_relaxed);
                return;
            }
        }
    }
};

/// Set on the pool's own threads: a parallelFor inside an item runs serially there, so no
/// worker ever waits for another.
thread_local bool tOnPoolThread = false;

/// Threads started once and kept (parallelFor used to start and join threads on every call,
/// about 50 us each time, which a 4096-sample block of a small run does not amortise). A call
/// queues one ticket per helper it wants; a free worker takes a ticket and joins that job. The
/// caller works on its own job too, takes back the tickets nobody took when it runs out of
/// items, and waits only for the workers that did join.
class Pool {
public:
    static Pool& instance() {
        static Pool* pool = new Pool; // never destroyed: its threads may outlive main()
        return *pool;
    }

    void run(Job& job, int helpers) {
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            grow(helpers);
            for (int k = 0; k < helpers; ++k) m_tickets.push_back(&job);
        }
        m_wake.notify_all();
        job.run();
        std::unique_lock<std::mutex> lock(m_mutex);
        m_tickets.erase(std::remove(m_tickets.begin(), m_tickets.end(), &job), m_tickets.end());
        job.finished.wait(lock, [&] { return job.active == 0; });
    }

private:
    /// Starts workers until there are `want` (fewer when the OS refuses: ulimit -u, memory; the
    /// caller and the workers there are share the items, so the results are the same).
    void grow(int want) {
        while (m_workers < want) {
            try {
                std::thread([this] { work(); }).detach();
            } catch (const std::system_error&) {
                return;
            }
            ++m_workers;
        }
    }

    void work() {
        tOnPoolThread = true;
        std::unique_lock<std::mutex> lock(m_mutex);
        for (;;) {
            m_wake.wait(lock, [&] { return !m_tickets.empty(); });
            Job* job = m_tickets.front();
            m_tickets.pop_front();
            ++job->active;
            lock.unlock();
            job->run();
            lock.lock();
            // Notified under the lock: the caller cannot return (and destroy the job) before
            // this worker has let go of it.
            if (--job->active == 0) job->finished.notify_all();
        }
    }

    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::deque<Job*> m_tickets;
    int m_workers = 0;
};

} // namespace

void parallelFor(long long n, int threads, const std::function<void(long long)>& body) {
    if (n <= 0) return;
    const int t = static_cast<int>(std::min<long long>(resolveThreads(threads), n));
    if (t <= 1 || tOnPoolThread) {
        for (long long i = 0; i < n; ++i) body(i);
        return;
    }
    Job job;
    job.body = &body;
    job.n = n;
    Pool::instance().run(job, t - 1);
    if (job.error) std::rethrow_exception(job.error);
}

} // namespace mhla
