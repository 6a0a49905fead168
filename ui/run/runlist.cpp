#include "ui/run/runlist.h"
#include "ui/plot/colormap.h"
#include "ui/plot/plotlegend.h"
#include <QDateTime>
#include <QDir>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QMenu>
#include <QMessageBox>
#include <QPainter>
#include <QPixmap>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <algorithm>

namespace mhla::ui {

namespace {
/// The run's colour, with its mark (PlotSeries::mark) in white when it shares the colour.
QIcon swatch(const QColor& c, int mark) {
    QPixmap pm(14, 14);
    pm.fill(Qt::transparent);
    QPainter p(&pm);
    p.setRenderHint(QPainter::Antialiasing);
    p.setBrush(c);
    p.setPen(c.darker(150));
    p.drawRoundedRect(QRectF(1, 1, 12, 12), 3, 3);
    if (mark > 0) {
        p.setBrush(Qt::white);
        p.setPen(Qt::NoPen);
        p.drawPath(markPath(mark, QPointF(7, 7), 4.5));
    }
    return QIcon(pm);
}
} // namespace

namespace {
QString clock(qint64 ms) {
    const qint64 s = (ms + 500) / 1000;
    if (s < 3600) return QStringLiteral("%1:%2").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'));
    return QStringLiteral("%1:%2:%3")
        .arg(s / 3600)
        .arg((s / 60) % 60, 2, 10, QLatin1Char('0'))
        .arg(s % 60, 2, 10, QLatin1Char('0'));
}
} // namespace

void RunRecord::setPaused(bool on, qint64 nowMs) {
    if (on == paused) return;
    paused = on;
    if (on) pausedSinceMs = nowMs;
    else if (pausedSinceMs >= 0) {
        // A run that ended while paused resumes after its end: the pause ended with it.
        const qint64 until = endedMs >= startedMs && startedMs >= 0 ? endedMs : nowMs;
        pausedMs += std::max<qint64>(0, until - pausedSinceMs);
        pausedSinceMs = -1;
    }
}

qint64 RunRecord::runningMs(qint64 nowMs) const {
    if (startedMs < 0) return 0;
    const qint64 end = endedMs >= startedMs ? endedMs : nowMs;
    qint64 away = pausedMs;
    if (paused && pausedSinceMs >= 0) away += std::max<qint64>(0, end - pausedSinceMs);
    return std::max<qint64>(0, end - startedMs - away);
}

QString RunRecord::timeText(qint64 nowMs) const {
    if (startedMs < 0) return {};
    const qint64 elapsed = runningMs(nowMs);
    if (fraction < 0.02 || elapsed < 1000) return clock(elapsed);
    const double left = elapsed * (1 - fraction) / fraction;
    return RunList::tr("%1, ~%2 left").arg(clock(elapsed), clock(static_cast<qint64>(left)));
}

QString RunRecord::stateText() const {
    const QString took =
        startedMs >= 0 && endedMs >= startedMs
            ? QStringLiteral(" · %1 s").arg(QString::number(runningMs(endedMs) / 1000.0, 'f', 1))
            : QString();
    switch (state) {
    case State::Queued: return RunList::tr("queued");
    case State::Running: {
        // Paused: no remaining time (the clock runs, the training does not).
        if (paused) return RunList::tr("paused at %1%").arg(qRound(fraction * 100));
        const QString t = timeText(QDateTime::currentMSecsSinceEpoch());
        return t.isEmpty() ? RunList::tr("running %1%").arg(qRound(fraction * 100))
                           : RunList::tr("running %1% · %2").arg(qRound(fraction * 100)).arg(t);
    }
    case State::Finished: {
        const QString done = loadedFrom.isEmpty() ? RunList::tr("done") : RunList::tr("loaded");
        if (result && result->certificate.certified)
            return RunList::tr("%1 · certified").arg(done) + took;
        if (result) return RunList::tr("%1 · not certified").arg(done) + took;
        return done + took;
    }
    case State::Failed: return RunList::tr("failed: %1").arg(message);
    case State::Cancelled:
        // Queued, then the batch was stopped: it never ran, which is not the same as a run
        // stopped part-way (whose curves so far are kept).
        return startedMs < 0 ? RunList::tr("not started") : RunList::tr("stopped");
    }
    return {};
}

RunList::RunList(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("runList"));
    auto* lay = new QVBoxLayout(this);
    lay->setContentsMargins(4, 4, 4, 4);
    m_tree = new QTreeWidget(this);
    m_tree->setObjectName(QStringLiteral("runTree"));
    m_tree->setColumnCount(2);
    m_tree->setHeaderLabels({tr("Run"), tr("State")});
    m_tree->headerItem()->setToolTip(
        0, tr("Tick to show in the overlay plots, double-click to rename"));
    m_tree->setRootIsDecorated(false);
    m_tree->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_tree->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    m_tree->setToolTip(
        tr("Every run of this session. The tick shows or hides a run in the overlay plots; "
           "the selected run is shown in the Certificate, Heads and Automaton tabs."));
    lay->addWidget(m_tree);
    auto* row = new QHBoxLayout;
    auto* removeButton = new QPushButton(tr("Remove"), this);
    removeButton->setObjectName(QStringLiteral("removeRunButton"));
    auto* clearButton = new QPushButton(tr("Clear all"), this);
    clearButton->setObjectName(QStringLiteral("clearRunsButton"));
    row->addWidget(removeButton);
    row->addWidget(clearButton);
    row->addStretch(1);
    lay->addLayout(row);

