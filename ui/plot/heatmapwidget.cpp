#include "ui/plot/heatmapwidget.h"
#include "core/records/csvtable.h"
#include "ui/plot/colormap.h"
#include <QFontMetricsF>
#include <QHelpEvent>
#include <QLinearGradient>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>
#include <cmath>

namespace mhla::ui {

HeatmapWidget::HeatmapWidget(const QString& figureName, QWidget* parent)
    : QWidget(parent), m_name(figureName) {
    setObjectName(figureName + QStringLiteral("Heatmap"));
    setMouseTracking(true);
    setMinimumSize(200, 140);
}

void HeatmapWidget::setTitle(const QString& t) {
    m_title = t;
    update();
}

void HeatmapWidget::setPanels(const QList<HeatmapPanel>& panels, int columns) {
    m_panels = panels;
    m_columns = std::max(1, columns);
    update();
}

void HeatmapWidget::setFixedScale(std::optional<double> s) {
    m_fixedScale = s;
    update();
}

double HeatmapWidget::scale() const {
    if (m_fixedScale) return *m_fixedScale;
    double s = 0;
    for (const auto& p : m_panels)
        if (p.matrix.size() > 0) s = std::max(s, p.matrix.cwiseAbs().maxCoeff());
    return s;
}

bool HeatmapWidget::hasData() const {
    return std::any_of(m_panels.begin(), m_panels.end(),
                       [](const HeatmapPanel& p) { return p.matrix.size() > 0; });
}

HeatmapWidget::Layout HeatmapWidget::layoutFor(const QRectF& rect) const {
    Layout L;
    const double titleH = m_title.isEmpty() ? 0 : 26;
    const double barW = 78;
    L.titleRect = QRectF(rect.left(), rect.top(), rect.width(), titleH);
    const QRectF grid(rect.left() + 6, rect.top() + titleH + 4, rect.width() - barW - 18,
                      rect.height() - titleH - 10);
    L.colorBar =
        QRectF(rect.right() - barW + 8, grid.top() + 22, 16, std::max(40.0, grid.height() - 44));
    const int n = static_cast<int>(m_panels.size());
    const int cols = std::min(m_columns, std::max(n, 1));
    const int rows = (n + cols - 1) / std::max(cols, 1);
    const double cw = grid.width() / std::max(cols, 1), ch = grid.height() / std::max(rows, 1);
    for (int i = 0; i < n; ++i) {
        const int r = i / cols, c = i % cols;
        const QRectF cell(grid.left() + c * cw, grid.top() + r * ch, cw, ch);
        L.panelTitle << QRectF(cell.left(), cell.top(), cell.width(), 18);
        const QRectF area = cell.adjusted(22, 20, -8, -16);
        const Mat& m = m_panels[i].matrix;
        if (m.size() == 0 || area.width() <= 2 || area.height() <= 2) {
            L.matrix << area;
            continue;
        }
        double cellW = area.width() / m.cols(), cellH = area.height() / m.rows();
        const double s = std::min(cellW, cellH);
        cellW = std::min(cellW, s * 1.0);
        cellH = std::min(cellH, std::max(s, std::min(cellH, 14 * cellW)));
        const QSizeF sz(cellW * m.cols(), cellH * m.rows());
        L.matrix << QRectF(area.left() + (area.width() - sz.width()) / 2, area.top(), sz.width(),
                           sz.height());
    }
    return L;
}

namespace {

/// One matrix as cells coloured on the diverging scale [-s, s], framed, with 1-based index
/// labels where there is room (the column labels only above `bottom`).
void drawMatrix(QPainter& p, const QRectF& mr, const Mat& m, double s, const QColor& fg,
                const QFont& panelFont, double bottom) {
    const double cw = mr.width() / m.cols(), ch = mr.height() / m.rows();
    p.setPen(Qt::NoPen);
    for (Index r = 0; r < m.rows(); ++r)
        for (Index c = 0; c < m.cols(); ++c) {
            // Slight overlap avoids hairline gaps between cells in vector output.
            const QRectF cell(mr.left() + c * cw, mr.top() + r * ch, cw + 0.3, ch + 0.3);
            p.fillRect(cell, divergingColor(m(r, c), s));
        }
    p.setPen(QPen(fg, 0.8));
    p.setBrush(Qt::NoBrush);
    p.drawRect(mr);
    // Index labels when there is room.
    QFont sf = panelFont;
    sf.setPointSizeF(7);
    p.setFont(sf);
    if (ch >= 11 && m.rows() <= 40)
        for (Index r = 0; r < m.rows(); ++r)
            p.drawText(QRectF(mr.left() - 20, mr.top() + r * ch, 17, ch),
                       Qt::AlignRight | Qt::AlignVCenter, QString::number(r + 1));
    if (cw >= 11 && m.cols() <= 40 && mr.bottom() + 12 <= bottom)
        for (Index c = 0; c < m.cols(); ++c)
            p.drawText(QRectF(mr.left() + c * cw, mr.bottom() + 1, cw, 11),
                       Qt::AlignHCenter | Qt::AlignTop, QString::number(c + 1));
}

/// The colour bar of the scale [-s, s] with five ticks and its label.
void drawColorBar(QPainter& p, const QRectF& cb, double s, const QColor& fg, const QString& label) {
    const int steps = 64;
    for (int k = 0; k < steps; ++k) {
        const double v = s * (1.0 - 2.0 * (k + 0.5) / steps);
        p.fillRect(QRectF(cb.left(), cb.top() + k * cb.height() / steps, cb.width(),
                          cb.height() / steps + 0.3),
                   divergingColor(v, s));
    }
    p.setPen(QPen(fg, 0.8));
    p.drawRect(cb);
    for (int k = 0; k <= 4; ++k) {
        const double v = s * (1.0 - k / 2.0);
        const double y = cb.top() + k * cb.height() / 4;
        // Ticks point into the bar: a tick beside the label read as a minus sign ("+0.475"
        // looked like "-0.475", "-0.475" like "--0.475").
        p.drawLine(QPointF(cb.right() - 4, y), QPointF(cb.right(), y));
        p.drawText(QRectF(cb.right() + 4, y - 8, 60, 16), Qt::AlignLeft | Qt::AlignVCenter,
                   QString::number(v, 'g', 3));
    }
    p.drawText(QRectF(cb.left() - 14, cb.top() - 20, 80, 16), Qt::AlignLeft, label);
}

} // namespace

void HeatmapWidget::paintImpl(QPainter& p, const QRectF& rect, bool exportMode) const {
    const QPalette pal = palette();
    const QColor bg = exportMode ? Qt::white : pal.color(QPalette::Base);
    const QColor fg = exportMode ? Qt::black : pal.color(QPalette::Text);
    p.save();
    p.fillRect(rect, bg);
    const Layout L = layoutFor(rect);
    // Titles longer than their room take a smaller font, then are elided (full text in the
    // tooltip), never clipped on both sides as centred text wider than its rectangle is.
    const auto drawTitle = [&p](const QString& t, const QFont& font, const QRectF& r) {
        const plotmath::FittedTitle fit =
            plotmath::fitTitle(t, TitleText::Literal, font, r.width(), p.device());
        const QFont before = p.font();
        p.setFont(fit.font);
        p.drawText(r, Qt::AlignCenter, fit.text);
        p.setFont(before);
    };
    p.setPen(fg);
    if (!m_title.isEmpty()) drawTitle(m_title, titleFont(false), L.titleRect);
    const QFont panelFont = titleFont(true);
    p.setFont(panelFont);
    const double s = scale();
    for (int i = 0; i < m_panels.size(); ++i) {
        const auto& panel = m_panels[i];
        p.setPen(fg);
        drawTitle(panel.title, panelFont, L.panelTitle[i]);
        const QRectF mr = L.matrix[i];
        const Mat& m = panel.matrix;
        if (m.size() == 0) {
            p.setPen(pal.color(QPalette::PlaceholderText));
            p.drawText(mr, Qt::AlignCenter | Qt::TextWordWrap,
                       panel.emptyText.isEmpty() ? tr("(no data)") : panel.emptyText);
            continue;
        }
        drawMatrix(p, mr, m, s, fg, panelFont, rect.bottom());
        p.setFont(panelFont);
    }
    if (hasData()) drawColorBar(p, L.colorBar, s, fg, tr("value"));
    p.restore();
}

void HeatmapWidget::paintFigure(QPainter& painter, const QRectF& rect) const {
    paintImpl(painter, rect, true);
}

void HeatmapWidget::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing, false);
    paintImpl(p, rect(), false);
}

