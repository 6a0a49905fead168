// The Python module mhla_lab (docs/python.md): solve() runs an experiment as `mhla-lab solve`
// does and returns its result.json as Python objects with the matrices as NumPy arrays;
// fit() runs the dataset task on prompts and targets held in NumPy arrays; features() and
// predict() apply core's feature map to them.
#include "app/python/interrupt.h"
#include "app/python/pyjson.h"
#include "core/algebra/features.h"
#include "core/algebra/model.h"
#include "core/base/npy.h"
#include "core/base/parallel.h"
#include "core/experiment/loader.h"
#include "core/records/resultio.h"
#include "core/run/admission.h"
#include "core/run/runner.h"
#include <QJsonObject>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <new>
#include <optional>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <stdexcept>
#include <string>

namespace py = pybind11;

namespace mhla::python {

namespace {

/// float64, C order: what core reads in place; anything else is converted once.
using Doubles = py::array_t<double, py::array::c_style | py::array::forcecast>;

/// Largest token dimension features() and predict() accept: D = d^2(d+1)/2 features per
/// prompt (d = 1024: 5.4e8, 4 GiB a prompt) must stay countable.
constexpr long long kMaxPromptDim = 1024;
/// Prompts per work item of features() and predict(): the grain at which they poll the cancel
/// token (d = 16: ~1 ms).
constexpr long long kPromptPiece = 256;

std::string shapeText(const py::array& a) {
    std::string s = "(";
    for (py::ssize_t i = 0; i < a.ndim(); ++i)
        s += (i ? ", " : "") + std::to_string(a.shape(i)) + (a.ndim() == 1 ? "," : "");
    return s + ")";
}

/// `obj` as a float64 array (float32 converted once); refuses other dtypes.
Doubles floatArray(const py::handle& obj, const char* name) {
    const py::array a = py::module_::import("numpy").attr("asarray")(obj);
    const py::dtype dt = a.dtype();
    if (dt.kind() != 'f' || (dt.itemsize() != 8 && dt.itemsize() != 4))
        throw py::value_error(std::string(name) + ": dtype " + dt.attr("name").cast<std::string>() +
                              " is not allowed; allowed: float64 or float32");
    Doubles d = Doubles::ensure(a);
    if (!d) throw py::value_error(std::string(name) + ": cannot be read as float64");
    return d;
}

/// The prompts as N x n x d float64 (sample, token, coordinate; the last token is the query).
Doubles promptArray(const py::handle& obj) {
    Doubles z = floatArray(obj, "prompts");
    if (z.ndim() != 3 || z.shape(1) < 1 || z.shape(2) < 1 || z.shape(2) > kMaxPromptDim)
        throw py::value_error(
            "prompts: shape " + shapeText(z) +
            " is not allowed; allowed: N x n x d (sample, token, coordinate; tokens as rows, the "
            "last token the query) with n >= 1 and 1 <= d <= " +
            std::to_string(kMaxPromptDim) + " (one prompt Z: prompts[None])");
    return z;
}

int threadCount(const py::object& threads) {
    if (threads.is_none()) return 0;
    const std::string allowed =
        "; allowed: None (every core) or an integer in [1, " + std::to_string(kMaxThreads) + "]";
    if (!py::isinstance<py::int_>(threads) || py::isinstance<py::bool_>(threads))
        throw ConfigError("threads: " + py::repr(threads).cast<std::string>() + " is not allowed" +
                              allowed,
                          QStringLiteral("threads"));
    const long long t = threads.cast<long long>();
    if (t < 1 || t > kMaxThreads)
        throw ConfigError("threads: " + std::to_string(t) + " is not allowed" + allowed,
                          QStringLiteral("threads"));
    return static_cast<int>(t);
}

/// Calls body(s, Z) for every prompt s, Z its d x n matrix (tokens as columns, MATH.md §1):
/// the n x d row-major block of the array is that matrix in Eigen's column-major order.
/// Prompts are independent, so nothing depends on the thread count.
template <typename Body>
void forEachPrompt(const double* z, Index N, Index n, Index d, int threads,
                   const CancelToken& cancel, Body body) {
    parallelFor((N + kPromptPiece - 1) / kPromptPiece, threads, [&](long long piece) {
        if (cancel.isCancelled()) return;
        Mat Z(d, n);
        const Index end = std::min<Index>(N, (piece + 1) * kPromptPiece);
        for (Index s = piece * kPromptPiece; s < end; ++s) {
            std::memcpy(Z.data(), z + s * n * d, sizeof(double) * static_cast<size_t>(n * d));
            body(s, Z);
        }
    });
    cancel.check();
}

py::array_t<double> features(const py::handle& prompts, const py::object& threads) {
    const int t = threadCount(threads);
    const Doubles z = promptArray(prompts);
    const Index N = z.shape(0), n = z.shape(1), d = z.shape(2);
    const Index D = featureDim(static_cast<int>(d));
    py::array_t<double> out({N, D});
    const double* src = z.data();
    double* dst = out.mutable_data();
    runInterruptibly([&](const CancelToken& cancel) {
        forEachPrompt(src, N, n, d, t, cancel,
                      [&](Index s, const Mat& Z) { featureVectorInto(Z, dst + s * D); });
    });
    return out;
}

py::array_t<double> predict(const py::handle& P, const py::handle& prompts,
                            const py::object& threads) {
    const int t = threadCount(threads);
    const Doubles z = promptArray(prompts);
    const Index N = z.shape(0), n = z.shape(1), d = z.shape(2);
    const Index D = featureDim(static_cast<int>(d));
    const Doubles p = floatArray(P, "P");
    if (p.ndim() != 2 || p.shape(0) < 1 || p.shape(1) != D)
        throw py::value_error("P: shape " + shapeText(p) +
                              " is not allowed; allowed: d_out x D "
                              "with d_out >= 1 and D = d^2(d+1)/2 = " +
                              std::to_string(D) + " for the prompts' d = " + std::to_string(d));
    const Index dOut = p.shape(0);
    py::array_t<double> out({N, dOut});
    const double* src = z.data();
    const double* coef = p.data();
    double* dst = out.mutable_data();
    runInterruptibly([&](const CancelToken& cancel) {
        forEachPrompt(src, N, n, d, t, cancel, [&](Index s, const Mat& Z) {
            thread_local Vec psi;
            if (psi.size() != D) psi.resize(D);
            featureVectorInto(Z, psi.data());
            for (Index i = 0; i < dOut; ++i)
                dst[s * dOut + i] = Eigen::Map<const Vec>(coef + i * D, D).dot(psi);
        });
    });
    return out;
}

/// A matrix as a C-ordered array (rows x cols); None when it is empty (undefined).
py::object matrixArray(const Mat& m) {
    if (m.size() == 0) return py::none();
    py::array_t<double> a({m.rows(), m.cols()});
    double* out = a.mutable_data();
    for (Index i = 0; i < m.rows(); ++i)
        for (Index j = 0; j < m.cols(); ++j) out[i * m.cols() + j] = m(i, j);
    return a;
}

py::array_t<double> vectorArray(const Vec& v) {
    py::array_t<double> a(v.size());
    std::copy(v.data(), v.data() + v.size(), a.mutable_data());
    return a;
}

/// H matrices of one shape as an H x rows x cols array (rows x cols: the shape when H = 0).
py::array_t<double> stackArray(const std::vector<Mat>& ms, Index rows, Index cols) {
    if (!ms.empty()) rows = ms.front().rows(), cols = ms.front().cols();
    py::array_t<double> a({static_cast<Index>(ms.size()), rows, cols});
    double* out = a.mutable_data();
    for (const Mat& m : ms) {
        if (m.rows() != rows || m.cols() != cols)
            throw std::logic_error("heads of different shapes cannot be stacked");
        for (Index i = 0; i < rows; ++i)
            for (Index j = 0; j < cols; ++j) *out++ = m(i, j);
    }
    return a;
}

/// One field of a structured array: its name, NumPy dtype and values.
struct Field {
    const char* name;
    const char* dtype;
    std::vector<double> values;
};

/// A structured array with one record per row (all fields have `rows` values).
py::array recordArray(size_t rows, const std::vector<Field>& fields) {
    py::list spec;
    for (const Field& f : fields) spec.append(py::make_tuple(f.name, f.dtype));
    py::array a = py::module_::import("numpy").attr("zeros")(rows, py::dtype::from_args(spec));
    for (const Field& f : fields)
        a[py::str(f.name)] = py::array_t<double>(static_cast<py::ssize_t>(rows), f.values.data());
    return a;
}

void warn(const std::string& text) {
    if (PyErr_WarnEx(PyExc_UserWarning, text.c_str(), 1) != 0) throw py::error_already_set();
}

/// Runs a validated experiment as `solve` does (the GIL released, Ctrl+C cancels) and returns
/// its result.json as a dict, with the matrices and the CSV files' columns as NumPy arrays.
py::dict runToDict(const LoadedExperiment& loaded, int threads);

py::dict solve(const py::handle& experiment, const py::object& threads) {
    const int t = threadCount(threads);
    return runToDict(loadExperimentObject(jsonObjectFromPython(experiment)), t);
}

/// The first value of `a` that is NaN or infinite, as "value nan at [s, t, c]"; empty if none.
std::string firstNonFinite(const Doubles& a) {
    const double* v = a.data();
    const py::ssize_t n = a.size();
    for (py::ssize_t i = 0; i < n; ++i)
        if (!std::isfinite(v[i]))
            return nonFiniteValueText(v[i], std::vector<long long>(a.shape(), a.shape() + a.ndim()),
                                      i)
                .toStdString();
    return {};
}

/// One section of fit()'s keys (solver or eval): a dict, or None for the defaults.
QJsonObject sectionObject(const py::object& section, const char* name) {
    if (section.is_none()) return {};
    if (!py::isinstance<py::dict>(section))
        throw ConfigError(std::string(name) + ": " + py::repr(section).cast<std::string>() +
                              " is not allowed; allowed: a dict of " + name +
                              " keys (as in an experiment file's \"" + name + "\" section) or None",
                          QString::fromLatin1(name));
    return jsonObjectFromPython(section);
}

py::dict fit(const py::handle& prompts, const py::object& targets, const py::object& solver,
             const py::object& eval, const py::object& validationPrompts,
             const py::object& validationTargets, const py::object& threads) {
    const int t = threadCount(threads);
    const Doubles z = promptArray(prompts);
    // Without targets the prompts are certified and nothing is fitted (d_out = 0).
    std::optional<Doubles> y;
    if (!targets.is_none()) y = floatArray(targets, "targets");
    const std::vector<long long> pShape(z.shape(), z.shape() + z.ndim());
    const std::vector<long long> tShape =
        y ? std::vector<long long>(y->shape(), y->shape() + y->ndim()) : std::vector<long long>{};
    const QString pName = QStringLiteral("prompts array"), tName = QStringLiteral("targets array");
    DatasetShape shape = checkDatasetShape(pShape, y ? &tShape : nullptr, pName, tName);
    if (const std::string bad = firstNonFinite(z); !bad.empty())
        throw ConfigError("task.prompts: prompts array: " + bad + "; allowed: finite numbers",
                          QStringLiteral("task.prompts"));
    if (const std::string bad = y ? firstNonFinite(*y) : std::string(); !bad.empty())
        throw ConfigError("task.targets: targets array: " + bad + "; allowed: finite numbers",
                          QStringLiteral("task.targets"));
    // The held-out set: both arrays or neither, with the training data's n, d and d_out.
    std::optional<Doubles> vz, vy;
    std::vector<long long> vpShape, vtShape;
    if (!validationPrompts.is_none() || !validationTargets.is_none()) {
        if (validationPrompts.is_none() || validationTargets.is_none())
            throw ConfigError(std::string(validationPrompts.is_none() ? "task.validation_prompts"
                                                                      : "task.validation_targets") +
                                  ": a held-out set is validation_prompts with validation_targets; "
                                  "give both arrays, or neither",
                              QStringLiteral("task.validation_prompts"));
        if (!y)
            throw ConfigError("task.validation_prompts: a held-out set needs targets: without "
                              "them nothing is fitted, so there is nothing to validate",
                              QStringLiteral("task.validation_prompts"));
        vz = floatArray(validationPrompts, "validation_prompts");
        vy = floatArray(validationTargets, "validation_targets");
        vpShape.assign(vz->shape(), vz->shape() + vz->ndim());
        vtShape.assign(vy->shape(), vy->shape() + vy->ndim());
        shape.validationSamples = checkValidationShape(shape, vpShape, vtShape,
                                                       QStringLiteral("validation_prompts array"),
                                                       QStringLiteral("validation_targets array"));
        for (const auto& [values, key] : {std::pair{&*vz, "task.validation_prompts"},
                                          std::pair{&*vy, "task.validation_targets"}})
            if (const std::string bad = firstNonFinite(*values); !bad.empty())
                throw ConfigError(std::string(key) + ": " + (key + 5) + " array: " + bad +
                                      "; allowed: finite numbers",
                                  QString::fromLatin1(key));
    }
    QJsonObject task{{QStringLiteral("kind"), QStringLiteral("dataset")}};
    QJsonObject obj{{QStringLiteral("task"), task},
                    {QStringLiteral("solver"), sectionObject(solver, "solver")},
                    {QStringLiteral("eval"), sectionObject(eval, "eval")}};
    LoadedExperiment loaded = loadExperimentObject(obj, {}, "--set", &shape);
    // The data is in memory: the task reads the arrays, the records name them.
    auto arrays = std::make_shared<DatasetArrays>();
    arrays->prompts.assign(z.data(), z.data() + z.size());
    if (y) arrays->targets.assign(y->data(), y->data() + y->size());
    TaskConfig& tc = loaded.config.task;
    tc.prompts = QStringLiteral("<in memory: %1>").arg(npyShapeText(pShape));
    tc.targets = y ? QStringLiteral("<in memory: %1>").arg(npyShapeText(tShape)) : QString();
    if (vz) {
        arrays->validationPrompts.assign(vz->data(), vz->data() + vz->size());
        arrays->validationTargets.assign(vy->data(), vy->data() + vy->size());
        tc.validationPrompts = QStringLiteral("<in memory: %1>").arg(npyShapeText(vpShape));
        tc.validationTargets = QStringLiteral("<in memory: %1>").arg(npyShapeText(vtShape));
        tc.dataValidationSamples = shape.validationSamples;
        loaded.config.eval.valSamples = shape.validationSamples;
    }
    tc.arrays = std::move(arrays);
    return runToDict(loaded, t);
}

py::dict runToDict(const LoadedExperiment& loaded, int threads) {
    for (const QString& w : loaded.warnings) warn(w.toStdString());
    const ExperimentConfig& cfg = loaded.config;
    admit(cfg);
    ExperimentResult r;
    runInterruptibly([&](const CancelToken& cancel) {
        RunContext ctx;
        ctx.cancel = &cancel;
        ctx.threads = threads;
        r = runExperiment(cfg, ctx);
    });
    for (const std::string& w : r.warnings) warn(w);

    py::dict out = pythonFromJson(resultToJson(r)).cast<py::dict>();
    // What result.json holds as lists (and the CSV files beside it), as arrays.
    out["P"] = matrixArray(r.P);
    out["teacher_P"] = matrixArray(r.teacherP);
    out["heads_V"] = stackArray(r.heads.heads.V, r.dOut, r.d);
    out["heads_Q"] = stackArray(r.heads.heads.Q, r.d, r.d);
    out["teacher_heads_V"] = stackArray(r.teacherHeads.heads.V, r.dOut, r.d);
    out["teacher_heads_Q"] = stackArray(r.teacherHeads.heads.Q, r.d, r.d);
    out["spectrum"] = vectorArray(r.certificate.spectrum);
    out["singular_values"] = vectorArray(r.heads.singularValues);
    std::vector<double> samples, lambdaMin;
    for (const auto& [n, l] : r.lambdaTrace) {
        samples.push_back(static_cast<double>(n));
        lambdaMin.push_back(l);
    }
    out["lambda_trace"] = recordArray(
        r.lambdaTrace.size(), {{"samples", "i8", samples}, {"lambda_min", "f8", lambdaMin}});
    if (out.contains("history")) {
        std::vector<Field> fields{{"epoch", "i8", {}},
                                  {"step", "i8", {}},
                                  {"lr", "f8", {}},
                                  {"train_mse", "f8", {}},
                                  {"val_mse", "f8", {}},
                                  {"ood_rel_mse", "f8", {}},
                                  {"distance_p", "f8", {}},
                                  {"distance_p_rel", "f8", {}},
                                  {"distance_exact_rel", "f8", {}}};
        for (const HistoryPoint& h : r.history) {
            const double row[] = {static_cast<double>(h.epoch),
                                  static_cast<double>(h.step),
                                  h.lr,
                                  h.trainMse,
                                  h.valMse,
                                  h.oodRelMse,
                                  h.distanceP,
                                  h.distancePRel,
                                  h.distanceExactRel};
            for (size_t k = 0; k < fields.size(); ++k) fields[k].values.push_back(row[k]);
        }
        out["history"] = recordArray(r.history.size(), fields);
    }
    return out;
}

} // namespace

} // namespace mhla::python

