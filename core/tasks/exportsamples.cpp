#include "core/tasks/exportsamples.h"
#include "core/base/text.h"

#include "core/base/fileio.h"
#include "core/base/machine.h"
#include "core/base/npy.h"
#include "core/experiment/loader.h"
#include "core/tasks/tasks.h"
#include <QDir>
#include <QHash>
#include <QJsonDocument>
#include <QJsonObject>
#include <cstring>
#include <vector>

namespace mhla {

namespace {
QString gib(double bytes) {
    return QString::number(bytes / (1024.0 * 1024 * 1024), 'f', 1) + q(" GiB");
}
} // namespace

long long exportSamplesBytes(const ExperimentConfig& cfg) {
    const TaskDims dims = taskDims(cfg.task);
    return 8LL * (cfg.task.samples + cfg.eval.valSamples) *
           (static_cast<long long>(dims.n) * dims.d + dims.dOut);
}

QStringList exportedFileNames(ExportLayout layout) {
    if (layout == ExportLayout::Npz) return {q("data.npz"), q("dataset.json")};
    return {q("prompts.npy"), q("targets.npy"), q("validation_prompts.npy"),
            q("validation_targets.npy"), q("dataset.json")};
}

namespace {

/// Refuses what one N x n x d export cannot hold: a dataset (already files), a causal task, or
/// arrays of more than half this machine's memory. Returns the arrays' bytes.
long long checkExportable(const ExperimentConfig& cfg) {
    if (cfg.task.kind == TaskKind::Dataset)
        throw ConfigError("task.kind: a dataset task's samples are already files (task.prompts, "
                          "task.targets); export-data writes the samples of a synthetic task "
                          "(random_mhla, associative_memory, automaton)",
                          q("task.kind"));
    if (cfg.task.causal)
        throw ConfigError("task.causal: a causal task's samples are prefixes of different lengths, "
                          "which one N x n x d array cannot hold; export with task.causal = false",
                          q("task.causal"));
    const long long bytes = exportSamplesBytes(cfg);
    if (static_cast<double>(bytes) > 0.5 * physicalMemoryBytes())
        throw ConfigError((q("task.samples: ") + QString::number(cfg.task.samples) +
                           q(" samples take ") + gib(static_cast<double>(bytes)) +
                           q(", more than half of this machine's memory (") +
                           gib(physicalMemoryBytes()) + q("); export fewer samples"))
                              .toStdString(),
                          q("task.samples"));
    return bytes;
}

using NamedArrays = std::vector<std::pair<QString, QByteArray>>;

/// Writes the .npy arrays as one data.npz or as one file each; *where gets the path
/// dataset.json gives each array (relative to the folder). Empty on success.
QString writeArrays(const QDir& folder, NamedArrays& arrays, ExportLayout layout,
                    QHash<QString, QString>* whereOut) {
    QHash<QString, QString>& where = *whereOut;
    if (layout == ExportLayout::Npz) {
        QByteArray archive;
        try {
            archive = npzBytes(arrays);
        } catch (const NpyError& e) {
            return QString::fromStdString(e.what());
        }
        NamedArrays().swap(arrays); // the .npy bytes, released before the archive is written
        if (QString e = writeFileAtomic(folder.filePath(q("data.npz")), archive); !e.isEmpty())
            return e;
        for (const char* name : {"prompts", "targets", "validation_prompts", "validation_targets"})
            where.insert(q(name), q("data.npz:") + q(name));
    } else {
        for (const auto& [name, bytes] : arrays) {
            if (QString e = writeFileAtomic(folder.filePath(name + q(".npy")), bytes); !e.isEmpty())
                return e;
            where.insert(name, name + q(".npy"));
        }
    }
    return {};
}

/// dataset.json: the dataset task on the written files, with the source's solver and eval keys
/// that a dataset run reads (the others, e.g. eval.words, would be refused as not read).
QJsonObject datasetExperiment(const ExperimentConfig& cfg, const QDir& folder,
                              const QHash<QString, QString>& where, bool validation) {
    QJsonObject datasetTask{{q("kind"), q("dataset")},
                            {q("prompts"), where.value(q("prompts"))},
                            {q("targets"), where.value(q("targets"))}};
    if (validation) {
        datasetTask.insert(q("validation_prompts"), where.value(q("validation_prompts")));
        datasetTask.insert(q("validation_targets"), where.value(q("validation_targets")));
    }
    const QJsonObject source = experimentToJson(cfg);
    QJsonObject probe{
        {q("task"),
         QJsonObject{{q("kind"), q("dataset")},
                     {q("prompts"), folder.absoluteFilePath(where.value(q("prompts")))},
                     {q("targets"), folder.absoluteFilePath(where.value(q("targets")))}}}};
    const QStringList read = keysReadBy(loadExperimentObject(probe).config);
    QJsonObject experiment{{q("task"), datasetTask}};
    for (const char* section : {"solver", "eval"}) {
        QJsonObject kept;
        const QJsonObject src = source.value(q(section)).toObject();
        for (auto it = src.begin(); it != src.end(); ++it)
            if (read.contains(q(section) + q(".") + it.key())) kept.insert(it.key(), it.value());
        if (!kept.isEmpty()) experiment.insert(q(section), kept);
    }
    return experiment;
}

} // namespace

QString exportTaskSamples(const ExperimentConfig& cfg, const QString& dir,
                          const CancelToken* cancel, ExportedSamples* out, ExportLayout layout) {
    const long long bytes = checkExportable(cfg);
    const auto task = makeTask(cfg.task);
    const long long N = cfg.task.samples, V = cfg.eval.valSamples, n = task->tokens(),
                    d = task->d(), dOut = task->dOut();
    // One stream's samples 0..count-1 as the two row-major arrays.
    const auto draw = [&](Stream stream, long long count, std::vector<double>& Z,
                          std::vector<double>& Y) {
        Z.resize(static_cast<size_t>(count * n * d));
        Y.resize(static_cast<size_t>(count * dOut));
        Sample s;
        for (long long i = 0; i < count; ++i) {
            if (cancel) cancel->check();
            task->sampleInto(stream, i, s);
            // Sample::Z is d x n, column-major: its columns (tokens) are the n x d block's rows.
            std::memcpy(Z.data() + i * n * d, s.Z.data(),
                        sizeof(double) * static_cast<size_t>(n * d));
            std::memcpy(Y.data() + i * dOut, s.y.data(),
                        sizeof(double) * static_cast<size_t>(dOut));
        }
    };
    std::vector<double> Z, Y, VZ, VY;
    draw(Stream::Train, N, Z, Y);
    draw(Stream::Validation, V, VZ, VY);
    if (const QString e = prepareOutputFolder(dir); !e.isEmpty()) return q("--out: ") + e;
    const QDir folder(dir);
    // The arrays by their dataset keys' names; each vector is released once it is in .npy form,
    // so that the data are held about twice at most (values once, file bytes once).
    NamedArrays arrays;
    const auto add = [&](const char* name, std::vector<long long> shape, std::vector<double>& v) {
        arrays.emplace_back(q(name), npyBytes(shape, v.data()));
        std::vector<double>().swap(v);
    };
    add("prompts", {N, n, d}, Z);
    add("targets", {N, dOut}, Y);
    if (V > 0) {
        add("validation_prompts", {V, n, d}, VZ);
        add("validation_targets", {V, dOut}, VY);
    }
    QHash<QString, QString> where;
    if (QString e = writeArrays(folder, arrays, layout, &where); !e.isEmpty()) return e;
    const QJsonObject experiment = datasetExperiment(cfg, folder, where, V > 0);
    if (QString e = writeFileAtomic(folder.filePath(q("dataset.json")),
                                    QJsonDocument(experiment).toJson(QJsonDocument::Indented));
        !e.isEmpty())
        return e;
    if (out) *out = {N, V, static_cast<int>(n), static_cast<int>(d), static_cast<int>(dOut), bytes};
    return {};
}

} // namespace mhla
