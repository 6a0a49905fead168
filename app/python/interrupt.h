#pragma once
// Runs core work from Python so that Ctrl+C (KeyboardInterrupt) stops it: the work runs with
// the GIL released on a thread of its own, and the calling thread polls Python's signal
// handlers at a fine interval, setting core's cancel token when one raises.
#include "core/base/types.h"
#include <chrono>
#include <functional>

namespace mhla::python {

/// How often the calling thread runs Python's signal handlers while core works: a cancel
/// lands within this plus core's own polling grain (~10 ms, core/base/abandonable.h).
constexpr std::chrono::milliseconds kSignalPollInterval{5};

/// Runs work(token) on a new thread and waits for it with the GIL released, running Python's
/// signal handlers (PyErr_CheckSignals, with the GIL held) every kSignalPollInterval. When a
/// handler raises (Ctrl+C: KeyboardInterrupt), the token is set, the work is waited for (core
/// stops within its polling grain) and the Python exception propagates. Otherwise the work's
/// own exception, if any, is rethrown. Call with the GIL held.
void runInterruptibly(const std::function<void(const CancelToken&)>& work);

} // namespace mhla::python
