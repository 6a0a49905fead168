// `mhla-lab export-data` (issue 24): a synthetic task's samples as prompts.npy / targets.npy and
// dataset.json; `solve --config DIR/dataset.json` certifies and fits the same data, bit for bit
// against the synthetic run, for each task kind. Refusals name the key or option and exit 2.
#include "core/base/npy.h"
#include "testutil.h"
#include <QDir>
#include <QFile>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <limits>
#include <utility>
#include <vector>

namespace {
using mhla::test::Outcome;
using mhla::test::s;
Outcome run(const QStringList& args) { return mhla::test::runBinary(args); }
QJsonObject json(const QByteArray& text) { return QJsonDocument::fromJson(text).object(); }

/// A .npy file written by hand (version 1.0): magic, header length, the dict padded with spaces
/// and '\n' to a multiple of 64, then `data`: headers no NumPy writes (bad dtype, wrong claims).
QByteArray npyByHand(const char* descr, const char* shape, const QByteArray& data) {
    QByteArray dict =
        QByteArray("{'descr': '") + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
    while ((10 + dict.size() + 1) % 64 != 0) dict += ' ';
    dict += '\n';
    QByteArray out("\x93NUMPY\x01\x00", 8);
    out.append(static_cast<char>(dict.size() & 0xff));
    out.append(static_cast<char>(dict.size() >> 8));
    return out + dict + data;
}
/// A float64 .npy of `shape` from NumPy's own layout (mhla::npyBytes), every value `v`.
QByteArray npyFilled(const std::vector<long long>& shape, double v) {
    long long n = 1;
    for (long long x : shape) n *= x;
    const std::vector<double> values(static_cast<size_t>(n), v);
    return mhla::npyBytes(shape, values.data());
}
QStringList sets(const QStringList& kv) {
    QStringList out;
    for (const QString& a : kv) out << s("--set") << a;
    return out;
}
} // namespace

class TestCliExportData : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_tmp;

