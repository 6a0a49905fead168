#include "app/guioptions.h"
#include "app/options.h"
#include "core/base/parallel.h"
#include "core/sweep/sweep.h"
#include "ui/export/exporter.h"
#include "ui/plot/plotmath.h"
#include <QCommandLineParser>
#include <cmath>

namespace mhla::cli {

using namespace mhla::ui;

namespace {

QString parseSize(const QString& text, QSize* size) {
    const QStringList wh = text.split(u'x');
    bool ok1 = false, ok2 = false;
    if (wh.size() == 2) *size = QSize(wh[0].toInt(&ok1), wh[1].toInt(&ok2));
    if (!ok1 || !ok2 || size->width() < 16 || size->height() < 16 || size->width() > 20000 ||
        size->height() > 20000)
        return QStringLiteral("--size must be WxH with 16..20000 pixels, got \"%1\"").arg(text);
    return {};
}

} // namespace

namespace {

/// --style, --size and --dpi: one of a paper style or a size, and the drawing's cost checked
/// before anything runs (each PNG is a W x H image in memory). Empty on success.
QString readFigureLook(const QCommandLineParser& p, FiguresOptions* o) {
    if (p.isSet(QStringLiteral("style"))) {
        const QString v = p.value(QStringLiteral("style"));
        if (v == QStringLiteral("screen")) o->style = FigureStyle::Screen;
        else if (v == QStringLiteral("paper-1col")) o->style = FigureStyle::PaperOneColumn;
        else if (v == QStringLiteral("paper-2col")) o->style = FigureStyle::PaperTwoColumns;
        else
            return QStringLiteral("--style must be screen, paper-1col or paper-2col, got \"%1\"")
                .arg(v);
        if (o->style != FigureStyle::Screen && p.isSet(QStringLiteral("size")))
            return QStringLiteral("--size and --style %1 both set the figure size (a paper style "
                                  "is its column's size in inches at --dpi); give one of them")
                .arg(v);
    }
    if (p.isSet(QStringLiteral("size")))
        if (QString e = parseSize(p.value(QStringLiteral("size")), &o->size); !e.isEmpty())
            return e;
    if (QString e = cli::intOption(p, "dpi", kMinExportDpi, kMaxExportDpi, &o->dpi); !e.isEmpty())
        return e;
    // The drawing's cost before anything runs: each PNG is a W x H image in memory.
    if (o->style == FigureStyle::Screen) {
        if (QString e = exportSizeProblem(o->size); !e.isEmpty())
            return QStringLiteral("--size: ") + e;
    } else {
        const PaperStyle paper = o->style == FigureStyle::PaperOneColumn ? PaperStyle::oneColumn()
                                                                         : PaperStyle::twoColumns();
        const QSize px(static_cast<int>(std::lround(paper.widthInches * o->dpi)),
                       static_cast<int>(std::lround(paper.heightInches * o->dpi)));
        if (QString e = exportSizeProblem(px); !e.isEmpty())
            return QStringLiteral("--dpi %1 with --style %2: ")
                       .arg(o->dpi)
                       .arg(p.value(QStringLiteral("style"))) +
                   e;
    }
    return {};
}

} // namespace

QString parseFiguresOptions(const QStringList& args, FiguresOptions* out) {
    QCommandLineParser p;
    p.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    const QCommandLineOption help({QStringLiteral("h"), QStringLiteral("help")},
                                  QStringLiteral("help"));
    const QCommandLineOption config(QStringLiteral("config"), QStringLiteral("experiment file"),
                                    QStringLiteral("FILE"));
    const QCommandLineOption outDir(QStringLiteral("out"), QStringLiteral("output folder"),
                                    QStringLiteral("DIR"));
    const QCommandLineOption set(QStringLiteral("set"), QStringLiteral("override"),
                                 QStringLiteral("key=value"));
    const QCommandLineOption size(QStringLiteral("size"), QStringLiteral("PNG size"),
                                  QStringLiteral("WxH"));
    const QCommandLineOption dpi(QStringLiteral("dpi"), QStringLiteral("PNG resolution"),
                                 QStringLiteral("N"));
    const QCommandLineOption force(QStringLiteral("force"), QStringLiteral("overwrite"));
    const QCommandLineOption jobs(QStringLiteral("jobs"), QStringLiteral("parallel runs"),
                                  QStringLiteral("J"));
    const QCommandLineOption seeds(QStringLiteral("seeds"), QStringLiteral("seeds per point"),
                                   QStringLiteral("K"));
    const QCommandLineOption grid(QStringLiteral("grid"), QStringLiteral("swept key"),
                                  QStringLiteral("KEY=VALUES"));
    const QCommandLineOption yes(QStringLiteral("yes"),
                                 QStringLiteral("allow a sweep of more than 1000 runs"));
    const QCommandLineOption style(QStringLiteral("style"), QStringLiteral("figure style"),
                                   QStringLiteral("screen|paper-1col|paper-2col"));
    p.addOptions({help, config, outDir, set, size, dpi, force, jobs, seeds, grid, yes, style});
    if (!p.parse(QStringList{QStringLiteral("figures")} + args)) return p.errorText();
    if (!p.positionalArguments().isEmpty())
        return QStringLiteral("unknown argument \"%1\"").arg(p.positionalArguments().first());
    FiguresOptions o;
    o.help = p.isSet(help);
    if (o.help) {
        *out = o;
        return {};
    }
    for (const auto* single : {&config, &outDir, &size, &dpi, &jobs, &seeds, &style})
        if (p.values(*single).size() > 1)
            return QStringLiteral("--%1 is given more than once").arg(single->names().first());
    o.config = p.value(config);
    o.out = p.value(outDir);
    o.sets = p.values(set);
    o.force = p.isSet(force);
    o.yes = p.isSet(yes);
    if (QString e = readFigureLook(p, &o); !e.isEmpty()) return e;
    if (QString e = cli::intOption(p, "jobs", 1, kMaxThreads, &o.jobs); !e.isEmpty()) return e;
    if (QString e = cli::intOption(p, "seeds", 1, kMaxSeeds, &o.seeds); !e.isEmpty()) return e;
    o.grids = p.values(grid);
    if (o.config.isEmpty()) return QStringLiteral("--config FILE is required");
    if (o.out.isEmpty()) return QStringLiteral("--out DIR is required");
    *out = o;
    return {};
}

QStringList guiOptionNames() {
    return {QStringLiteral("--preset"),     QStringLiteral("--run"),
            QStringLiteral("--tab"),        QStringLiteral("--theme"),
            QStringLiteral("--screenshot"), QStringLiteral("--size"),
            QStringLiteral("--head"),       QStringLiteral("--seeds"),
            QStringLiteral("--no-sweep"),   QStringLiteral("--compare-preset"),
            QStringLiteral("--field")};
}

QString parseGuiOptions(const QStringList& args, GuiOptions* out) {
    QCommandLineParser p;
    const QCommandLineOption preset(QStringLiteral("preset"), QStringLiteral("preset (1-based)"),
                                    QStringLiteral("N"));
    const QCommandLineOption run(QStringLiteral("run"), QStringLiteral("run at start"));
    const QCommandLineOption tab(QStringLiteral("tab"), QStringLiteral("result tab"),
                                 QStringLiteral("NAME"));
    const QCommandLineOption theme(QStringLiteral("theme"), QStringLiteral("light or dark"),
                                   QStringLiteral("THEME"));
    const QCommandLineOption shot(
        QStringLiteral("screenshot"),
        QStringLiteral("write a screenshot and quit (without a display: drawn offscreen)"),
        QStringLiteral("FILE"));
    const QCommandLineOption size(QStringLiteral("size"), QStringLiteral("window size"),
                                  QStringLiteral("WxH"));
    const QCommandLineOption head(QStringLiteral("head"), QStringLiteral("head (1-based)"),
                                  QStringLiteral("H"));
    const QCommandLineOption seeds(QStringLiteral("seeds"), QStringLiteral("repeat over seeds"),
                                   QStringLiteral("K"));
    const QCommandLineOption noSweep(QStringLiteral("no-sweep"),
                                     QStringLiteral("run a sweep preset once"));
    const QCommandLineOption compare(QStringLiteral("compare-preset"),
                                     QStringLiteral("also run this preset"), QStringLiteral("N"));
    const QCommandLineOption field(QStringLiteral("field"), QStringLiteral("set a field"),
                                   QStringLiteral("key=value"));
    p.addOptions({preset, run, tab, theme, shot, size, head, seeds, noSweep, compare, field});
    p.addPositionalArgument(QStringLiteral("file"),
                            QStringLiteral("experiment file or results folder to open"));
    // Qt's own options (-platform, -style, …) are consumed by QApplication before this runs.
    if (!p.parse(args)) return p.errorText();
    GuiOptions o;
    if (p.positionalArguments().size() > 1)
        return QStringLiteral("only one file can be opened, got %1")
            .arg(p.positionalArguments().join(QStringLiteral(", ")));
    o.file = p.positionalArguments().value(0);
    if (QString e = cli::intOption(p, "preset", 1, 99, &o.preset); !e.isEmpty()) return e;
    if (QString e = cli::intOption(p, "compare-preset", 1, 99, &o.comparePreset); !e.isEmpty())
        return e;
    if (QString e = cli::intOption(p, "head", 1, 4096, &o.head); !e.isEmpty()) return e;
    if (QString e = cli::intOption(p, "seeds", 1, kMaxSeeds, &o.seeds); !e.isEmpty()) return e;
    if (p.isSet(size))
        if (QString e = parseSize(p.value(size), &o.size); !e.isEmpty()) return e;
    o.run = p.isSet(run);
    o.noSweep = p.isSet(noSweep);
    o.tab = p.value(tab);
    o.theme = p.value(theme);
    if (!o.theme.isEmpty() && o.theme != u"light" && o.theme != u"dark")
        return QStringLiteral("--theme must be light or dark, got \"%1\"").arg(o.theme);
    o.screenshot = p.value(shot);
    o.fields = p.values(field);
    for (const QString& f : o.fields)
        if (!f.contains(u'=')) return QStringLiteral("--field needs key=value, got \"%1\"").arg(f);
    *out = o;
    return {};
}

} // namespace mhla::cli
