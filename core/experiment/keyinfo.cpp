// What one key of the table says about itself (its allowed values, tooltip, JSON value),
// the lookups by name, the keys' help text, and the enums' names as the files spell them.
#include "core/base/text.h"
#include "core/experiment/config.h"
#include "core/experiment/keytabledetail.h"
#include <QLocale>
#include <QStringList>
#include <cmath>

namespace mhla {

namespace detail {

const KeyInfo* findKey(const QString& section, const QString& key) {
    for (const auto& k : experimentKeys())
        if (k.section == section && k.key == key) return &k;
    return nullptr;
}

QString knownKeys(const QString& section) {
    QStringList names;
    for (const auto& k : experimentKeys())
        if (k.section == section) names << k.key;
    return names.join(q(", "));
}

} // namespace detail

using detail::findKey;
using detail::kMaxExactInt;

QString numberText(double v) {
    if (std::floor(v) == v && std::abs(v) < 1e16) return QString::number(static_cast<long long>(v));
    return QString::number(v, 'g', QLocale::FloatingPointShortest);
}

QString integerLiteralProblem(const KeyInfo& k, QStringView literal) {
    // sign, digits, [. digits], [e [sign] digits]: JSON's number grammar, already checked.
    qsizetype i = 0;
    if (i < literal.size() && literal[i] == QLatin1Char('-')) ++i;
    QString digits;
    qsizetype fractionDigits = 0;
    bool inFraction = false;
    for (; i < literal.size(); ++i) {
        const QChar c = literal[i];
        if (c == QLatin1Char('.')) inFraction = true;
        else if (c.isDigit()) {
            digits += c;
            if (inFraction) ++fractionDigits;
        } else break;
    }
    long long exponent = 0;
    if (i < literal.size() && (literal[i] == QLatin1Char('e') || literal[i] == QLatin1Char('E'))) {
        bool ok = false;
        exponent = literal.mid(i + 1).toLongLong(&ok);
        if (!ok) return {}; // beyond any integer key's range: the value's own check refuses it
    }
    // value = digits × 10^(exponent − fractionDigits)
    long long shift = exponent - fractionDigits;
    while (!digits.isEmpty() && digits.front() == QLatin1Char('0')) digits.remove(0, 1);
    if (digits.isEmpty()) return {};
    for (; shift < 0; ++shift) {
        if (digits.back() != QLatin1Char('0'))
            return literal.toString() + q(" is not an integer; expected ") + k.allowed();
        digits.chop(1);
    }
    // 2^53 = 9007199254740992 has 16 digits; every larger integer is not held exactly.
    const QString limit = q("9007199254740992");
    const bool above = digits.size() + shift > limit.size() ||
                       (digits.size() + shift == limit.size() &&
                        digits + QString(static_cast<qsizetype>(shift), QLatin1Char('0')) > limit);
    if (above && k.max >= kMaxExactInt) // below that, the value's own range check refuses it
        return literal.toString() + q(" is out of range; expected ") + k.allowed() +
               q(" (a double holds every integer exactly only up to 2^53 = 9007199254740992)");
    return {};
}

QString KeyInfo::tooltipHtml() const {
    return tooltip + q("<br><i>Allowed:</i> ") + allowed().toHtmlEscaped() +
           q(". <i>Read by:</i> ") + applies.text().toHtmlEscaped() + q(". <i>Key:</i> <tt>") +
           path() + q("</tt>");
}

QString KeyInfo::allowed() const {
    switch (type) {
    case Type::Path:
        return q(
            "the path of a .npy file, or ARCHIVE.npz:NAME for an array of a .npz archive (a string)");
    case Type::Bool: return q("true or false");
    case Type::Choice: return q("one of ") + choices.join(q(", "));
    case Type::Integer:
        // Wide ranges read better as two bounds (and keep both visible).
        if (max >= 1e6)
            return q("an integer >= ") + numberText(min) + q(" and <= ") + numberText(max);
        return q("an integer in [") + numberText(min) + q(", ") + numberText(max) + q("]");
    case Type::Real:
        if (max >= 1e6 && !maxOpen)
            return q("a number ") + (minOpen ? q("> ") : q(">= ")) + numberText(min) +
                   q(" and <= ") + numberText(max);
        return q("a number in ") + (minOpen ? q("(") : q("[")) + numberText(min) + q(", ") +
               numberText(max) + (maxOpen ? q(")") : q("]"));
    }
    return {};
}

QJsonValue KeyInfo::value(const ExperimentConfig& cfg) const {
    if (type == Type::Path) return QJsonValue(getText(cfg));
    const double v = get(cfg);
    switch (type) {
    case Type::Path: break;
    case Type::Bool: return QJsonValue(v != 0.0);
    case Type::Choice: return QJsonValue(choices.value(static_cast<int>(v)));
    case Type::Integer: return QJsonValue(static_cast<qint64>(v));
    case Type::Real: return QJsonValue(v);
    }
    return {};
}

QString experimentKeysHelp() {
    const ExperimentConfig defaults;
    QString out;
    QString current;
    for (const auto& k : experimentKeys()) {
        if (k.section != current) {
            current = k.section;
            out += q("\n  ") + current + q(":\n");
        }
        const QJsonValue v = k.value(defaults);
        const QString def = v.isString() ? (v.toString().isEmpty() ? q("(none)") : v.toString())
                            : v.isBool() ? (v.toBool() ? q("true") : q("false"))
                                         : numberText(v.toDouble());
        out += q("    ") + k.path().leftJustified(22) + q(" default ") + def.leftJustified(18) +
               q(" ") + k.allowed() + q("; read by: ") + k.applies.text() + q("\n") +
               q("        ") + k.help + q("\n");
    }
    return out;
}

const KeyInfo* findExperimentKey(const QString& dottedPath) {
    const qsizetype dot = dottedPath.indexOf(QLatin1Char('.'));
    return dot < 0 ? nullptr : findKey(dottedPath.left(dot), dottedPath.mid(dot + 1));
}

QString toString(TaskKind k) { return experimentKeys()[0].choices.value(static_cast<int>(k)); }
QString toString(Embedding e) {
    return findKey(q("task"), q("embedding"))->choices.value(static_cast<int>(e));
}
QString toString(OrthogonalSampler s) {
    return findKey(q("task"), q("orthogonal_sampler"))->choices.value(static_cast<int>(s));
}
QString toString(TokenScale s) {
    return findKey(q("task"), q("token_scale"))->choices.value(static_cast<int>(s));
}
QString toString(RngKind k) {
    return findKey(q("task"), q("rng"))->choices.value(static_cast<int>(k));
}
QString toString(SolverKind k) {
    return findKey(q("solver"), q("kind"))->choices.value(static_cast<int>(k));
}
QString toString(OptimizerKind k) {
    return findKey(q("solver"), q("optimizer"))->choices.value(static_cast<int>(k));
}
QString toString(ScheduleKind k) {
    return findKey(q("solver"), q("schedule"))->choices.value(static_cast<int>(k));
}
QString toString(ExploreMode m) {
    return findKey(q("eval"), q("identifiability"))->choices.value(static_cast<int>(m));
}
QString toString(SpectrumMode m) {
    return findKey(q("eval"), q("spectrum"))->choices.value(static_cast<int>(m));
}

} // namespace mhla