private Q_SLOTS:
    void roundTripIsBitForBit_data() {
        QTest::addColumn<QStringList>("keys");
        QTest::newRow("associative_memory, p = 0.5")
            << QStringList{s("task.samples=3000"), s("task.orthogonal_prob=0.5")};
        QTest::newRow("associative_memory, p = 1 (not certified)")
            << QStringList{s("task.samples=2000"), s("task.orthogonal_prob=1")};
        QTest::newRow("associative_memory, p = 1, N = 100 = 2.5 D")
            << QStringList{s("task.samples=100"), s("task.orthogonal_prob=1")};
        QTest::newRow("random_mhla d = 3")
            << QStringList{s("task.kind=random_mhla"), s("task.d=3"), s("task.samples=2000")};
        QTest::newRow("automaton gaussian") << QStringList{
            s("task.kind=automaton"), s("task.embedding=gaussian"), s("task.samples=1500")};
    }
    void roundTripIsBitForBit() {
        QFETCH(QStringList, keys);
        const QString dir = m_tmp.filePath(QString::fromLatin1(QTest::currentDataTag())
                                               .replace(QLatin1Char(' '), QLatin1Char('_')));
        const Outcome e = run(QStringList{s("export-data"), s("--out"), dir} + sets(keys));
        QVERIFY2(e.code == 0, e.err.constData());
        QVERIFY(e.out.contains("prompts.npy") && e.out.contains("dataset.json"));
        QVERIFY2(e.err.contains("run them with: mhla-lab solve --config"), e.err.constData());
        const Outcome synth = run(QStringList{s("solve")} + sets(keys));
        QVERIFY2(synth.code == 0, synth.err.constData());
        const Outcome data = run({s("solve"), s("--config"), dir + s("/dataset.json")});
        QVERIFY2(data.code == 0, data.err.constData());
        const QJsonObject a = json(synth.out), b = json(data.out);
        QCOMPARE(b.value(s("task")).toString(), s("dataset"));
        for (const char* k :
             {"d", "tokens", "d_out", "feature_dim", "samples", "lambda_min", "lambda_max",
              "null_dim", "certified", "tolerance", "train_mse", "rank", "singular_values",
              "certificate_method", "solve_method", "val_mse"})
            QVERIFY2(a.value(s(k)) == b.value(s(k)),
                     qPrintable(s(k) + s(": ") +
                                QString::fromUtf8(
                                    QJsonDocument(QJsonObject{{s("synthetic"), a.value(s(k))},
                                                              {s("dataset"), b.value(s(k))}})
                                        .toJson(QJsonDocument::Compact))));
        // The held-out set is the synthetic run's validation stream: the same val_mse.
        QVERIFY(b.value(s("val_mse")).isDouble());
        // Numbers that need the teacher are absent for the dataset, not zero.
        QVERIFY(a.contains(s("distance_p")));
        QVERIFY(!b.contains(s("distance_p")));

        // The explorer on the data: what needs no teacher is what the synthetic run found.
        const QJsonObject xa = a.value(s("identifiability")).toObject();
        const QJsonObject xb = b.value(s("identifiability")).toObject();
        QCOMPARE(xb.isEmpty(), xa.isEmpty()); // the same D, so the same eval.identifiability=auto
        if (!xa.isEmpty()) {
            QVERIFY(xa.value(s("null_relations")) == xb.value(s("null_relations")));
            // Certificate samples on prefixes of the same samples; the data's budget is its N,
            // and its last checkpoint is at N when doubling from D does not reach N exactly.
            const QJsonObject ca = xa.value(s("certificate_samples")).toObject();
            const QJsonObject cb = xb.value(s("certificate_samples")).toObject();
            const qint64 N = b.value(s("samples")).toInteger();
            QCOMPARE(cb.value(s("budget")).toInteger(), N);
            QHash<qint64, QJsonObject> synthetic;
            for (const QJsonValue& v : ca.value(s("checkpoints")).toArray())
                synthetic.insert(v.toObject().value(s("samples")).toInteger(), v.toObject());
            int shared = 0;
            for (const QJsonValue& v : cb.value(s("checkpoints")).toArray()) {
                const qint64 n = v.toObject().value(s("samples")).toInteger();
                QVERIFY2(n <= N, "a checkpoint beyond the file's prompts");
                if (synthetic.contains(n)) {
                    QVERIFY2(synthetic.value(n) == v.toObject(), qPrintable(QString::number(n)));
                    ++shared;
                }
            }
            QVERIFY(shared >= 1);
            const QJsonArray cps = cb.value(s("checkpoints")).toArray();
            QVERIFY(!cps.isEmpty());
            if (cb.value(s("certificate_samples")).isNull() && !cb.value(s("structural")).toBool())
                QCOMPARE(cps.last().toObject().value(s("samples")).toInteger(), N);
            const qint64 needed = ca.value(s("certificate_samples")).toInteger(-1);
            if (needed > 0 && needed <= N)
                QCOMPARE(cb.value(s("certificate_samples")).toInteger(-1), needed);
            // Without a teacher min_heads is the search alone: the synthetic run's
            // search_min_heads on the same P.
            const QJsonObject ma = xa.value(s("min_heads")).toObject();
            const QJsonObject mb = xb.value(s("min_heads")).toObject();
            QCOMPARE(mb.value(s("min_heads")).toInt(-1), ma.value(s("search_min_heads")).toInt(-2));
            // The probes find the same alternative fits; against the teacher there is no OOD
            // error (null), against the fit the same one.
            const QJsonArray pa = xa.value(s("probes")).toArray();
            const QJsonArray pb = xb.value(s("probes")).toArray();
            QCOMPARE(pb.size(), pa.size());
            for (qsizetype i = 0; i < pa.size(); ++i) {
                const QJsonObject u = pa[i].toObject(), w = pb[i].toObject();
                for (const char* k : {"found", "distance_rel", "ood_rel_to_fit", "null_dim"})
                    QVERIFY2(u.value(s(k)) == w.value(s(k)), k);
                QVERIFY(w.value(s("ood_rel_mse")).isNull());
                QCOMPARE(u.value(s("ood_rel_mse")).isNull(), !u.value(s("found")).toBool());
            }
            QVERIFY(xb.contains(s("noise")));
        }

        // The prompts alone (no targets, so no held-out set): the same certificate and
        // lambda_min trace, bit for bit, and no fit: no errors, no heads (absent, not zero),
        // d_out 0.
        const QStringList promptsOnly{s("--set"), s("task.targets="),
                                      s("--set"), s("task.validation_prompts="),
                                      s("--set"), s("task.validation_targets=")};
        const Outcome bare =
            run(QStringList{s("solve"), s("--config"), dir + s("/dataset.json")} + promptsOnly);
        QVERIFY2(bare.code == 0, bare.err.constData());
        const QJsonObject c = json(bare.out);
        for (const char* k : {"d", "tokens", "feature_dim", "samples", "lambda_min", "lambda_max",
                              "condition_number", "null_dim", "certified", "tolerance",
                              "certificate_method", "lambda_trace"})
            QVERIFY2(a.value(s(k)) == c.value(s(k)), k);
        QCOMPARE(c.value(s("d_out")).toInt(-1), 0);
        QCOMPARE(c.value(s("solve_method")).toString(), s("none"));
        for (const char* k :
             {"train_mse", "val_mse", "heads", "rank", "singular_values", "distance_p"})
            QVERIFY2(!c.contains(s(k)), k);
        QVERIFY2(bare.err.contains("no targets"), bare.err.constData());
        // What the prompts alone say: the same certificate samples and null relations; nothing
        // about a fit (no min_heads, probes or noise).
        const QJsonObject xc = c.value(s("identifiability")).toObject();
        QCOMPARE(xc.isEmpty(), xb.isEmpty());
        if (!xc.isEmpty()) {
            QVERIFY(xc.value(s("certificate_samples")) == xb.value(s("certificate_samples")));
            QVERIFY(xc.value(s("null_relations")) == xb.value(s("null_relations")));
            for (const char* k : {"min_heads", "probes", "noise"}) QVERIFY2(!xc.contains(s(k)), k);
        }
        // Keeping heads needs a fit.
        const Outcome heads = run(QStringList{s("solve"), s("--config"), dir + s("/dataset.json"),
                                              s("--set"), s("solver.heads=2")} +
                                  promptsOnly);
        QCOMPARE(heads.code, 2);
        QVERIFY2(heads.err.contains("solver.heads") && heads.err.contains("without task.targets"),
                 heads.err.constData());
    }

    // Bad data files on the command line (issue 24's list: wrong shape, dtype, truncated, NaN,
    // N < 1, prompts and targets that disagree, a header claiming 10 GB): each run exits 2 with a
    // message that names the key and the file, and writes no result.
    void badDataFilesExitTwoNamingTheFile_data() {
        QTest::addColumn<QByteArray>("prompts");
        QTest::addColumn<QByteArray>("targets");
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("expected");
        const QByteArray goodPrompts = npyFilled({6, 3, 2}, 0.25);
        const QByteArray goodTargets = npyFilled({6, 2}, 0.5);
        QTest::addRow("wrong shape (2-d prompts)")
            << npyFilled({6, 4}, 0.25) << goodTargets << s("task.prompts")
            << s("expected 3 dimensions N x n x d");
        QTest::addRow("dtype int64")
            << npyByHand("<i8", "(6, 3, 2)", QByteArray(6 * 3 * 2 * 8, '\0')) << goodTargets
            << s("task.prompts") << s("dtype '<i8' is not supported");
        QTest::addRow("truncated")
            << npyByHand("<f8", "(6, 3, 2)", QByteArray(100, '\0')) << goodTargets
            << s("task.prompts") << s("truncated: the header claims shape (6, 3, 2)");
        std::vector<double> withNan(6 * 2, 0.5);
        withNan[7] = std::numeric_limits<double>::quiet_NaN(); // C index 7 = [3, 1]
        QTest::addRow("NaN in the targets")
            << goodPrompts << mhla::npyBytes({6, 2}, withNan.data()) << s("task.targets")
            << s("value nan at [3, 1]; every value must be finite");
        QTest::addRow("N = 0") << npyFilled({0, 3, 2}, 0.25) << npyFilled({0, 2}, 0.5)
                               << s("task.prompts") << s("has N = 0 samples; expected N >= 1");
        QTest::addRow("targets of another N")
            << goodPrompts << npyFilled({5, 2}, 0.5) << s("task.targets")
            << s("has 5 rows, but the prompts");
        QTest::addRow("10 GB header claim")
            << npyByHand("<f8", "(1250000000, 1, 1)", QByteArray(48, '\0')) << goodTargets
            << s("task.prompts") << s("1e+10 bytes of data, but the file holds 48 bytes");
    }
    void badDataFilesExitTwoNamingTheFile() {
        QFETCH(QByteArray, prompts);
        QFETCH(QByteArray, targets);
        QFETCH(QString, key);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        const QString p = dir.filePath(s("Z.npy")), t = dir.filePath(s("y.npy"));
        for (const auto& [path, bytes] : {std::pair{p, prompts}, std::pair{t, targets}}) {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size());
        }
        const QString out = dir.filePath(s("out"));
        const Outcome r = run(QStringList{s("solve"), s("--out"), out} +
                              sets({s("task.kind=dataset"), s("task.prompts=") + p,
                                    s("task.targets=") + t, s("eval.identifiability=none")}));
        QCOMPARE(r.code, 2);
        const QString err = QString::fromUtf8(r.err);
        QVERIFY2(err.contains(key + s(": ")), r.err.constData());
        QVERIFY2(err.contains(key == s("task.prompts") ? p : t), r.err.constData()); // the file
        QVERIFY2(err.contains(expected), r.err.constData());
        QVERIFY(!QFile::exists(out + s("/result.json")));
    }

    // A held-out set that does not fit the training data is refused (exit 2) with the key, the
    // file, what is wrong and what is allowed; without one the run reports no val_mse.
    void heldOutSetRefusals() {
        const QString dir = m_tmp.filePath(s("heldout"));
        QCOMPARE(run(QStringList{s("export-data"), s("--out"), dir} +
                     sets({s("task.samples=400"), s("eval.val_samples=50")}))
                     .code,
                 0);
        const QString other = m_tmp.filePath(s("heldout-other"));
        QCOMPARE(run(QStringList{s("export-data"), s("--out"), other} +
                     sets({s("task.kind=random_mhla"), s("task.d=3"), s("task.samples=100"),
                           s("eval.val_samples=50")}))
                     .code,
                 0);
        const auto solve = [&](const QStringList& keys) {
            return run(QStringList{s("solve"), s("--config"), dir + s("/dataset.json")} +
                       sets(keys));
        };
        const Outcome ok = solve({});
        QVERIFY2(ok.code == 0, ok.err.constData());
        // N_val is the file's 50, not eval.val_samples' default: the synthetic run on 50
        // validation samples has the same val_mse.
        const Outcome synth =
            run(QStringList{s("solve")} + sets({s("task.samples=400"), s("eval.val_samples=50")}));
        QVERIFY2(synth.code == 0, synth.err.constData());
        QVERIFY(json(ok.out).value(s("val_mse")).isDouble());
        QCOMPARE(json(ok.out).value(s("val_mse")).toDouble(),
                 json(synth.out).value(s("val_mse")).toDouble());
        const Outcome none = solve({s("task.validation_prompts="), s("task.validation_targets=")});
        QVERIFY2(none.code == 0, none.err.constData());
        QVERIFY(!json(none.out).contains(s("val_mse")));
        struct Case {
            QStringList keys;
            const char *key, *says;
        };
        const Case cases[] = {
            {{s("task.validation_targets=")}, "task.validation_targets", "set both files"},
            {{s("task.validation_prompts=")}, "task.validation_prompts", "set both files"},
            {{s("task.targets=")}, "task.validation_prompts", "needs task.targets"},
            // d = 3 prompts against d = 4 training prompts
            {{s("task.validation_prompts=") + other + s("/validation_prompts.npy")},
             "task.validation_prompts",
             "expected N_val x 3 x 4"},
            // 2-D targets with d_out 3 against d_out 2
            {{s("task.validation_targets=") + other + s("/validation_targets.npy")},
             "task.validation_targets",
             "expected N_val x 2"},
            // 400 training prompts against 50 validation targets
            {{s("task.validation_prompts=") + dir + s("/prompts.npy")},
             "task.validation_targets",
             "one target row per prompt"},
            {{s("task.validation_prompts=") + dir + s("/missing.npy")},
             "task.validation_prompts",
             "missing.npy"},
        };
        for (const Case& c : cases) {
            const Outcome r = solve(c.keys);
            QVERIFY2(r.code == 2, qPrintable(c.keys.join(s(" "))));
            QVERIFY2(r.err.contains(c.key) && r.err.contains(c.says), r.err.constData());
            QVERIFY2(!r.err.contains("internal"), r.err.constData());
        }
    }

    void npzLayoutGivesTheSameNumbers() {
        // --npz: one data.npz (and dataset.json naming its arrays) in place of four .npy files;
        // solving either export gives the same certificate, fit and held-out error, bit for bit.
        const QStringList keys =
            sets({s("task.samples=600"), s("task.orthogonal_prob=0.5"), s("eval.val_samples=80")});
        const QString npy = m_tmp.filePath(s("layout-npy")), npz = m_tmp.filePath(s("layout-npz"));
        QCOMPARE(run(QStringList{s("export-data"), s("--out"), npy} + keys).code, 0);
        const Outcome e = run(QStringList{s("export-data"), s("--npz"), s("--out"), npz} + keys);
        QVERIFY2(e.code == 0, e.err.constData());
        QCOMPARE(QString::fromUtf8(e.out).split(QLatin1Char('\n'), Qt::SkipEmptyParts),
                 (QStringList{QDir::cleanPath(npz + s("/data.npz")),
                              QDir::cleanPath(npz + s("/dataset.json"))}));
        QCOMPARE(QDir(npz).entryList(QDir::Files | QDir::Hidden),
                 (QStringList{s("data.npz"), s("dataset.json")}));
        QFile spec(npz + s("/dataset.json"));
        QVERIFY(spec.open(QIODevice::ReadOnly));
        const QJsonObject task = json(spec.readAll()).value(s("task")).toObject();
        QCOMPARE(task.value(s("prompts")).toString(), s("data.npz:prompts"));
        QCOMPARE(task.value(s("validation_prompts")).toString(), s("data.npz:validation_prompts"));
        const Outcome a = run({s("solve"), s("--config"), npy + s("/dataset.json")});
        const Outcome b = run({s("solve"), s("--config"), npz + s("/dataset.json")});
        QVERIFY2(a.code == 0 && b.code == 0, (a.err + b.err).constData());
        const QJsonObject ra = json(a.out), rb = json(b.out);
        for (const char* k : {"samples", "lambda_min", "null_dim", "certified", "train_mse",
                              "val_mse", "rank", "singular_values"})
            QVERIFY2(ra.value(s(k)) == rb.value(s(k)), k);
        QVERIFY(rb.value(s("val_mse")).isDouble());
        // The same export gives the same bytes (a fixed timestamp in the archive), and a second
        // export into the folder is refused without --force, naming the archive.
        QFile archive(npz + s("/data.npz"));
        QVERIFY(archive.open(QIODevice::ReadOnly));
        const QByteArray first = archive.readAll();
        archive.close();
        const Outcome again =
            run(QStringList{s("export-data"), s("--npz"), s("--out"), npz} + keys);
        QCOMPARE(again.code, 2);
        QVERIFY2(again.err.contains("already holds data.npz"), again.err.constData());
        QCOMPARE(
            run(QStringList{s("export-data"), s("--npz"), s("--force"), s("--out"), npz} + keys)
                .code,
            0);
        QVERIFY(archive.open(QIODevice::ReadOnly));
        QCOMPARE(archive.readAll(), first);
    }
    void refusalsNameWhatIsWrong() {
        const QString dir = m_tmp.filePath(s("refused"));
        const Outcome noOut = run({s("export-data")});
        QCOMPARE(noOut.code, 2);
        QVERIFY2(noOut.err.contains("--out DIR is required"), noOut.err.constData());
        const Outcome typo = run({s("export-data"), s("--outt"), dir});
        QCOMPARE(typo.code, 2);
        QVERIFY2(typo.err.contains("did you mean --out?"), typo.err.constData());
        const Outcome causal = run(QStringList{s("export-data"), s("--out"), dir} +
                                   sets({s("task.kind=random_mhla"), s("task.causal=true")}));
        QCOMPARE(causal.code, 2);
        QVERIFY2(causal.err.contains("task.causal"), causal.err.constData());
        QVERIFY(!QFile::exists(dir + s("/prompts.npy")));
        // A first export, then the same folder again: refused without --force, nothing changed.
        QCOMPARE(run(QStringList{s("export-data"), s("--out"), dir} + sets({s("task.samples=100")}))
                     .code,
                 0);
        QFile f(dir + s("/prompts.npy"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray before = f.readAll();
        f.close();
        const Outcome again =
            run(QStringList{s("export-data"), s("--out"), dir} + sets({s("task.samples=200")}));
        QCOMPARE(again.code, 2);
        QVERIFY2(again.err.contains("already holds prompts.npy") && again.err.contains("--force"),
                 again.err.constData());
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), before);
        f.close();
        QCOMPARE(run(QStringList{s("export-data"), s("--out"), dir, s("--force")} +
                     sets({s("task.samples=200")}))
                     .code,
                 0);
        // Exporting a dataset task: its samples are already files.
        const Outcome dataset = run({s("export-data"), s("--config"), dir + s("/dataset.json"),
                                     s("--out"), m_tmp.filePath(s("again"))});
        QCOMPARE(dataset.code, 2);
        QVERIFY2(dataset.err.contains("task.kind") && dataset.err.contains("already files"),
                 dataset.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestCliExportData)
#include "tst_cli_exportdata.moc"
