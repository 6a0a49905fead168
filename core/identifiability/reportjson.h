#pragma once
// The JSON pieces of the identifiability reports (each block's toJson() and the explorer's):
// numbers, vectors and heads, with non-finite numbers written as null.
#include "core/algebra/model.h"
#include "core/base/types.h"
#include <QJsonArray>
#include <QJsonValue>

namespace mhla {

/// v as a JSON number, or null when it is not finite (JSON has no NaN or infinity).
[[nodiscard]] QJsonValue jsonNumber(double v);
/// M as an array of rows (jsonNumber each).
[[nodiscard]] QJsonArray matrixJson(const Mat& M);
/// v as an array (jsonNumber each).
[[nodiscard]] QJsonArray vectorJson(const Vec& v);
/// Heads as [{"V": rows, "Q": rows}, ...].
[[nodiscard]] QJsonArray headsJson(const Heads& h);

} // namespace mhla
