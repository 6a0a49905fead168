#include "ui/panels/explanations.h"
#include <QLabel>
#include <QToolButton>
#include <QVBoxLayout>

namespace mhla::ui::explain {

QString certificate() {
    return QStringLiteral(
        "<p><b>Can the data pin the model down?</b> A multi-head linear attention model computes "
        "f(Z) = Σ<sub>h</sub> V<sub>h</sub> (Z Zᵀ) Q<sub>h</sub> z<sub>q</sub>. Every such model is <i>linear</i> in a coefficient "
        "matrix P applied to cubic features: f(Z) = P ψ(Z) with ψ(Z)<sub>(a,b),c</sub> = (ZZᵀ)<sub>ab</sub> z<sub>q,c</sub> "
        "(D = d²(d+1)/2 features).</p>"
        "<p>So fitting the data is least squares in P, and its normal equations are P Λ = C with the second moment "
        "<b>Λ = (1/N) Σ<sub>s</sub> ψ(Z<sub>s</sub>) ψ(Z<sub>s</sub>)ᵀ</b>. If its smallest eigenvalue "
        "<b>λ<sub>min</sub>(Λ) &gt; τ</b>, the solution is unique: every model that fits the data as well as possible — with any "
        "number of heads — computes <i>the same function on every input</i>. That is the certificate.</p>"
        "<p><b>Spectrum</b>: all eigenvalues of Λ, ascending, on a log axis; the dashed line is τ. Eigenvalues ≤ 0 cannot go on "
        "a log axis and are drawn as triangles at the floor. The count below τ is the null dimension: directions v with Λv ≈ 0 "
        "along which P can move without changing the training loss. "
        "<b>λ<sub>min</sub> vs samples</b>: Λ over the first k samples; the certificate appears once λ<sub>min</sub> rises above τ "
        "(at least D samples are needed). The green dashed line marks <b>certificate_samples</b>, the smallest N "
        "with λ<sub>min</sub> &gt; τ found by bisection on prefixes of the sample stream (exactly D for generic data). "
        "When the null dimension stays the same as N doubles, the note says the null space comes from the task's "
        "distribution — an exact relation among the features, named there — and more data will not fix it.</p>");
}

QString curves() {
    return QStringLiteral(
        "<p><b>Training curves</b> of gradient-trained baselines, one colour per run (tick runs in the run list to compare). "
        "Solid: training MSE = mean (ŷ − y)²; dashed: validation MSE on fresh prompts; dotted: OOD relative error "
        "E‖f̂ − f*‖² / E‖f*‖² on generic Gaussian prompts. Grey dashed horizontal lines are the exact polynomial-time solver "
        "on the same data, the target the trainers approach.</p>"
        "<p><b>Distance to the teacher</b>: ‖P̂ − P*‖<sub>F</sub> / ‖P*‖<sub>F</sub>, compared in folded coefficient space "
        "because heads themselves are only defined up to rescaling, mixing and splitting. Dashed: distance to the exact "
        "solver's P. Exact-solver runs have no epochs: their values are horizontal lines.</p>"
        "<p>Hover for values; <i>log x / log y</i> and <i>Fit</i> (its arrow: set the ranges by hand) change the "
        "view. The mouse wheel zooms, a drag zooms to a box, Shift+drag pans, a double-click fits again; a click on a "
        "legend entry hides or shows that run. <i>Smoothing</i> draws TensorBoard's moving average with the raw curve "
        "faint behind.</p>");
}

QString heads() {
    return QStringLiteral(
        "<p><b>Heads in canonical form.</b> Many sets of heads compute the same function (scale V<sub>h</sub> by c and "
        "Q<sub>h</sub> by 1/c; mix or split heads), so raw heads of two models cannot be compared. We compare "
        "W = Σ<sub>h</sub> vec(V<sub>h</sub>) vec(Q<sub>h</sub>)ᵀ = unfold(P) instead, and read heads off its SVD "
        "W = Σ<sub>r</sub> σ<sub>r</sub> u<sub>r</sub> v<sub>r</sub>ᵀ: head r is V<sub>r</sub> = reshape(√σ<sub>r</sub> u<sub>r</sub>), "
        "Q<sub>r</sub> = reshape(√σ<sub>r</sub> v<sub>r</sub>). Teacher and learned heads are both shown this way, then their "
        "difference.</p>"
        "<p>Colours: red positive, blue negative, white zero, on one scale shared by the panels of a figure (see the colour "
        "bar). <b>P and P*</b> are the folded coefficients, d_out × D. The <b>singular values</b> of unfold(P): their "
        "number above the threshold is the rank of the <i>symmetric representative</i> P that the features see, an upper "
        "bound on the heads the canonical form uses — <i>not</i> the number of heads the function needs: a 1-head "
        "teacher at d = 4 shows rank 16, because symmetrising spreads one head over many singular directions.</p>"
        "<p><b>Minimal heads</b> (the default form): W is fixed by the function only up to ker(fold), the d × d blocks "
        "that are antisymmetric in (a, b), which the features cannot see since S<sub>ab</sub> = S<sub>ba</sub>. The "
        "fewest heads, <b>min_heads</b>, is the minimum rank over unfold(P) + ker(fold): a nuclear-norm relaxation, "
        "then an exact refit of that rank (reproducing P to round-off). Its heads are shown in canonical SVD form "
        "beside the teacher's own heads (the SVD of W* = Σ<sub>h</sub> vec(V*<sub>h</sub>) vec(Q*<sub>h</sub>)ᵀ), "
        "signs aligned; the sentence above compares rank(unfold(P)) with min_heads, and the triangles in the "
        "singular-value plot are the minimal W's. A lower rank that no refit reached is evidence, not proof, that "
        "fewer heads fail.</p>");
}

QString explorer() {
    return QStringLiteral(
        "<p><b>What is left free?</b> When Λ = (1/N) Σ ψψᵀ has a null direction v (Λv = 0), every training prompt "
        "satisfies vᵀψ(Z) = 0: an exact relation among the cubic features, listed here as text "
        "(e.g. S<sub>11</sub>·z<sub>1</sub> + S<sub>22</sub>·z<sub>1</sub> − … = 0, with S = ZZᵀ and z the query). "
        "Then P(t) = P̂ + t ‖P*‖ e<sub>i</sub>vᵀ gives the same output as P̂ on every training prompt, "
        "for every t: the data cannot choose between them.</p>"
        "<p>Pick a relation and an output row i, and move t. The <b>training MSE</b> (dashed) stays at round-off; the "
        "<b>OOD error</b> on generic Gaussian prompts and the <b>distance to the teacher</b> ‖P(t) − P*‖/‖P*‖ change — "
        "the failure of identifiability made visible. All three are exact quadratics in t, computed once from the "
        "same samples as the run's metrics. The heatmaps show the top heads of P(t) in canonical form beside the "
        "teacher's. A certified run has no such direction: nothing is free.</p>"
        "<p><b>Noise</b> (when the labels are noisy): a certified fit is unique, not exact. With noise σ, "
        "E‖P̂ − P*‖² ≈ σ² d<sub>out</sub> tr(Λ⁻¹) / N and the OOD excess error is "
        "σ² d<sub>out</sub> tr(Λ⁻¹Λ<sub>ood</sub>) / N; the line gives the predicted values beside the measured ones "
        "and warns when a certified fit is predicted to be inaccurate.</p>");
}

QString automaton() {
    return QStringLiteral(
        "<p><b>Executing a DFA in context.</b> A prompt lists a random automaton's transitions δ(q, a) as tokens "
        "[key(q,a); val(δ(q,a))] and ends with a query key. One attention head returns Σ<sub>t</sub> val<sub>t</sub> "
        "⟨key<sub>t</sub>, key(q,a)⟩ — the value stored under the matching key. To run a word we start in state 0, query "
        "(current state, letter) once per letter, and decode the next state as argmax<sub>j</sub> ⟨ŷ, val(j)⟩.</p>"
        "<p>Left: the example DFA's transition table. Right: the word, the true state trace, and the states predicted by "
        "the learned model and by the teacher; wrong predictions are highlighted. With random Gaussian codes the keys are "
        "not exactly orthogonal, so crosstalk can make even the teacher wrong.</p>");
}

QString welcome() {
    return QStringLiteral(
        "<p><b>MHLA Lab</b> learns multi-head linear attention in polynomial time: it turns training into a least-squares "
        "problem in the coefficients P, solves it exactly and <i>certifies</i> when the data determine the model uniquely.</p>"
        "<p>Pick a preset on the left and press <b>Run</b> (Ctrl+R).</p>");
}

QWidget* makeHelpBox(const QString& html, QWidget* parent, bool expanded) {
    auto* box = new QWidget(parent);
    auto* lay = new QVBoxLayout(box);
    lay->setContentsMargins(2, 2, 2, 2);
    lay->setSpacing(2);
    auto* toggle = new QToolButton(box);
    toggle->setText(QObject::tr("What am I looking at?"));
    toggle->setCheckable(true);
    toggle->setChecked(expanded);
    toggle->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    toggle->setArrowType(expanded ? Qt::DownArrow : Qt::RightArrow);
    toggle->setAutoRaise(true);
    auto* text = new QLabel(html, box);
    text->setObjectName(QStringLiteral("helpText"));
    text->setWordWrap(true);
    text->setTextFormat(Qt::RichText);
    text->setTextInteractionFlags(Qt::TextSelectableByMouse);
    text->setVisible(expanded);
    text->setContentsMargins(8, 0, 8, 4);
    lay->addWidget(toggle);
    lay->addWidget(text);
    QObject::connect(toggle, &QToolButton::toggled, text, [toggle, text](bool on) {
        text->setVisible(on);
        toggle->setArrowType(on ? Qt::DownArrow : Qt::RightArrow);
    });
    return box;
}

} // namespace mhla::ui::explain
