#include "ui/plot/plotlegend.h"
#include <QCoreApplication>
#include <QFontMetricsF>
#include <QHelpEvent>
#include <QLayout>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>
#include <algorithm>
#include <cmath>

namespace mhla::ui {

namespace {
constexpr double kGlyph = 26;   // width of a glyph
constexpr double kGap = 5;      // glyph to text
constexpr double kSpacing = 14; // between entries
constexpr double kRowGap = 2;

using Style = PlotSeries::Style;

/// The font of a subscript: three quarters of the text's size.
QFont subscriptFont(const QFont& font) {
    QFont f = font;
    if (font.pointSizeF() > 0) f.setPointSizeF(font.pointSizeF() * 0.75);
    else f.setPixelSize(std::max(1, static_cast<int>(std::lround(font.pixelSize() * 0.75))));
    return f;
}

/// A run's mark (plotmath::markShape), outlined a shade darker than its fill.
void drawMark(QPainter& p, int mark, const QColor& c, const QPointF& at) {
    p.setPen(QPen(c.darker(130), 1));
    p.setBrush(c);
    p.drawPath(markPath(mark, at, 5));
}

void drawGlyph(QPainter& p, const plotmath::LegendEntry& e, const QRectF& r) {
    const double y = r.center().y();
    QColor c = e.color;
    if (e.hidden || e.offScale) c.setAlphaF(0.35);
    QPen pen(c, 2);
    pen.setCapStyle(Qt::FlatCap);
    switch (e.style) {
    case Style::Line:
    case Style::Dashed:
    case Style::Dotted:
    case Style::HLine:
    case Style::LineMarkers:
        if (e.style == Style::Dashed || e.style == Style::HLine) pen.setStyle(Qt::DashLine);
        if (e.style == Style::Dotted) pen.setStyle(Qt::DotLine);
        p.setPen(pen);
        p.drawLine(QPointF(r.left() + 1, y), QPointF(r.right() - 1, y));
        if (e.mark > 0) {
            drawMark(p, e.mark, c, QPointF(r.center().x(), y));
        } else if (e.style == Style::LineMarkers) {
            p.setBrush(c);
            p.setPen(Qt::NoPen);
            p.drawEllipse(QPointF(r.center().x(), y), 3.5, 3.5);
        }
        break;
    case Style::Markers:
        if (e.mark > 0) {
            drawMark(p, e.mark, c, QPointF(r.center().x(), y));
        } else {
            p.setPen(QPen(c.darker(130), 1));
            p.setBrush(c);
            p.drawEllipse(QPointF(r.center().x(), y), 4, 4);
        }
        break;
    case Style::Triangles: {
        QPainterPath tri;
        const double cx = r.center().x(), h = 5.5;
        tri.moveTo(cx, y - h);
        tri.lineTo(cx + h, y + h * 0.8);
        tri.lineTo(cx - h, y + h * 0.8);
        tri.closeSubpath();
        p.setPen(QPen(c.darker(130), 1));
        p.setBrush(c);
        p.drawPath(tri);
        break;
    }
    case Style::Floor: { // a hollow diamond
        QPainterPath d;
        const double cx = r.center().x(), h = 4.5;
        d.moveTo(cx, y - h);
        d.lineTo(cx + h, y);
        d.lineTo(cx, y + h);
        d.lineTo(cx - h, y);
        d.closeSubpath();
        p.setPen(QPen(c, 1.5));
        p.setBrush(Qt::NoBrush);
        p.drawPath(d);
        break;
    }
    case Style::Bars:
    case Style::Band: {
        QColor fill = c;
        if (e.style == Style::Band) fill.setAlphaF(fill.alphaF() * 0.3);
        p.setPen(QPen(c, 1));
        p.setBrush(fill);
        p.drawRect(QRectF(r.left() + 4, y - 5, r.width() - 8, 10));
        break;
    }
    }
}
} // namespace

QPainterPath markPath(int mark, const QPointF& c, double r) {
    QPainterPath path;
    // A regular polygon of n corners, the first straight up; a star alternates radii.
    auto polygon = [&](int n, double inner) {
        const int corners = inner > 0 ? 2 * n : n;
        for (int k = 0; k < corners; ++k) {
            const double a = -M_PI / 2 + 2 * M_PI * k / corners;
            const double rad = inner > 0 && (k % 2) ? inner : r;
            const QPointF pt(c.x() + rad * std::cos(a), c.y() + rad * std::sin(a));
            if (k == 0) path.moveTo(pt);
            else path.lineTo(pt);
        }
        path.closeSubpath();
    };
    switch (markShape(mark)) {
    case MarkShape::Square: {
        const double h = r / std::sqrt(2.0);
        path.addRect(QRectF(c.x() - h, c.y() - h, 2 * h, 2 * h));
        break;
    }
    case MarkShape::Triangle: polygon(3, 0); break;
    case MarkShape::Star: polygon(5, 0.45 * r); break;
    case MarkShape::Pentagon: polygon(5, 0); break;
    }
    return path;
}

/// The width of `text` drawn with its "_x" subscripts typeset (drawTypeset).
double typesetAdvance(const QString& text, const QFont& font) {
    const QFontMetricsF fm(font), sm(subscriptFont(font));
    double w = 0;
    for (const plotmath::TextRun& r : plotmath::subscriptRuns(text))
        w += (r.subscript ? sm : fm).horizontalAdvance(r.text);
    return w;
}

/// Draws `text` vertically centred in `box` from its left edge, "λ_min" as λ with a smaller,
/// lowered "min" (a legend is painted text, not rich text, on screen and in every export).
void drawTypeset(QPainter& p, const QRectF& box, const QString& text) {
    const QFont font = p.font();
    const QFont sf = subscriptFont(font);
    const QFontMetricsF fm(font, p.device());
    const QFontMetricsF sm(sf, p.device());
    const double baseline = box.center().y() + (fm.ascent() - fm.descent()) / 2;
    double x = box.left();
    for (const plotmath::TextRun& r : plotmath::subscriptRuns(text)) {
        p.setFont(r.subscript ? sf : font);
        const double y = r.subscript ? baseline + 0.3 * sm.ascent() : baseline;
        p.drawText(QPointF(x, y), r.text);
        x += (r.subscript ? sm : fm).horizontalAdvance(r.text);
    }
    p.setFont(font);
}

LegendLayout layoutLegend(const QList<plotmath::LegendEntry>& entries, const QFont& font,
                          double width) {
    LegendLayout out;
    if (entries.isEmpty()) return out;
    const QFontMetricsF fm(font);
    const double rowH = std::max(fm.height(), 12.0) + kRowGap;
    const double maxText = std::max(20.0, width - kGlyph - kGap);
    double x = 0, y = 0;
    for (const auto& e : entries) {
        QString text = e.name;
        if (e.offScale) text += QCoreApplication::translate("PlotLegend", " (off scale)");
        // Typeset text is no wider than its plain form: elide by the plain width.
        if (fm.horizontalAdvance(text) > maxText)
            text = plotmath::elideAtWords(text, fm, maxText, Qt::ElideMiddle);
        const double w = kGlyph + kGap + typesetAdvance(text, font);
        if (x > 0 && x + w > width) {
            x = 0;
            y += rowH;
        }
        out.boxes << QRectF(x, y, w, rowH - kRowGap);
        out.texts << text;
        x += w + kSpacing;
    }
    out.height = y + rowH;
    return out;
}

void paintLegend(QPainter& p, const QList<plotmath::LegendEntry>& entries,
                 const LegendLayout& layout, const QFont& font, const QPointF& origin,
                 const QColor& textColor) {
    p.save();
    p.setRenderHint(QPainter::Antialiasing);
    p.setFont(font);
    for (int i = 0; i < entries.size() && i < layout.boxes.size(); ++i) {
        const QRectF box = layout.boxes[i].translated(origin);
        drawGlyph(p, entries[i], QRectF(box.left(), box.top(), kGlyph, box.height()));
        QColor tc = textColor;
        if (entries[i].hidden || entries[i].offScale) tc.setAlphaF(0.45);
        p.setPen(tc);
        QFont f = font;
        f.setStrikeOut(entries[i].hidden);
        p.setFont(f);
        drawTypeset(p,
                    QRectF(box.left() + kGlyph + kGap, box.top(), box.width() - kGlyph - kGap,
                           box.height()),
                    layout.texts[i]);
    }
    p.restore();
}

int legendEntryAt(const LegendLayout& layout, const QPointF& pos) {
    for (int i = 0; i < layout.boxes.size(); ++i)
        if (layout.boxes[i].adjusted(-2, -1, 2, 1).contains(pos)) return i;
    return -1;
}

// ---- PlotLegendView

PlotLegendView::PlotLegendView(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
    setFixedHeight(0);
}

void PlotLegendView::setEntries(const QList<plotmath::LegendEntry>& entries) {
    if (entries == m_entries) return; // a live curve grew: the legend stays as it is
    m_entries = entries;
    relayout();
    update();
}

void PlotLegendView::setMaxHeight(int h) {
    if (h == m_maxHeight) return;
    m_maxHeight = h;
    relayout();
    update();
}

void PlotLegendView::resizeEvent(QResizeEvent* e) {
    QWidget::resizeEvent(e);
    m_inResize = true;
    relayout();
    m_inResize = false;
}

void PlotLegendView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    const QColor text = palette().color(QPalette::WindowText);
    paintLegend(p, m_entries.mid(0, m_shown), m_layout, font(), kOrigin, text);
    if (!m_moreRect.isEmpty()) {
        p.setPen(palette().color(QPalette::Link));
        p.setFont(font());
        p.drawText(m_moreRect.translated(kOrigin), Qt::AlignVCenter | Qt::AlignLeft, moreText());
    }
}

