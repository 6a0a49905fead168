// The experiment form is built from core's key table: every key has a field with core's label
// and tooltip, shown exactly when the run reads the key, and invalid values are marked at the
// field core's structured issues name, with the field's label.
#include "core/experiment/config.h"
#include "ui/experiment/experimentpanel.h"
#include "ui/shell/appsettings.h"
#include <QCheckBox>
#include <QComboBox>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace mhla;
using namespace mhla::ui;

class TstGuiExperimentPanel : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;

    static QWidget* input(ExperimentPanel& p, const QString& key) {
        return p.findChild<QWidget*>(QStringLiteral("field_") + key);
    }

private Q_SLOTS:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(m_dir.isValid());
        AppSettings::useFile(m_dir.filePath(QStringLiteral("settings.ini")));
    }

    void everyKeyHasAFieldWithCoreLabelAndTooltip() {
        ExperimentPanel p;
        for (const KeyInfo& k : experimentKeys()) {
            QWidget* w = input(p, k.path());
            QVERIFY2(w, qPrintable(k.path()));
            QCOMPARE(w->toolTip(), k.tooltipHtml());
            auto* label = p.findChild<QLabel*>(QStringLiteral("label_") + k.path());
            QVERIFY(label);
            QCOMPARE(label->text(), k.label);
            if (k.type == KeyInfo::Type::Choice) {
                auto* c = qobject_cast<QComboBox*>(w);
                QVERIFY(c);
                QStringList items;
                for (int i = 0; i < c->count(); ++i) items << c->itemText(i);
                QCOMPARE(items, k.choices);
            }
        }
    }

    // For every task kind x solver kind x optimizer x compare_exact, a field is visible exactly
    // when a run with that configuration reads its key.
    void visibilityFollowsApplicability() {
        ExperimentPanel p;
        p.show();
        auto* task = qobject_cast<QComboBox*>(input(p, QStringLiteral("task.kind")));
        auto* solver = qobject_cast<QComboBox*>(input(p, QStringLiteral("solver.kind")));
        auto* opt = qobject_cast<QComboBox*>(input(p, QStringLiteral("solver.optimizer")));
        auto* exact = qobject_cast<QCheckBox*>(input(p, QStringLiteral("solver.compare_exact")));
        QVERIFY(task && solver && opt && exact);
        int combos = 0;
        for (int t = 0; t < task->count(); ++t)
            for (int s = 0; s < solver->count(); ++s)
                for (int o = 0; o < opt->count(); ++o)
                    for (bool ce : {false, true}) {
                        task->setCurrentIndex(t);
                        solver->setCurrentIndex(s);
                        opt->setCurrentIndex(o);
                        exact->setChecked(ce);
                        ExperimentConfig cfg;
                        cfg.task.kind = static_cast<TaskKind>(t);
                        cfg.solver.kind = static_cast<SolverKind>(s);
                        cfg.solver.optimizer = static_cast<OptimizerKind>(o);
                        cfg.solver.compareExact = ce;
                        for (const KeyInfo& k : experimentKeys()) {
                            const bool shown = input(p, k.path())->isVisibleTo(&p);
                            QVERIFY2(shown == k.applies.reads(cfg),
                                     qPrintable(
                                         QStringLiteral("%1 with task %2, solver %3, optimizer %4, "
                                                        "compare_exact %5: shown %6")
                                             .arg(k.path(), toString(cfg.task.kind),
                                                  toString(cfg.solver.kind),
                                                  toString(cfg.solver.optimizer))
                                             .arg(ce)
                                             .arg(shown)));
                        }
                        ++combos;
                    }
        QCOMPARE(combos, 4 * 4 * 2 * 2); // task kinds (dataset included), solvers, optimizers
    }

    void badValueMarksExactlyThatField_data() {
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("text");
        QTest::newRow("samples 0") << QStringLiteral("task.samples") << QStringLiteral("0");
        QTest::newRow("samples too large")
            << QStringLiteral("task.samples") << QStringLiteral("2e10");
        QTest::newRow("noise too large") << QStringLiteral("task.noise") << QStringLiteral("2e6");
        QTest::newRow("d_out not d") << QStringLiteral("task.d_out") << QStringLiteral("-1");
        QTest::newRow("d") << QStringLiteral("task.d") << QStringLiteral("x");
        QTest::newRow("warmup") << QStringLiteral("solver.warmup") << QStringLiteral("1.5");
        QTest::newRow("val samples") << QStringLiteral("eval.val_samples") << QString();
    }
    void badValueMarksExactlyThatField() {
        QFETCH(QString, key);
        QFETCH(QString, text);
        ExperimentPanel p;
        p.show();
        const KeyInfo* k = findExperimentKey(key);
        QVERIFY(k);
        // Make the key visible: random_mhla task, mhla trainer.
        qobject_cast<QComboBox*>(input(p, QStringLiteral("task.kind")))
            ->setCurrentIndex(int(TaskKind::RandomMhla));
        qobject_cast<QComboBox*>(input(p, QStringLiteral("solver.kind")))
            ->setCurrentIndex(int(SolverKind::Mhla));
        qobject_cast<QLineEdit*>(input(p, QStringLiteral("solver.heads")))
            ->setText(QStringLiteral("1"));
        QVERIFY2(p.isValid(),
                 qPrintable(QStringList(p.fieldErrors().values()).join(u'\n') + p.generalError()));
        auto* edit = qobject_cast<QLineEdit*>(input(p, key));
        QVERIFY(edit && edit->isVisibleTo(&p));
        const QString good = edit->text();
        edit->setText(text);
        QVERIFY(!p.isValid());
        QCOMPARE(p.fieldErrors().keys(), QStringList{key});
        for (const KeyInfo& other : experimentKeys()) {
            auto* err = p.findChild<QLabel*>(QStringLiteral("error_") + other.path());
            QVERIFY(err);
            QCOMPARE(err->isHidden(), other.path() != key);
        }
        const QString msg = p.fieldErrors().value(key);
        QVERIFY2(msg.startsWith(k->label + u':'), qPrintable(msg));
        QVERIFY2(!msg.contains(key), qPrintable(msg));
        QCOMPARE(p.findChild<QLabel*>(QStringLiteral("error_") + key)->text(), msg);
        QVERIFY(!p.findChild<QPushButton*>(QStringLiteral("runButton"))->isEnabled());
        edit->setText(good);
        QVERIFY(p.isValid());
        QVERIFY(p.fieldErrors().isEmpty());
    }

    void editedPresetIsMarkedNamedAndRevertible() {
        ExperimentPanel p;
        p.loadPreset(2); // random MHLA teacher
        auto* combo = p.findChild<QComboBox*>(QStringLiteral("presetCombo"));
        auto* revert = p.findChild<QPushButton*>(QStringLiteral("revertPresetButton"));
        QVERIFY(combo && revert);
        QVERIFY(!combo->currentText().contains(QStringLiteral("modified")));
        QVERIFY(!revert->isEnabled());
        auto* d = qobject_cast<QLineEdit*>(input(p, QStringLiteral("task.d")));
        const QString was = d->text();
        d->setText(QStringLiteral("5"));
        QVERIFY(combo->currentText().contains(QStringLiteral("modified")));
        QVERIFY(revert->isEnabled());
        QVERIFY2(p.jobs().first().name.contains(QStringLiteral("d=5")),
                 qPrintable(p.jobs().first().name));
        QTest::mouseClick(revert, Qt::LeftButton);
        QCOMPARE(d->text(), was);
        QVERIFY(!combo->currentText().contains(QStringLiteral("modified")));
        QVERIFY(!p.jobs().first().name.contains(QStringLiteral("d=5")));
    }

    // Issue 23: switching Solver from poly (H = 0 = all heads) to a trainer left H = 0, which no
    // trainer accepts: the form could not run until the user found the field.
    void trainerAfterPolyGetsValidHeads_data() {
        QTest::addColumn<QString>("trainer");
        for (SolverKind k : {SolverKind::Mhla, SolverKind::Multilayer, SolverKind::Softmax})
            QTest::newRow(qPrintable(toString(k))) << toString(k);
    }
    void trainerAfterPolyGetsValidHeads() {
        QFETCH(QString, trainer);
        ExperimentPanel p;
        QJsonObject poly = experimentToJson(ExperimentConfig{});
        QVERIFY(ExperimentConfig{}.solver.kind == SolverKind::Poly);
        p.setExperiment(poly);
        auto* heads = qobject_cast<QLineEdit*>(input(p, QStringLiteral("solver.heads")));
        auto* solver = qobject_cast<QComboBox*>(input(p, QStringLiteral("solver.kind")));
        QCOMPARE(heads->text(), QStringLiteral("0"));
        QVERIFY(p.isValid());
        solver->setCurrentIndex(solver->findText(trainer));
        QVERIFY(heads->text() != QStringLiteral("0"));
        QVERIFY2(!p.fieldErrors().contains(QStringLiteral("solver.heads")),
                 qPrintable(p.fieldErrors().value(QStringLiteral("solver.heads"))));
        QCOMPARE(p.config().solver.heads, 1);
        // A value the user chose is kept.
        solver->setCurrentIndex(solver->findText(QStringLiteral("poly")));
        heads->setText(QStringLiteral("2"));
        solver->setCurrentIndex(solver->findText(trainer));
        QCOMPARE(heads->text(), QStringLiteral("2"));
        // A file that says H = 0 for a trainer is shown as it is, marked (not changed).
        QJsonObject bad = poly;
        QJsonObject s = bad.value(QStringLiteral("solver")).toObject();
        s.insert(QStringLiteral("kind"), trainer);
        s.insert(QStringLiteral("heads"), 0);
        bad.insert(QStringLiteral("solver"), s);
        p.setExperiment(bad);
        QCOMPARE(heads->text(), QStringLiteral("0"));
        QVERIFY(p.fieldErrors().contains(QStringLiteral("solver.heads")));
    }
};

QTEST_MAIN(TstGuiExperimentPanel)
#include "tst_gui_experimentpanel.moc"
