#include "core/records/tablereader.h"
#include "core/base/process.h"
#include "core/base/text.h"
#include <cmath>
#include <limits>

namespace mhla::records {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
} // namespace

ReadError::ReadError(const QString& m)
    : std::runtime_error(escapeControlCharacters(m).toStdString()) {}

CsvReader::CsvReader(QString file, const QByteArray& bytes, const QStringList& header,
                     long long maxRows, const QString& why)
    : m_file(std::move(file)) {
    const long long lineCount = bytes.count('\n') + (bytes.endsWith('\n') ? 0 : 1);
    if (lineCount - 1 > maxRows)
        throw ReadError(q("%1: %2 rows; %3 allows at most %4")
                            .arg(m_file)
                            .arg(lineCount - 1)
                            .arg(why)
                            .arg(maxRows));
    const QString text = QString::fromUtf8(bytes);
    QStringList lines = text.split(QLatin1Char('\n'));
    if (!lines.isEmpty() && lines.last().isEmpty()) lines.removeLast();
    if (lines.isEmpty())
        throw ReadError(q("%1 line 1: empty file (expected the header \"%2\")")
                            .arg(m_file, header.join(QLatin1Char(','))));
    for (int i = 0; i < lines.size(); ++i) {
        QString line = lines[i];
        if (line.endsWith(QLatin1Char('\r'))) line.chop(1);
        const QStringList cells = split(line, i + 1);
        if (i == 0) {
            if (cells != header)
                throw ReadError(q("%1 line 1: header \"%2\"; expected \"%3\"")
                                    .arg(m_file, line, header.join(QLatin1Char(','))));
            continue;
        }
        if (cells.size() != header.size())
            throw ReadError(q("%1 line %2: %3 cells; expected %4 (%5)")
                                .arg(m_file)
                                .arg(i + 1)
                                .arg(cells.size())
                                .arg(header.size())
                                .arg(header.join(QLatin1Char(','))));
        m_rows.push_back(cells);
    }
    m_header = header;
}

void CsvReader::fail(qsizetype row, int col, const QString& what) const {
    throw ReadError(
        q("%1 line %2, column \"%3\": %4").arg(m_file).arg(line(row)).arg(m_header[col], what));
}

double CsvReader::real(qsizetype row, int col) const {
    const QString& s = cell(row, col);
    if (s.isEmpty()) return kNaN;
    bool ok = false;
    const double v = s.toDouble(&ok);
    if (!ok || !std::isfinite(v))
        fail(row, col,
             q("\"%1\" is not a number (expected a finite number or an empty cell)").arg(s));
    return v;
}

long long CsvReader::integer(qsizetype row, int col, long long min, long long max) const {
    const QString& s = cell(row, col);
    bool ok = false;
    const long long v = s.toLongLong(&ok);
    if (!ok || v < min || v > max)
        fail(row, col, q("\"%1\" is not an integer in [%2, %3]").arg(s).arg(min).arg(max));
    return v;
}

QString CsvReader::choice(qsizetype row, int col, const QStringList& allowed) const {
    const QString& s = cell(row, col);
    if (!allowed.contains(s))
        fail(row, col, q("\"%1\"; expected one of %2").arg(s, allowed.join(q(", "))));
    return s;
}

QStringList CsvReader::split(const QString& line, int lineNo) const {
    QStringList out;
    QString cur;
    bool quoted = false;
    for (qsizetype i = 0; i < line.size(); ++i) {
        const QChar ch = line[i];
        if (quoted) {
            if (ch == QLatin1Char('"')) {
                if (i + 1 < line.size() && line[i + 1] == QLatin1Char('"')) {
                    cur += ch;
                    ++i;
                } else {
                    quoted = false;
                }
            } else {
                cur += ch;
            }
        } else if (ch == QLatin1Char('"') && cur.isEmpty()) {
            quoted = true;
        } else if (ch == QLatin1Char(',')) {
            out << cur;
            cur.clear();
        } else {
            cur += ch;
        }
    }
    if (quoted) throw ReadError(q("%1 line %2: unterminated quoted cell").arg(m_file).arg(lineNo));
    out << cur;
    return out;
}

} // namespace mhla::records
