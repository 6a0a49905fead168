#pragma once
// Test helper: a .npz archive written with libzip (as np.savez writes one: a zip file whose
// members NAME.npy are .npy files), each member stored or deflated.
#include <QByteArray>
#include <QFile>
#include <QString>
#include <utility>
#include <vector>
#include <zip.h>

namespace mhla::test {

/// Writes path as a zip of members (name in the archive, bytes); true on success.
inline bool writeNpz(const QString& path,
                     const std::vector<std::pair<QString, QByteArray>>& members, bool deflate) {
    int error = 0;
    zip_t* z = zip_open(QFile::encodeName(path).constData(), ZIP_CREATE | ZIP_TRUNCATE, &error);
    if (!z) return false;
    for (const auto& [name, bytes] : members) {
        // libzip reads the buffer at zip_close: it must outlive the loop (the vector does).
        zip_source_t* src =
            zip_source_buffer(z, bytes.constData(), static_cast<zip_uint64_t>(bytes.size()), 0);
        const zip_int64_t i =
            src ? zip_file_add(z, name.toUtf8().constData(), src, ZIP_FL_ENC_UTF_8) : -1;
        if (i < 0) {
            if (src) zip_source_free(src);
            zip_discard(z);
            return false;
        }
        if (zip_set_file_compression(z, static_cast<zip_uint64_t>(i),
                                     deflate ? ZIP_CM_DEFLATE : ZIP_CM_STORE, 0) != 0) {
            zip_discard(z);
            return false;
        }
    }
    if (zip_close(z) == 0) return true;
    zip_discard(z); // a failed close leaves the archive open
    return false;
}

} // namespace mhla::test
