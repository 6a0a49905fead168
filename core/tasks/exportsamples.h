#pragma once
// A synthetic task's samples as .npy files, in the dataset task's layout (MATH.md "Data on
// disk"): prompts.npy (N x n x d, tokens as rows, the query last) and targets.npy (N x d_out),
// float64, C order, the held-out set validation_prompts.npy and validation_targets.npy
// (eval.val_samples samples of the validation stream), plus dataset.json, an experiment file
// that runs the dataset task on them with the source's solver and eval keys. The round trip
// (synthetic -> files -> dataset task) gives the same lambda_min, fit and val_mse bit for bit:
// the test that the reader and the layout agree.
#include "core/base/types.h"
#include "core/experiment/config.h"
#include <QString>
#include <QStringList>

namespace mhla {

struct ExportedSamples {
    long long samples = 0;
    long long validationSamples = 0; ///< eval.val_samples, the held-out set's N_val
    int tokens = 0, d = 0, dOut = 0;
    long long bytes = 0; ///< the two arrays' data (8 bytes per value)
};

/// The bytes the four arrays of cfg's training and held-out sets take (held in memory once while
/// writing).
[[nodiscard]] long long exportSamplesBytes(const ExperimentConfig& cfg);

/// How the arrays are written.
enum class ExportLayout {
    NpyFiles, ///< four .npy files (prompts.npy, targets.npy, validation_*.npy)
    Npz,      ///< one archive, DIR/data.npz, with the four as members (as np.savez writes)
};

/// The names of the files a layout writes into DIR, dataset.json last.
[[nodiscard]] QStringList exportedFileNames(ExportLayout layout);

/// Writes DIR/prompts.npy and DIR/targets.npy from cfg's training stream, the held-out set
/// DIR/validation_prompts.npy and DIR/validation_targets.npy from its validation stream (or, as
/// ExportLayout::Npz, the four as the arrays prompts, targets, validation_prompts and
/// validation_targets of DIR/data.npz), and DIR/dataset.json (each atomically, dataset.json
/// last). Refuses (ConfigError naming the key) a
/// dataset task (its data is already on disk), a causal task (its samples are prefixes of different
/// lengths) and arrays that would take more than half of this machine's memory. Returns an error
/// about the folder or a write, or empty. Polls cancel per sample (throws Cancelled).
[[nodiscard]] QString exportTaskSamples(const ExperimentConfig& cfg, const QString& dir,
                                        const CancelToken* cancel, ExportedSamples* out = nullptr,
                                        ExportLayout layout = ExportLayout::NpyFiles);

} // namespace mhla
