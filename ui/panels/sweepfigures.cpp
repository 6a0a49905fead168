#include "ui/panels/sweepfigures.h"
#include "core/base/fileio.h"
#include "ui/plot/colormap.h"
#include "ui/plot/plotwidget.h"
#include "ui/plot/theme.h"
#include <QDir>
#include <QJsonDocument>
#include <algorithm>
#include <optional>

namespace mhla::ui {

QList<PlotSeries> sweepPlotSeries(const SweepFigureData& d) {
    QList<PlotSeries> out;
    for (const SweepPlotSeries& s : d.series) {
        PlotSeries p;
        p.name = s.name;
        p.color = s.colour < 0 ? colors::kBlack : runColor(s.colour);
        p.inLegend = s.inLegend;
        for (size_t i = 0; i < s.x.size(); ++i) p.points << QPointF(s.x[i], s.y[i]);
        switch (s.style) {
        case SweepPlotSeries::Style::Line: p.style = PlotSeries::Style::LineMarkers; break;
        case SweepPlotSeries::Style::Markers: p.style = PlotSeries::Style::Markers; break;
        case SweepPlotSeries::Style::Triangles: p.style = PlotSeries::Style::Triangles; break;
        case SweepPlotSeries::Style::Floor: p.style = PlotSeries::Style::Floor; break;
        case SweepPlotSeries::Style::ErrorBar: p.style = PlotSeries::Style::Line; break;
        case SweepPlotSeries::Style::Band:
            p.style = PlotSeries::Style::Band;
            for (size_t i = 0; i < s.x.size(); ++i) p.lower << QPointF(s.x[i], s.lower[i]);
            break;
        }
        out << p;
    }
    return out;
}

void showSweepFigure(PlotWidget* plot, const SweepFigureData& d) {
    // Metric labels, and the titles made of them or written in paper files, are written to be
    // typeset ("λ_min", "‖P − P*‖_F").
    plot->setTitle(d.title, TitleText::Typeset);
    plot->setAxisTitles(d.xTitle, d.yTitle, TitleText::Typeset);
    plot->setXCategories(d.xCategories);
    plot->setLogX(d.logX);
    plot->setLogY(d.logY);
    plot->setNote(d.note);
    plot->setSeries(sweepPlotSeries(d));
}

QString writeSweepFigures(const QString& dir, const SweepPlan& plan,
                          const std::vector<QJsonObject>& results,
                          const std::vector<SweepFigureSpec>& specs, const QSize& pixelSize,
                          int dpi, QStringList* written, QStringList* skipped,
                          const PaperStyle* paper) {
    if (const QString e = prepareOutputFolder(dir); !e.isEmpty()) return e;
    const QDir d(dir);
    for (const SweepFigureSpec& spec : specs) {
        const SweepFigureData data = reduceSweepFigure(spec, plan, results);
        if (data.empty()) {
            if (skipped)
                *skipped << QStringLiteral("%1: no finished run has a finite value").arg(spec.name);
            continue;
        }
        PlotWidget plot(spec.name);
        std::optional<PaperFigure> paperFigure;
        if (paper) paperFigure.emplace(plot, *paper);
        const QSize size = paperFigure ? paperFigure->pixelSize(dpi) : pixelSize;
        plot.resize(size * 96 / std::max(dpi, 1));
        showSweepFigure(&plot, data);
        const Figure& figure = paperFigure ? static_cast<const Figure&>(*paperFigure)
                                           : static_cast<const Figure&>(plot);
        ExportMetadata meta;
        meta.title = data.title;
        // The first run's resolved experiment (its seeds are the first seeds) and the sweep.
        QJsonObject exp =
            plan.runs.empty() ? QJsonObject() : experimentToJson(plan.runs.front().config);
        exp.insert(QStringLiteral("sweep"), plan.spec.toJson());
        meta.runs << qMakePair(QStringLiteral("sweep of %1 runs (%2 seeds per point)")
                                   .arg(plan.runs.size())
                                   .arg(plan.spec.seeds),
                               exp);
        for (ExportFormat fmt : {ExportFormat::Svg, ExportFormat::Pdf, ExportFormat::Png}) {
            const QString path = d.filePath(spec.name + u'.' + suffixOf(fmt));
            if (const QString e = exportFigure(figure, path, fmt, size, dpi, meta, false);
                !e.isEmpty())
                return e;
            if (written) *written << path;
        }
        const QString csvPath = d.filePath(spec.name + QStringLiteral(".csv"));
        if (const QString e = writeFileAtomic(
                csvPath, csvWithMetadata(QString::fromUtf8(data.csv), meta).toUtf8());
            !e.isEmpty())
            return e;
        if (written) *written << csvPath;
    }
    return {};
}

} // namespace mhla::ui
