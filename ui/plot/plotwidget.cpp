#include "ui/plot/plotwidget.h"
#include "core/base/plural.h"
#include "core/records/csvtable.h"
#include "ui/plot/chartbuild.h"
#include "ui/plot/elidedlabel.h"
#include "ui/plot/plotlegend.h"
#include "ui/plot/theme.h"
#include <QApplication>
#include <QAreaSeries>
#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QFontMetricsF>
#include <QGraphicsLayout>
#include <QGraphicsScene>
#include <QHBoxLayout>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QMenu>
#include <QMouseEvent>
#include <QPainter>
#include <QResizeEvent>
#include <QRubberBand>
#include <QScatterSeries>
#include <QTextDocument>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>
#include <QValueAxis>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>

namespace mhla::ui {

namespace {

/// The width of the chart beside its title (the chart's margins and its layout's, left and
/// right).
constexpr int kChartSideMargins = 40;

} // namespace

using namespace plotmath;
using chartbuild::kScreenTitlePt;
using chartbuild::kTickLabelPt;
using chartbuild::xTicksThatFit;

PlotWidget::PlotWidget(const QString& figureName, QWidget* parent)
    : QWidget(parent), m_name(figureName) {
    setObjectName(figureName + QStringLiteral("Plot"));
    auto* lay = new QVBoxLayout(this);
    lay->setContentsMargins(0, 0, 0, 0);
    lay->setSpacing(2);

    QToolButton* exportButton = buildToolRow(lay);

    m_chart = new QChart;
    m_view = new QChartView(m_chart, this);
    m_view->setRenderHint(QPainter::Antialiasing);
    m_view->setMinimumSize(180, 130); // small enough for a 1280×720 projector with the docks open
    m_view->viewport()->setMouseTracking(true);
    m_view->viewport()->installEventFilter(this);
    lay->addWidget(m_view, 1);
    m_legend = new PlotLegendView(this);
    m_legend->setObjectName(figureName + QStringLiteral("Legend"));
    // By value: a handler that hides a run redraws this legend, and its entries with it.
    m_legend->onToggle = [this](QString name) {
        if (m_legendClick && m_legendClick(name)) return;
        setSeriesHidden(name, !m_state.hidden.contains(name));
    };
    lay->addWidget(m_legend);
    m_rubberBand = new QRubberBand(QRubberBand::Rectangle, m_view->viewport());
    m_view->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_view, &QWidget::customContextMenuRequested, this,
            [this, exportButton](const QPoint& at) { showContextMenu(at, exportButton); });
    m_view->setToolTip(viewHelp());
    connect(m_chart, &QChart::plotAreaChanged, this, [this] { fitAxisTitles(); });
    m_noteLabel = new QLabel(this);
    m_noteLabel->setObjectName(figureName + QStringLiteral("Note"));
    m_noteLabel->setWordWrap(true);
    m_noteLabel->setTextFormat(Qt::RichText); // subscripts typeset: ‖P − P*‖_F, λ_min
    m_noteLabel->setVisible(false);
    lay->addWidget(m_noteLabel);

    deriveFonts();
    connect(m_logXButton, &QToolButton::toggled, this, &PlotWidget::setLogX);
    connect(m_logYButton, &QToolButton::toggled, this, &PlotWidget::setLogY);
    connect(m_autoButton, &QToolButton::clicked, this, [this] { setManualRange(std::nullopt); });
    connect(exportButton, &QToolButton::clicked, this, &PlotWidget::exportRequested);
    rebuild();
}