    connect(removeButton, &QPushButton::clicked, this, [this] {
        if (auto* it = m_tree->currentItem()) remove(it->data(0, Qt::UserRole).toInt());
    });
    connect(clearButton, &QPushButton::clicked, this, [this] {
        if (m_runs.empty()) return;
        // Runs are not saved anywhere: ask before dropping them.
        if (QMessageBox::question(
                this, tr("Clear all runs?"),
                count() == 1 ? tr("Remove the 1 run and its results? Export it first (File ▸ "
                                  "Export all) to keep it.")
                             : tr("Remove all %n runs and their results? Export them first "
                                  "(File ▸ Export all) to keep them.",
                                  nullptr, count()),
                QMessageBox::Yes | QMessageBox::Cancel, QMessageBox::Cancel) == QMessageBox::Yes)
            clear();
    });
    connect(m_tree, &QTreeWidget::itemChanged, this, [this](QTreeWidgetItem* it, int col) {
        if (m_updating || col != 0) return;
        RunRecord* r = find(it->data(0, Qt::UserRole).toInt());
        if (!r) return;
        const bool visible = it->checkState(0) == Qt::Checked;
        if (it->text(0) != r->name) {
            const QString err = rename(r->id, it->text(0));
            if (!err.isEmpty()) Q_EMIT renameRefused(err);
        }
        if (visible != r->visible) setRunVisible(r->id, visible);
    });
    m_tree->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed);
    m_tree->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_tree, &QWidget::customContextMenuRequested, this, [this](const QPoint& pos) {
        QTreeWidgetItem* it = m_tree->itemAt(pos);
        if (!it) return;
        const int id = it->data(0, Qt::UserRole).toInt();
        const RunRecord* r = find(id);
        if (!r) return;
        QMenu menu(this);
        menu.addAction(tr("Rename…"), this, [this, id] { editName(id); })
            ->setShortcut(QKeySequence(Qt::Key_F2));
        menu.addAction(r->visible ? tr("Hide in the plots") : tr("Show in the plots"), this,
                       [this, id, v = r->visible] { setRunVisible(id, !v); });
        menu.addAction(tr("Remove"), this, [this, id] { remove(id); });
        menu.exec(m_tree->viewport()->mapToGlobal(pos));
    });
    connect(m_tree, &QTreeWidget::currentItemChanged, this, [this] {
        if (!m_updating) Q_EMIT currentChanged();
    });
}

RunList::~RunList() {
    // An editor still open commits when the tree goes, after the runs have: not to us.
    disconnect(m_tree, nullptr, this, nullptr);
}

RunRecord& RunList::add(const QString& name, const ExperimentConfig& cfg) {
    auto rec = std::make_unique<RunRecord>();
    rec->id = m_nextId++;
    rec->name = QStringLiteral("#%1 %2").arg(rec->id).arg(name);
    rec->config = cfg;
    RunRecord& r = *rec;
    m_runs.push_back(std::move(rec));
    m_updating = true;
    auto* it = new QTreeWidgetItem(m_tree);
    it->setData(0, Qt::UserRole, r.id);
    it->setFlags(it->flags() | Qt::ItemIsEditable | Qt::ItemIsUserCheckable);
    it->setCheckState(0, Qt::Checked);
    m_updating = false;
    recolor();
    refresh(r.id);
    Q_EMIT runsChanged();
    return r;
}

RunRecord* RunList::find(int id) {
    for (auto& r : m_runs)
        if (r->id == id) return r.get();
    return nullptr;
}

const RunRecord* RunList::find(int id) const {
    for (const auto& r : m_runs)
        if (r->id == id) return r.get();
    return nullptr;
}

QList<const RunRecord*> RunList::visibleRuns() const {
    QList<const RunRecord*> out;
    for (const auto& r : m_runs)
        if (r->visible) out << r.get();
    return out;
}

QList<const RunRecord*> RunList::allRuns() const {
    QList<const RunRecord*> out;
    for (const auto& r : m_runs) out << r.get();
    return out;
}