void PlotLegendView::mouseMoveEvent(QMouseEvent* e) {
    const bool hot =
        entryAt(e->position()) >= 0 || m_moreRect.translated(kOrigin).contains(e->position());
    setCursor(hot ? Qt::PointingHandCursor : Qt::ArrowCursor);
}

void PlotLegendView::mousePressEvent(QMouseEvent* e) {
    if (e->button() != Qt::LeftButton) return;
    if (m_moreRect.translated(kOrigin).contains(e->position())) {
        m_expanded = !m_expanded;
        relayout();
        update();
        return;
    }
    const int i = entryAt(e->position());
    if (i >= 0 && onToggle) onToggle(m_entries[i].group);
}

bool PlotLegendView::event(QEvent* e) {
    if (e->type() == QEvent::ToolTip) {
        const auto* he = static_cast<QHelpEvent*>(e);
        if (m_moreRect.translated(kOrigin).contains(he->pos()) && !m_expanded) {
            QStringList rest;
            for (int i = m_shown; i < m_entries.size(); ++i) rest << m_entries[i].name;
            QToolTip::showText(he->globalPos(), rest.join(u'\n'), this);
            return true;
        }
        const int i = entryAt(he->pos());
        if (i < 0) {
            QToolTip::hideText();
            return true;
        }
        const auto& en = m_entries[i];
        QString tip = en.name;
        if (en.offScale) tip += tr("\nOff scale: no point of it lies inside the axes shown.");
        tip += en.hidden ? tr("\nHidden: click to show it.") : tr("\nClick to hide it.");
        QToolTip::showText(he->globalPos(), tip, this);
        return true;
    }
    return QWidget::event(e);
}

