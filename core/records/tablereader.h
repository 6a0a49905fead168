#pragma once
// Internal to records/: how the results-folder reader fails (ReadError, whose message names the
// file, the line and the column) and reads the CSV files core's CsvTable writes (CsvReader: a
// fixed header, cells read by column with the same conventions: empty = NaN, RFC 4180 quoting).
#include <QByteArray>
#include <QString>
#include <QStringList>
#include <stdexcept>
#include <vector>

namespace mhla::records {

/// A file of a results folder or session that cannot be read; caught by the readers' callers.
struct ReadError : std::runtime_error {
    explicit ReadError(const QString& m);
};

/// One CSV file with a fixed header; cells are read by column.
class CsvReader {
public:
    /// `maxRows` (data rows) is checked on the raw bytes, before any line is split.
    CsvReader(QString file, const QByteArray& bytes, const QStringList& header, long long maxRows,
              const QString& why);

    const QString& file() const { return m_file; }
    qsizetype rows() const { return static_cast<qsizetype>(m_rows.size()); }
    int line(qsizetype row) const { return static_cast<int>(row) + 2; }
    const QString& cell(qsizetype row, int col) const { return m_rows[row][col]; }

    [[noreturn]] void fail(qsizetype row, int col, const QString& what) const;
    /// A number; an empty cell is how non-finite values are written and reads as NaN.
    [[nodiscard]] double real(qsizetype row, int col) const;
    [[nodiscard]] long long integer(qsizetype row, int col, long long min, long long max) const;
    [[nodiscard]] QString choice(qsizetype row, int col, const QStringList& allowed) const;

private:
    QStringList split(const QString& line, int lineNo) const;

    QString m_file;
    QStringList m_header;
    std::vector<QStringList> m_rows;
};

} // namespace mhla::records
