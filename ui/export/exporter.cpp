#include "ui/export/exporter.h"
#include "core/base/fileio.h"
#include "core/records/resultio.h"
#include <QBuffer>
#include <QClipboard>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QGuiApplication>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QMimeData>
#include <QPageSize>
#include <QPdfWriter>
#include <QSvgGenerator>
#include <cmath>

namespace mhla::ui {

namespace {

constexpr double kLogicalDpi = 96.0;

QString seedsOf(const QJsonObject& exp) {
    const auto task = exp.value(QStringLiteral("task")).toObject();
    const auto solver = exp.value(QStringLiteral("solver")).toObject();
    return QStringLiteral("task seed %1, solver seed %2")
        .arg(task.value(QStringLiteral("seed")).toVariant().toString(),
             solver.value(QStringLiteral("seed")).toVariant().toString());
}

/// Every file goes through core's atomic writer (temporary file, checked writes, rename; never
/// through a symbolic link), so a failed export leaves the previous file untouched.
QString writeText(const QString& path, const QByteArray& data) {
    return writeFileAtomic(path, data);
}

QSizeF logicalSize(const QSize& px, int dpi) {
    const double s = kLogicalDpi / std::max(dpi, 1);
    return {px.width() * s, px.height() * s};
}

QByteArray xmpPacket(const ExportMetadata& meta) {
    const QString desc = QString::fromUtf8(meta.json()).toHtmlEscaped();
    const QString title = meta.title.toHtmlEscaped();
    const QString xml =
        QStringLiteral(
            "<?xpacket begin=\"\" id=\"W5M0MpCehiHzreSzNTczkc9d\"?>\n"
            "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\">\n"
            " <rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">\n"
            "  <rdf:Description rdf:about=\"\" xmlns:dc=\"http://purl.org/dc/elements/1.1/\""
            " xmlns:xmp=\"http://ns.adobe.com/xap/1.0/\">\n"
            "   <dc:title><rdf:Alt><rdf:li xml:lang=\"x-default\">%1</rdf:li></rdf:Alt></dc:title>\n"
            "   <dc:description><rdf:Alt><rdf:li xml:lang=\"x-default\">%2</rdf:li></rdf:Alt></dc:description>\n"
            "   <xmp:CreatorTool>%3</xmp:CreatorTool>\n"
            "  </rdf:Description>\n"
            " </rdf:RDF>\n"
            "</x:xmpmeta>\n"
            "<?xpacket end=\"w\"?>")
            .arg(title, desc, appVersionString());
    return xml.toUtf8();
}

} // namespace

QString appVersionString() {
    return QStringLiteral("MHLA Lab %1").arg(QStringLiteral(MHLA_VERSION));
}

QString ExportMetadata::summary() const {
    QString s = appVersionString() + QStringLiteral(" - ") + title;
    for (const auto& r : runs) s += QStringLiteral(" - %1: %2").arg(r.first, seedsOf(r.second));
    return s;
}

QByteArray ExportMetadata::json() const {
    QJsonObject o;
    o.insert(QStringLiteral("app"), QStringLiteral("MHLA Lab"));
    o.insert(QStringLiteral("version"), QStringLiteral(MHLA_VERSION));
    o.insert(QStringLiteral("figure"), title);
    QJsonArray arr;
    for (const auto& r : runs) {
        QJsonObject ro;
        ro.insert(QStringLiteral("name"), r.first);
        ro.insert(QStringLiteral("seeds"), seedsOf(r.second));
        ro.insert(QStringLiteral("experiment"), r.second);
        arr.append(ro);
    }
    o.insert(QStringLiteral("runs"), arr);
    return QJsonDocument(o).toJson(QJsonDocument::Compact);
}

ExportFormat formatFromPath(const QString& path, bool* ok) {
    const QString s = QFileInfo(path).suffix().toLower();
    if (ok) *ok = true;
    if (s == u"svg") return ExportFormat::Svg;
    if (s == u"pdf") return ExportFormat::Pdf;
    if (s == u"png") return ExportFormat::Png;
    if (s == u"csv") return ExportFormat::Csv;
    if (ok) *ok = false;
    return ExportFormat::Png;
}

QString suffixOf(ExportFormat f) {
    switch (f) {
    case ExportFormat::Svg: return QStringLiteral("svg");
    case ExportFormat::Pdf: return QStringLiteral("pdf");
    case ExportFormat::Png: return QStringLiteral("png");
    case ExportFormat::Csv: return QStringLiteral("csv");
    }
    return {};
}

QString csvWithMetadata(const QString& csv, const ExportMetadata& meta) {
    QString out = QStringLiteral("# %1\n# metadata: %2\n")
                      .arg(meta.summary(), QString::fromUtf8(meta.json()));
    out += csv;
    if (!out.endsWith(u'\n')) out += u'\n';
    return out;
}

QString exportSizeProblem(const QSize& pixelSize) {
    if (pixelSize.width() < 16 || pixelSize.height() < 16 || pixelSize.width() > 20000 ||
        pixelSize.height() > 20000)
        return QStringLiteral("image size %1 x %2 is outside 16..20000 pixels")
            .arg(pixelSize.width())
            .arg(pixelSize.height());
    const long long pixels = static_cast<long long>(pixelSize.width()) * pixelSize.height();
    if (pixels > kMaxExportPixels)
        return QStringLiteral("image size %1 x %2 is %3 megapixels (%4 MiB of memory per image); "
                              "allowed: at most %5 megapixels, e.g. 8000 x 5000")
            .arg(pixelSize.width())
            .arg(pixelSize.height())
            .arg(static_cast<double>(pixels) / 1e6, 0, 'f', 1)
            .arg(static_cast<double>(pixels) * 4 / 1048576.0, 0, 'f', 0)
            .arg(kMaxExportPixels / 1000000);
    return {};
}

namespace {

// The three drawings of a figure, in memory; each returns an empty string or a message with
// %1 for the path.

QString svgBytes(const Figure& figure, const QSizeF& logical, const ExportMetadata& meta,
                 QByteArray* out) {
    const QRectF rect(QPointF(0, 0), logical);
    QBuffer buffer(out);
    buffer.open(QIODevice::WriteOnly);
    QSvgGenerator gen;
    gen.setOutputDevice(&buffer);
    gen.setSize(logical.toSize());
    gen.setViewBox(rect);
    gen.setResolution(static_cast<int>(kLogicalDpi));
    gen.setTitle(meta.title);
    gen.setDescription(QString::fromUtf8(meta.json()));
    QPainter p;
    if (!p.begin(&gen)) return QStringLiteral("cannot write %1");
    figure.paintFigure(p, rect);
    p.end();
    return {};
}

QString pdfBytes(const Figure& figure, const QSizeF& logical, const ExportMetadata& meta,
                 QByteArray* out) {
    const QRectF rect(QPointF(0, 0), logical);
    QBuffer buffer(out);
    buffer.open(QIODevice::WriteOnly);
    QPdfWriter pdf(&buffer);
    pdf.setResolution(static_cast<int>(kLogicalDpi));
    pdf.setPageSize(QPageSize(
        QSizeF(logical.width() * 72.0 / kLogicalDpi, logical.height() * 72.0 / kLogicalDpi),
        QPageSize::Point, QString(), QPageSize::ExactMatch));
    pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
    pdf.setTitle(meta.title);
    pdf.setCreator(meta.summary());
    pdf.setDocumentXmpMetadata(xmpPacket(meta));
    pdf.addFileAttachment(QStringLiteral("experiment.json"), meta.json(),
                          QStringLiteral("application/json"));
    QPainter p;
    if (!p.begin(&pdf)) return QStringLiteral("cannot write %1");
    // The page may be a device pixel off the requested size: scale to fit exactly.
    const QRect page = p.viewport();
    p.scale(page.width() / logical.width(), page.height() / logical.height());
    figure.paintFigure(p, rect);
    p.end();
    return {};
}

QString pngBytes(const Figure& figure, const QSize& pixelSize, int dpi, const ExportMetadata& meta,
                 QByteArray* out) {
    QImage img = renderFigure(figure, pixelSize, dpi);
    const int dpm = static_cast<int>(std::lround(dpi / 0.0254));
    img.setDotsPerMeterX(dpm);
    img.setDotsPerMeterY(dpm);
    img.setText(QStringLiteral("Title"), meta.title);
    img.setText(QStringLiteral("Software"), appVersionString());
    img.setText(QStringLiteral("Description"), meta.summary());
    img.setText(QStringLiteral("Experiment"), QString::fromUtf8(meta.json()));
    QBuffer buffer(out);
    buffer.open(QIODevice::WriteOnly);
    if (!img.save(&buffer, "PNG")) return QStringLiteral("cannot encode %1 as PNG");
    return {};
}

} // namespace

QString exportFigure(const Figure& figure, const QString& path, ExportFormat format,
                     const QSize& pixelSize, int dpi, const ExportMetadata& meta, bool withCsv) {
    if (!figure.hasData())
        return QStringLiteral("the figure \"%1\" has no data yet").arg(figure.figureTitle());
    if (const QString e = exportSizeProblem(pixelSize); !e.isEmpty()) return e;
    if (dpi < kMinExportDpi || dpi > kMaxExportDpi)
        return QStringLiteral("resolution %1 dpi is outside %2..%3")
            .arg(dpi)
            .arg(kMinExportDpi)
            .arg(kMaxExportDpi);
    const QFileInfo fi(path);
    if (!fi.absoluteDir().exists())
        return QStringLiteral("folder %1 does not exist").arg(fi.absolutePath());
    const QSizeF logical = logicalSize(pixelSize, dpi);

    QByteArray bytes;
    QString e;
    switch (format) {
    case ExportFormat::Csv: return writeText(path, csvWithMetadata(figure.csv(), meta).toUtf8());
    case ExportFormat::Svg: e = svgBytes(figure, logical, meta, &bytes); break;
    case ExportFormat::Pdf: e = pdfBytes(figure, logical, meta, &bytes); break;
    case ExportFormat::Png: e = pngBytes(figure, pixelSize, dpi, meta, &bytes); break;
    }
    if (!e.isEmpty()) return e.arg(path);
    if (const QString err = writeText(path, bytes); !err.isEmpty()) return err;
    if (withCsv) return writeText(csvPathFor(path), csvWithMetadata(figure.csv(), meta).toUtf8());
    return {};
}

QImage renderFigure(const Figure& figure, const QSize& pixelSize, int dpi) {
    QImage img(pixelSize, QImage::Format_ARGB32_Premultiplied);
    img.fill(Qt::white);
    // Paint at the logical 96 dpi (so that fonts in points match the layout); the caller
    // stamps the requested resolution into a file.
    const int logicalDpm = static_cast<int>(std::lround(kLogicalDpi / 0.0254));
    img.setDotsPerMeterX(logicalDpm);
    img.setDotsPerMeterY(logicalDpm);
    QPainter p(&img);
    p.setRenderHint(QPainter::Antialiasing);
    p.setRenderHint(QPainter::TextAntialiasing);
    p.scale(dpi / kLogicalDpi, dpi / kLogicalDpi);
    figure.paintFigure(p, QRectF(QPointF(0, 0), logicalSize(pixelSize, dpi)));
    p.end();
    return img;
}

QString copyFigureToClipboard(const Figure& figure, const QSize& pixelSize, int dpi) {
    if (!figure.hasData())
        return QStringLiteral("the figure \"%1\" has no data yet").arg(figure.figureTitle());
    QClipboard* clip = QGuiApplication::clipboard();
    if (!clip) return QStringLiteral("no clipboard on this platform");
    const QImage img = renderFigure(figure, pixelSize, dpi);
    const QSizeF logical = logicalSize(pixelSize, dpi);
    QBuffer svg;
    svg.open(QIODevice::WriteOnly);
    {
        QSvgGenerator gen;
        gen.setOutputDevice(&svg);
        gen.setSize(logical.toSize());
        gen.setViewBox(QRectF(QPointF(0, 0), logical));
        gen.setResolution(static_cast<int>(kLogicalDpi));
        gen.setTitle(figure.figureTitle());
        QPainter p;
        if (!p.begin(&gen)) return QStringLiteral("cannot draw the figure as SVG");
        figure.paintFigure(p, QRectF(QPointF(0, 0), logical));
        p.end();
    }
    auto* mime = new QMimeData;
    mime->setImageData(img);
    mime->setData(QStringLiteral("image/svg+xml"), svg.data());
    clip->setMimeData(mime);
    return {};
}

QString csvPathFor(const QString& figurePath) {
    const QFileInfo fi(figurePath);
    return fi.absolutePath() + u'/' + plotCsvName(fi.completeBaseName());
}

bool isOurCsv(const QString& path) {
    QByteArray head;
    QString error;
    if (!readRegularFile(path, &head, &error, kMaxReadBytes)) return false;
    return head.startsWith(QStringLiteral("# %1").arg(appVersionString()).toUtf8());
}

QString plotCsvName(const QString& baseName) {
    // The data files of a results folder keep their one schema (core's writer); a plot's CSV
    // of the same base name gets a name of its own.
    const QString csv = baseName + QStringLiteral(".csv");
    return resultFileNames().contains(csv) ? baseName + QStringLiteral("_plot.csv") : csv;
}

QStringList exportAllFileNames(const QList<const Figure*>& figures,
                               const QList<ExportTable>& tables, const ExperimentResult* result) {
    QStringList names;
    for (const Figure* f : figures) {
        if (!f->hasData()) continue;
        for (const char* s : {"svg", "pdf", "png"})
            names << f->figureName() + u'.' + QString::fromLatin1(s);
        names << plotCsvName(f->figureName());
    }
    for (const ExportTable& t : tables)
        if (!t.csv.isEmpty()) names << t.fileName + QStringLiteral(".csv");
    if (result) {
        for (const auto& [name, bytes] : resultFiles(*result, {})) names << name;
    } else {
        // Without a result only the JSON pair is known to be written.
        for (const QString& name : resultFileNames())
            if (name.endsWith(QStringLiteral(".json"))) names << name;
    }
    return names;
}

QString exportAll(const QList<const Figure*>& figures, const QList<ExportTable>& tables,
                  const QString& dir, const ExperimentResult& result,
                  const std::function<ExportMetadata(const Figure&)>& metaFor,
                  const ExportMetadata& tableMeta, const QSize& pixelSize, int dpi, bool overwrite,
                  QStringList* written, QStringList* existing) {
    if (const QString err = prepareOutputFolder(dir); !err.isEmpty()) return err;
    QDir d(dir);
    const QStringList names = exportAllFileNames(figures, tables, &result);
    QStringList clash;
    for (const QString& n : names)
        if (QFileInfo(d.filePath(n)).exists() || QFileInfo(d.filePath(n)).isSymLink()) clash << n;
    if (existing) *existing = clash;
    if (!clash.isEmpty() && !overwrite)
        return clash.size() == 1
                   ? QStringLiteral("%1 already exists in %2; not overwriting")
                         .arg(clash.first(), dir)
                   : QStringLiteral("%1 files already exist in %2 (e.g. %3); not overwriting")
                         .arg(clash.size())
                         .arg(dir, clash.first());
    // result.json says "this folder is one whole run": an earlier one goes first, the new one
    // is written last (writeRunFolder), so a failed or interrupted export leaves no result.json
    // beside figures of another run.
    if (const QString err = removeFile(d.filePath(resultFileNames().first())); !err.isEmpty())
        return err;

    for (const Figure* f : figures) {
        if (!f->hasData()) continue;
        const ExportMetadata m = metaFor(*f);
        for (ExportFormat fmt : {ExportFormat::Svg, ExportFormat::Pdf, ExportFormat::Png}) {
            const QString path = d.filePath(f->figureName() + u'.' + suffixOf(fmt));
            const QString err =
                exportFigure(*f, path, fmt, pixelSize, dpi, m, fmt == ExportFormat::Png);
            if (!err.isEmpty()) return err;
            if (written) *written << path;
        }
        if (written) *written << d.filePath(plotCsvName(f->figureName()));
    }
    for (const ExportTable& t : tables) {
        if (t.csv.isEmpty()) continue;
        ExportMetadata m = tableMeta;
        m.title = t.title;
        const QString path = d.filePath(t.fileName + QStringLiteral(".csv"));
        if (const QString err = writeText(path, csvWithMetadata(t.csv, m).toUtf8()); !err.isEmpty())
            return err;
        if (written) *written << path;
    }
    // The data files through core's writer: the same names, schemas and values as `solve --out`.
    const QByteArray resultJson =
        QJsonDocument(resultToJson(result)).toJson(QJsonDocument::Indented);
    auto files = resultFiles(result, resultJson);
    QStringList paths;
    for (const auto& [name, bytes] : files) paths << d.filePath(name);
    if (const QString err = writeRunFolder(dir, std::move(files)); !err.isEmpty()) return err;
    if (written) *written += paths;
    return {};
}

} // namespace mhla::ui
