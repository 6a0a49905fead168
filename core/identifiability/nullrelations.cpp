#include "core/identifiability/nullrelations.h"
#include "core/algebra/certificate.h"
#include "core/algebra/features.h"
#include "core/algebra/model.h"
#include "core/base/parallel.h"
#include "core/base/rng.h"
#include "core/base/text.h"
#include "core/identifiability/lowrank.h"
#include "core/identifiability/reportjson.h"
#include "core/identifiability/representatives.h"
#include <QJsonArray>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <numeric>
#include <optional>
#include <stdexcept>

namespace mhla {

using namespace lowrank;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

} // namespace

FeatureTriple featureTriple(long long index, int d) {
    FeatureTriple t;
    t.c = static_cast<int>(index % d);
    long long pair = index / d;
    int a = 0;
    while (pair >= d - a) {
        pair -= d - a;
        ++a;
    }
    t.a = a;
    t.b = a + static_cast<int>(pair);
    return t;
}

namespace {
std::string subscript(int v) {
    // U+2080..U+2089: E2 82 80+v.
    std::string s = "\xE2\x82";
    s += static_cast<char>(0x80 + v);
    return s;
}
const char* kDot = "\xC2\xB7";       // U+00B7
const char* kMinus = "\xE2\x88\x92"; // U+2212
} // namespace

std::string featureName(long long index, int d) {
    const FeatureTriple t = featureTriple(index, d);
    const int a = t.a + 1, b = t.b + 1, c = t.c + 1;
    if (a <= 9 && b <= 9 && c <= 9) {
        // Appended piece by piece: "S" + std::string inlined into this small file made GCC 12
        // warn a false -Wrestrict (GCC bug 105329), an error in the -Werror package build.
        std::string s("S");
        for (int v : {a, b}) s += subscript(v);
        s += kDot;
        s += 'z';
        s += subscript(c);
        return s;
    }
    const std::string zc = c <= 9 ? "z_" + std::to_string(c) : "z_{" + std::to_string(c) + "}";
    return "S_{" + std::to_string(a) + "," + std::to_string(b) + "}" + kDot + zc;
}

std::string featureNameAscii(long long index, int d) {
    const FeatureTriple t = featureTriple(index, d);
    const int a = t.a + 1, b = t.b + 1, c = t.c + 1;
    if (a <= 9 && b <= 9 && c <= 9)
        return "S_" + std::to_string(a) + std::to_string(b) + "*z_" + std::to_string(c);
    return "S_{" + std::to_string(a) + "," + std::to_string(b) + "}*z_{" + std::to_string(c) + "}";
}

NullRelationsResult nullRelations(const Mat& lambda, int d, const NullRelationsOptions& opt) {
    return nullRelationsFromBasis(nullBasisOf(lambda, opt.toleranceRel), lambda, d, opt);
}

namespace {

std::string formatCoefficient(double c, bool integer) {
    if (integer) return std::to_string(static_cast<long long>(std::llround(c)));
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4g", c);
    return buf;
}

void renderRelation(NullRelation& rel, int d) {
    std::string text, ascii;
    bool first = true;
    for (const NullRelationTerm& t : rel.terms) {
        const double c = t.coefficient;
        const double mag = std::abs(c);
        const bool one = rel.rational ? std::llround(mag) == 1 : std::abs(mag - 1.0) < 1e-12;
        const std::string coef = one ? "" : formatCoefficient(mag, rel.rational);
        if (first) {
            if (c < 0) {
                text += kMinus;
                ascii += "-";
            }
        } else {
            text += c < 0 ? std::string(" ") + kMinus + " " : " + ";
            ascii += c < 0 ? " - " : " + ";
        }
        if (!coef.empty()) {
            text += coef + kDot;
            ascii += coef + "*";
        }
        text += featureName(t.feature, d);
        ascii += featureNameAscii(t.feature, d);
        first = false;
    }
    rel.text = text + " = 0";
    rel.textAscii = ascii + " = 0";
}

/// Brings R to reduced row echelon form in place (partial pivoting, columns in order; a column
/// whose best pivot is at most pivotTol times R's largest entry is skipped). Returns the pivot
/// columns, one per nonzero row.
std::vector<Index> reduceToRowEchelon(Mat& R, double pivotTol) {
    const Index k = R.rows(), D = R.cols();
    const double scale = R.size() ? R.cwiseAbs().maxCoeff() : 0.0;
    std::vector<Index> pivots;
    Index row = 0;
    for (Index col = 0; col < D && row < k; ++col) {
        Index p = row;
        const double best = R.col(col).segment(row, k - row).cwiseAbs().maxCoeff(&p);
        p += row;
        if (best <= pivotTol * scale) continue;
        R.row(row).swap(R.row(p));
        R.row(row) /= R(row, col);
        for (Index i = 0; i < k; ++i)
            if (i != row) R.row(i) -= R(i, col) * R.row(row);
        pivots.push_back(col);
        ++row;
    }
    return pivots;
}

/// v as the smallest integer vector along it, when every entry is p/q with q <= maxDenominator
/// (within snapTol relative); nullopt otherwise.
std::optional<Vec> snapToIntegers(const Vec& v, int maxDenominator, double snapTol) {
    const Index D = v.size();
    Vec num(D), den(D);
    for (Index j = 0; j < D; ++j) {
        num(j) = 0;
        den(j) = 1;
        if (v(j) == 0.0) continue;
        bool ok = false;
        for (int qd = 1; qd <= maxDenominator && !ok; ++qd) {
            const double p = std::round(v(j) * qd);
            if (std::abs(v(j) - p / qd) <= snapTol * std::max(1.0, std::abs(v(j)))) {
                num(j) = p;
                den(j) = qd;
                ok = true;
            }
        }
        if (!ok) return std::nullopt;
    }
    long long l = 1;
    for (Index j = 0; j < D; ++j)
        if (num(j) != 0) l = std::lcm(l, static_cast<long long>(den(j)));
    Vec ints(D);
    long long g = 0;
    for (Index j = 0; j < D; ++j) {
        ints(j) = num(j) * static_cast<double>(l / static_cast<long long>(den(j)));
        g = std::gcd(g, std::llabs(std::llround(ints(j))));
    }
    if (g > 1) ints /= static_cast<double>(g);
    return ints;
}

} // namespace

