#pragma once
// Python objects <-> JSON values: the experiment dict going into core's loader and the result
// object (core/records/resultio.h resultToJson) coming back as Python objects.
#include <QJsonObject>
#include <QJsonValue>
#include <QString>
#include <pybind11/pybind11.h>

namespace mhla::python {

/// The experiment as a JSON object. Allowed: dicts with str keys, lists and tuples, bool, int
/// (within 64 bits), finite float, str, None, and NumPy scalars of these. Anything else throws
/// ConfigError naming the dotted key of the value and what is allowed.
[[nodiscard]] QJsonObject jsonObjectFromPython(const pybind11::handle& obj);

/// A JSON value as Python objects: objects become dicts, arrays lists, integers int, other
/// numbers float, null None.
[[nodiscard]] pybind11::object pythonFromJson(const QJsonValue& value);

} // namespace mhla::python
