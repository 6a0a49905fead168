#pragma once
// Metric terms of sweep figures and verdicts (not part of the sweep's interface): "M",
// "log10(M)", "-log10(M)" or "[-]log10(M + EPS)", where M is a runs.csv metric or a swept key.
// Parsing, the axis label a reader knows, a run's value, and the checks that name what is
// allowed. sweepTermValue() and checkSweepTerm() (sweepfigure.h) are their public face.
#include "core/sweep/sweep.h"
#include <QJsonObject>
#include <QString>
#include <QStringList>

namespace mhla::sweepdetail {

struct Term {
    Term(QString b = {}, int t = 0) : base(std::move(b)), transform(t) {}
    QString base;
    int transform = 0; ///< 0 none, 1 log10, -1 -log10
    double offset = 0; ///< EPS of log10(M + EPS); 0: none
    QString offsetText;
    bool valid = true; ///< false: an EPS that is not a positive finite number
};

[[nodiscard]] Term parseTerm(const QString& text);
/// The axis label of a runs.csv metric or a swept key: the symbol a reader knows (λ_min, the
/// key table's label of a swept key); "_" before a subscript, as the plot typesets it.
[[nodiscard]] QString metricLabel(const QString& m);
/// The axis label of a term: its metric's label inside its transform.
[[nodiscard]] QString termTitle(const Term& t);
/// A term of a run: a swept key's value (strings: their position) or a runs.csv metric; NaN
/// when the run has none.
[[nodiscard]] double termValue(const Term& t, const SweepPlan& plan, const SweepRun& run,
                               const QJsonObject& result);
/// Throw ConfigError naming `where` unless `text` is a metric term of the plan, or `key` one of
/// its swept keys.
void checkTerm(const QString& text, const SweepPlan& plan, const QString& where);
void checkSweptKey(const QString& key, const SweepPlan& plan, const QString& where);

/// The learning-curve fields a curves figure can draw.
[[nodiscard]] const QStringList& historyFields();
/// The swept key's axis in the plan (-1: not swept); whether its values are all numbers.
[[nodiscard]] int axisIndex(const SweepPlan& plan, const QString& key);
[[nodiscard]] bool axisNumeric(const SweepAxis& a);
/// "task.pairs" -> "pairs"; a swept value as the legend writes it.
[[nodiscard]] QString shortKey(const QString& key);
[[nodiscard]] QString valueText(const QJsonValue& v);
/// A swept key and value as a legend names them: "p = 0.95" with the symbol that ends the key's
/// label ("Orthogonal probability p"; a numeric key whose label ends in a symbol of at most two
/// letters, "d_out" counting as "d"), else "pairs=3" with the short key.
[[nodiscard]] QString legendEntry(const QString& key, const QJsonValue& v);
/// Whether any run trains (a solver other than the exact one); the headline metric then:
/// val_mse for trainers, lambda_min for the exact solver.
[[nodiscard]] bool anyTrainer(const SweepPlan& plan);
[[nodiscard]] QString defaultMetric(const SweepPlan& plan);

} // namespace mhla::sweepdetail
