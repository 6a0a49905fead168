#include "core/tasks/datasettask.h"
#include "core/base/npy.h"
#include "core/base/text.h"
#include <cstring>
#include <stdexcept>

namespace mhla {

namespace {

void readChecked(const char* keyPath, const QString& path, const std::vector<long long>& shape,
                 std::vector<double>& out) {
    try {
        const NpyHeader h = readNpyHeader(path);
        if (h.shape != shape)
            throw NpyError((path + q(": shape ") + npyShapeText(h.shape) +
                            q(" differs from the shape ") + npyShapeText(shape) +
                            q(" read when the experiment was loaded (was the file replaced?)"))
                               .toStdString());
        readNpyData(path, h, out);
    } catch (const NpyError& e) {
        throw ConfigError(keyPath + std::string(": ") + e.what(), q(keyPath));
    }
}
/// The configured dims; without targets (d_out 0) one output of zeros.
TaskDims datasetDims(const TaskConfig& cfg) {
    TaskDims dims = taskDims(cfg);
    if (dims.dOut == 0) dims.dOut = 1;
    return dims;
}
} // namespace

DatasetTask::DatasetTask(const TaskConfig& cfg)
    : Task(cfg, datasetDims(cfg)), m_samples(cfg.samples), m_hasTargets(taskDims(cfg).dOut > 0) {
    const bool validation =
        !cfg.validationPrompts.isEmpty() || (cfg.arrays && !cfg.arrays->validationPrompts.empty());
    if (validation) m_validationSamples = cfg.dataValidationSamples;
    const auto block = static_cast<size_t>(m_n) * static_cast<size_t>(m_d);
    if (cfg.arrays) {
        const auto N = static_cast<size_t>(m_samples), V = static_cast<size_t>(m_validationSamples);
        const auto outs = static_cast<size_t>(m_dOut);
        if (cfg.arrays->prompts.size() != N * block ||
            cfg.arrays->targets.size() != (m_hasTargets ? N * outs : 0) ||
            cfg.arrays->validationPrompts.size() != V * block ||
            cfg.arrays->validationTargets.size() != V * outs)
            throw std::logic_error("the dataset's arrays do not have the configured shape");
        m_data = cfg.arrays;
        return;
    }
    auto data = std::make_shared<DatasetArrays>();
    readChecked("task.prompts", cfg.prompts, {m_samples, m_n, m_d}, data->prompts);
    // No targets: a certificate-only run, every sample's y is 0.
    if (m_hasTargets) readChecked("task.targets", cfg.targets, {m_samples, m_dOut}, data->targets);
    if (validation) {
        readChecked("task.validation_prompts", cfg.validationPrompts,
                    {m_validationSamples, m_n, m_d}, data->validationPrompts);
        readChecked("task.validation_targets", cfg.validationTargets, {m_validationSamples, m_dOut},
                    data->validationTargets);
    }
    m_data = std::move(data);
}

Sample DatasetTask::sample(Stream stream, long long index) const {
    Sample s;
    sampleInto(stream, index, s);
    return s;
}

void DatasetTask::drawInto(Stream stream, long long index, Sample& s) const {
    const bool train = stream == Stream::Train;
    const long long count = train                          ? m_samples
                            : stream == Stream::Validation ? m_validationSamples
                                                           : 0;
    if (index < 0 || index >= count)
        throw std::logic_error("the dataset task has training samples 0..N-1 and validation "
                               "samples 0..N_val-1 only");
    if (s.Z.rows() != m_d || s.Z.cols() != m_n) s.Z.resize(m_d, m_n);
    if (s.y.size() != m_dOut) s.y.resize(m_dOut);
    const std::vector<double>& prompts = train ? m_data->prompts : m_data->validationPrompts;
    const std::vector<double>& targets = train ? m_data->targets : m_data->validationTargets;
    // Sample index's n x d row-major block is Z (d x n, column-major) as it is.
    const size_t block = static_cast<size_t>(m_n) * static_cast<size_t>(m_d);
    std::memcpy(s.Z.data(), prompts.data() + static_cast<size_t>(index) * block,
                block * sizeof(double));
    if (!m_hasTargets) s.y.setZero();
    else
        std::memcpy(s.y.data(), targets.data() + static_cast<size_t>(index * m_dOut),
                    static_cast<size_t>(m_dOut) * sizeof(double));
}

} // namespace mhla
