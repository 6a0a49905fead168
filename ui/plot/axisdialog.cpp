#include "ui/plot/axisdialog.h"
#include "ui/plot/plotmath.h"
#include "ui/plot/theme.h"
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>

namespace mhla::ui {

AxisDialog::AxisDialog(const QString& plotTitle, const QRectF& cur, bool logX, bool logY,
                       QWidget* parent)
    : QDialog(parent), m_logX(logX), m_logY(logY) {
    setObjectName(QStringLiteral("axisDialog"));
    setWindowTitle(tr("Axis ranges — %1").arg(plotTitle));
    auto* form = new QFormLayout(this);
    m_x0 = new QLineEdit(plotmath::exact(cur.left()), this);
    m_x1 = new QLineEdit(plotmath::exact(cur.right()), this);
    m_y0 = new QLineEdit(plotmath::exact(cur.top()), this);
    m_y1 = new QLineEdit(plotmath::exact(cur.bottom()), this);
    form->addRow(tr("x min"), m_x0);
    form->addRow(tr("x max"), m_x1);
    form->addRow(tr("y min"), m_y0);
    form->addRow(tr("y max"), m_y1);
    m_error = new QLabel(this);
    m_error->setWordWrap(true);
    m_error->setStyleSheet(QStringLiteral("color: %1").arg(colors::css(colors::kError)));
    form->addRow(m_error);
    auto* bb = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    form->addRow(bb);
    connect(bb, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(bb, &QDialogButtonBox::accepted, this, [this] {
        const QString why = check();
        m_error->setText(why);
        if (why.isEmpty()) accept();
    });
}

QString AxisDialog::check() const {
    bool ok[4];
    const double a = m_x0->text().toDouble(&ok[0]), b = m_x1->text().toDouble(&ok[1]);
    const double c = m_y0->text().toDouble(&ok[2]), d = m_y1->text().toDouble(&ok[3]);
    if (!(ok[0] && ok[1] && ok[2] && ok[3])) return tr("Every limit must be a number.");
    if (!(a < b) || !(c < d)) return tr("Each minimum must be below its maximum.");
    if ((m_logX && a <= 0) || (m_logY && c <= 0)) return tr("A log axis needs positive limits.");
    return {};
}

QRectF AxisDialog::range() const {
    return QRectF(QPointF(m_x0->text().toDouble(), m_y0->text().toDouble()),
                  QPointF(m_x1->text().toDouble(), m_y1->text().toDouble()));
}

} // namespace mhla::ui
