// core/tasks/datasettask: a synthetic task's training samples written as prompts.npy /
// targets.npy and read back as task.kind = "dataset" give the same lambda_min and P bit for
// bit; numbers that need a teacher are absent from result.json; bad files are refused with a
// message naming the key and the file.
#include "core/base/fileio.h"
#include "core/base/npy.h"
#include "core/experiment/loader.h"
#include "core/records/resultio.h"
#include "core/run/runner.h"
#include "core/tasks/datasettask.h"
#include "npzwriter.h"
#include "testutil.h"
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <cstring>

using namespace mhla;

namespace {
using mhla::test::s;

/// The training samples of cfg's task as prompts.npy (N x n x d) and targets.npy (N x d_out).
void exportSamples(const ExperimentConfig& cfg, const QString& dir) {
    const auto task = makeTask(cfg.task);
    const long long N = cfg.task.samples, n = task->tokens(), d = task->d(), dOut = task->dOut();
    std::vector<double> Z(static_cast<size_t>(N * n * d)), Y(static_cast<size_t>(N * dOut));
    Sample smp;
    for (long long i = 0; i < N; ++i) {
        task->sampleInto(Stream::Train, i, smp);
        std::memcpy(Z.data() + i * n * d, smp.Z.data(),
                    sizeof(double) * static_cast<size_t>(n * d));
        std::memcpy(Y.data() + i * dOut, smp.y.data(), sizeof(double) * static_cast<size_t>(dOut));
    }
    QVERIFY(writeFileAtomic(dir + s("/prompts.npy"), npyBytes({N, n, d}, Z.data())).isEmpty());
    QVERIFY(writeFileAtomic(dir + s("/targets.npy"), npyBytes({N, dOut}, Y.data())).isEmpty());
}
/// Written by NumPy, not by MHLA Lab: a random 2-head MHLA teacher (d = 3, n = 4, d_out = 2),
/// N = 600 prompts, its folded coefficients P* and NumPy's own lambda_min of the uncentred
/// second moment of psi (MATH.md 2-3).
const char* const kNumpyTeacher = R"PY(import sys, numpy as np
out = sys.argv[1]
rng = np.random.default_rng(7)
N, n, d, dout, H = 600, 4, 3, 2, 2
V = rng.normal(0, 1/np.sqrt(d), (H, dout, d)); Q = rng.normal(0, 1/np.sqrt(d), (H, d, d))
Z = rng.normal(0, 1/np.sqrt(n), (N, n, d))
pairs = [(a, b) for a in range(d) for b in range(a, d)]
S = np.einsum('sta,stb->sab', Z, Z)
u = np.stack([S[:, a, b] for a, b in pairs], axis=1)
psi = (u[:, :, None] * Z[:, -1, None, :]).reshape(N, -1)
P = np.zeros((dout, len(pairs) * d))
for p, (a, b) in enumerate(pairs):
    for c in range(d):
        col = p * d + c
        for h in range(H):
            P[:, col] += V[h][:, a] * Q[h][b, c] + (V[h][:, b] * Q[h][a, c] if a < b else 0)
y = np.einsum('hia,sab,hbc,sc->si', V, S, Q, Z[:, -1, :])  # f*(Z), no noise
assert np.allclose(y, psi @ P.T)
Lam = psi.T @ psi / N
np.save(out + '/Z.npy', Z); np.save(out + '/y.npy', y)
np.save(out + '/lambda_min.npy', np.array([np.linalg.eigvalsh(Lam)[0]]))
np.save(out + '/P.npy', P)
)PY";

Mat readMatrix(const QString& path, Index rows, Index cols) {
    std::vector<double> v;
    readNpyData(path, readNpyHeader(path), v);
    Mat m(rows, cols);
    for (Index i = 0; i < rows; ++i)
        for (Index j = 0; j < cols; ++j) m(i, j) = v[static_cast<size_t>(i * cols + j)];
    return m;
}
/// The dataset task of files paired by pairDataFiles.
TaskConfig datasetTask(const DataFiles& f) {
    TaskConfig task;
    task.kind = TaskKind::Dataset;
    task.prompts = f.prompts;
    task.targets = f.targets;
    task.validationPrompts = f.validationPrompts;
    task.validationTargets = f.validationTargets;
    return task;
}
bool sameBits(const Mat& a, const Mat& b) {
    return a.rows() == b.rows() && a.cols() == b.cols() &&
           std::memcmp(a.data(), b.data(), sizeof(double) * static_cast<size_t>(a.size())) == 0;
}
} // namespace

