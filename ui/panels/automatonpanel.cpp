#include "ui/panels/automatonpanel.h"
#include "core/records/csvtable.h"
#include "ui/panels/explanations.h"
#include "ui/plot/plotwidget.h"
#include "ui/plot/theme.h"
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

namespace mhla::ui {

namespace {
QString letterName(int a) {
    return a < 26 ? QString(QChar(u'a' + a)) : QStringLiteral("a%1").arg(a);
}
QString stateName(int q) { return QStringLiteral("q%1").arg(q); }
} // namespace

AutomatonPanel::AutomatonPanel(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("automatonPanel"));
    auto* lay = new QVBoxLayout(this);
    lay->addWidget(explain::makeHelpBox(explain::automaton(), this));
    m_summary = new QLabel(this);
    m_summary->setObjectName(QStringLiteral("automatonSummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextFormat(Qt::RichText);
    lay->addWidget(m_summary);
    auto* split = new QSplitter(Qt::Horizontal, this);
    m_table = new QTableWidget(split);
    m_table->setObjectName(QStringLiteral("dfaTable"));
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setToolTip(tr("δ(q, a): the next state from state q (row) on letter a (column)"));
    m_trace = new QTableWidget(split);
    m_trace->setObjectName(QStringLiteral("traceTable"));
    m_trace->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_trace->setToolTip(tr("One column per step; wrong predictions are highlighted"));
    split->addWidget(m_table);
    split->addWidget(m_trace);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 3);
    auto* vsplit = new QSplitter(Qt::Vertical, this);
    vsplit->addWidget(split);
    m_plot = new PlotWidget(QStringLiteral("automaton_states"), vsplit);
    m_plot->setMinimumHeight(120);
    vsplit->addWidget(m_plot);
    vsplit->setStretchFactor(0, 1);
    vsplit->setStretchFactor(1, 1);
    m_tables = vsplit;
    lay->addWidget(vsplit, 1);
    // Without an automaton result the tables and the plot are hidden: the text above says what
    // they show.
    m_filler = new QWidget(this);
    lay->addWidget(m_filler, 1);
    showRun(nullptr);
}

QList<ExportTable> AutomatonPanel::tables() const {
    if (m_csv.isEmpty()) return {};
    return {ExportTable{QStringLiteral("automaton_trace"), tr("Automaton execution trace"), m_csv}};
}

QList<const Figure*> AutomatonPanel::figures() const {
    if (!m_plot->hasData()) return {};
    return {m_plot};
}

void AutomatonPanel::showRun(const RunRecord* run) {
    m_plot->clear();
    m_table->clear();
    m_trace->clear();
    m_table->setRowCount(0);
    m_table->setColumnCount(0);
    m_trace->setRowCount(0);
    m_trace->setColumnCount(0);
    m_csv.clear();
    const bool has = run && run->result && run->result->execution;
    m_tables->setVisible(has);
    m_filler->setVisible(!has);
    if (!has) return showNoExecution(run);
    const ExecutionResult& e = *run->result->execution;
    m_summary->setText(
        tr("<b>%1</b> — %2 words of length %3 on fresh random DFAs. Learned model: step accuracy <b>%4%</b>, "
           "whole-word accuracy <b>%5%</b>. Teacher: step <b>%6%</b>, word <b>%7%</b>.")
            .arg(run->name.toHtmlEscaped())
            .arg(e.words)
            .arg(e.wordLength)
            .arg(100 * e.stepAccuracy, 0, 'f', 1)
            .arg(100 * e.wordAccuracy, 0, 'f', 1)
            .arg(100 * e.teacherStepAccuracy, 0, 'f', 1)
            .arg(100 * e.teacherWordAccuracy, 0, 'f', 1));
    const Dfa& dfa = e.exampleDfa;
    if (dfa.states == 0) {
        // A run read back from a results folder: the accuracies are stored, the example word
        // is not.
        m_tables->setVisible(false);
        m_filler->setVisible(true);
        m_summary->setText(m_summary->text() +
                           tr("<p>The example word is not stored in a results folder; run the "
                              "experiment again to see its execution step by step.</p>"));
        return;
    }
    const QStringList rows = fillTransitionTable(dfa);
    showTrace(run, e, rows);
}

void AutomatonPanel::showNoExecution(const RunRecord* run) {
    const QString what =
        tr("<p>This tab is for the <b>automaton task</b>: a learned model executes a random "
           "finite automaton (DFA) given as a table in its prompt. It shows the example "
           "DFA's transition table δ(q, a) and one word step by step — the true state after "
           "each letter beside the learned model's and the teacher's, wrong steps marked — "
           "with the step and whole-word accuracies.</p>");
    m_summary->setText(
        run && run->result
            ? tr("<p><b>%1</b> is not an automaton run (task: %2), so there is nothing to "
                 "show here.</p>")
                      .arg(run->name.toHtmlEscaped(), toString(run->config.task.kind)) +
                  what +
                  tr("<p>Choose the “Executing an automaton” preset (Run ▸ Presets) or the "
                     "automaton task, then Run.</p>")
            : tr("<p>No automaton result yet.</p>") + what);
}

QStringList AutomatonPanel::fillTransitionTable(const Dfa& dfa) {
    m_table->setRowCount(dfa.states);
    m_table->setColumnCount(dfa.alphabet);
    QStringList rows, cols;
    for (int q = 0; q < dfa.states; ++q) rows << stateName(q);
    for (int a = 0; a < dfa.alphabet; ++a) cols << letterName(a);
    m_table->setVerticalHeaderLabels(rows);
    m_table->setHorizontalHeaderLabels(cols);
    for (int q = 0; q < dfa.states; ++q)
        for (int a = 0; a < dfa.alphabet; ++a) {
            auto* it = new QTableWidgetItem(stateName(dfa.delta(q, a)));
            it->setTextAlignment(Qt::AlignCenter);
            m_table->setItem(q, a, it);
        }
    m_table->resizeColumnsToContents();

    return rows;
}

void AutomatonPanel::showTrace(const RunRecord* run, const ExecutionResult& e,
                               const QStringList& rows) {
    const int L = static_cast<int>(e.exampleWord.size());
    m_trace->setRowCount(4);
    m_trace->setColumnCount(L + 1);
    m_trace->setVerticalHeaderLabels(
        {tr("letter"), tr("true state"), tr("learned"), tr("teacher")});
    QStringList steps;
    for (int t = 0; t <= L; ++t) steps << QString::number(t);
    m_trace->setHorizontalHeaderLabels(steps);
    QColor bad = colors::kError, good = colors::kGood;
    bad.setAlpha(120);
    good.setAlpha(50);
    auto stateAt = [](const std::vector<int>& v, int t) {
        return t < static_cast<int>(v.size()) ? v[t] : -1;
    };
    // The traces list the state after each step; with L+1 entries the first is the start state.
    const bool withStart = static_cast<int>(e.exampleTrueStates.size()) == L + 1;
    CsvTable csv({QStringLiteral("step"), QStringLiteral("letter"), QStringLiteral("true_state"),
                  QStringLiteral("learned_state"), QStringLiteral("teacher_state")});
    PlotSeries trueS, learnedS, teacherS, wrongS;
    trueS.name = tr("true state");
    trueS.color = colors::kTrueState;
    trueS.style = PlotSeries::Style::LineMarkers;
    trueS.width = 1.5;
    learnedS.name = tr("learned");
    learnedS.color = run->color;
    learnedS.style = PlotSeries::Style::Markers;
    teacherS.name = tr("teacher");
    teacherS.color = colors::kTeacher;
    teacherS.style = PlotSeries::Style::Triangles;
    wrongS.name = tr("learned, wrong");
    wrongS.color = colors::kError;
    wrongS.style = PlotSeries::Style::Triangles;
    for (int t = 0; t <= L; ++t) {
        const int idx = withStart ? t : t - 1;
        if (t >= 1) m_trace->setItem(0, t, new QTableWidgetItem(letterName(e.exampleWord[t - 1])));
        const int truth = idx >= 0 ? stateAt(e.exampleTrueStates, idx) : 0;
        const int learned = idx >= 0 ? stateAt(e.examplePredicted, idx) : 0;
        const int teacher = idx >= 0 ? stateAt(e.exampleTeacherPredicted, idx) : 0;
        m_trace->setItem(1, t, new QTableWidgetItem(truth >= 0 ? stateName(truth) : QString()));
        auto* li = new QTableWidgetItem(learned >= 0 ? stateName(learned) : QString());
        auto* ti = new QTableWidgetItem(teacher >= 0 ? stateName(teacher) : QString());
        if (t > 0) {
            li->setBackground(learned == truth ? good : bad);
            ti->setBackground(teacher == truth ? good : bad);
            if (learned != truth)
                li->setToolTip(
                    tr("wrong: predicted %1, true %2").arg(stateName(learned), stateName(truth)));
            if (teacher != truth)
                ti->setToolTip(
                    tr("wrong: predicted %1, true %2").arg(stateName(teacher), stateName(truth)));
        }
        m_trace->setItem(2, t, li);
        m_trace->setItem(3, t, ti);
        if (truth >= 0) trueS.points << QPointF(t, truth);
        if (teacher >= 0) teacherS.points << QPointF(t, teacher);
        if (learned >= 0)
            (t > 0 && learned != truth ? wrongS : learnedS).points << QPointF(t, learned);
        csv.addRow({CsvTable::integer(t),
                    CsvTable::text(t >= 1 ? letterName(e.exampleWord[t - 1]) : QString()),
                    CsvTable::integer(truth), CsvTable::integer(learned),
                    CsvTable::integer(teacher)});
    }
    m_csv = QString::fromUtf8(csv.bytes());
    for (int r = 0; r < 4; ++r)
        for (int t = 0; t <= L; ++t)
            if (auto* it = m_trace->item(r, t)) it->setTextAlignment(Qt::AlignCenter);
    m_trace->resizeColumnsToContents();
    const int wrong = static_cast<int>(wrongS.points.size());
    m_plot->setTitle(
        tr("Automaton execution: state per step (%1 wrong of %2 learned steps)").arg(wrong).arg(L));
    m_plot->setAxisTitles(tr("step"), tr("state"));
    m_plot->setYCategories(rows); // q0..q(s-1) at 0..s-1, never -0.5 or 1.5
    m_plot->setNote(tr("the example word (length %1) on a fresh random DFA; step 0 is the start "
                       "state; orange-red triangles: the learned model's wrong steps")
                        .arg(L));
    m_plot->setSeries({trueS, teacherS, learnedS, wrongS});
}

} // namespace mhla::ui
