#include "core/rng.h"

namespace mhla {

Mat Rng::haarOrthogonal(Index n) {
    const Mat g = normalMatrix(n, n);
    Eigen::HouseholderQR<Mat> qr(g);
    Mat q = qr.householderQ() * Mat::Identity(n, n);
    const Mat& r = qr.matrixQR();
    // Multiplying column j by sign(R_jj) makes the distribution exactly Haar.
    for (Index j = 0; j < n; ++j)
        if (r(j, j) < 0) q.col(j) = -q.col(j);
    return q;
}

} // namespace mhla
