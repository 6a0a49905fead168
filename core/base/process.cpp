#include "core/base/process.h"
#include "core/base/types.h"
#include <QStringList>
#include <atomic>
#include <cerrno>
#include <clocale>
#include <csignal>
#include <cstdio>
#include <fcntl.h>
#include <unistd.h>

namespace mhla {

namespace {

std::atomic<CancelToken*> g_token{nullptr};
volatile std::sig_atomic_t g_received = 0;
struct sigaction g_previous[3];

extern "C" void onFatalSignal(int signo) {
    if (g_received == 0) g_received = signo;
    if (CancelToken* t = g_token.load()) t->cancel();
}

} // namespace

namespace {
bool g_wasClosed[3] = {false, false, false};
} // namespace

bool standardDescriptorWasClosed(int fd) { return fd >= 0 && fd <= 2 && g_wasClosed[fd]; }

bool reserveStandardDescriptors() {
    for (int fd = 0; fd <= 2; ++fd) {
        if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
        g_wasClosed[fd] = true;
        // open() returns the lowest free descriptor: fd itself, as the lower ones are open.
        const int got = ::open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
        if (got < 0) return false;
        if (got != fd) {
            const bool ok = ::dup2(got, fd) == fd;
            ::close(got);
            if (!ok) return false;
        }
    }
    return true;
}

QString escapeControlCharacters(const QString& text) {
    QString out;
    out.reserve(text.size());
    for (const QChar ch : text) {
        const char16_t u = ch.unicode();
        const bool control = (u < 0x20 && u != u'\t') || (u >= 0x7f && u <= 0x9f);
        if (control) out += QString::asprintf("\\x%02X", static_cast<unsigned>(u));
        else out += ch;
    }
    return out;
}

void printMessage(const QString& message) {
    // The message's own line breaks stay; everything inside a line is escaped.
    QStringList lines = message.split(QLatin1Char('\n'));
    for (QString& line : lines) line = escapeControlCharacters(line);
    const QByteArray bytes = (lines.join(QLatin1Char('\n')) + QLatin1Char('\n')).toUtf8();
    std::fwrite(bytes.constData(), 1, static_cast<size_t>(bytes.size()), stderr);
    std::fflush(stderr);
}

void useCNumericLocale() { std::setlocale(LC_NUMERIC, "C"); }

const std::array<int, 3>& fatalSignals() {
    static const std::array<int, 3> s{SIGINT, SIGTERM, SIGHUP};
    return s;
}

CancelOnSignals::CancelOnSignals(CancelToken* token) {
    g_received = 0;
    g_token.store(token);
    struct sigaction sa {};
    sa.sa_handler = onFatalSignal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    for (size_t i = 0; i < fatalSignals().size(); ++i)
        ::sigaction(fatalSignals()[i], &sa, &g_previous[i]);
}

CancelOnSignals::~CancelOnSignals() {
    for (size_t i = 0; i < fatalSignals().size(); ++i)
        ::sigaction(fatalSignals()[i], &g_previous[i], nullptr);
    g_token.store(nullptr);
}

int CancelOnSignals::received() const { return static_cast<int>(g_received); }

} // namespace mhla