class TestDatasetTask : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void roundTripIsBitForBit_data();
    void roundTripIsBitForBit();
    void refusesBadFiles_data();
    void refusesBadFiles();
    void certifiesNumpyData();
    void pairsTheHeldOutSetBeside();
    void opensANpzArchive();
};

void TestDatasetTask::roundTripIsBitForBit_data() {
    QTest::addColumn<QStringList>("sets");
    QTest::addRow("random_mhla") << QStringList{s("task.kind=random_mhla"), s("task.d=3"),
                                                s("task.tokens=4"), s("task.d_out=2"),
                                                s("task.samples=400")};
    QTest::addRow("associative_memory")
        << QStringList{s("task.kind=associative_memory"), s("task.pairs=2"),
                       s("task.orthogonal_prob=0.5"), s("task.samples=600")};
    QTest::addRow("automaton") << QStringList{
        s("task.kind=automaton"),     s("task.states=2"),    s("task.alphabet=1"),
        s("task.embedding=gaussian"), s("task.samples=500"), s("eval.words=8")};
}

void TestDatasetTask::roundTripIsBitForBit() {
    QFETCH(QStringList, sets);
    QTemporaryDir dir;
    sets << s("eval.val_samples=64") << s("eval.ood_samples=64");
    const ExperimentConfig synth = loadExperiment({}, sets).config;
    exportSamples(synth, dir.path());
    const ExperimentConfig data =
        loadExperiment({},
                       {s("task.kind=dataset"), s("task.prompts=") + dir.filePath(s("prompts.npy")),
                        s("task.targets=") + dir.filePath(s("targets.npy"))})
            .config;
    QCOMPARE(data.task.samples, synth.task.samples);
    QCOMPARE(data.promptDim(), synth.promptDim());
    QCOMPARE(data.tokenCount(), synth.tokenCount());
    QCOMPARE(data.outputDim(), synth.outputDim());
    // Every experiment echoes task.prompts/targets ("" when unused) and reads back; a dataset
    // config reads back without its files when its shape is known (a finished result).
    QCOMPARE(experimentFromJson(experimentToJson(synth)).task.samples, synth.task.samples);
    const DatasetShape shape{data.task.samples, taskDims(data.task)};
    QCOMPARE(experimentFromJson(experimentToJson(data), &shape).task.prompts, data.task.prompts);
    RunContext ctx;
    ctx.threads = 2;
    const ExperimentResult a = runExperiment(synth, ctx), b = runExperiment(data, ctx);
    QCOMPARE(b.certificate.lambdaMin, a.certificate.lambdaMin); // exact: same bits
    QCOMPARE(b.certificate.nullDim, a.certificate.nullDim);
    QVERIFY(sameBits(a.P, b.P));
    QCOMPARE(b.metrics.trainMse, a.metrics.trainMse);
    // No teacher: no distance, no ood error, no validation error; absent from result.json.
    QVERIFY(std::isnan(b.metrics.distanceP) && std::isnan(b.metrics.oodRelMse));
    const QJsonObject m = resultToJson(b);
    QVERIFY(m.contains(s("train_mse")));
    for (const char* absent : {"distance_p", "distance_p_rel", "ood_rel_mse", "val_mse"})
        QVERIFY2(!m.contains(s(absent)), absent);
    QVERIFY(resultToJson(a).contains(s("distance_p")));
}

void TestDatasetTask::refusesBadFiles_data() {
    QTest::addColumn<std::vector<long long>>("promptShape");
    QTest::addColumn<std::vector<long long>>("targetShape");
    QTest::addColumn<QString>("key");
    QTest::addColumn<QString>("expected");
    using V = std::vector<long long>;
    QTest::addRow("2-d prompts") << V{5, 3} << V{5, 2} << s("task.prompts")
                                 << s("expected 3 dimensions N x n x d");
    QTest::addRow("N = 0") << V{0, 3, 2} << V{0, 2} << s("task.prompts")
                           << s("has N = 0 samples; expected N >= 1");
    QTest::addRow("d = 65") << V{2, 3, 65} << V{2, 2} << s("task.prompts")
                            << s("token dimension d = 65; expected an integer in [1, 64]");
    QTest::addRow("N mismatch") << V{5, 3, 2} << V{4, 2} << s("task.targets")
                                << s("has 4 rows, but the prompts");
    QTest::addRow("1-d targets") << V{5, 3, 2} << V{5} << s("task.targets")
                                 << s("expected 2 dimensions N x d_out");
}

