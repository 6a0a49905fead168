#pragma once
// The one CSV writer of MHLA Lab: every CSV file the app writes (results folders, sweeps, and the
// data beside each exported figure or heatmap) is built as a CsvTable, so every file follows one
// dialect: a header row, numbers at 17 significant digits (they read back to the same double),
// empty cells for undefined values (NaN, infinities), text quoted only when it must be (RFC 4180),
// and data only (never a drawn position such as a log-axis floor in place of a value).
#include <QByteArray>
#include <QString>
#include <QStringList>
#include <vector>

namespace mhla {

/// A CSV table built row by row.
class CsvTable {
public:
    explicit CsvTable(QStringList columns) : m_columns(std::move(columns)) {}
    /// A number at 17 significant digits (round-trips); NaN and infinities become empty cells.
    static QString number(double v);
    static QString integer(long long v) { return QString::number(v); }
    /// A text cell, quoted (RFC 4180) when it holds a comma, a quote or a line break.
    static QString text(const QString& s);
    /// Appends a row; it must have one cell per column.
    void addRow(QStringList cells);
    const QStringList& columns() const { return m_columns; }
    qsizetype rowCount() const { return m_rows.size(); }
    QByteArray bytes() const;

private:
    QStringList m_columns;
    std::vector<QStringList> m_rows;
};

} // namespace mhla
