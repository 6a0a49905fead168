#pragma once
// The values of a dataset's .npy files summarised (core's npyStatistics: mean, std, min, max),
// read on a worker thread so that a file of gigabytes never stops the window; a newer request,
// cancel() or the object's end stops the read in progress at its next block.
#include "core/base/npy.h"
#include <QList>
#include <QObject>
#include <QString>
#include <QStringList>
#include <memory>
#include <vector>

class QThread;

namespace mhla {
class CancelToken;
}

namespace mhla::ui {

class DataStatistics : public QObject {
    Q_OBJECT
public:
    explicit DataStatistics(QObject* parent = nullptr);
    ~DataStatistics() override; ///< cancels and waits for the worker (at most one block)

    /// Summarises each file in turn (labels name them in the table: "prompts", "targets");
    /// ready() follows, unless another start() or cancel() comes first.
    void start(const QStringList& labels, const QStringList& files);
    void cancel();
    bool busy() const { return !m_threads.isEmpty(); }

    /// The table ready() carries: one row per file, or the file's refusal.
    static QString html(const QStringList& labels, const std::vector<NpyStatistics>& stats,
                        const QString& error);
    /// What the explanation shows while the values are read.
    static QString pendingHtml();

Q_SIGNALS:
    void ready(const QString& html);

private:
    std::shared_ptr<CancelToken> m_cancel;
    QList<QThread*> m_threads;
    int m_generation = 0;
};

} // namespace mhla::ui
