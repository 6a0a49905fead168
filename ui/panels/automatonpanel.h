#pragma once
// The automaton of the example: its transition table, the word, and the true vs predicted
// state traces (errors highlighted), with step and word accuracy.
#include "ui/panels/resultpanel.h"
#include "ui/run/runlist.h"
#include <QWidget>

class QLabel;
class QTableWidget;

namespace mhla::ui {
class PlotWidget;
}

namespace mhla::ui {

class AutomatonPanel : public QWidget, public ResultPanel {
    Q_OBJECT
public:
    explicit AutomatonPanel(QWidget* parent = nullptr);
    // ResultPanel
    QString panelId() const override { return QStringLiteral("automaton"); }
    QString tabName() const override { return tr("Automaton"); }
    QWidget* widget() override { return this; }
    void showRun(const RunRecord* run) override;
    /// The execution trace (automaton_trace.csv) when the run executed a word.
    QList<ExportTable> tables() const override;
    /// The trace as a figure ("automaton_states": true, learned and teacher state per step,
    /// the learned model's wrong steps marked).
    QList<const Figure*> figures() const override;
    /// CSV of the example (step, letter, true, learned, teacher); empty if no execution.
    QString traceCsv() const { return m_csv; }

private:
    /// showRun()'s parts: what the tab is for (no automaton result), the DFA's transition
    /// table (returns the state names, q0..), the example word step by step (table, CSV, plot).
    void showNoExecution(const RunRecord* run);
    QStringList fillTransitionTable(const Dfa& dfa);
    void showTrace(const RunRecord* run, const ExecutionResult& e, const QStringList& rows);
    QLabel* m_summary = nullptr;
    QTableWidget* m_table = nullptr;
    QTableWidget* m_trace = nullptr;
    PlotWidget* m_plot = nullptr;
    QWidget* m_tables = nullptr; ///< the two tables, hidden without an automaton result
    QWidget* m_filler = nullptr;
    QString m_csv;
};

} // namespace mhla::ui
