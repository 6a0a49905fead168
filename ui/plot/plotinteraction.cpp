// PlotWidget's mouse: wheel zoom, box zoom, pan, double-click to fit, and the values under the
// pointer with the nearest point. The chart itself is built in chartbuild.cpp, the widget in
// plotwidget.cpp.
#include "ui/plot/axisdialog.h"
#include "ui/plot/chartbuild.h"
#include "ui/plot/plotwidget.h"
#include <QChart>
#include <QChartView>
#include <QLabel>
#include <QMouseEvent>
#include <QRubberBand>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

namespace mhla::ui {

using namespace plotmath;
using chartbuild::filtered;
using chartbuild::fromAxis;
using chartbuild::toAxis;

QRectF PlotWidget::plotAreaInViewport() const {
    const QRectF area = m_chart->plotArea();
    return m_view->mapFromScene(m_chart->mapToScene(area)).boundingRect();
}

QPointF PlotWidget::fractionAt(const QPointF& pos) const {
    const QRectF a = plotAreaInViewport();
    if (a.width() <= 0 || a.height() <= 0) return {0.5, 0.5};
    return {(pos.x() - a.left()) / a.width(), (a.bottom() - pos.y()) / a.height()};
}

void PlotWidget::zoomAt(const QPointF& f, double factor) {
    if (!hasData()) return;
    double x0 = m_shown.x0, x1 = m_shown.x1, y0 = m_shown.y0, y1 = m_shown.y1;
    const double ax = valueAtFraction(f.x(), x0, x1, m_state.logX),
                 ay = valueAtFraction(f.y(), y0, y1, m_state.logY);
    const bool okX = zoomRange(x0, x1, ax, factor, m_state.logX);
    const bool okY = zoomRange(y0, y1, ay, factor, m_state.logY);
    if (!okX && !okY) return;
    setManualRange(QRectF(QPointF(x0, y0), QPointF(x1, y1)));
}

void PlotWidget::editAxes() {
    AxisDialog dlg(m_state.title, currentRange(), m_state.logX, m_state.logY, this);
    if (dlg.exec() == QDialog::Accepted) setManualRange(dlg.range());
}

bool PlotWidget::eventFilter(QObject* watched, QEvent* event) {
    if (watched == m_view->viewport()) {
        if (hasData() && zoomOrPan(event)) return true;
        if (event->type() == QEvent::MouseMove && !m_handles.isEmpty())
            showValuesUnder(static_cast<const QMouseEvent*>(event));
        else if (event->type() == QEvent::Leave) setHoverText({});
    }
    return QWidget::eventFilter(watched, event);
}

bool PlotWidget::zoomOrPan(QEvent* event) {
    switch (event->type()) {
    case QEvent::Wheel: {
        const auto* we = static_cast<QWheelEvent*>(event);
        if (!plotAreaInViewport().contains(we->position())) return false;
        const double steps = we->angleDelta().y() / 120.0;
        if (steps == 0) return false;
        zoomAt(fractionAt(we->position()), std::pow(0.8, steps));
        return true;
    }
    case QEvent::MouseButtonDblClick:
        if (static_cast<QMouseEvent*>(event)->button() != Qt::LeftButton) return false;
        setManualRange(std::nullopt);
        return true;
    case QEvent::MouseButtonPress: {
        const auto* me = static_cast<QMouseEvent*>(event);
        if (!plotAreaInViewport().contains(me->position())) return false;
        const bool pan =
            me->button() == Qt::MiddleButton ||
            (me->button() == Qt::LeftButton && me->modifiers().testFlag(Qt::ShiftModifier));
        if (!pan && me->button() != Qt::LeftButton) return false;
        m_drag = pan ? Drag::Pan : Drag::Zoom;
        m_pressPos = me->position().toPoint();
        m_pressRanges = m_shown;
        if (m_drag == Drag::Zoom) m_rubberBand->setGeometry(QRect(m_pressPos, QSize()));
        else m_view->viewport()->setCursor(Qt::ClosedHandCursor);
        return true;
    }
    case QEvent::MouseMove: {
        if (m_drag == Drag::None) return false;
        const auto* me = static_cast<QMouseEvent*>(event);
        if (m_drag == Drag::Zoom) {
            m_rubberBand->setGeometry(QRect(m_pressPos, me->position().toPoint()).normalized());
            m_rubberBand->show();
            return true;
        }
        const QPointF a = fractionAt(m_pressPos), b = fractionAt(me->position());
        const Ranges& r = m_pressRanges;
        double x0 = r.x0, x1 = r.x1, y0 = r.y0, y1 = r.y1;
        panRange(x0, x1, valueAtFraction(a.x(), r.x0, r.x1, m_state.logX),
                 valueAtFraction(b.x(), r.x0, r.x1, m_state.logX), m_state.logX);
        panRange(y0, y1, valueAtFraction(a.y(), r.y0, r.y1, m_state.logY),
                 valueAtFraction(b.y(), r.y0, r.y1, m_state.logY), m_state.logY);
        setManualRange(QRectF(QPointF(x0, y0), QPointF(x1, y1)));
        return true;
    }
    case QEvent::MouseButtonRelease: {
        if (m_drag == Drag::None) return false;
        const auto* me = static_cast<QMouseEvent*>(event);
        const Drag was = m_drag;
        m_drag = Drag::None;
        m_view->viewport()->unsetCursor();
        m_rubberBand->hide();
        if (was == Drag::Zoom) zoomToBox(QRect(m_pressPos, me->position().toPoint()).normalized());
        return true;
    }
    default: return false;
    }
}

void PlotWidget::zoomToBox(const QRect& box) {
    if (box.width() < 6 || box.height() < 6) return; // a click, not a box
    const QPointF a = fractionAt(box.bottomLeft()), b = fractionAt(box.topRight());
    const Ranges& r = m_shown;
    auto at = [](double f, double lo, double hi, bool log) {
        return valueAtFraction(std::clamp(f, 0.0, 1.0), lo, hi, log);
    };
    const double x0 = at(a.x(), r.x0, r.x1, m_state.logX), x1 = at(b.x(), r.x0, r.x1, m_state.logX),
                 y0 = at(a.y(), r.y0, r.y1, m_state.logY), y1 = at(b.y(), r.y0, r.y1, m_state.logY);
    if (x1 > x0 && y1 > y0) setManualRange(QRectF(QPointF(x0, y0), QPointF(x1, y1)));
}

void PlotWidget::showValuesUnder(const QMouseEvent* me) {
    const QPointF chartPos = m_chart->mapFromScene(m_view->mapToScene(me->position().toPoint()));
    if (!m_chart->plotArea().contains(chartPos)) {
        setHoverText({});
        return;
    }
    const QPointF va = m_chart->mapToValue(chartPos, m_handles.first());
    const QPointF v(fromAxis(va.x(), m_state.logX), fromAxis(va.y(), m_state.logY));
    QString text = QStringLiteral("x = %1, y = %2")
                       .arg(QString::number(v.x(), 'g', 4), QString::number(v.y(), 'g', 4));
    const QString nearest = nearestPointText(chartPos, va.x());
    if (!nearest.isEmpty()) text += QStringLiteral("   ·   ") + nearest;
    setHoverText(text);
    if (!nearest.isEmpty()) QToolTip::showText(me->globalPosition().toPoint(), nearest, m_view);
}

QString PlotWidget::nearestPointText(const QPointF& chartPos, double axisX) const {
    double best = 400; // px^2: within 20 px of the pointer
    QString nearest;
    const QList<PlotSeries> shownSeries = displayedSeries(m_state);
    for (int i = 0; i < shownSeries.size() && i < m_handles.size(); ++i) {
        const auto& s = shownSeries[i];
        if (s.style == PlotSeries::Style::HLine) {
            if (s.points.isEmpty()) continue;
            if (!usable(QPointF(1, s.points.first().y()), false, m_state.logY)) continue;
            const QPointF p = m_chart->mapToPosition(
                QPointF(axisX, toAxis(shownY(s.points.first().y(), m_state.logY), m_state.logY)),
                m_handles[i]);
            const double d2 = std::pow(p.y() - chartPos.y(), 2);
            if (d2 < best) {
                best = d2;
                nearest = QStringLiteral("%1: %2").arg(
                    s.name, QString::number(s.points.first().y(), 'g', 6));
            }
            continue;
        }
        for (const auto& q : filtered(s, m_state, m_shown)) {
            const QPointF p = m_chart->mapToPosition(q, m_handles[i]);
            const double d2 = std::pow(p.x() - chartPos.x(), 2) + std::pow(p.y() - chartPos.y(), 2);
            if (d2 < best) {
                best = d2;
                nearest = QStringLiteral("%1: (%2, %3)")
                              .arg(s.name.isEmpty() ? tr("point") : s.name,
                                   QString::number(fromAxis(q.x(), m_state.logX), 'g', 6),
                                   QString::number(fromAxis(q.y(), m_state.logY), 'g', 6));
            }
        }
    }
    return nearest;
}

} // namespace mhla::ui
