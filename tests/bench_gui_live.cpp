// Benchmark (not a test: it prints numbers and asserts nothing): a trainer run with live curves
// in the main window, on the offscreen platform, with two CPU hogs beside it (a lecturer's
// laptop in a video call), measuring
//   (a) the GUI thread's CPU time against the computation's (the worker thread and its pool),
//       over whole runs;
//   (b) the Esc latency: from posting an Esc key press to the window (from another thread, so it
//       queues behind whatever the GUI thread has to do, as a real key does) to the worker's
//       run ending (the worker's own signal, taken on the worker thread), median of >= 5.
// Usage: bench_gui_live [--runs K] [--stops M] [--epochs E] [--samples N] [--no-hogs]
//                       [--tab curves|certificate|heads]
#include "ui/experiment/experimentpanel.h"
#include "ui/run/runcontroller.h"
#include "ui/run/runworker.h"
#include "ui/shell/appsettings.h"
#include "ui/shell/mainwindow.h"
#include <QApplication>
#include <QCheckBox>
#include <QDir>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QKeyEvent>
#include <QLineEdit>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <sys/resource.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace mhla::ui;

namespace {

double threadCpuSeconds() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

double processCpuSeconds() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

/// CPU seconds of the thread named `comm` in this process (/proc/self/task/*/stat), or -1.
double namedThreadCpuSeconds(const QByteArray& comm) {
    const long tick = sysconf(_SC_CLK_TCK);
    const QStringList tasks =
        QDir(QStringLiteral("/proc/self/task")).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    for (const QString& tid : tasks) {
        QFile f(QStringLiteral("/proc/self/task/%1/stat").arg(tid));
        if (!f.open(QIODevice::ReadOnly)) continue;
        const QByteArray s = f.readAll();
        const qsizetype open = s.indexOf('('), close = s.lastIndexOf(')');
        if (open < 0 || close < 0 || s.mid(open + 1, close - open - 1) != comm) continue;
        // After ") ": state(3) ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt
        // utime(14) stime(15).
        const QList<QByteArray> fields = s.mid(close + 2).split(' ');
        if (fields.size() < 13) return -1;
        return static_cast<double>(fields[11].toLongLong() + fields[12].toLongLong()) /
               static_cast<double>(tick);
    }
    return -1;
}

double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

std::vector<pid_t> startHogs(int n) {
    std::vector<pid_t> pids;
    for (int i = 0; i < n; ++i) {
        const pid_t pid = fork();
        if (pid == 0) {
            execl("/bin/sh", "sh", "-c", "while :; do :; done", static_cast<char*>(nullptr));
            _exit(127);
        }
        if (pid > 0) pids.push_back(pid);
    }
    return pids;
}

void stopHogs(const std::vector<pid_t>& pids) {
    for (pid_t p : pids) kill(p, SIGKILL);
    for (pid_t p : pids) waitpid(p, nullptr, 0);
}

void setField(MainWindow& w, const char* key, const QString& v) {
    auto* e = w.findChild<QLineEdit*>(QStringLiteral("field_") + QLatin1String(key));
    if (!e) {
        std::fprintf(stderr, "no field %s\n", key);
        std::exit(2);
    }
    e->setText(v);
}

} // namespace