QToolButton* PlotWidget::buildToolRow(QVBoxLayout* lay) {
    auto* bar = new QHBoxLayout;
    bar->setSpacing(2);
    auto mk = [this, bar](const QString& text, const QString& tip, bool checkable) {
        auto* b = new QToolButton(this);
        b->setText(text);
        b->setToolTip(tip);
        b->setCheckable(checkable);
        b->setAutoRaise(true);
        bar->addWidget(b);
        return b;
    };
    m_logXButton = mk(tr("log x"), tr("Logarithmic x axis"), true);
    m_logYButton = mk(tr("log y"), tr("Logarithmic y axis"), true);
    // Short texts: two plots side by side must fit a 1280×720 window with the docks open.
    // "Fit" carries the hand-set ranges in its menu (its arrow): two plots side by side fit a
    // 1178-px window (what a 2560×1440 screen at scale 2 gives) with both docks open.
    m_autoButton = mk(tr("Fit"),
                      tr("Autoscale: fit the axes to the data (also: double-click the plot). "
                         "The arrow sets the axis ranges by hand."),
                      false);
    auto* fitMenu = new QMenu(m_autoButton);
    fitMenu->addAction(tr("Set the axis ranges…"), this, &PlotWidget::editAxes);
    m_autoButton->setMenu(fitMenu);
    m_autoButton->setPopupMode(QToolButton::MenuButtonPopup);
    // The title sits in this row (elided, whole in its tooltip) rather than above the chart:
    // the chart keeps that height for its axes. While the mouse is over the plot, the values
    // under it take the title's place.
    m_titleLabel = new ElidedLabel(this);
    m_titleLabel->setObjectName(m_name + QStringLiteral("Title"));
    bar->addSpacing(4);
    bar->addWidget(m_titleLabel, 1);
    m_hover = new QLabel(this);
    m_hover->setVisible(false);
    m_hover->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_hover->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred); // never widens the window
    m_hover->setObjectName(m_name + QStringLiteral("Hover"));
    bar->addSpacing(4);
    bar->addWidget(m_hover, 1);
    auto* exportButton =
        mk(tr("Export…"), tr("Export this figure as SVG, PDF, PNG and CSV"), false);
    lay->addLayout(bar);
    return exportButton;
}

void PlotWidget::showContextMenu(const QPoint& at, QToolButton* exportButton) {
    QMenu menu(this);
    auto report = [this](const QString& err) {
        setHoverText(err.isEmpty() ? tr("Copied to the clipboard") : err);
    };
    menu.addAction(tr("Copy figure"), this, [this, report] {
        report(copyFigureToClipboard(*this, m_view->size() * 2, 192));
    });
    menu.addAction(tr("Copy for a paper (one column)"), this, [this, report] {
        const PaperFigure pf(*this, PaperStyle::oneColumn());
        report(copyFigureToClipboard(pf, pf.pixelSize(300), 300));
    });
    menu.addAction(tr("Copy for a paper (two columns)"), this, [this, report] {
        const PaperFigure pf(*this, PaperStyle::twoColumns());
        report(copyFigureToClipboard(pf, pf.pixelSize(300), 300));
    });
    menu.addSeparator();
    menu.addAction(tr("Fit to the data"), this, [this] { setManualRange(std::nullopt); });
    menu.addAction(tr("Set the axis ranges…"), this, &PlotWidget::editAxes);
    menu.addAction(tr("Export… (also for a paper)"), exportButton, &QToolButton::click);
    for (QAction* a : menu.actions()) a->setEnabled(a->isSeparator() || hasData());
    menu.exec(m_view->viewport()->mapToGlobal(at));
}

PlotWidget::~PlotWidget() = default;

void PlotWidget::setTitle(const QString& t, TitleText kind) {
    m_state.title = t;
    m_state.titleText = kind;
    m_titleLabel->setTypeset(kind == TitleText::Typeset);
    placeTitle();
}

void PlotWidget::placeTitle() {
    // In the tool row when it fits there (the chart keeps that height for its axes); in a
    // narrow plot above the chart as before, where it has the whole width. Exports always
    // draw it above the chart.
    const int room = m_titleLabel->isVisible() ? m_titleLabel->width() : m_titleRoom;
    m_titleRoom = room;
    const bool inRow =
        room > 0 && m_titleLabel->fontMetrics().horizontalAdvance(m_state.title) <= room;
    m_titleLabel->setText(inRow ? m_state.title : QString());
    // Above the chart the title gets the chart's width, and a smaller font (down to 3/4) before
    // it is cut short; cut short, it is whole in the plot's tooltip.
    QFont font = m_chart->titleFont();
    font.setPointSizeF(kScreenTitlePt * m_screenScale);
    const FittedTitle fit = inRow ? FittedTitle{}
                                  : fitTitle(m_state.title, m_state.titleText, font,
                                             m_view->width() - kChartSideMargins);
    if (!inRow && m_chart->titleFont() != fit.font) m_chart->setTitleFont(fit.font);
    m_chart->setTitle(inRow ? QString() : fit.html);
    if (m_titleElided != fit.elided) {
        m_titleElided = fit.elided;
        updateViewTip();
    }
}

void PlotWidget::updateViewTip() {
    QStringList whole = m_elidedAxisTitles;
    if (m_titleElided) whole.prepend(m_state.title);
    m_view->setToolTip(whole.isEmpty() ? viewHelp()
                                       : whole.join(u'\n') + QStringLiteral("\n\n") + viewHelp());
}

void PlotWidget::setHoverText(const QString& text) {
    m_hover->setText(text);
    m_hover->setVisible(!text.isEmpty());
    m_titleLabel->setVisible(text.isEmpty());
}

