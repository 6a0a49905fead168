// The "figures" array of an experiment file: parsed, checked against the plan, completed with
// defaults (sweepfigure.h documents the format). The drawing data comes from sweepfigure.cpp.
#include "core/sweep/sweepfigure.h"
#include "core/sweep/sweepinternal.h"
#include "core/sweep/sweepterm.h"
#include <QJsonArray>
#include <QRegularExpression>

namespace mhla {

using namespace sweepdetail;

namespace {

SweepFigureSpec::Kind parseKind(const QJsonObject& o, const QString& at) {
    const QString kind = o.value(q("kind")).toString();
    if (kind == q("band")) return SweepFigureSpec::Kind::Band;
    if (kind == q("scatter")) return SweepFigureSpec::Kind::Scatter;
    if (kind == q("curves")) return SweepFigureSpec::Kind::Curves;
    fail(at + q(".kind: ") +
             (o.contains(q("kind"))
                  ? q("\"") + o.value(q("kind")).toVariant().toString() + q("\" is not allowed")
                  : q("required")) +
             q("; allowed: \"band\", \"scatter\", \"curves\""),
         at + q(".kind"));
}

/// The members a figure of this kind may have; any other is an error naming it.
void checkMembers(const QJsonObject& o, SweepFigureSpec::Kind kind, const QString& at) {
    QStringList allowed{q("kind"), q("name"), q("title"), q("x"), q("y"), q("log_x"), q("log_y")};
    if (kind != SweepFigureSpec::Kind::Scatter) allowed << q("band");
    else allowed << q("colour");
    if (kind != SweepFigureSpec::Kind::Curves) allowed << q("overlay");
    for (auto it = o.begin(); it != o.end(); ++it)
        if (!allowed.contains(it.key()))
            fail(at + q(".") + it.key() + q(": unknown member for a ") +
                     o.value(q("kind")).toString() + q(" figure; allowed: ") +
                     allowed.join(q(", ")),
                 at + q(".") + it.key());
}

SweepFigureSpec::BandKind parseBand(const QJsonValue& v, const QString& at) {
    const QString b = v.toString();
    if (b == q("quantile")) return SweepFigureSpec::BandKind::Quantile;
    if (b == q("std")) return SweepFigureSpec::BandKind::Std;
    if (b == q("minmax")) return SweepFigureSpec::BandKind::MinMax;
    if (b == q("none")) return SweepFigureSpec::BandKind::None;
    fail(at + q(".band: \"") + v.toVariant().toString() +
             q("\" is not allowed; allowed: \"quantile\", \"std\", \"minmax\", \"none\""),
         at + q(".band"));
}

/// The figure's texts, flags and band as the file gives them (types checked, not meanings).
void readMembers(const QJsonObject& o, const QString& at, SweepFigureSpec* f) {
    auto text = [&](const char* member, QString* dst) {
        if (!o.contains(q(member))) return;
        if (!o.value(q(member)).isString() || o.value(q(member)).toString().isEmpty())
            fail(at + q(".") + q(member) + q(": expected a non-empty string"),
                 at + q(".") + q(member));
        *dst = o.value(q(member)).toString();
    };
    auto flag = [&](const char* member, std::optional<bool>* dst) {
        if (!o.contains(q(member))) return;
        if (!o.value(q(member)).isBool())
            fail(at + q(".") + q(member) + q(": expected true or false"), at + q(".") + q(member));
        *dst = o.value(q(member)).toBool();
    };
    text("name", &f->name);
    text("title", &f->title);
    text("x", &f->x);
    text("y", &f->y);
    text("colour", &f->colour);
    text("overlay", &f->overlay);
    flag("log_x", &f->logX);
    flag("log_y", &f->logY);
    if (o.contains(q("band"))) f->band = parseBand(o.value(q("band")), at);
}

/// Defaults of x and y by kind, and every term and key checked against the plan.
void completeAgainstPlan(SweepFigureSpec* f, const SweepPlan& plan, const QString& at) {
    switch (f->kind) {
    case SweepFigureSpec::Kind::Band:
        if (f->y.isEmpty()) f->y = defaultMetric(plan);
        if (f->x.isEmpty()) {
            if (plan.spec.axes.empty())
                fail(at + q(": a band figure needs a swept key for x; the sweep has no grid"),
                     at + q(".x"));
            f->x = plan.spec.axes.front().key;
        }
        checkSweptKey(f->x, plan, at + q(".x"));
        checkTerm(f->y, plan, at + q(".y"));
        if (!f->overlay.isEmpty()) checkTerm(f->overlay, plan, at + q(".overlay"));
        return;
    case SweepFigureSpec::Kind::Scatter:
        if (f->x.isEmpty() || f->y.isEmpty())
            fail(at + q(": a scatter figure needs \"x\" and \"y\" (metrics)"),
                 at + (f->x.isEmpty() ? q(".x") : q(".y")));
        checkTerm(f->x, plan, at + q(".x"));
        checkTerm(f->y, plan, at + q(".y"));
        if (!f->colour.isEmpty()) checkSweptKey(f->colour, plan, at + q(".colour"));
        if (!f->overlay.isEmpty()) checkTerm(f->overlay, plan, at + q(".overlay"));
        return;
    case SweepFigureSpec::Kind::Curves:
        if (f->x.isEmpty()) f->x = q("epoch");
        if (f->y.isEmpty()) f->y = q("val_mse");
        if (f->x != q("epoch") && f->x != q("step"))
            fail(at + q(".x: \"") + f->x + q("\" is not allowed; allowed: \"epoch\", \"step\""),
                 at + q(".x"));
        if (!historyFields().contains(f->y))
            fail(at + q(".y: \"") + f->y + q("\" is not allowed; allowed: ") +
                     historyFields().join(q(", ")),
                 at + q(".y"));
        if (!anyTrainer(plan))
            fail(at + q(": curves need trainer runs (solver.kind mhla, multilayer or "
                        "softmax); this sweep runs only the exact solver"),
                 at + q(".kind"));
        return;
    }
}

/// The figure's file name: given, or "sweep_<kind>_<y>"; checked and unique among `taken`.
void settleName(SweepFigureSpec* f, const QString& kind, const QString& at,
                const QStringList& taken) {
    if (f->name.isEmpty()) {
        f->name = q("sweep_") + kind + q("_") + parseTerm(f->y).base;
        f->name.replace(QRegularExpression(q("[^A-Za-z0-9_-]")), q("_"));
    }
    static const QRegularExpression nameRe(q("^[A-Za-z0-9_-]{1,64}$"));
    if (!nameRe.match(f->name).hasMatch())
        fail(at + q(".name: \"") + f->name +
                 q("\" is not allowed; allowed: 1 to 64 letters, digits, _ and -"),
             at + q(".name"));
    if (taken.contains(f->name))
        fail(at + q(".name: \"") + f->name +
                 q("\" is used by an earlier figure; give each figure its own name"),
             at + q(".name"));
}

} // namespace

std::vector<SweepFigureSpec> defaultSweepFigures(const SweepPlan& plan) {
    std::vector<SweepFigureSpec> out;
    if (!plan.spec.axes.empty()) {
        SweepFigureSpec band;
        band.kind = SweepFigureSpec::Kind::Band;
        band.y = defaultMetric(plan);
        band.x = plan.spec.axes.front().key;
        for (const SweepAxis& a : plan.spec.axes)
            if (axisNumeric(a)) {
                band.x = a.key;
                break;
            }
        band.name = q("sweep_band_") + band.y;
        out.push_back(band);
    }
    if (anyTrainer(plan)) {
        SweepFigureSpec curves;
        curves.kind = SweepFigureSpec::Kind::Curves;
        curves.x = q("epoch");
        curves.y = q("val_mse");
        curves.name = q("sweep_curves_val_mse");
        out.push_back(curves);
    }
    return out;
}

std::vector<SweepFigureSpec> parseSweepFigures(const QJsonValue& figures, const SweepPlan& plan) {
    if (figures.isUndefined() || figures.isNull()) return defaultSweepFigures(plan);
    if (!figures.isArray())
        fail(q("figures: expected an array of figure objects [{\"kind\": \"band\", ...}]"),
             q("figures"));
    const QJsonArray arr = figures.toArray();
    if (arr.isEmpty() || arr.size() > 32)
        fail(q("figures: expected 1 to 32 figures"), q("figures"));
    std::vector<SweepFigureSpec> out;
    QStringList names;
    for (qsizetype i = 0; i < arr.size(); ++i) {
        const QString at = q("figures[") + QString::number(i) + q("]");
        if (!arr[i].isObject())
            fail(at + q(": expected an object {\"kind\": ..., \"y\": ...}"), at);
        const QJsonObject o = arr[i].toObject();
        SweepFigureSpec f;
        f.kind = parseKind(o, at);
        checkMembers(o, f.kind, at);
        readMembers(o, at, &f);
        completeAgainstPlan(&f, plan, at);
        settleName(&f, o.value(q("kind")).toString(), at, names);
        names << f.name;
        out.push_back(f);
    }
    return out;
}

} // namespace mhla
