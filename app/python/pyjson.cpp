#include "app/python/pyjson.h"
#include "core/experiment/config.h"
#include <QJsonArray>
#include <cmath>
#include <string>

namespace py = pybind11;

namespace mhla::python {

namespace {

constexpr const char* kAllowed =
    "allowed: dict (str keys), list, tuple, bool, int, finite float, str, None";

std::string where(const QString& key) {
    return key.isEmpty() ? std::string("experiment") : key.toStdString();
}

[[noreturn]] void refuse(const QString& key, const std::string& what) {
    throw ConfigError(where(key) + ": " + what + "; " + kAllowed, key);
}

QJsonValue jsonFromPython(const py::handle& obj, const QString& key) {
    if (obj.is_none()) return QJsonValue(QJsonValue::Null);
    // bool before int: Python's bool is an int.
    if (py::isinstance<py::bool_>(obj)) return QJsonValue(obj.cast<bool>());
    if (py::isinstance<py::int_>(obj)) {
        int overflow = 0;
        const long long v = PyLong_AsLongLongAndOverflow(obj.ptr(), &overflow);
        if (overflow != 0)
            refuse(key,
                   "the integer " + py::str(obj).cast<std::string>() + " does not fit in 64 bits");
        return QJsonValue(static_cast<qint64>(v));
    }
    if (py::isinstance<py::float_>(obj)) {
        const double v = obj.cast<double>();
        if (!std::isfinite(v))
            refuse(key, "the number " + py::repr(obj).cast<std::string>() + " is not finite");
        return QJsonValue(v);
    }
    if (py::isinstance<py::str>(obj))
        return QJsonValue(QString::fromStdString(obj.cast<std::string>()));
    if (py::isinstance<py::dict>(obj)) {
        QJsonObject o;
        for (const auto& [k, v] : obj.cast<py::dict>()) {
            if (!py::isinstance<py::str>(k))
                refuse(key, "the key " + py::repr(k).cast<std::string>() + " is not a str");
            const QString name = QString::fromStdString(k.cast<std::string>());
            o.insert(name, jsonFromPython(v, key.isEmpty() ? name : key + QLatin1Char('.') + name));
        }
        return o;
    }
    if (py::isinstance<py::list>(obj) || py::isinstance<py::tuple>(obj)) {
        QJsonArray a;
        int i = 0;
        for (const py::handle item : obj)
            a.append(jsonFromPython(item, key + QLatin1Char('[') + QString::number(i++) +
                                              QLatin1Char(']')));
        return a;
    }
    // NumPy scalars (numpy.int64, numpy.float32, numpy.bool_, ...): their Python value.
    const py::module_ numpy = py::module_::import("numpy");
    if (py::isinstance(obj, numpy.attr("generic"))) return jsonFromPython(obj.attr("item")(), key);
    refuse(key, "a value of type " + py::str(obj.get_type().attr("__name__")).cast<std::string>() +
                    " is not allowed");
}

} // namespace

QJsonObject jsonObjectFromPython(const py::handle& obj) {
    if (!py::isinstance<py::dict>(obj))
        throw ConfigError("experiment: expected a dict (sections task, solver, eval), got " +
                          py::str(obj.get_type().attr("__name__")).cast<std::string>());
    return jsonFromPython(obj, {}).toObject();
}

py::object pythonFromJson(const QJsonValue& value) {
    switch (value.type()) {
    case QJsonValue::Null:
    case QJsonValue::Undefined: return py::none();
    case QJsonValue::Bool: return py::bool_(value.toBool());
    case QJsonValue::Double:
        // Integers stay integers (counts, dimensions, seeds up to 2^53 exact).
        if (value.toVariant().typeId() == QMetaType::LongLong) return py::int_(value.toInteger());
        return py::float_(value.toDouble());
    case QJsonValue::String: return py::str(value.toString().toStdString());
    case QJsonValue::Array: {
        py::list l;
        for (const QJsonValue& v : value.toArray()) l.append(pythonFromJson(v));
        return l;
    }
    case QJsonValue::Object: {
        py::dict d;
        const QJsonObject o = value.toObject();
        for (auto it = o.begin(); it != o.end(); ++it)
            d[py::str(it.key().toStdString())] = pythonFromJson(it.value());
        return d;
    }
    }
    return py::none();
}

} // namespace mhla::python