void PlotWidget::setAxisTitles(const QString& x, const QString& y, TitleText kind) {
    if (x == m_state.xTitle && y == m_state.yTitle && kind == m_state.xTitleText &&
        kind == m_state.yTitleText)
        return;
    m_state.xTitle = x;
    m_state.yTitle = y;
    m_state.xTitleText = kind;
    m_state.yTitleText = kind;
    rebuild();
}

void PlotWidget::setXCategories(const QStringList& names) {
    if (names == m_state.xCategories) return;
    m_state.xCategories = names;
    rebuild();
}

void PlotWidget::setYCategories(const QStringList& names) {
    if (names == m_state.yCategories) return;
    m_state.yCategories = names;
    rebuild();
}

void PlotWidget::setSeries(const QList<PlotSeries>& series) {
    m_state.series = series;
    if (chartbuild::signatureOf(m_state) == m_signature) {
        refreshData();
    } else {
        // Other series (another run shown): the point read out under the mouse is gone.
        if (!m_hover->text().isEmpty()) setHoverText({});
        rebuild();
    }
}

void PlotWidget::setLogX(bool on) {
    if (m_state.logX == on) return;
    m_state.logX = on;
    m_state.manualRange.reset();
    {
        const QSignalBlocker b(m_logXButton);
        m_logXButton->setChecked(on);
    }
    rebuild();
}

void PlotWidget::setWholeX(bool on) {
    if (m_state.wholeX == on) return;
    m_state.wholeX = on;
    rebuild();
}

void PlotWidget::setLogY(bool on) {
    if (m_state.logY == on) return;
    m_state.logY = on;
    m_state.manualRange.reset();
    {
        const QSignalBlocker b(m_logYButton);
        m_logYButton->setChecked(on);
    }
    rebuild();
}

void PlotWidget::setManualRange(const std::optional<QRectF>& r) {
    m_state.manualRange = r;
    refreshData();
}

QRectF PlotWidget::currentRange() const {
    const Ranges& r = m_shown; // what the axes show (nice ends included)
    return QRectF(QPointF(r.x0, r.y0), QPointF(r.x1, r.y1));
}

void PlotWidget::setNote(const QString& note) {
    m_state.note = note;
    updateNote();
}

QString PlotWidget::note() const { return fullNote(); }

void PlotWidget::setEmptyNote(const QString& note) {
    if (note == m_emptyNote) return;
    m_emptyNote = note;
    updateNote();
}

void PlotWidget::clear() { setSeries({}); }

QString PlotWidget::fullNote() const {
    const Ranges r = computeRanges(m_state);
    QStringList parts;
    if (!hasData())
        parts << (m_emptyNote.isEmpty() ? tr("No data yet: run an experiment (Ctrl+R).")
                                        : m_emptyNote);
    if (!m_state.note.isEmpty()) parts << m_state.note;
    if (r.droppedLogY > 0)
        parts << tr("Values ≤ 0 (%1) cannot be shown on the log y axis (switch log y off to "
                    "see them).")
                     .arg(countOf(r.droppedLogY, tr("value"), tr("values")));
    if (r.raisedLogY > 0) {
        // Diamonds mark points only (not bars, bands or reference lines): say which.
        const qsizetype marked = belowFloorSeries(m_state).points.size();
        const QString how = marked == 0 ? QString()
                            : marked == r.raisedLogY
                                ? tr(", marked with hollow diamonds")
                                : tr(", the %1 marked with hollow diamonds")
                                      .arg(countOf(marked, tr("point"), tr("points")));
        parts << tr("Values below %1 (zero up to round-off; %2) are drawn at %1, the floor of the "
                    "log axis%3; the CSV has the exact values.")
                     .arg(logTickLabel(kLogFloor), countOf(r.raisedLogY, tr("value"), tr("values")),
                          how);
    }
    if (r.droppedLogX > 0)
        parts << tr("Points with x ≤ 0 (%1) are not shown on the log x axis.")
                     .arg(countOf(r.droppedLogX, tr("point"), tr("points")));
    return parts.join(u' ');
}

void PlotWidget::updateNote() {
    const QString n = fullNote();
    m_noteLabel->setText(typesetSubscripts(n));
    m_noteLabel->setVisible(!n.isEmpty());
}

