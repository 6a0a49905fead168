#include "ui/experiment/datastatistics.h"
#include "core/base/types.h"
#include <QThread>

namespace mhla::ui {

namespace {
QString num(double v) { return QString::number(v, 'g', 4); }
} // namespace

DataStatistics::DataStatistics(QObject* parent) : QObject(parent) {}

DataStatistics::~DataStatistics() {
    cancel();
    for (QThread* t : m_threads) {
        t->wait();
        delete t;
    }
}

void DataStatistics::cancel() {
    ++m_generation;
    if (m_cancel) m_cancel->cancel();
}

void DataStatistics::start(const QStringList& labels, const QStringList& files) {
    cancel();
    const int gen = m_generation;
    m_cancel = std::make_shared<CancelToken>();
    auto token = m_cancel;
    struct Out {
        std::vector<NpyStatistics> stats;
        QString error;
        bool cancelled = false;
    };
    auto out = std::make_shared<Out>();
    QThread* th = QThread::create([files, token, out] {
        try {
            for (const QString& f : files)
                out->stats.push_back(npyStatistics(f, readNpyHeader(f), token.get()));
        } catch (const Cancelled&) {
            out->cancelled = true;
        } catch (const std::exception& e) { // the file changed since it was opened
            out->error = QString::fromStdString(e.what());
        }
    });
    m_threads << th;
    connect(th, &QThread::finished, this, [this, th, out, gen, labels] {
        m_threads.removeOne(th);
        th->deleteLater();
        if (gen != m_generation || out->cancelled) return;
        Q_EMIT ready(html(labels, out->stats, out->error));
    });
    th->start(QThread::LowPriority);
}

QString DataStatistics::pendingHtml() {
    return tr("<p><i>Reading the values (mean, std, min, max)…</i></p>");
}

QString DataStatistics::html(const QStringList& labels, const std::vector<NpyStatistics>& stats,
                             const QString& error) {
    QString rows;
    for (size_t i = 0; i < stats.size() && i < static_cast<size_t>(labels.size()); ++i) {
        const NpyStatistics& s = stats[i];
        rows += QStringLiteral("<tr><td>%1</td><td align='right'>%2</td><td align='right'>%3</td>"
                               "<td align='right'>%4</td><td align='right'>%5</td></tr>")
                    .arg(labels[static_cast<qsizetype>(i)].toHtmlEscaped(), num(s.mean), num(s.std),
                         num(s.min), num(s.max));
    }
    QString out;
    if (!rows.isEmpty())
        out += tr("<p><b>Values</b> (over every entry):</p><table cellspacing='0' "
                  "cellpadding='3'><tr><th></th><th>mean</th><th>std</th><th>min</th>"
                  "<th>max</th></tr>%1</table><p>ψ is cubic in the tokens, so Λ scales with the "
                  "sixth power of the prompts' scale: halving every value divides λ_min and "
                  "λ_max by 64, and the certificate (τ is relative to λ_max) does not "
                  "change.</p>")
                   .arg(rows);
    if (!error.isEmpty())
        out += tr("<p>The values could not be read: %1</p>").arg(error.toHtmlEscaped());
    return out;
}

} // namespace mhla::ui
