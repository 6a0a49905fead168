#include "app/exportdata.h"
#include "core/base/text.h"

#include "app/cli.h"
#include "app/options.h"
#include "core/base/process.h"
#include "core/experiment/loader.h"
#include "core/tasks/exportsamples.h"
#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <cstdio>

namespace mhla::cli {

namespace {

void err(const QString& s) { printMessage(q("mhla-lab export-data: ") + s); }

const char kHelp[] =
    R"(Usage: mhla-lab export-data [--config FILE] [--set section.key=value ...] --out DIR
                            [--npz] [--force]

Writes the training samples of a synthetic task (random_mhla, associative_memory, automaton) in
the layout the dataset task reads (MATH.md "Data on disk"):
  DIR/prompts.npy   N x n x d float64 (sample, token, coordinate; tokens as rows, the query last)
  DIR/targets.npy   N x d_out float64
  DIR/validation_prompts.npy, DIR/validation_targets.npy
                    the held-out set: eval.val_samples samples of the validation stream
  DIR/dataset.json  an experiment file: task.kind = dataset on these four files, with the
                    source's solver and eval keys that a dataset run reads
With --npz the four arrays go into one archive instead, as np.savez writes it:
  DIR/data.npz      its arrays prompts, targets, validation_prompts, validation_targets (stored,
                    not compressed), which dataset.json names as data.npz:prompts and so on
so that `mhla-lab solve --config DIR/dataset.json` certifies and fits the same data: lambda_min,
the fit, train_mse and val_mse equal the synthetic run's bit for bit. A DIR that already holds
any of the files it would write is refused unless --force. Exit codes as for solve (0, 1, 2, 130).
)";

} // namespace

int runExportData(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    useCNumericLocale();
    QStringList args = app.arguments();
    args.removeFirst();
    args.removeFirst();
    ExportDataOptions opt;
    if (const QString e = parseExportDataOptions(args, &opt); !e.isEmpty()) {
        err(e);
        return InvalidInput;
    }
    if (opt.help) {
        std::fputs(kHelp, stdout);
        return std::fflush(stdout) == 0 ? Success : InternalError;
    }
    ExperimentConfig cfg;
    try {
        const LoadedExperiment loaded = loadExperiment(opt.config, opt.sets);
        for (const QString& w : loaded.warnings) err(q("warning: ") + w);
        cfg = loaded.config;
    } catch (const ConfigError& e) {
        err(QString::fromStdString(e.what()));
        return InvalidInput;
    }
    const ExportLayout layout = opt.npz ? ExportLayout::Npz : ExportLayout::NpyFiles;
    const QStringList files = exportedFileNames(layout);
    if (!opt.force)
        for (const QString& name : files)
            if (QFileInfo::exists(QDir(opt.out).filePath(name))) {
                err(q("--out: \"") + opt.out + q("\" already holds ") + name +
                    q("; choose another folder or pass --force to overwrite it"));
                return InvalidInput;
            }
    CancelToken cancel;
    const CancelOnSignals onSignals(&cancel);
    ExportedSamples info;
    QString e;
    try {
        e = exportTaskSamples(cfg, opt.out, &cancel, &info, layout);
    } catch (const ConfigError& ce) {
        err(QString::fromStdString(ce.what()));
        return InvalidInput;
    } catch (const Cancelled&) {
        err(q("cancelled; nothing was written"));
        return Interrupted;
    }
    if (!e.isEmpty()) {
        err(e);
        return e.startsWith(q("--out")) ? InvalidInput : InternalError;
    }
    const QDir dir(opt.out);
    for (const QString& name : files)
        std::printf("%s\n", qPrintable(QDir::cleanPath(dir.filePath(name))));
    err(QString::number(info.samples) + q(" samples (and ") +
        QString::number(info.validationSamples) + q(" held out), n = ") +
        QString::number(info.tokens) + q(", d = ") + QString::number(info.d) + q(", d_out = ") +
        QString::number(info.dOut) + q("; run them with: mhla-lab solve --config ") +
        QDir::cleanPath(dir.filePath(q("dataset.json"))));
    return std::fflush(stdout) == 0 ? Success : InternalError;
}

} // namespace mhla::cli