void TestDatasetTask::refusesBadFiles() {
    QFETCH(std::vector<long long>, promptShape);
    QFETCH(std::vector<long long>, targetShape);
    QFETCH(QString, key);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    const auto write = [&](const char* name, const std::vector<long long>& shape) {
        long long n = 1;
        for (long long x : shape) n *= x;
        const std::vector<double> v(static_cast<size_t>(n), 0.25);
        QVERIFY(writeFileAtomic(dir.filePath(s(name)), npyBytes(shape, v.data())).isEmpty());
    };
    write("p.npy", promptShape);
    write("t.npy", targetShape);
    try {
        (void)loadExperiment({},
                             {s("task.kind=dataset"), s("task.prompts=") + dir.filePath(s("p.npy")),
                              s("task.targets=") + dir.filePath(s("t.npy"))});
        QFAIL("accepted");
    } catch (const ConfigError& e) {
        const QString msg = QString::fromStdString(e.what());
        QCOMPARE(e.key(), key);
        QVERIFY2(msg.contains(expected), qPrintable(msg));
        QVERIFY2(msg.contains(dir.path()), qPrintable(msg)); // names the file
    }
}

void TestDatasetTask::certifiesNumpyData() {
    const QString python = s("/usr/bin/python3");
    if (!QFileInfo(python).isExecutable())
        QSKIP("/usr/bin/python3 is missing (apt-get install python3-numpy)");
    QProcess probe;
    probe.start(python, {s("-c"), s("import numpy")});
    if (!probe.waitForFinished(30000) || probe.exitCode() != 0)
        QSKIP("NumPy is missing for /usr/bin/python3 (apt-get install python3-numpy)");
    QTemporaryDir dir;
    QFile script(dir.filePath(s("gen.py")));
    QVERIFY(script.open(QIODevice::WriteOnly));
    script.write(kNumpyTeacher);
    script.close();
    QProcess gen;
    gen.start(python, {script.fileName(), dir.path()});
    QVERIFY(gen.waitForFinished(120000));
    QVERIFY2(gen.exitCode() == 0, gen.readAllStandardError().constData());
    const ExperimentConfig cfg =
        loadExperiment({}, {s("task.kind=dataset"), s("task.prompts=") + dir.filePath(s("Z.npy")),
                            s("task.targets=") + dir.filePath(s("y.npy"))})
            .config;
    QCOMPARE(cfg.task.samples, 600LL);
    const ExperimentResult r = runExperiment(cfg);
    QVERIFY(r.certificate.certified);
    const double numpyLambda = readMatrix(dir.filePath(s("lambda_min.npy")), 1, 1)(0, 0);
    QVERIFY(numpyLambda > 0);
    QVERIFY2(std::abs(r.certificate.lambdaMin - numpyLambda) <= 1e-8 * numpyLambda,
             qPrintable(QString::number(r.certificate.lambdaMin, 'g', 17) + s(" vs ") +
                        QString::number(numpyLambda, 'g', 17)));
    const Mat teacherP = readMatrix(dir.filePath(s("P.npy")), 2, 18);
    const double rel = (r.P - teacherP).norm() / teacherP.norm();
    QVERIFY2(rel <= 1e-8, qPrintable(QString::number(rel)));
}

// File > Open data… on export-data's layout: prompts.npy with targets.npy takes the held-out
// validation_prompts.npy / validation_targets.npy beside them when both are there and fit the
// training shapes; one of the two alone is not taken, and a misfit is left with the reason.
void TestDatasetTask::pairsTheHeldOutSetBeside() {
    QTemporaryDir dir;
    const auto write = [&](const char* name, const std::vector<long long>& shape) {
        long long n = 1;
        for (long long x : shape) n *= x;
        const std::vector<double> v(static_cast<size_t>(n), 0.25);
        QVERIFY(writeFileAtomic(dir.filePath(s(name)), npyBytes(shape, v.data())).isEmpty());
    };
    write("prompts.npy", {50, 3, 2});
    write("targets.npy", {50, 2});
    write("validation_prompts.npy", {7, 3, 2});
    DataFiles f = pairDataFiles({dir.filePath(s("prompts.npy"))});
    QCOMPARE(f.targets, dir.filePath(s("targets.npy")));
    QVERIFY(f.validationPrompts.isEmpty()); // validation_targets.npy missing: nothing taken
    QVERIFY2(!f.note.contains(s("validation")), qPrintable(f.note));

    write("validation_targets.npy", {7, 2});
    f = pairDataFiles({dir.filePath(s("targets.npy")), dir.filePath(s("prompts.npy"))});
    QCOMPARE(f.validationPrompts, dir.filePath(s("validation_prompts.npy")));
    QCOMPARE(f.validationTargets, dir.filePath(s("validation_targets.npy")));
    QVERIFY2(f.note.contains(s("taken as the held-out set")), qPrintable(f.note));
    const TaskConfig task = datasetTask(f);
    QCOMPARE(readDatasetShape(task).validationSamples, 7LL);

    write("validation_targets.npy", {7, 3}); // d_out 3 against the training targets' 2
    f = pairDataFiles({dir.filePath(s("prompts.npy"))});
    QVERIFY(f.validationPrompts.isEmpty() && f.validationTargets.isEmpty());
    QVERIFY2(f.note.contains(s("are not taken")) &&
                 f.note.contains(dir.filePath(s("validation_targets.npy"))),
             qPrintable(f.note));
}