void PlotWidget::rebuild() {
    m_chart->removeAllSeries();
    const auto axes = m_chart->axes();
    for (auto* a : axes) {
        m_chart->removeAxis(a);
        delete a;
    }
    m_xTicks = xTicksThatFit(m_view->width(), kTickLabelPt * m_screenScale);
    chartbuild::ChartLook look;
    look.dark = chartbuild::isDarkPalette(palette());
    look.screenScale = m_screenScale;
    look.widthPx = m_view->width();
    m_handles = chartbuild::populate(m_chart, m_state, look, &m_shown);
    if (const auto axes = m_chart->axes(); !axes.isEmpty())
        m_axisTitleFont = axes.first()->titleFont();
    fitAxisTitles();
    placeTitle();
    m_signature = chartbuild::signatureOf(m_state);
    updateNote();
    updateLegend();
}

void PlotWidget::refreshData() {
    if (!chartbuild::refresh(m_chart, m_handles, m_state, m_xTicks, &m_shown)) {
        rebuild();
        return;
    }
    updateNote();
    updateLegend();
}

void PlotWidget::updateLegend() { m_legend->setEntries(legendEntries()); }

QList<plotmath::LegendEntry> PlotWidget::legendEntries() const {
    return plotmath::legendEntries(m_state, m_shown);
}

void PlotWidget::setSmoothing(double weight) {
    weight = std::clamp(weight, 0.0, 0.999);
    if (m_state.smoothing == weight) return;
    m_state.smoothing = weight;
    rebuild();
}

void PlotWidget::setSeriesHidden(const QString& name, bool hidden) {
    if (hidden == m_state.hidden.contains(name)) return;
    if (hidden) m_state.hidden.insert(name);
    else m_state.hidden.remove(name);
    rebuild();
}

void PlotWidget::fitAxisTitles() {
    const QRectF area = m_chart->plotArea();
    if (m_fittingTitles || !(area.width() > 0) || !(area.height() > 0)) return;
    m_fittingTitles = true;
    QStringList whole;
    for (const Qt::Orientation o : {Qt::Horizontal, Qt::Vertical}) {
        const auto axes = m_chart->axes(o);
        if (axes.isEmpty()) continue;
        QAbstractAxis* a = axes.first();
        const bool x = o == Qt::Horizontal;
        const QString& title = x ? m_state.xTitle : m_state.yTitle;
        const FittedTitle f = fitTitle(title, x ? m_state.xTitleText : m_state.yTitleText,
                                       m_axisTitleFont, (x ? area.width() : area.height()) - 4);
        if (a->titleFont() != f.font) a->setTitleFont(f.font);
        if (a->titleText() != f.html) a->setTitleText(f.html);
        if (f.elided) whole << title;
    }
    m_elidedAxisTitles = whole;
    updateViewTip();
    m_fittingTitles = false;
}

QString PlotWidget::viewHelp() {
    return tr("Wheel: zoom · drag: zoom to a box · Shift+drag or middle drag: pan · "
              "double-click: fit to the data");
}

void PlotWidget::resizeEvent(QResizeEvent* e) {
    QWidget::resizeEvent(e);
    // The x axis's ticks are as many as fit: more or fewer when the width changed that.
    if (xTicksThatFit(m_view->width(), kTickLabelPt * m_screenScale) != m_xTicks) rebuild();
    placeTitle();
    // The legend takes at most a quarter of the plot's height (two rows at least); the chart
    // keeps the rest.
    m_legend->setMaxHeight(std::max(2 * fontMetrics().height() + 8, height() / 4));
}

void PlotWidget::deriveFonts() {
    QFont titleFont = font();
    titleFont.setBold(true);
    m_titleLabel->setFont(titleFont);
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.9); // legend and note leave the chart its height
    m_legend->setFont(small);
    m_noteLabel->setFont(small);
}

void PlotWidget::setScreenScale(double scale) {
    if (!(scale >= 1.0 && scale <= 4.0))
        throw std::invalid_argument("PlotWidget::setScreenScale: scale must be in [1, 4]");
    if (scale == m_screenScale) return;
    m_screenScale = scale;
    rebuild();
}

void PlotWidget::changeEvent(QEvent* e) {
    if (e->type() == QEvent::PaletteChange) rebuild();
    if (e->type() == QEvent::FontChange) {
        deriveFonts();
        placeTitle();
        updateLegend();
    }
    QWidget::changeEvent(e);
}

QString PlotWidget::exportTo(const QString& path, ExportFormat format, const QSize& pixelSize,
                             int dpi, const ExportMetadata& meta) const {
    return exportFigure(*this, path, format, pixelSize, dpi, meta);
}

void PlotWidget::paintFigure(QPainter& painter, const QRectF& rect) const {
    paintStyled(painter, rect, nullptr);
}

