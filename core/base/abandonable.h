#pragma once
// Work that a cancel can abandon: Eigen's dense decompositions cannot poll a cancel token, so
// they run where the caller can walk away from them (runAbandonable), on inputs they own.
#include "core/base/types.h"
#include <chrono>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>
#include <type_traits>

namespace mhla {

/// A shared_ptr that does not own m: for handing a caller's matrix to code that runs inline
/// (ctx without a cancel token), where no copy is needed.
[[nodiscard]] inline std::shared_ptr<const Mat> borrowMatrix(const Mat& m) {
    return std::shared_ptr<const Mat>(&m, [](const Mat*) {});
}
/// The matrix as shared input of runAbandonable(): borrowed when nothing can cancel (the work
/// runs inline), else copied so that abandoned work never reads freed memory.
[[nodiscard]] inline std::shared_ptr<const Mat> shareMatrix(const Mat& m, const RunContext& ctx) {
    return ctx.cancel ? std::make_shared<const Mat>(m) : borrowMatrix(m);
}

/// Runs work() so that it can be abandoned: Eigen's dense decompositions (eigen, Cholesky,
/// SVD) cannot poll a token, so when ctx has a cancel token the work runs on a thread of its
/// own while the caller polls the token every 10 ms; on cancellation the caller detaches the
/// thread and throws Cancelled at once. The abandoned computation finishes in the background
/// (using one core and its own inputs, which work must own: capture shared_ptrs or copies,
/// never references to the caller's stack) and its result is dropped. Without a token, or if
/// no thread can be started, work() runs inline. Exceptions of work() are rethrown.
template <typename F>
auto runAbandonable(const RunContext& ctx, F work) -> std::invoke_result_t<F&> {
    using R = std::invoke_result_t<F&>;
    if (!ctx.cancel) return work();
    ctx.checkCancel();
    struct State {
        std::mutex m;
        std::condition_variable cv;
        bool done = false;
        std::optional<R> result;
        std::exception_ptr error;
    };
    auto st = std::make_shared<State>();
    auto body = [st, w = std::move(work)]() mutable {
        std::optional<R> r;
        std::exception_ptr e;
        try {
            r.emplace(w());
        } catch (...) {
            e = std::current_exception();
        }
        std::lock_guard<std::mutex> lock(st->m);
        st->result = std::move(r);
        st->error = e;
        st->done = true;
        st->cv.notify_all();
    };
    std::thread t;
    try {
        t = std::thread(body);
    } catch (const std::system_error&) {
        body(); // the OS refused a thread: run inline (not abandonable, but correct)
    }
    std::unique_lock<std::mutex> lock(st->m);
    while (!st->cv.wait_for(lock, std::chrono::milliseconds(10), [&] { return st->done; })) {
        if (ctx.cancel->isCancelled()) {
            lock.unlock();
            t.detach();
            throw Cancelled();
        }
    }
    lock.unlock();
    if (t.joinable()) t.join();
    if (st->error) std::rethrow_exception(st->error);
    return std::move(*st->result);
}

} // namespace mhla