PYBIND11_MODULE(mhla_lab, m) {
    using namespace mhla::python;
    m.doc() = "MHLA Lab from Python: solve experiments, and the folded cubic feature map psi "
              "(MATH.md) on NumPy arrays. See docs/python.md.";
    m.attr("__version__") = MHLA_VERSION;

    // ConfigError (a ValueError): the key at fault (`key`, "" for the whole experiment) and the
    // message `mhla-lab solve` prints for the same input (`message`, also str(e)).
    static py::exception<mhla::ConfigError> configError(m, "ConfigError", PyExc_ValueError);
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const mhla::ConfigError& e) {
            py::object err = py::handle(configError.ptr())(std::string(e.what()));
            err.attr("key") = e.key().toStdString();
            err.attr("message") = std::string(e.what());
            PyErr_SetObject(configError.ptr(), err.ptr());
        } catch (const mhla::Cancelled&) {
            PyErr_SetString(PyExc_KeyboardInterrupt, "cancelled");
        }
    });

    m.def("solve", &solve, py::arg("experiment"), py::arg("threads") = py::none(),
          R"(Runs an experiment as `mhla-lab solve` does and returns its result.

experiment: a dict with the sections of an experiment file (task, solver, eval; every key of
  `mhla-lab solve --help`), missing keys at their defaults.
threads: None (every core) or 1..256; the numbers never depend on it.

Returns result.json as a dict, with P, teacher_P (d_out x D), heads_V / heads_Q and
teacher_heads_V / teacher_heads_Q (H x d_out x d, H x d x d), spectrum, singular_values
(1-D), lambda_trace and history (structured arrays) as NumPy arrays. Undefined matrices are
None. Raises mhla_lab.ConfigError (a ValueError with .key and .message) for invalid input and
KeyboardInterrupt when Ctrl+C cancels the run.)");
    m.def("features", &features, py::arg("prompts"), py::kw_only(), py::arg("threads") = py::none(),
          R"(psi of each prompt: an N x D array, D = d^2(d+1)/2.

prompts: N x n x d (sample, token, coordinate; tokens as rows, the last token the query),
  float64 (float32 is converted once). psi[s, pair(a,b)*d + c] = S_ab z_q,c with S = Z Z^T.)");
    m.def("predict", &predict, py::arg("P"), py::arg("prompts"), py::kw_only(),
          py::arg("threads") = py::none(),
          R"(P psi(Z) for each prompt: an N x d_out array (P is d_out x D).)");
    m.def("fit", &fit, py::arg("prompts"), py::arg("targets") = py::none(), py::kw_only(),
          py::arg("solver") = py::none(), py::arg("eval") = py::none(),
          py::arg("validation_prompts") = py::none(), py::arg("validation_targets") = py::none(),
          py::arg("threads") = py::none(),
          R"(Fits and certifies your own data, held in NumPy arrays: the dataset task (task.kind
"dataset") on arrays instead of .npy files, with the same result fields as `solve` on files.

prompts: N x n x d (sample, token, coordinate; tokens as rows, the last token the query);
targets: N x d_out, one row per prompt. float64 (float32 is converted once), finite.
    None: the prompts alone are certified (lambda_min, spectrum, null_dim, lambda_trace) and
    nothing is fitted: no P, no heads, no errors (d_out is 0).
solver, eval: dicts of the keys of an experiment file's sections (None: the defaults).
validation_prompts, validation_targets: a held-out set (N_val x n x d and N_val x d_out, both
    or neither, only with targets): val_mse is measured on it.
threads: None (every core) or 1..256; the numbers never depend on it.

The arrays are copied once (the data then lives twice while the call runs). Numbers that need
a teacher (distance to P*) are absent. Raises mhla_lab.ConfigError (.key: task.prompts,
task.targets or the solver/eval key at fault).)");
}
