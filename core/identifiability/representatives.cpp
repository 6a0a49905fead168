#include "core/identifiability/representatives.h"
#include "core/identifiability/lowrank.h"
#include <cmath>

namespace mhla {

using lowrank::Svd;
using lowrank::svdOf;
using lowrank::symPart;

Heads canonicalHeadsOfW(const Mat& W, int d, int r, Vec* singularValues) {
    const Svd s = svdOf(W);
    r = std::min<int>(r, static_cast<int>(s.s.size()));
    Heads h;
    if (singularValues) *singularValues = s.s.head(r);
    for (int k = 0; k < r; ++k) {
        const double root = std::sqrt(s.s(k));
        appendCanonicalHead(h, s.U.col(k) * root, s.V.col(k) * root, d);
    }
    return h;
}

Mat foldKernelPart(const Mat& W, int d) { return W - symPart(W, d); }

Mat projectOntoRepresentatives(const Mat& W, const Mat& P, int d) {
    return W - symPart(W, d) + unfoldP(P, d);
}

} // namespace mhla
