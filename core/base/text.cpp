#include "core/base/text.h"

#include <QRegularExpression>

#include <cstdlib>

namespace mhla {

QString powerOfTen(int e) {
    static const char16_t digits[] = u"⁰¹²³⁴⁵⁶⁷⁸⁹";
    QString label = QStringLiteral("10");
    if (e < 0) label += QChar(u'⁻');
    for (const QChar c : QString::number(std::abs(e))) label += QChar(digits[c.digitValue()]);
    return label;
}

QString typesetNumber(const QString& text) {
    static const QRegularExpression re(QStringLiteral("^(-?[0-9.]+)[eE]([-+]?[0-9]+)$"));
    const auto m = re.match(text);
    if (!m.hasMatch()) return text;
    const QString mantissa = m.captured(1);
    const QString power = powerOfTen(m.captured(2).toInt());
    return mantissa == u"1" ? power : mantissa + QChar(u'×') + power;
}

} // namespace mhla