void PlotWidget::paintStyled(QPainter& painter, const QRectF& rect, const PaperStyle* paper) const {
    // A paper figure carries no UI captions: its notes belong in the paper's caption.
    const QString note = paper ? QString() : fullNote();
    // The note typeset as on screen (‖P − P*‖_F with a subscript), wrapped to the figure.
    QTextDocument noteDoc;
    QFont noteFont = QApplication::font();
    noteFont.setPointSizeF(9);
    noteDoc.setDefaultFont(noteFont);
    noteDoc.setDocumentMargin(0);
    noteDoc.setDefaultStyleSheet(
        QStringLiteral("body { color: %1; }").arg(QColor(colors::kNoteText).name()));
    noteDoc.setHtml(QStringLiteral("<body>") + typesetSubscripts(note) + QStringLiteral("</body>"));
    noteDoc.setTextWidth(rect.width() - 16);
    const double noteH = note.isEmpty() ? 0 : noteDoc.size().height() + 8;
    QGraphicsScene scene;
    auto* chart = new QChart;
    scene.addItem(chart);
    Ranges shown;
    chartbuild::ChartLook look;
    look.forExport = true;
    look.paper = paper;
    look.widthPx = rect.width();
    chartbuild::populate(chart, m_state, look, &shown);
    if (!paper && !m_state.title.isEmpty()) {
        // A small figure's title in a smaller font before it is shortened (as on screen).
        const FittedTitle fit = fitTitle(m_state.title, m_state.titleText, chart->titleFont(),
                                         rect.width() - kChartSideMargins);
        chart->setTitleFont(fit.font);
        chart->setTitle(fit.html);
    }
    QList<LegendEntry> entries = plotmath::legendEntries(m_state, shown);
    QFont legendFont = QApplication::font();
    legendFont.setPointSizeF(paper ? paper->fontPt : 9);
    const double legendInset = paper ? 4 : 12;
    const LegendLayout legend = layoutLegend(entries, legendFont, rect.width() - 2 * legendInset);
    const double legendH = entries.isEmpty() ? 0 : legend.height + 4;
    const QRectF chartRect(0, 0, rect.width(), rect.height() - noteH - legendH);
    chart->setGeometry(chartRect);
    if (chart->layout()) chart->layout()->activate();
    QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
    painter.save();
    painter.fillRect(rect, Qt::white);
    scene.render(&painter, QRectF(rect.topLeft(), chartRect.size()), chartRect);
    if (!entries.isEmpty())
        paintLegend(painter, entries, legend, legendFont,
                    QPointF(rect.left() + legendInset, rect.top() + chartRect.height()), Qt::black);
    if (!note.isEmpty()) {
        painter.translate(rect.left() + 8, rect.top() + chartRect.height() + legendH + 2);
        noteDoc.drawContents(&painter);
    }
    painter.restore();
}

PaperFigure::PaperFigure(const PlotWidget& plot, const PaperStyle& style)
    : m_plot(plot), m_style(style) {}

void PaperFigure::paintFigure(QPainter& painter, const QRectF& rect) const {
    m_plot.paintStyled(painter, rect, &m_style);
}

QSize PaperFigure::pixelSize(int dpi) const {
    return QSize(static_cast<int>(std::lround(m_style.widthInches * dpi)),
                 static_cast<int>(std::lround(m_style.heightInches * dpi)));
}

QString PlotWidget::csv() const {
    // Core's one CSV writer: 17 digits, empty cells for NaN, names quoted only when needed.
    CsvTable t({QStringLiteral("series"), QStringLiteral("x"), QStringLiteral("y")});
    for (const auto& s : m_state.series) {
        if (s.style == PlotSeries::Style::HLine) {
            if (!s.points.isEmpty())
                t.addRow(
                    {CsvTable::text(s.name), QString(), CsvTable::number(s.points.first().y())});
            continue;
        }
        const QString upper =
            s.style == PlotSeries::Style::Band ? QStringLiteral(" (upper)") : QString();
        for (const auto& p : s.points)
            t.addRow(
                {CsvTable::text(s.name + upper), CsvTable::number(p.x()), CsvTable::number(p.y())});
        for (const auto& p : s.lower)
            t.addRow({CsvTable::text(s.name + QStringLiteral(" (lower)")), CsvTable::number(p.x()),
                      CsvTable::number(p.y())});
    }
    return QString::fromUtf8(t.bytes());
}

bool PlotWidget::hasData() const {
    for (const auto& s : m_state.series)
        if (!s.points.isEmpty()) return true;
    return false;
}

} // namespace mhla::ui
