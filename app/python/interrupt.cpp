#include "app/python/interrupt.h"
#include <condition_variable>
#include <exception>
#include <mutex>
#include <optional>
#include <pybind11/pybind11.h>
#include <thread>

namespace py = pybind11;

namespace mhla::python {

void runInterruptibly(const std::function<void(const CancelToken&)>& work) {
    CancelToken cancel;
    std::mutex mutex;
    std::condition_variable finished;
    bool done = false;
    std::exception_ptr error;
    std::thread worker([&] {
        try {
            work(cancel);
        } catch (...) {
            error = std::current_exception();
        }
        // Notified under the lock: the waiter cannot return and destroy `finished` before.
        const std::lock_guard lock(mutex);
        done = true;
        finished.notify_all();
    });
    std::optional<py::error_already_set> interrupt;
    for (;;) {
        {
            py::gil_scoped_release release;
            std::unique_lock lock(mutex);
            if (finished.wait_for(lock, kSignalPollInterval, [&] { return done; })) break;
        }
        if (PyErr_CheckSignals() != 0) {
            interrupt.emplace(); // fetches the handler's exception (KeyboardInterrupt)
            cancel.cancel();
            break;
        }
    }
    {
        py::gil_scoped_release release;
        worker.join();
    }
    if (interrupt) throw std::move(*interrupt);
    if (error) std::rethrow_exception(error);
}

} // namespace mhla::python
