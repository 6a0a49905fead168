#include "core/tasks/samplerows.h"
#include "core/algebra/model.h"
#include "core/base/parallel.h"
#include <algorithm>
#include <vector>

namespace mhla {

void fillSampleBlock(const Task& task, Stream stream, long long first, long long count, Mat& U,
                     Mat& Qz, Mat& Y, int threads, const CancelToken* cancel) {
    const int d = task.d(), P = pairCount(d);
    U.resize(count, P);
    Qz.resize(count, d);
    Y.resize(count, task.dOut());
    const int dOut = task.dOut();
    // Work items of 32 samples (each sample still its own generator, so the rows never depend
    // on the split); the cancel token is polled per item.
    constexpr long long kItem = 32;
    parallelFor((count + kItem - 1) / kItem, threads, [&](long long item) {
        if (cancel && cancel->isCancelled()) return;
        // Per-thread storage, reused: drawing a sample allocates nothing once it has its sizes.
        thread_local Sample s;
        thread_local std::vector<double> u;
        u.resize(static_cast<size_t>(P));
        for (long long i = item * kItem; i < std::min(count, (item + 1) * kItem); ++i) {
            task.sampleInto(stream, first + i, s);
            const double* v = sampleVech(s, u.data());
            for (int p = 0; p < P; ++p) U(i, p) = v[p];
            const double* zq = s.Z.data() + (s.Z.cols() - 1) * d;
            for (int c = 0; c < d; ++c) Qz(i, c) = zq[c];
            for (int k = 0; k < dOut; ++k) Y(i, k) = s.y(k);
        }
    });
    if (cancel) cancel->check();
}

const SampleBlock& SampleRows::blockOf(long long i) const {
    const auto it = std::upper_bound(blocks.begin(), blocks.end(), i,
                                     [](long long v, const SampleBlock& b) { return v < b.first; });
    return *std::prev(it);
}

} // namespace mhla