QString HeatmapWidget::describeCell(int panel, int row, int col) const {
    const auto& pn = m_panels[panel];
    return QStringLiteral("%1  [%2 %3, %4 %5] = %6")
        .arg(pn.title, pn.rowName)
        .arg(row + 1)
        .arg(pn.colName)
        .arg(col + 1)
        .arg(QString::number(pn.matrix(row, col), 'g', 6));
}

QString HeatmapWidget::textAt(const QPointF& pos) const {
    const Layout L = layoutFor(rect());
    QString text;
    for (int i = 0; i < m_panels.size(); ++i) {
        const Mat& m = m_panels[i].matrix;
        if (m.size() == 0 || !L.matrix[i].contains(pos)) continue;
        const QRectF mr = L.matrix[i];
        const int c = std::clamp(static_cast<int>((pos.x() - mr.left()) / (mr.width() / m.cols())),
                                 0, int(m.cols()) - 1);
        const int r = std::clamp(static_cast<int>((pos.y() - mr.top()) / (mr.height() / m.rows())),
                                 0, int(m.rows()) - 1);
        text = describeCell(i, r, c);
    }
    return text;
}

QFont HeatmapWidget::titleFont(bool panel) const {
    QFont f = font();
    f.setPointSizeF(panel ? 9 : 11);
    f.setBold(!panel);
    return f;
}

