#include "app/options.h"
#include "core/base/parallel.h"
#include "core/base/text.h"
#include "core/sweep/sweep.h"
#include <QCommandLineParser>
#include <algorithm>
#include <vector>

namespace mhla::cli {

namespace {

int levenshtein(const QString& a, const QString& b) {
    std::vector<int> prev(static_cast<size_t>(b.size() + 1)), cur(prev.size());
    for (qsizetype j = 0; j <= b.size(); ++j) prev[static_cast<size_t>(j)] = static_cast<int>(j);
    for (qsizetype i = 1; i <= a.size(); ++i) {
        cur[0] = static_cast<int>(i);
        for (qsizetype j = 1; j <= b.size(); ++j) {
            const int sub = prev[static_cast<size_t>(j - 1)] + (a[i - 1] == b[j - 1] ? 0 : 1);
            cur[static_cast<size_t>(j)] = std::min(
                {prev[static_cast<size_t>(j)] + 1, cur[static_cast<size_t>(j - 1)] + 1, sub});
        }
        std::swap(prev, cur);
    }
    return prev[static_cast<size_t>(b.size())];
}

} // namespace

QString intOption(const QCommandLineParser& p, const char* name, int lo, int hi, int* out) {
    if (!p.isSet(q(name))) return {};
    const QString v = p.value(q(name));
    bool ok = false;
    const qlonglong x = v.trimmed().toLongLong(&ok);
    if (!ok || x < lo || x > hi)
        return q("--") + q(name) + q(": \"") + v +
               q("\" is not allowed; expected an integer in [") + QString::number(lo) + q(", ") +
               QString::number(hi) + q("]");
    *out = static_cast<int>(x);
    return {};
}

QString closestMatch(const QString& given, const QStringList& known) {
    QString best;
    int bestDist = 3;
    for (const QString& k : known) {
        const int dist = levenshtein(given, k);
        if (dist < bestDist) best = k, bestDist = dist;
    }
    return best;
}

namespace {

/// Runs the parser; an unknown option gets a "did you mean" from the parser's own options.
QString runParser(QCommandLineParser& p, const QStringList& args, const char* command,
                  const QStringList& known) {
    QStringList argv{q("mhla-lab")};
    argv += args;
    const QString see = q(" (see mhla-lab ") + q(command) + q(" --help)");
    if (p.parse(argv)) {
        if (!p.positionalArguments().isEmpty())
            return q("unexpected argument \"") + p.positionalArguments().first() + q("\"") + see;
        return {};
    }
    for (const QString& u : p.unknownOptionNames())
        if (const QString m = closestMatch(u, known); !m.isEmpty())
            return q("unknown option \"--") + u + q("\"; did you mean --") + m + q("?") + see;
    return p.errorText() + see;
}

} // namespace

QString pathArgumentProblem(const char* option, const QString& path) {
    if (path.contains(QChar::ReplacementCharacter))
        return q("--") + q(option) + q(": the path is not valid UTF-8; allowed: paths in UTF-8");
    return {};
}

QStringList topLevelWords() {
    return {q("solve"),       q("sweep"),  q("figures"),   q("bench"),
            q("export-data"), q("--help"), q("--version"), q("-h")};
}

QString parseSolveOptions(const QStringList& args, SolveOptions* out) {
    QCommandLineParser p;
    p.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    const QStringList valued{q("config"), q("set"), q("out"), q("threads"), q("seeds")};
    const QStringList flags{q("progress"), q("force"), q("yes")};
    p.addOption({q("config"), q("experiment file"), q("FILE")});
    p.addOption({q("set"), q("override"), q("KEY=VALUE")});
    p.addOption({q("out"), q("output folder"), q("DIR")});
    p.addOption({q("threads"), q("threads"), q("N")});
    p.addOption({q("seeds"), q("repeat over seeds"), q("K")});
    p.addOption({q("progress"), q("progress on stderr")});
    p.addOption({q("force"), q("overwrite the files of an earlier run in --out")});
    p.addOption({q("yes"), q("run even when the estimate is long")});
    p.addOption({{q("h"), q("help")}, q("help")});
    if (QString e = runParser(p, args, "solve", valued + flags + QStringList{q("help")});
        !e.isEmpty())
        return e;
    SolveOptions o;
    o.help = p.isSet(q("help"));
    o.config = p.value(q("config"));
    o.sets = p.values(q("set"));
    o.out = p.value(q("out"));
    o.progress = p.isSet(q("progress"));
    o.force = p.isSet(q("force"));
    o.yes = p.isSet(q("yes"));
    if (p.isSet(q("config")) && o.config.isEmpty())
        return q("--config: expected the path of an experiment file");
    if (p.isSet(q("out")) && o.out.isEmpty()) return q("--out: expected the path of a folder");
    if (QString e = intOption(p, "threads", 1, kMaxThreads, &o.threads); !e.isEmpty()) return e;
    if (QString e = intOption(p, "seeds", 1, kMaxSeeds, &o.seeds); !e.isEmpty()) return e;
    *out = o;
    return {};
}

QString parseBenchOptions(const QStringList& args, BenchOptions* out) {
    QCommandLineParser p;
    p.addOption({q("repeats"), q("repeats"), q("N")});
    p.addOption({q("threads"), q("threads"), q("N")});
    p.addOption({q("quick"), q("small sizes")});
    p.addOption({q("reference"), q("numpy_ref.py"), q("FILE")});
    p.addOption({q("torch-reference"), q("torch_sgd_ref.py"), q("FILE")});
    p.addOption({{q("h"), q("help")}, q("help")});
    if (QString e = runParser(p, args, "bench",
                              {q("repeats"), q("threads"), q("quick"), q("reference"),
                               q("torch-reference"), q("help")});
        !e.isEmpty())
        return e;
    BenchOptions o;
    o.help = p.isSet(q("help"));
    o.quick = p.isSet(q("quick"));
    o.reference = p.value(q("reference"));
    o.torchReference = p.value(q("torch-reference"));
    if (QString e = intOption(p, "repeats", 1, 1000, &o.repeats); !e.isEmpty()) return e;
    if (QString e = intOption(p, "threads", 1, kMaxThreads, &o.threads); !e.isEmpty()) return e;
    if (o.quick) o.repeats = 1;
    *out = o;
    return {};
}

QString parseExportDataOptions(const QStringList& args, ExportDataOptions* out) {
    QCommandLineParser p;
    p.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    p.addOption({q("config"), q("experiment file"), q("FILE")});
    p.addOption({q("set"), q("override"), q("KEY=VALUE")});
    p.addOption({q("out"), q("output folder"), q("DIR")});
    p.addOption({q("npz"), q("one .npz archive instead of .npy files")});
    p.addOption({q("force"), q("overwrite the files of an earlier export in --out")});
    p.addOption({{q("h"), q("help")}, q("help")});
    if (QString e = runParser(p, args, "export-data",
                              {q("config"), q("set"), q("out"), q("npz"), q("force"), q("help")});
        !e.isEmpty())
        return e;
    ExportDataOptions o;
    o.help = p.isSet(q("help"));
    o.config = p.value(q("config"));
    o.sets = p.values(q("set"));
    o.out = p.value(q("out"));
    o.force = p.isSet(q("force"));
    o.npz = p.isSet(q("npz"));
    if (p.isSet(q("config")) && o.config.isEmpty())
        return q("--config: expected the path of an experiment file");
    if (!o.help && o.out.isEmpty())
        return q("--out DIR is required: the folder that receives prompts.npy, targets.npy and "
                 "dataset.json");
    *out = o;
    return {};
}

} // namespace mhla::cli