// File > Open data… on one .npz archive: the arrays named as export-data names its files, or
// one or two arrays told apart by their shapes; anything else is refused naming the arrays.
void TestDatasetTask::opensANpzArchive() {
    QTemporaryDir dir;
    const auto array = [](const std::vector<long long>& shape) {
        long long n = 1;
        for (long long x : shape) n *= x;
        const std::vector<double> v(static_cast<size_t>(n), 0.25);
        return npyBytes(shape, v.data());
    };
    const QString named = dir.filePath(s("named.npz"));
    QVERIFY(test::writeNpz(named,
                           {{s("prompts.npy"), array({50, 3, 2})},
                            {s("targets.npy"), array({50, 2})},
                            {s("validation_prompts.npy"), array({7, 3, 2})},
                            {s("validation_targets.npy"), array({7, 2})}},
                           true));
    DataFiles f = pairDataFiles({named});
    QCOMPARE(f.prompts, named + s(":prompts"));
    QCOMPARE(f.targets, named + s(":targets"));
    QCOMPARE(f.validationPrompts, named + s(":validation_prompts"));
    QCOMPARE(f.validationTargets, named + s(":validation_targets"));
    QVERIFY2(f.note.contains(s("named.npz")), qPrintable(f.note));
    const TaskConfig task = datasetTask(f);
    const DatasetShape shape = readDatasetShape(task);
    QCOMPARE(shape.samples, 50LL);
    QCOMPARE(shape.validationSamples, 7LL);

    // A held-out pair that does not fit (d_out 3 against 2) is left out with the reason, as
    // beside .npy files: the training arrays still open, and the run reads no held-out set.
    const QString misfit = dir.filePath(s("misfit.npz"));
    QVERIFY(test::writeNpz(misfit,
                           {{s("prompts.npy"), array({50, 3, 2})},
                            {s("targets.npy"), array({50, 2})},
                            {s("validation_prompts.npy"), array({7, 3, 2})},
                            {s("validation_targets.npy"), array({7, 3})}},
                           false));
    f = pairDataFiles({misfit});
    QCOMPARE(f.targets, misfit + s(":targets"));
    QVERIFY(f.validationPrompts.isEmpty() && f.validationTargets.isEmpty());
    QVERIFY2(f.note.contains(s("are not taken as the held-out set")) &&
                 f.note.contains(misfit + s(":validation_targets")),
             qPrintable(f.note));
    QVERIFY2(!f.note.contains(s("the arrays prompts, targets, validation")), qPrintable(f.note));
    QCOMPARE(readDatasetShape(datasetTask(f)).validationSamples, 0LL);

    // np.savez(path, Y, Z): positional arrays arr_0, arr_1, paired by shape.
    const QString positional = dir.filePath(s("positional.npz"));
    QVERIFY(test::writeNpz(positional,
                           {{s("arr_0.npy"), array({50, 2})}, {s("arr_1.npy"), array({50, 3, 2})}},
                           false));
    f = pairDataFiles({positional});
    QCOMPARE(f.prompts, positional + s(":arr_1"));
    QCOMPARE(f.targets, positional + s(":arr_0"));

    const QString three = dir.filePath(s("three.npz"));
    QVERIFY(test::writeNpz(three,
                           {{s("a.npy"), array({50, 3, 2})},
                            {s("b.npy"), array({50, 2})},
                            {s("c.npy"), array({50, 2})}},
                           false));
    try {
        (void)pairDataFiles({three});
        QFAIL("an archive of three unnamed arrays was paired");
    } catch (const ConfigError& e) {
        const QString m = QString::fromStdString(e.what());
        QVERIFY2(m.contains(s("holds 3 arrays (a, b, c)")) && m.contains(s("'prompts'")),
                 qPrintable(m));
    }
}

QTEST_APPLESS_MAIN(TestDatasetTask)
#include "tst_datasettask.moc"
