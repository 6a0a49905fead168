#include "core/records/csvtable.h"
#include "core/base/text.h"
#include <QtGlobal>
#include <cmath>

namespace mhla {

QString CsvTable::number(double v) {
    return std::isfinite(v) ? QString::number(v, 'g', 17) : QString();
}

QString CsvTable::text(const QString& s) {
    if (!s.contains(QLatin1Char(',')) && !s.contains(QLatin1Char('"')) &&
        !s.contains(QLatin1Char('\n')) && !s.contains(QLatin1Char('\r')))
        return s;
    QString e = s;
    e.replace(q("\""), q("\"\""));
    return QLatin1Char('"') + e + QLatin1Char('"');
}

void CsvTable::addRow(QStringList cells) {
    Q_ASSERT(cells.size() == m_columns.size());
    m_rows.push_back(std::move(cells));
}

QByteArray CsvTable::bytes() const {
    QString s = m_columns.join(QLatin1Char(',')) + QLatin1Char('\n');
    for (const QStringList& row : m_rows) s += row.join(QLatin1Char(',')) + QLatin1Char('\n');
    return s.toUtf8();
}

} // namespace mhla
