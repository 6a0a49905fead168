// libFuzzer target: the experiment parser on arbitrary bytes. The input is the file's text; if
// it contains a NUL byte, the bytes after the first NUL are "section.key=value" overrides, one
// per line (as --set). ConfigError is the parser's answer to bad input; any other exception,
// a crash or a sanitizer report is a bug.
#include "core/experiment/config.h"
#include "core/experiment/loader.h"
#include <QByteArray>
#include <QList>
#include <QStringList>
#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const QByteArray all(reinterpret_cast<const char*>(data), static_cast<qsizetype>(size));
    const qsizetype nul = all.indexOf('\0');
    const QByteArray text = nul < 0 ? all : all.left(nul);
    QStringList overrides;
    if (nul >= 0)
        for (const QByteArray& line : all.mid(nul + 1).split('\n'))
            if (!line.isEmpty()) overrides << QString::fromUtf8(line);
    try {
        const mhla::LoadedExperiment e =
            mhla::loadExperimentText(text, overrides, QStringLiteral("fuzz"));
        // A parsed experiment must round-trip through its own JSON.
        (void)mhla::experimentToJson(e.config);
    } catch (const mhla::ConfigError&) {
    }
    return 0;
}
