#pragma once
// Process-wide set-up that every entry point (solve, sweep, figures, the desktop app) shares,
// so that nothing a caller's environment does can corrupt a result: closed standard
// descriptors, the user's numeric locale, and the fatal signals that end a run.
#include <QString>
#include <array>

namespace mhla {

class CancelToken;

/// Opens /dev/null on each of descriptors 0, 1 and 2 that is closed, so that no file opened
/// later can take one of them (progress lines on stderr would land in a result file). Call
/// first thing in main. Returns false when /dev/null cannot be opened.
[[nodiscard]] bool reserveStandardDescriptors();
/// True when descriptor fd (0..2) was closed when reserveStandardDescriptors() ran (it now
/// reads or writes /dev/null: output written there is lost, which a caller should say).
[[nodiscard]] bool standardDescriptorWasClosed(int fd);

/// Sets LC_NUMERIC back to "C". Qt's application object calls setlocale(LC_ALL, ""), after
/// which printf-style formatting writes "0,0041" under a German locale; every text MHLA Lab
/// writes (JSON, CSV, notes, messages) uses the C locale's decimal point. Call right after
/// the application object is made.
void useCNumericLocale();

/// `text` with every control character (C0 but tab, DEL, C1: NUL, ESC, newline...) written
/// as \xHH, so that a key or a value quoted in a message can neither cut it (NUL), forge a
/// line, nor drive the terminal (escape sequences).
[[nodiscard]] QString escapeControlCharacters(const QString& text);

/// Writes `message` and a newline to stderr as UTF-8 bytes (a NUL does not end it): its line
/// breaks kept, every other control character escaped.
void printMessage(const QString& message);

/// The signals that end a run: each cancels it alike (finished files are kept, nothing is
/// half written). SIGINT (Ctrl+C), SIGTERM (kill, Slurm's scancel), SIGHUP (a closed terminal).
[[nodiscard]] const std::array<int, 3>& fatalSignals();

/// While alive, every fatal signal sets `token` instead of ending the process; the previous
/// handlers are restored on destruction. One instance at a time.
class CancelOnSignals {
public:
    explicit CancelOnSignals(CancelToken* token);
    ~CancelOnSignals();
    CancelOnSignals(const CancelOnSignals&) = delete;
    CancelOnSignals& operator=(const CancelOnSignals&) = delete;
    /// The number of the first fatal signal received since construction, 0 if none.
    [[nodiscard]] int received() const;
};

} // namespace mhla
