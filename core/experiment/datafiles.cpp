// Dataset files: pairing the .npy files or the .npz archive a user opens into prompts,
// targets and a held-out set, and reading and checking their shapes from the headers.
#include "core/base/npy.h"
#include "core/base/text.h"
#include "core/experiment/config.h"
#include <QDir>
#include <QFileInfo>
#include <QStringList>

namespace mhla {

namespace {

std::string str(const QString& s) { return s.toStdString(); }

/// Takes vp and vt as out's held-out set when their shapes fit out's prompts and targets, and
/// says so in the returned note (named as `names`); else leaves them out and says why.
QString takeHeldOutSet(DataFiles& out, const QString& vp, const QString& vt, const QString& names) {
    try {
        const std::vector<long long> targetShape = readNpyHeader(out.targets).shape;
        const DatasetShape train = checkDatasetShape(readNpyHeader(out.prompts).shape, &targetShape,
                                                     out.prompts, out.targets);
        (void)checkValidationShape(train, readNpyHeader(vp).shape, readNpyHeader(vt).shape, vp, vt);
    } catch (const std::exception& e) { // ConfigError or NpyError: not taken, and why
        return names + q(" are not taken as the held-out set: ") + QString::fromStdString(e.what());
    }
    out.validationPrompts = vp;
    out.validationTargets = vt;
    return names + q(" are taken as the held-out set (val MSE; clear task.validation_prompts "
                     "and task.validation_targets to leave it)");
}

/// One .npz archive as Open data takes it: the arrays named prompts, targets,
/// validation_prompts and validation_targets (the names `export-data` gives its files) when
/// it has prompts; otherwise its arrays, one or two, paired by shape as files are.
DataFiles pairNpzArchive(const QString& archive, const QStringList& members,
                         const std::function<DataFiles(const QStringList&)>& byShape) {
    const auto member = [&archive](const QString& name) {
        return archive + QLatin1Char(':') + name;
    };
    if (members.contains(q("prompts"))) {
        DataFiles out;
        out.prompts = member(q("prompts"));
        if (members.contains(q("targets"))) out.targets = member(q("targets"));
        QString heldOut;
        if (!out.targets.isEmpty() && members.contains(q("validation_prompts")) &&
            members.contains(q("validation_targets")))
            heldOut = takeHeldOutSet(out, member(q("validation_prompts")),
                                     member(q("validation_targets")),
                                     q("the arrays validation_prompts and validation_targets"));
        QStringList taken;
        for (const QString* p :
             {&out.prompts, &out.targets, &out.validationPrompts, &out.validationTargets})
            if (!p->isEmpty()) taken << p->mid(archive.size() + 1);
        out.note =
            q("from %1: the arrays %2").arg(QFileInfo(archive).fileName(), taken.join(q(", ")));
        if (out.targets.isEmpty())
            out.note += q("; no array 'targets': the run certifies the prompts and fits nothing");
        if (!heldOut.isEmpty() && out.validationPrompts.isEmpty()) out.note += q("; ") + heldOut;
        return out;
    }
    if (members.isEmpty() || members.size() > 2)
        throw ConfigError(str(q("%1: holds %2 arrays (%3); expected an array named 'prompts' "
                                "(N x n x d), and optionally 'targets' (N x d_out), or one or "
                                "two arrays told apart by their shapes")
                                  .arg(archive)
                                  .arg(members.size())
                                  .arg(members.isEmpty() ? q("none") : members.join(q(", ")))),
                          q("task.prompts"));
    QStringList paths;
    for (const QString& m : members) paths << member(m);
    return byShape(paths);
}
} // namespace

DataFiles pairDataFiles(const QStringList& paths) {
    if (paths.size() == 1 && paths.front().endsWith(q(".npz"), Qt::CaseInsensitive)) {
        QStringList members;
        try {
            members = npzMembers(paths.front());
        } catch (const NpyError& e) {
            throw ConfigError(e.what(), q("task.prompts"));
        }
        return pairNpzArchive(paths.front(), members, pairDataFiles);
    }
    if (paths.isEmpty() || paths.size() > 2)
        throw ConfigError(str(q("choose one or two .npy files (the prompts, N x n x d, and "
                                "optionally the targets, N x d_out), or one .npz archive; got %1")
                                  .arg(paths.size())),
                          q("task.prompts"));
    DataFiles out;
    for (const QString& path : paths) {
        if (!path.endsWith(q(".npy"), Qt::CaseInsensitive) && !parseNpzPath(path))
            throw ConfigError(str(q("%1: not a .npy file; allowed: NumPy .npy arrays (prompts "
                                    "N x n x d, targets N x d_out) or one .npz archive")
                                      .arg(path)),
                              q("task.prompts"));
        std::vector<long long> shape;
        try {
            shape = readNpyHeader(path).shape;
        } catch (const NpyError& e) {
            throw ConfigError(e.what(), q("task.prompts"));
        }
        // One file per role: a second prompts (or targets) file is refused, naming both.
        const auto take = [&](QString& slot, const char* what, const char* key) {
            if (!slot.isEmpty())
                throw ConfigError(str(q("%1 and %2 both hold %3; choose one prompts file "
                                        "(N x n x d) and at most one targets file (N x d_out)")
                                          .arg(slot, path, q(what))),
                                  q(key));
            slot = path;
        };
        if (shape.size() == 3) {
            take(out.prompts, "prompts (3-D arrays)", "task.prompts");
        } else if (shape.size() == 2) {
            take(out.targets, "targets (2-D arrays)", "task.targets");
        } else
            throw ConfigError(str(q("%1: a %2-D array; allowed: prompts N x n x d (3-D) or "
                                    "targets N x d_out (2-D)")
                                      .arg(path)
                                      .arg(shape.size())),
                              q("task.prompts"));
    }
    if (out.prompts.isEmpty())
        throw ConfigError(str(q("%1 holds targets (a 2-D array); choose the prompts (N x n x d) "
                                "too, or the prompts alone to certify them")
                                  .arg(out.targets)),
                          q("task.prompts"));
    if (out.targets.isEmpty() && QFileInfo(out.prompts).fileName() == q("prompts.npy")) {
        const QString beside = QFileInfo(out.prompts).dir().filePath(q("targets.npy"));
        if (QFileInfo::exists(beside)) {
            out.targets = beside;
            out.note = q("targets.npy beside prompts.npy is taken as the targets (clear "
                         "task.targets to certify the prompts alone)");
        }
    }
    if (!out.targets.isEmpty() && QFileInfo(out.prompts).fileName() == q("prompts.npy")) {
        const QDir dir = QFileInfo(out.prompts).dir();
        const QString vp = dir.filePath(q("validation_prompts.npy"));
        const QString vt = dir.filePath(q("validation_targets.npy"));
        if (QFileInfo::exists(vp) && QFileInfo::exists(vt)) {
            const QString taken = takeHeldOutSet(
                out, vp, vt, q("validation_prompts.npy and validation_targets.npy beside them"));
            out.note = out.note.isEmpty() ? taken : out.note + q("; ") + taken;
        }
    }
    if (out.targets.isEmpty() && out.note.isEmpty())
        out.note = q("no targets: the run certifies the prompts and fits nothing (choose a "
                     "targets file too to fit a model)");
    return out;
}

DatasetShape readDatasetShape(const TaskConfig& task) {
    const auto header = [](const char* keyPath, const QString& path) {
        if (path.isEmpty())
            throw ConfigError(str(q(keyPath) +
                                  q(": required for task.kind \"dataset\"; expected ") +
                                  q("the path of a .npy file (or ARCHIVE.npz:NAME)")),
                              q(keyPath));
        try {
            return readNpyHeader(path);
        } catch (const NpyError& e) {
            throw ConfigError(str(q(keyPath) + q(": ") + QString::fromStdString(e.what())),
                              q(keyPath));
        }
    };
    // The prompts are judged before the targets are read: their error comes first.
    const NpyHeader p = header("task.prompts", task.prompts);
    const DatasetShape promptsOnly = checkDatasetShape(p.shape, nullptr, task.prompts, {});
    const bool validation = !task.validationPrompts.isEmpty() || !task.validationTargets.isEmpty();
    if (task.targets.isEmpty()) {
        if (validation)
            throw ConfigError(str(q("task.validation_prompts: a held-out set needs task.targets: "
                                    "without targets nothing is fitted, so there is nothing to "
                                    "validate; set task.targets, or clear the validation files")),
                              q("task.validation_prompts"));
        return promptsOnly; // certify the prompts, fit nothing
    }
    const NpyHeader t = header("task.targets", task.targets);
    DatasetShape out = checkDatasetShape(p.shape, &t.shape, task.prompts, task.targets);
    if (!validation) return out;
    // Both or neither: a held-out set is prompts with their targets.
    if (task.validationPrompts.isEmpty() != task.validationTargets.isEmpty()) {
        const char* missing = task.validationPrompts.isEmpty() ? "task.validation_prompts"
                                                               : "task.validation_targets";
        throw ConfigError(str(q(missing) + q(": a held-out set is task.validation_prompts with "
                                             "task.validation_targets; set both files, or "
                                             "neither")),
                          q(missing));
    }
    const NpyHeader vp = header("task.validation_prompts", task.validationPrompts);
    const NpyHeader vt = header("task.validation_targets", task.validationTargets);
    out.validationSamples = checkValidationShape(out, vp.shape, vt.shape, task.validationPrompts,
                                                 task.validationTargets);
    return out;
}

long long checkValidationShape(const DatasetShape& train, const std::vector<long long>& p,
                               const std::vector<long long>& t, const QString& promptsName,
                               const QString& targetsName) {
    const auto bad = [](const char* keyPath, const QString& path, const QString& what) {
        throw ConfigError(str(q(keyPath) + q(": ") + path + q(": ") + what), q(keyPath));
    };
    const TaskDims& dims = train.dims;
    const QString expected =
        q("; expected N_val x %1 x %2 (the training prompts' n and d)").arg(dims.n).arg(dims.d);
    if (p.size() != 3 || p[1] != dims.n || p[2] != dims.d)
        bad("task.validation_prompts", promptsName,
            q("shape ") + npyShapeText(p) + q(" is not allowed") + expected);
    if (p[0] < 1)
        bad("task.validation_prompts", promptsName,
            q("shape ") + npyShapeText(p) + q(" has N_val = 0 samples") + expected +
                q(" with N_val >= 1"));
    if (t.size() != 2 || t[1] != dims.dOut)
        bad("task.validation_targets", targetsName,
            q("shape ") + npyShapeText(t) +
                q(" is not allowed; expected N_val x %1 (the training targets' d_out)")
                    .arg(dims.dOut));
    if (t[0] != p[0])
        bad("task.validation_targets", targetsName,
            q("shape ") + npyShapeText(t) + q(" has ") + QString::number(t[0]) +
                q(" rows, but the validation prompts (") + promptsName + q(") hold N_val = ") +
                QString::number(p[0]) + q(" samples; expected one target row per prompt"));
    return p[0];
}

DatasetShape checkDatasetShape(const std::vector<long long>& p,
                               const std::vector<long long>* targets, const QString& promptsName,
                               const QString& targetsName) {
    const auto bad = [](const char* keyPath, const QString& path, const QString& what) {
        throw ConfigError(str(q(keyPath) + q(": ") + path + q(": ") + what), q(keyPath));
    };
    if (p.size() != 3)
        bad("task.prompts", promptsName,
            q("shape ") + npyShapeText(p) +
                q(" is not allowed; expected 3 dimensions N x n x d (samples, tokens, coordinates)"));
    const KeyInfo* dKey = findExperimentKey(q("task.d"));
    if (p[0] < 1)
        bad("task.prompts", promptsName,
            q("shape ") + npyShapeText(p) + q(" has N = 0 samples; expected N >= 1"));
    if (p[1] < 1 || p[1] > 100000)
        bad("task.prompts", promptsName,
            q("shape ") + npyShapeText(p) + q(" has n = ") + QString::number(p[1]) +
                q(" tokens; expected n in [1, 100000]"));
    if (p[2] < static_cast<long long>(dKey->min) || p[2] > static_cast<long long>(dKey->max))
        bad("task.prompts", promptsName,
            q("shape ") + npyShapeText(p) + q(" has token dimension d = ") + QString::number(p[2]) +
                q("; expected ") + dKey->allowed());
    const long long N = p[0];
    DatasetShape out;
    out.samples = N;
    out.dims = {static_cast<int>(p[2]), static_cast<int>(p[1]), 0};
    if (!targets) return out;
    const std::vector<long long>& t = *targets;
    if (t.size() != 2)
        bad("task.targets", targetsName,
            q("shape ") + npyShapeText(t) +
                q(" is not allowed; expected 2 dimensions N x d_out (samples, outputs)"));
    if (t[0] != N)
        bad("task.targets", targetsName,
            q("shape ") + npyShapeText(t) + q(" has ") + QString::number(t[0]) +
                q(" rows, but the prompts (") + promptsName + q(") hold N = ") +
                QString::number(N) + q(" samples; expected one target row per prompt"));
    const KeyInfo* outKey = findExperimentKey(q("task.d_out"));
    if (t[1] < static_cast<long long>(outKey->min) || t[1] > static_cast<long long>(outKey->max))
        bad("task.targets", targetsName,
            q("shape ") + npyShapeText(t) + q(" has d_out = ") + QString::number(t[1]) +
                q("; expected ") + outKey->allowed());
    out.dims.dOut = static_cast<int>(t[1]);
    return out;
}

} // namespace mhla