const RunRecord* RunList::current() const {
    if (auto* it = m_tree->currentItem())
        if (const RunRecord* r = find(it->data(0, Qt::UserRole).toInt())) return r;
    for (auto it = m_runs.rbegin(); it != m_runs.rend(); ++it)
        if ((*it)->result) return it->get();
    return m_runs.empty() ? nullptr : m_runs.back().get();
}

void RunList::select(int id) {
    if (auto* it = itemFor(id)) m_tree->setCurrentItem(it);
}

QTreeWidgetItem* RunList::itemFor(int id) const {
    for (int i = 0; i < m_tree->topLevelItemCount(); ++i)
        if (m_tree->topLevelItem(i)->data(0, Qt::UserRole).toInt() == id)
            return m_tree->topLevelItem(i);
    return nullptr;
}

void RunList::remove(int id) {
    delete itemFor(id);
    std::erase_if(m_runs, [id](const auto& r) { return r->id == id; });
    recolor();
    Q_EMIT runsChanged();
    Q_EMIT currentChanged();
}

void RunList::clear() {
    m_updating = true;
    m_tree->clear();
    m_updating = false;
    m_runs.clear();
    m_colors.clear();
    Q_EMIT runsChanged();
    Q_EMIT currentChanged();
}

void RunList::setRunVisible(int id, bool visible) {
    RunRecord* r = find(id);
    if (!r || r->visible == visible) return;
    r->visible = visible;
    recolor();
    refresh(id);
    Q_EMIT runsChanged();
    Q_EMIT currentChanged();
}

QString RunList::rename(int id, const QString& name) {
    RunRecord* r = find(id);
    if (!r) return tr("there is no run %1").arg(id);
    const QString n = name.trimmed();
    QString err;
    if (n.isEmpty()) err = tr("A run needs a name: %1 keeps its name.").arg(r->name);
    else if (const RunRecord* other = findByName(n); other && other != r)
        err = tr("Another run is already called %1 (legends and exports tell runs apart by "
                 "name): %2 keeps its name.")
                  .arg(n, r->name);
    if (err.isEmpty() && n != r->name) {
        r->name = n;
        refresh(id);
        Q_EMIT runsChanged();
        Q_EMIT currentChanged();
        return {};
    }
    refresh(id); // the list shows the name the run has
    return err;
}

void RunList::editName(int id) {
    if (QTreeWidgetItem* it = itemFor(id)) {
        m_tree->setCurrentItem(it);
        m_tree->editItem(it, 0);
    }
}

const RunRecord* RunList::findByName(const QString& name) const {
    for (const auto& r : m_runs)
        if (r->name == name) return r.get();
    return nullptr;
}

void RunList::preferColor(int id, const QColor& c) {
    m_colors.prefer(id, c);
    recolor();
}

void RunList::recolor() {
    QList<int> onScreen;
    for (const auto& r : m_runs)
        if (r->visible) onScreen << r->id;
    const QHash<int, int> given = m_colors.assign(onScreen);
    QHash<int, int> sharing; // palette index -> visible runs with it so far (list order)
    for (auto& r : m_runs) {
        const auto it = given.constFind(r->id);
        if (it == given.constEnd()) continue; // hidden: keeps its last colour
        const QColor c = RunColorAssigner::colorOf(*it);
        const int mark = sharing[*it]++;
        if (c == r->color && mark == r->mark) continue;
        r->color = c;
        r->mark = mark;
        if (QTreeWidgetItem* item = itemFor(r->id)) {
            m_updating = true;
            item->setIcon(0, swatch(c, mark));
            m_updating = false;
        }
    }
}

void RunList::refresh(int id) {
    const RunRecord* r = find(id);
    QTreeWidgetItem* it = itemFor(id);
    if (!r || !it) return;
    m_updating = true;
    it->setText(0, r->name);
    it->setIcon(0, swatch(r->color, r->mark));
    it->setCheckState(0, r->visible ? Qt::Checked : Qt::Unchecked);
    it->setText(1, r->stateText());
    it->setToolTip(1, r->stateText());
    const TaskConfig& t = r->config.task;
    const SolverConfig& s = r->config.solver;
    it->setToolTip(0,
                   tr("%1\ntask %2, N = %3, task seed %4\nsolver %5, heads %6, solver seed %7\n"
                      "Tick to show in the overlay plots; double-click to rename.")
                           .arg(r->name, toString(t.kind))
                           .arg(t.samples)
                           .arg(t.seed)
                           .arg(toString(s.kind))
                           .arg(s.heads)
                           .arg(s.seed) +
                       (r->loadedFrom.isEmpty()
                            ? QString()
                            : tr("\nLoaded from %1").arg(QDir::toNativeSeparators(r->loadedFrom))));
    m_updating = false;
}

} // namespace mhla::ui
