#pragma once
// The dataset task (MATH.md, "Data on disk"): prompts and targets read from .npy files. There
// is no teacher: the run certifies and fits the data; numbers that need P* are absent.
#include "core/tasks/tasks.h"
#include <vector>

namespace mhla {

/// Training sample s is prompt s of task.prompts (its n x d block transposed into Z) with
/// target row s of task.targets. Memory: one float64 copy of each file (N n d + N d_out
/// doubles), read in blocks of kNpyReadBlockBytes; samples are views copied out by index, so
/// the accumulation's blocks add O(block) on top. Data already in memory (task.arrays, from
/// mhla_lab.fit) is shared, not copied. The validation stream is the held-out set
/// (task.validation_prompts/targets, N_val samples) when there is one.
class DatasetTask final : public Task {
public:
    /// Reads both files (only the prompts when task.targets is empty: hasTargets() is false,
    /// and d_out is 1 with every y = 0). Throws ConfigError (key task.prompts or task.targets)
    /// naming the file when it cannot be read, holds a NaN or infinite value, or no longer has the
    /// shape the configuration was parsed with. With task.arrays set, reads nothing: the arrays
    /// must hold N n d and N d_out values (std::logic_error otherwise: the caller checked the
    /// shapes). The held-out set, when configured, has cfg.dataValidationSamples samples.
    explicit DatasetTask(const TaskConfig& cfg);
    Sample sample(Stream stream, long long index) const override;
    [[nodiscard]] long long samples() const { return m_samples; }
    bool hasValidation() const override { return m_validationSamples > 0; }
    bool hasTargets() const override { return m_hasTargets; }

protected:
    void drawInto(Stream stream, long long index, Sample& out) const override;

private:
    long long m_samples = 0;
    long long m_validationSamples = 0; ///< 0: no held-out set
    bool m_hasTargets = true;
    /// prompts N x n x d and targets N x d_out, C order: read from the files, or task.arrays
    std::shared_ptr<const DatasetArrays> m_data;
};

} // namespace mhla
