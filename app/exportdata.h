#pragma once
// `mhla-lab export-data`: a synthetic task's training samples as .npy files in the dataset
// task's layout (core/tasks/exportsamples.h).

namespace mhla::cli {

int runExportData(int argc, char** argv);

} // namespace mhla::cli
