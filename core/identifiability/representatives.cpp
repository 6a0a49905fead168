#include "core/identifiability/representatives.h"
#include "core/identifiability/lowrank.h"
#include <cmath>

namespace mhla {

using lowrank::Svd;
using lowrank::svdOf;
using lowrank::symPart;

Heads canonicalHeadsOfW(const Mat& W, int d, int r, Vec* singularValues) {
    const Index dOut = W.rows() / d;
    const Svd s = svdOf(W);
    r = std::min<int>(r, static_cast<int>(s.s.size()));
    Heads h;
    if (singularValues) *singularValues = s.s.head(r);
    for (int k = 0; k < r; ++k) {
        const double root = std::sqrt(s.s(k));
        Vec u = s.U.col(k) * root, v = s.V.col(k) * root;
        Index imax = 0;
        u.cwiseAbs().maxCoeff(&imax);
        if (u(imax) < 0) {
            u = -u;
            v = -v;
        }
        Mat V(dOut, d), Q(d, d);
        for (Index i = 0; i < dOut; ++i)
            for (int a = 0; a < d; ++a) V(i, a) = u(i * d + a);
        for (int b = 0; b < d; ++b)
            for (int c = 0; c < d; ++c) Q(b, c) = v(b * d + c);
        h.V.push_back(std::move(V));
        h.Q.push_back(std::move(Q));
    }
    return h;
}

Mat foldKernelPart(const Mat& W, int d) { return W - symPart(W, d); }

Mat projectOntoRepresentatives(const Mat& W, const Mat& P, int d) {
    return W - symPart(W, d) + unfoldP(P, d);
}

} // namespace mhla