NullRelationsResult nullRelationsFromBasis(const Mat& basis, const Mat& lambda, int d,
                                           const NullRelationsOptions& opt) {
    requireShape(basis.cols() == 0 || basis.rows() == featureDim(d),
                 "nullRelations: the basis must have D rows");
    requireShape(lambda.size() == 0 ||
                     (lambda.rows() == featureDim(d) && lambda.cols() == featureDim(d)),
                 "nullRelations: Lambda must be D x D");
    NullRelationsResult out;
    const Index D = basis.rows();
    double lmax = 0;
    if (lambda.size() > 0) {
        Eigen::SelfAdjointEigenSolver<Mat> es(lambda, Eigen::EigenvaluesOnly);
        lmax = std::max(es.eigenvalues().maxCoeff(), 0.0);
    }
    out.tolerance = opt.toleranceRel * lmax;
    // Reduced row echelon form of basis^T with partial pivoting, columns in feature order.
    Mat R = basis.transpose();
    const std::vector<Index> pivots = reduceToRowEchelon(R, opt.pivotTol);
    const Index row = static_cast<Index>(pivots.size());
    out.nullDim = static_cast<int>(row);
    for (Index i = 0; i < row; ++i) {
        NullRelation rel;
        rel.pivot = pivots[static_cast<size_t>(i)];
        Vec v = R.row(i).transpose();
        for (Index j = 0; j < D; ++j)
            if (std::abs(v(j)) <= 1e-12) v(j) = 0.0;
        if (const std::optional<Vec> ints = snapToIntegers(v, opt.maxDenominator, opt.snapTol)) {
            const bool inNull =
                lambda.size() == 0 || (lambda * *ints).norm() <= out.tolerance * ints->norm();
            if (inNull) {
                v = *ints;
                rel.rational = true;
            }
        }
        rel.vector = v;
        rel.residual =
            lambda.size() > 0 && lmax > 0 ? (lambda * v).norm() / (lmax * v.norm()) : kNaN;
        for (Index j = 0; j < D; ++j) {
            if (v(j) == 0.0) continue;
            const FeatureTriple t = featureTriple(j, d);
            rel.terms.push_back(NullRelationTerm{j, t.a, t.b, t.c, v(j)});
        }
        renderRelation(rel, d);
        if (rel.rational) ++out.rationalCount;
        out.relations.push_back(std::move(rel));
    }
    return out;
}

QJsonObject toJson(const NullRelationsResult& r) {
    QJsonArray rels;
    for (const NullRelation& rel : r.relations) {
        QJsonArray terms;
        for (const NullRelationTerm& t : rel.terms)
            terms.append(QJsonObject{{q("feature"), static_cast<qint64>(t.feature)},
                                     {q("a"), t.a + 1},
                                     {q("b"), t.b + 1},
                                     {q("c"), t.c + 1},
                                     {q("coefficient"), jsonNumber(t.coefficient)}});
        rels.append(QJsonObject{{q("terms"), terms},
                                {q("rational"), rel.rational},
                                {q("pivot"), static_cast<qint64>(rel.pivot)},
                                {q("residual"), jsonNumber(rel.residual)},
                                {q("text"), QString::fromStdString(rel.text)},
                                {q("text_ascii"), QString::fromStdString(rel.textAscii)}});
    }
    return QJsonObject{{q("null_dim"), r.nullDim},
                       {q("tolerance"), jsonNumber(r.tolerance)},
                       {q("rational_count"), r.rationalCount},
                       {q("relations"), rels}};
}

} // namespace mhla
