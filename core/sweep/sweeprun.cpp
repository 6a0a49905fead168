#include "core/sweep/sweeprun.h"
#include "core/base/fileio.h"
#include "core/base/parallel.h"
#include "core/base/text.h"
#include "core/records/resultio.h"
#include "core/run/admission.h"
#include "core/run/runner.h"
#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <system_error>
#include <thread>

namespace mhla {

SweepPlan planSweepFile(const QString& config, const QStringList& grids, int seeds,
                        const QStringList& sets, QJsonValue* figures, long long maxRuns,
                        QJsonValue* verdicts) {
    QJsonObject file;
    if (!config.isEmpty()) {
        QByteArray text;
        QString error;
        if (!readRegularFile(config, &text, &error, 1024 * 1024))
            throw ConfigError(q("the experiment file: ").toStdString() + error.toStdString());
        try {
            file = experimentObjectFromJsonText(text);
        } catch (const ConfigError& e) {
            throw ConfigError((config + q(": ")).toStdString() + e.what(), e.key());
        }
    }
    SweepFile sf = parseSweep(file);
    if (figures) *figures = sf.figures;
    if (verdicts) *verdicts = sf.verdicts;
    // --set changes the experiment of every point; the sweep's own sections are not part of it.
    for (const QString& s : sets) {
        const QString key = s.section(QLatin1Char('='), 0, 0).trimmed();
        const QString top = key.section(QLatin1Char('.'), 0, 0);
        if (top == q("sweep") || top == q("figures") || top == q("verdicts"))
            throw ConfigError((q("--set ") + key +
                               q(": --set changes the experiment of every point "
                                 "(task., solver. and eval. keys); the sweep "
                                 "itself is changed with --grid KEY=VALUES "
                                 "and --seeds K"))
                                  .toStdString(),
                              q("--set"));
    }
    for (const QString& g : grids) sf.spec.setAxis(parseGridAssignment(g));
    if (seeds > 0) sf.spec.seeds = seeds;
    return planSweep(sf.base, sf.spec, sets, maxRuns);
}

QString sweepRunDir(const QString& dir, const SweepRun& r) {
    return QDir(QDir(dir).filePath(q("runs"))).filePath(r.folder);
}

QJsonObject finishedSweepResult(const QString& dir, const SweepRun& r) {
    QByteArray text;
    QString error;
    const QString path = QDir(sweepRunDir(dir, r)).filePath(q("result.json"));
    if (!QFileInfo::exists(path) || !readRegularFile(path, &text, &error)) return {};
    QJsonParseError pe{};
    const QJsonDocument doc = QJsonDocument::fromJson(text, &pe);
    if (pe.error != QJsonParseError::NoError || !doc.isObject()) return {};
    const QJsonObject o = doc.object();
    if (o.value(q("config")).toObject() != experimentToJson(r.config)) return {};
    return o;
}

QString claimSweepFolder(const QString& dir, const SweepPlan& plan) {
    if (const QString e = prepareOutputFolder(dir); !e.isEmpty()) return q("--out: ") + e;
    removeStaleTemporaries(dir);
    const QString path = QDir(dir).filePath(q("sweep.json"));
    const QByteArray mine = plan.sweepJson();
    if (QFileInfo::exists(path)) {
        QByteArray theirs;
        QString error;
        if (!readRegularFile(path, &theirs, &error)) return q("--out: ") + error;
        if (theirs != mine)
            return q("--out: \"") + dir +
                   q("\" holds another sweep (its sweep.json differs from this one's); choose another "
                     "folder, or rerun the command that made it to resume");
        return {};
    }
    if (const QString e = writeFileAtomic(path, mine); !e.isEmpty()) return e;
    return {};
}

std::vector<QJsonObject> readSweepResults(const QString& dir, const SweepPlan& plan, int* missing) {
    std::vector<QJsonObject> results;
    if (missing) *missing = 0;
    for (const SweepRun& r : plan.runs) {
        results.push_back(finishedSweepResult(dir, r));
        if (results.back().isEmpty() && missing) ++*missing;
    }
    return results;
}

QString writeSweepTables(const QString& dir, const SweepPlan& plan,
                         const std::vector<QJsonObject>& results) {
    return writeFiles(dir, {{q("runs.csv"), sweepRunsCsv(plan, results)},
                            {q("summary.csv"), sweepSummaryCsv(plan, results)},
                            {q("timings.csv"), sweepTimingsCsv(plan, results)}});
}

SweepAdmission admitSweep(const SweepPlan& plan, const QString& dir, const SweepExecution& ex) {
    SweepAdmission a;
    std::vector<const ExperimentConfig*> pending;
    const int shards = std::max(1, ex.shards);
    for (const SweepRun& r : plan.runs) {
        if (r.index % shards != ex.shard) continue;
        ++a.mine;
        if (finishedSweepResult(dir, r).isEmpty()) pending.push_back(&r.config);
    }
    a.pending = static_cast<int>(pending.size());
    if (pending.empty()) return a;
    a.estimate = estimateBatch(pending, ex.jobs);
    const int threadsPerRun = std::max(1, resolveThreads(0) / a.estimate.jobs);
    a.issues = admissionIssues(*pending[a.estimate.largest], -1, threadsPerRun, a.estimate.jobs);
    return a;
}

namespace {

/// Runs one point of the sweep and writes its folder (result.json last: its presence means
/// the folder is complete). A failed run or write is reported in the progress, not thrown;
/// Cancelled is.
SweepProgress runAndWrite(const SweepRun& run, const QString& dir, const RunContext& ctx) {
    SweepProgress p;
    p.run = &run;
    try {
        const ExperimentResult r = runExperiment(run.config, ctx);
        const QJsonObject json = resultToJson(r);
        const QString d = sweepRunDir(dir, run);
        QString e = prepareOutputFolder(d);
        if (e.isEmpty())
            e = writeRunFolder(d,
                               resultFiles(r, QJsonDocument(json).toJson(QJsonDocument::Indented)));
        if (!e.isEmpty()) {
            p.failed = true;
            p.message = q("failed: ") + e;
        } else {
            // What resume reads back (the JSON text, not the in-memory doubles).
            p.result = finishedSweepResult(dir, run);
            p.message =
                r.certificate.method.empty()
                    ? QString::asprintf("val_mse %.3g", r.metrics.valMse)
                    : QString::asprintf("%s, lambda_min %.3g, val_mse %.3g",
                                        r.certificate.certified ? "certified" : "not certified",
                                        r.certificate.lambdaMin, r.metrics.valMse);
        }
    } catch (const Cancelled&) {
        throw;
    } catch (const std::exception& e) {
        p.failed = true;
        p.message = q("failed: ") + QString::fromUtf8(e.what());
    }
    return p;
}

} // namespace

SweepOutcome executeSweep(const SweepPlan& plan, const QString& dir, const SweepExecution& ex) {
    SweepOutcome out;
    std::vector<const SweepRun*> pending;
    const int shards = std::max(1, ex.shards);
    for (const SweepRun& r : plan.runs) {
        if (r.index % shards != ex.shard) continue;
        ++out.mine;
        if (finishedSweepResult(dir, r).isEmpty()) pending.push_back(&r);
    }
    out.alreadyDone = out.mine - static_cast<int>(pending.size());
    CancelToken ownCancel;
    CancelToken* cancel = ex.cancel ? ex.cancel : &ownCancel;
    std::atomic<size_t> next{0};
    std::atomic<int> done{0}, failed{0};
    std::mutex reportMutex;
    const auto start = std::chrono::steady_clock::now();
    const int jobs = std::max(1, std::min<int>(ex.jobs, static_cast<int>(pending.size())));
    const int threadsPerRun = std::max(1, resolveThreads(0) / jobs);
    auto worker = [&]() {
        for (;;) {
            if (cancel->isCancelled()) return;
            const size_t k = next.fetch_add(1);
            if (k >= pending.size()) return;
            const SweepRun& run = *pending[k];
            RunContext ctx;
            ctx.cancel = cancel;
            ctx.threads = threadsPerRun;
            SweepProgress p;
            try {
                p = runAndWrite(run, dir, ctx);
            } catch (const Cancelled&) {
                return;
            }
            if (p.failed) ++failed;
            std::lock_guard<std::mutex> lock(reportMutex);
            p.done = ++done;
            p.total = static_cast<int>(pending.size());
            p.elapsedSeconds =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            p.etaSeconds = p.elapsedSeconds / p.done *
                           static_cast<double>(pending.size() - static_cast<size_t>(p.done));
            if (ex.onRunDone) ex.onRunDone(p);
        }
    };
    std::vector<std::thread> threads;
    for (int j = 1; j < jobs; ++j) {
        try {
            threads.emplace_back(worker);
        } catch (const std::system_error&) {
            break; // a thread or process limit (ulimit -u): fewer jobs, the same results
        }
    }
    worker();
    for (std::thread& t : threads) t.join();
    out.ran = done.load();
    out.failed = failed.load();
    out.cancelled = cancel->isCancelled();
    return out;
}

} // namespace mhla
