#include "core/identifiability/reportjson.h"
#include "core/base/text.h"
#include <QJsonObject>
#include <cmath>

namespace mhla {

QJsonValue jsonNumber(double v) {
    return std::isfinite(v) ? QJsonValue(v) : QJsonValue(QJsonValue::Null);
}

QJsonArray matrixJson(const Mat& M) {
    QJsonArray rows;
    for (Index i = 0; i < M.rows(); ++i) {
        QJsonArray row;
        for (Index j = 0; j < M.cols(); ++j) row.append(jsonNumber(M(i, j)));
        rows.append(row);
    }
    return rows;
}

QJsonArray vectorJson(const Vec& v) {
    QJsonArray a;
    for (Index i = 0; i < v.size(); ++i) a.append(jsonNumber(v(i)));
    return a;
}

QJsonArray headsJson(const Heads& h) {
    QJsonArray a;
    for (int k = 0; k < h.count(); ++k)
        a.append(QJsonObject{{q("V"), matrixJson(h.V[static_cast<size_t>(k)])},
                             {q("Q"), matrixJson(h.Q[static_cast<size_t>(k)])}});
    return a;
}

} // namespace mhla