int main(int argc, char** argv) {
    qputenv("QT_QPA_PLATFORM", QByteArrayLiteral("offscreen"));
    QApplication app(argc, argv);
    QStandardPaths::setTestModeEnabled(true);
    QTemporaryDir settingsDir;
    AppSettings::useFile(settingsDir.filePath(QStringLiteral("settings.ini")));

    // The run (d = 6, N = 32768, 400 epochs, ~9 s here): long enough that the live view,
    // not the start and end of a run, is what the GUI thread spends its time on. Runs of ~2 s
    // (--samples 2048 --epochs 1500) measure mostly the end-of-run drawing of every panel.
    int runs = 3, stops = 7, epochs = 400, samples = 32768;
    bool hogs = true;
    QString tab = QStringLiteral("curves");
    const QStringList args = app.arguments();
    for (int i = 1; i < args.size(); ++i) {
        const QString& a = args[i];
        const bool more = i + 1 < args.size();
        if (a == u"--runs" && more) runs = args[++i].toInt();
        else if (a == u"--stops" && more) stops = args[++i].toInt();
        else if (a == u"--epochs" && more) epochs = args[++i].toInt();
        else if (a == u"--samples" && more) samples = args[++i].toInt();
        else if (a == u"--tab" && more) tab = args[++i];
        else if (a == u"--no-hogs") hogs = false;
        else {
            std::fprintf(stderr, "unknown argument %s\n", qPrintable(a));
            return 2;
        }
    }

    MainWindow w;
    w.setQuitWithoutAsking(true);
    w.resize(1366, 768);
    w.show();
    w.loadPreset(3); // SGD on a random MHLA teacher
    if (auto* sweep = w.findChild<QCheckBox*>(QStringLiteral("sweepCheck")))
        sweep->setChecked(false);
    setField(w, "task.d", QStringLiteral("6"));
    setField(w, "task.samples", QString::number(samples));
    setField(w, "solver.heads", QStringLiteral("2"));
    setField(w, "solver.log_every", QStringLiteral("1"));
    w.showTab(tab);
    QTest::qWait(200);

    RunController* c = w.controller();
    const RunWorker* worker = c->worker();
    std::atomic<qint64> workerEndNs{0};
    QElapsedTimer clock;
    clock.start();
    QObject::connect(
        worker, &RunWorker::cancelled, worker, [&](quint64) { workerEndNs = clock.nsecsElapsed(); },
        Qt::DirectConnection);
    QObject::connect(
        worker, &RunWorker::finished, worker,
        [&](quint64, const mhla::ExperimentResult&) { workerEndNs = clock.nsecsElapsed(); },
        Qt::DirectConnection);

    const std::vector<pid_t> hogPids = hogs ? startHogs(2) : std::vector<pid_t>{};
    std::printf("# bench_gui_live: trainer d=6 N=%d epochs=%d log_every=1, tab %s, %s\n", samples,
                epochs, qPrintable(tab), hogs ? "2 CPU hogs beside it" : "no hogs");

    // (a) CPU of whole runs.
    setField(w, "solver.epochs", QString::number(epochs));
    std::vector<double> ratios, ratiosWorker;
    for (int k = 0; k < runs; ++k) {
        const double gui0 = threadCpuSeconds(), proc0 = processCpuSeconds();
        const double work0 = namedThreadCpuSeconds(QByteArrayLiteral("mhla-worker"));
        QElapsedTimer wall;
        wall.start();
        workerEndNs = 0;
        if (!w.startRuns()) {
            std::fprintf(stderr, "the experiment is invalid\n");
            stopHogs(hogPids);
            return 2;
        }
        // Wait in the event loop for the end (polling would cost the GUI thread itself).
        if (c->isBusy()) {
            QEventLoop loop;
            QObject::connect(c, &RunController::idle, &loop, &QEventLoop::quit);
            loop.exec();
        }
        const double gui = threadCpuSeconds() - gui0;
        const double others = processCpuSeconds() - proc0 - gui;
        const double workerOnly = namedThreadCpuSeconds(QByteArrayLiteral("mhla-worker")) - work0;
        ratios.push_back(gui / others);
        ratiosWorker.push_back(gui / workerOnly);
        std::printf("run %d: wall %.2f s, GUI thread %.3f s CPU, computation %.3f s CPU (worker "
                    "thread %.2f s), GUI/computation %.3f, GUI/worker thread %.3f\n",
                    k + 1, wall.elapsed() / 1000.0, gui, others, workerOnly, gui / others,
                    gui / workerOnly);
        std::fflush(stdout);
    }

    // (b) Esc latency, timed by a "user" thread: it posts the key press and waits for the
    // worker's run to end. When the GUI thread does not get to the key within kGiveUpMs (the
    // freeze of issue 23), that thread reports it and ends the process: the GUI thread may be
    // inside one call that lasts minutes.
    constexpr qint64 kGiveUpMs = 60000;
    setField(w, "solver.epochs", QStringLiteral("100000"));
    std::vector<double> lat;
    auto summary = [&](const char* note) {
        std::printf("SUMMARY GUI/computation CPU median %.3f (GUI/worker thread %.3f) over %d "
                    "runs; Esc latency median %.1f ms, max %.1f ms over %zu stops%s\n",
                    median(ratios), median(ratiosWorker), runs, median(lat),
                    lat.empty() ? 0.0 : *std::max_element(lat.begin(), lat.end()), lat.size(),
                    note);
        std::fflush(stdout);
    };
    for (int k = 0; k < stops; ++k) {
        workerEndNs = 0;
        if (!w.startRuns()) return 2;
        QTest::qWait(1500 + 211 * k); // into the run, at a different phase each time
        if (!c->isBusy()) {
            std::fprintf(stderr, "the run ended before Esc\n");
            continue;
        }
        workerEndNs = 0;
        QWidget* target = QApplication::focusWidget() ? QApplication::focusWidget() : &w;
        std::atomic<bool> done{false};
        std::thread user([&] {
            const qint64 posted = clock.nsecsElapsed();
            QCoreApplication::postEvent(
                target, new QKeyEvent(QEvent::KeyPress, Qt::Key_Escape, Qt::NoModifier));
            QCoreApplication::postEvent(
                target, new QKeyEvent(QEvent::KeyRelease, Qt::Key_Escape, Qt::NoModifier));
            while (workerEndNs.load() == 0 && clock.nsecsElapsed() - posted < kGiveUpMs * 1000000)
                std::this_thread::sleep_for(std::chrono::microseconds(200));
            if (workerEndNs.load() == 0) {
                std::printf("stop %d: Esc not handled within %lld s: the GUI thread is frozen\n",
                            k + 1, static_cast<long long>(kGiveUpMs / 1000));
                lat.push_back(static_cast<double>(kGiveUpMs));
                summary(" (gave up: a stop took longer than the give-up time)");
                stopHogs(hogPids);
                std::_Exit(1);
            }
            const double ms = static_cast<double>(workerEndNs.load() - posted) / 1e6;
            std::printf("stop %d: Esc -> worker ended %.1f ms\n", k + 1, ms);
            std::fflush(stdout);
            lat.push_back(ms);
            done = true;
        });
        while (!done) QTest::qWait(1);
        user.join();
        while (c->isBusy()) QTest::qWait(5);
    }
    stopHogs(hogPids);
    summary("");
    return 0;
}