double HeatmapWidget::titleWidth(int panel) const {
    const Layout L = layoutFor(rect());
    if (panel < 0) return L.titleRect.width();
    return panel < L.panelTitle.size() ? L.panelTitle[panel].width() : 0.0;
}

plotmath::FittedTitle HeatmapWidget::fittedTitle(int panel) const {
    const QString& t = panel < 0 ? m_title : m_panels.value(panel).title;
    return plotmath::fitTitle(t, TitleText::Literal, titleFont(panel >= 0), titleWidth(panel),
                              this);
}

QString HeatmapWidget::shownTitle(int panel) const { return fittedTitle(panel).text; }

QFont HeatmapWidget::shownTitleFont(int panel) const { return fittedTitle(panel).font; }

QString HeatmapWidget::toolTipAt(const QPointF& pos) const {
    // The value under the cursor, not a generic hint while on a cell.
    if (const QString text = textAt(pos); !text.isEmpty()) return text;
    const Layout L = layoutFor(rect());
    if (L.titleRect.contains(pos) && shownTitle(-1) != m_title) return m_title;
    for (int i = 0; i < L.panelTitle.size(); ++i)
        if (L.panelTitle[i].contains(pos)) return m_panels[i].title;
    return tr("Hover a cell for its value");
}

bool HeatmapWidget::event(QEvent* e) {
    if (e->type() == QEvent::ToolTip) {
        const auto* he = static_cast<QHelpEvent*>(e);
        QToolTip::showText(he->globalPos(), toolTipAt(he->pos()), this);
        return true;
    }
    return QWidget::event(e);
}

void HeatmapWidget::mouseMoveEvent(QMouseEvent* e) {
    const QString text = textAt(e->position());
    if (text != m_hoverText) {
        m_hoverText = text;
        Q_EMIT hovered(text);
        if (text.isEmpty()) QToolTip::hideText();
        else QToolTip::showText(e->globalPosition().toPoint(), text, this);
    }
}

void HeatmapWidget::leaveEvent(QEvent*) {
    m_hoverText.clear();
    Q_EMIT hovered({});
}

QString HeatmapWidget::csv() const {
    // Core's one CSV writer, as heads.csv: 0-based row and column, values at 17 digits.
    CsvTable t({QStringLiteral("panel"), QStringLiteral("row"), QStringLiteral("col"),
                QStringLiteral("value")});
    for (const auto& pn : m_panels)
        for (Index r = 0; r < pn.matrix.rows(); ++r)
            for (Index c = 0; c < pn.matrix.cols(); ++c)
                t.addRow({CsvTable::text(pn.title), CsvTable::integer(r), CsvTable::integer(c),
                          CsvTable::number(pn.matrix(r, c))});
    return QString::fromUtf8(t.bytes());
}

QString HeatmapWidget::exportTo(const QString& path, ExportFormat format, const QSize& pixelSize,
                                int dpi, const ExportMetadata& meta) const {
    return exportFigure(*this, path, format, pixelSize, dpi, meta);
}

} // namespace mhla::ui
