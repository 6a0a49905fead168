#pragma once
// The identifiability certificate of the selected run: badge, lambda_min / lambda_max /
// condition / null dimension, the spectrum of Lambda (log axis, non-positive eigenvalues drawn
// explicitly at the floor) and lambda_min vs samples seen (live while accumulating).
#include "ui/panels/resultpanel.h"
#include "ui/plot/plotmath.h"
#include "ui/run/runlist.h"
#include <QWidget>

class QCheckBox;

class QLabel;

namespace mhla::ui {

class Figure;
class PlotWidget;

class CertificatePanel : public QWidget, public ResultPanel {
    Q_OBJECT
public:
    explicit CertificatePanel(QWidget* parent = nullptr);
    // ResultPanel
    QString panelId() const override { return QStringLiteral("certificate"); }
    QString tabName() const override { return tr("Certificate"); }
    QWidget* widget() override { return this; }
    /// Shows a run (nullptr clears).
    void showRun(const RunRecord* run) override;
    /// The visible runs, for the spectrum overlay.
    void showRuns(const QList<const RunRecord*>& runs) override { setComparisonRuns(runs); }
    void liveUpdate(const RunRecord* run, const QList<const RunRecord*>&, bool isCurrent) override {
        if (isCurrent && !run->trace().empty()) updateLive(run);
    }
    /// Refreshes the live lambda_min trace of a running run.
    void updateLive(const RunRecord* run);
    PlotWidget* spectrumPlot() const { return m_spectrum; }
    PlotWidget* tracePlot() const { return m_trace; }
    QString badgeText() const;
    /// The visible runs, for "overlay the spectra of all visible runs" (their data is copied).
    void setComparisonRuns(const QList<const RunRecord*>& runs);
    bool overlaySpectra() const;
    void setOverlaySpectra(bool on);
    QList<const Figure*> figures() const override;

Q_SIGNALS:
    void exportRequested(const mhla::ui::Figure* figure);
    /// The overlay option changed: the owner shows the current run again.
    void displayChanged();

protected:
    /// The badge's larger font follows the panel's (presentation mode enlarges both).
    void changeEvent(QEvent* e) override;

private:
    /// showRun()'s parts: a run still queued, running or failed (nothing of an earlier run
    /// stays); the badge, the numbers and the witness or noise note; the spectrum of Λ.
    void showWithoutResult(const RunRecord* run);
    void showCertificate(const ExperimentResult& r);
    void showSpectrum(const RunRecord* run, const Certificate& c);
    void deriveBadgeFont();
    void setBadge(const QString& text, const QColor& bg);
    /// The marker at certificate_samples (identifiability report) added to the trace series;
    /// returns the note (certificate_samples, or the structural message).
    QString addCertificateSamples(const ExperimentResult& r, double floor,
                                  QList<PlotSeries>& series) const;
    void renderOverlay();
    struct SpectrumCopy {
        QString name;
        QColor color;
        int mark = 0;          ///< RunRecord::mark
        QList<QPointF> points; ///< (index, eigenvalue)
        double tau = 0;
    };
    QList<SpectrumCopy> m_comparison;
    QCheckBox* m_overlayCheck = nullptr;
    QLabel* m_badge = nullptr;
    QLabel* m_numbers = nullptr;
    QLabel* m_witness = nullptr; ///< not certified: another exact fit and its OOD error
    PlotWidget* m_spectrum = nullptr;
    PlotWidget* m_trace = nullptr;
};

/// "The certificate holds from N = 40 samples on …", or the structural message naming a null
/// relation when it never comes; empty without an identifiability report.
QString certificateSamplesNote(const ExperimentResult& r);

/// Positive values go on a log axis as they are; values <= 0 are drawn at `floor` as separate
/// triangle markers. Returns the two series (the second may be empty) and the number clamped.
int splitForLogAxis(const QList<QPointF>& points, double floor, QList<QPointF>& positive,
                    QList<QPointF>& clamped);

} // namespace mhla::ui
