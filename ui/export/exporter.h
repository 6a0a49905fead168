#pragma once
// Export of figures to SVG, PDF and PNG (with the data as CSV beside them) and "Export all".
// Export functions return an error message (empty on success) and never show dialogs.
#include "core/run/runner.h"
#include "ui/export/figure.h"
#include <QImage>
#include <QJsonObject>
#include <QList>
#include <QSize>
#include <QString>
#include <QStringList>
#include <functional>

namespace mhla::ui {

enum class ExportFormat { Svg, Pdf, Png, Csv };

/// What every exported file carries: the app version, the figure title, and the experiment(s)
/// (with their seeds) that produced the data.
struct ExportMetadata {
    QString title;
    /// (run name, resolved experiment JSON) for every run shown in the figure.
    QList<QPair<QString, QJsonObject>> runs;

    /// One-line summary: "MHLA Lab 0.1.0 - <title> - task seed 1, solver seed 1".
    QString summary() const;
    /// JSON text with app, version, title, seeds and experiments.
    QByteArray json() const;
};

/// Format from a file suffix (svg, pdf, png, csv); nullopt-like `ok` false for others.
ExportFormat formatFromPath(const QString& path, bool* ok);
QString suffixOf(ExportFormat f);

/// The resolutions a figure may be exported at (PNG; PDF and SVG record it), in dots per inch:
/// the export dialog's range and `figures --dpi`'s.
inline constexpr int kMinExportDpi = 36;
inline constexpr int kMaxExportDpi = 2400;

/// The most pixels an exported image may have: 40 megapixels (160 MB of ARGB32; a figure
/// draws in seconds). 20000 x 20000 took 1.6 GB and a minute per PNG.
constexpr long long kMaxExportPixels = 40000000;
/// Why an image of `pixelSize` cannot be drawn (each side 16..20000 and at most
/// kMaxExportPixels pixels, with what it would cost), or empty.
QString exportSizeProblem(const QSize& pixelSize);

/// Writes `figure` to `path`. `pixelSize` and `dpi` set the PNG's size and resolution; vector
/// formats use the same physical size (pixelSize / dpi inches). Also writes `<base>.csv` beside
/// a SVG/PDF/PNG when `withCsv` is set. Returns an error message or an empty string.
QString exportFigure(const Figure& figure, const QString& path, ExportFormat format,
                     const QSize& pixelSize, int dpi, const ExportMetadata& meta,
                     bool withCsv = true);

/// The figure as an image of `pixelSize` at `dpi` on white: what a PNG export holds.
QImage renderFigure(const Figure& figure, const QSize& pixelSize, int dpi);
/// Puts the figure on the clipboard as an image (PNG for pasting into documents) and as SVG
/// (vector, for editors that take it). Returns an error message or an empty string.
QString copyFigureToClipboard(const Figure& figure, const QSize& pixelSize, int dpi);

/// CSV text with metadata as leading "# " comment lines.
QString csvWithMetadata(const QString& csv, const ExportMetadata& meta);

/// Writes every figure (SVG, PDF, PNG and its plot CSV), every table (CSV) and the run's data
/// files (core's resultFiles(): the same as `solve --out`) into `dir` (created if needed; a
/// symbolic link or a folder that cannot be written is refused). Files that would be overwritten
/// are listed in `*existing` and nothing is written unless `overwrite` is set. Returns an error
/// message or an empty string; `*written` receives the paths written. `metaFor` gives each figure's
/// metadata (its title and the runs it shows); tables carry `tableMeta` with their own title.
QString exportAll(const QList<const Figure*>& figures, const QList<ExportTable>& tables,
                  const QString& dir, const ExperimentResult& result,
                  const std::function<ExportMetadata(const Figure&)>& metaFor,
                  const ExportMetadata& tableMeta, const QSize& pixelSize, int dpi, bool overwrite,
                  QStringList* written, QStringList* existing = nullptr);

/// Files exportAll would write (for the overwrite check): figures, their plot CSVs, tables, and
/// the data files core's writer produces for `result` (result.json, experiment.json,
/// spectrum.csv, heads.csv, lambda_trace.csv, history.csv; only the two JSON files when null).
QStringList exportAllFileNames(const QList<const Figure*>& figures,
                               const QList<ExportTable>& tables = {},
                               const ExperimentResult* result = nullptr);

/// The CSV written beside a figure file ("loss.svg" -> "loss.csv"; a figure named like one of
/// the data files of a results folder, e.g. "spectrum.svg", gets "spectrum_plot.csv").
QString csvPathFor(const QString& figurePath);
/// True when the file at path is a CSV this app exported (its first line is our metadata
/// comment), so rewriting it with new data needs no question.
bool isOurCsv(const QString& path);
/// The plot CSV's file name for a figure base name.
QString plotCsvName(const QString& baseName);

/// Text describing the app version, for metadata and the About box.
QString appVersionString();

} // namespace mhla::ui