QString PlotLegendView::moreText() const {
    return m_expanded ? tr("▴ fewer")
                      : tr("▾ %n more (click to show all)", nullptr,
                           static_cast<int>(m_entries.size()) - m_shown);
}

void PlotLegendView::relayout() {
    const double width = std::max(60, this->width() - 12);
    m_layout = layoutLegend(m_entries, font(), width);
    m_shown = static_cast<int>(m_entries.size());
    m_moreRect = {};
    const double rowH = QFontMetricsF(font()).height() + 2;
    if (m_maxHeight > 0 && m_layout.height + 4 > m_maxHeight) {
        if (!m_expanded) {
            // Whole rows that fit above one "+N more" row (at least one row of entries).
            const double limit = std::max(rowH, m_maxHeight - 4 - rowH);
            int k = 0;
            while (k < m_layout.boxes.size() && m_layout.boxes[k].bottom() <= limit + 0.5) ++k;
            m_shown = std::max(1, k);
            m_layout = layoutLegend(m_entries.mid(0, m_shown), font(), width);
        }
        m_moreRect = QRectF(0, m_layout.height, width, rowH);
    }
    const double total = m_layout.height + m_moreRect.height();
    const int h = m_entries.isEmpty() ? 0 : static_cast<int>(std::ceil(total)) + 4;
    if (height() == h) return;
    setFixedHeight(h);
    // The widgets below (the plot's note) move now, not at the layout's posted request: in
    // between, a legend grown by a live run was drawn over the note (seen at x2 on a busy
    // machine). Not from resizeEvent(): the layout that resized it is still placing widgets.
    if (!m_inResize)
        if (QWidget* p = parentWidget(); p && p->layout()) p->layout()->activate();
}

} // namespace mhla::ui
