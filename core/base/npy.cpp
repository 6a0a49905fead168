#include "core/base/npy.h"
#include "core/base/text.h"
#include "core/base/types.h"
#include <QByteArray>
#include <QFile>
#include <QFileInfo>
#include <QStringList>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <zip.h>

namespace mhla {

static_assert(std::endian::native == std::endian::little,
              "the .npy reader and writer copy little-endian values as they are");

namespace {

[[noreturn]] void fail(const QString& path, const QString& what) {
    throw NpyError((path + q(": ") + what).toStdString());
}

const char kMagic[] = "\x93NUMPY";
constexpr int kMagicBytes = 6;
/// Headers longer than this are not NumPy's (it pads to 64 bytes; a dict of a few keys).
constexpr long long kMaxHeaderBytes = 1LL << 20;

/// The value text after 'key': in a header dict (up to the next top-level comma or brace).
QString dictValue(const QString& path, const QString& dict, const char* key) {
    const QString k = QLatin1Char('\'') + q(key) + QLatin1Char('\'');
    const qsizetype at = dict.indexOf(k);
    if (at < 0) fail(path, q("the header has no '") + q(key) + q("' entry (not a .npy header)"));
    qsizetype i = dict.indexOf(QLatin1Char(':'), at + k.size());
    if (i < 0) fail(path, q("malformed header near '") + q(key) + q("'"));
    ++i;
    int depth = 0;
    qsizetype j = i;
    for (; j < dict.size(); ++j) {
        const QChar c = dict[j];
        if (c == QLatin1Char('(') || c == QLatin1Char('[')) ++depth;
        else if (c == QLatin1Char(')') || c == QLatin1Char(']')) --depth;
        else if (depth == 0 && (c == QLatin1Char(',') || c == QLatin1Char('}'))) break;
    }
    return dict.mid(i, j - i).trimmed();
}

/// Where a .npy file's bytes come from: the file itself, or one member of a .npz archive (a
/// zip file, stored or deflated, read through libzip as a stream: nothing is unpacked to disk
/// or held whole in memory).
class ByteSource {
public:
    virtual ~ByteSource() = default;
    /// Reads up to n bytes; fewer only at the end. Throws NpyError on a read error.
    virtual qint64 read(char* into, qint64 n) = 0;
    /// Bytes of the (uncompressed) .npy file.
    virtual qint64 size() const = 0;
    QByteArray read(qint64 n) {
        QByteArray out(static_cast<qsizetype>(n), Qt::Uninitialized);
        out.resize(static_cast<qsizetype>(read(out.data(), n)));
        return out;
    }
};

class FileSource final : public ByteSource {
public:
    explicit FileSource(const QString& path) : m_path(path), m_file(path) {
        const QFileInfo info(path);
        if (!info.exists()) fail(path, q("no such file; expected a NumPy .npy or .npz file"));
        if (!info.isFile()) fail(path, q("not a regular file; expected a NumPy .npy file"));
        if (!m_file.open(QIODevice::ReadOnly))
            fail(path, q("cannot be opened: ") + m_file.errorString());
    }
    qint64 read(char* into, qint64 n) override {
        qint64 got = 0;
        while (got < n) {
            const qint64 r = m_file.read(into + got, n - got);
            if (r < 0) fail(m_path, q("cannot be read: ") + m_file.errorString());
            if (r == 0) break;
            got += r;
        }
        return got;
    }
    qint64 size() const override { return m_file.size(); }

private:
    QString m_path;
    QFile m_file;
};

class ZipMemberSource final : public ByteSource {
public:
    ZipMemberSource(const QString& spec, const NpzPath& where) : m_spec(spec) {
        const QFileInfo info(where.archive);
        if (!info.exists()) fail(where.archive, q("no such file; expected a NumPy .npz archive"));
        if (!info.isFile()) fail(where.archive, q("not a regular file; expected a .npz archive"));
        int error = 0;
        m_zip.reset(zip_open(QFile::encodeName(where.archive).constData(), ZIP_RDONLY, &error));
        if (!m_zip) {
            zip_error_t ze;
            zip_error_init_with_code(&ze, error);
            const QString why = QString::fromUtf8(zip_error_strerror(&ze));
            zip_error_fini(&ze);
            fail(where.archive, q("not a readable .npz archive (a zip file, as np.savez "
                                  "writes): ") +
                                    why);
        }
        const QStringList members = npzMembersOf(m_zip.get());
        QString name = where.member;
        if (name.isEmpty()) {
            if (members.size() != 1)
                fail(where.archive, q("holds %1 arrays (%2); name the one to read, as %3:%4")
                                        .arg(members.size())
                                        .arg(members.isEmpty() ? q("none") : members.join(q(", ")),
                                             QFileInfo(where.archive).fileName(),
                                             members.isEmpty() ? q("NAME") : members.front()));
            name = members.front();
        }
        zip_int64_t index =
            zip_name_locate(m_zip.get(), (name + q(".npy")).toUtf8().constData(), 0);
        if (index < 0) index = zip_name_locate(m_zip.get(), name.toUtf8().constData(), 0);
        if (index < 0)
            fail(where.archive,
                 q("has no array '%1'; it holds: %2")
                     .arg(name, members.isEmpty() ? q("none") : members.join(q(", "))));
        zip_stat_t st;
        zip_stat_init(&st);
        if (zip_stat_index(m_zip.get(), static_cast<zip_uint64_t>(index), 0, &st) != 0 ||
            !(st.valid & ZIP_STAT_SIZE))
            fail(spec, q("cannot be read: ") + QString::fromUtf8(zip_strerror(m_zip.get())));
        m_size = static_cast<qint64>(st.size);
        m_file.reset(zip_fopen_index(m_zip.get(), static_cast<zip_uint64_t>(index), 0));
        if (!m_file)
            fail(spec, q("cannot be opened in its archive: ") +
                           QString::fromUtf8(zip_strerror(m_zip.get())));
    }
    ZipMemberSource(const ZipMemberSource&) = delete;
    ZipMemberSource& operator=(const ZipMemberSource&) = delete;
    qint64 read(char* into, qint64 n) override {
        qint64 got = 0;
        while (got < n) {
            const zip_int64_t r =
                zip_fread(m_file.get(), into + got, static_cast<zip_uint64_t>(n - got));
            if (r < 0)
                fail(m_spec, q("cannot be read from its archive (damaged or truncated?): ") +
                                 QString::fromUtf8(zip_file_strerror(m_file.get())));
            if (r == 0) break;
            got += r;
        }
        return got;
    }
    qint64 size() const override { return m_size; }

    /// The arrays of an archive, by the names np.load gives them ("x.npy" is "x").
    static QStringList npzMembersOf(zip_t* z) {
        QStringList out;
        const zip_int64_t n = zip_get_num_entries(z, 0);
        for (zip_int64_t i = 0; i < n; ++i) {
            const char* name = zip_get_name(z, static_cast<zip_uint64_t>(i), 0);
            if (!name) continue;
            QString s = QString::fromUtf8(name);
            if (s.endsWith(QLatin1Char('/'))) continue; // a directory entry
            if (s.endsWith(q(".npy"))) s.chop(4);
            out << s;
        }
        return out;
    }

private:
    QString m_spec;
    // Owned by smart pointers, not a destructor: a refusal thrown from the constructor
    // must still close the archive (a destructor does not run then; ASan saw the leak).
    struct ZipDiscard {
        void operator()(zip_t* z) const { zip_discard(z); }
    };
    struct ZipFileClose {
        void operator()(zip_file_t* f) const { zip_fclose(f); }
    };
    std::unique_ptr<zip_t, ZipDiscard> m_zip;
    std::unique_ptr<zip_file_t, ZipFileClose> m_file; // declared last: closed before m_zip
    qint64 m_size = 0;
};

std::unique_ptr<ByteSource> openSource(const QString& path) {
    if (const std::optional<NpzPath> z = parseNpzPath(path))
        return std::make_unique<ZipMemberSource>(path, *z);
    return std::make_unique<FileSource>(path);
}

} // namespace

std::optional<NpzPath> parseNpzPath(const QString& path) {
    // The member follows the last ':' after the last '/', so "run:1/d.npz" is an archive.
    const qsizetype slash = path.lastIndexOf(QLatin1Char('/'));
    const qsizetype colon = path.lastIndexOf(QLatin1Char(':'));
    if (colon > slash) {
        const QString archive = path.left(colon);
        if (archive.endsWith(q(".npz"), Qt::CaseInsensitive))
            return NpzPath{archive, path.mid(colon + 1)};
    }
    if (path.endsWith(q(".npz"), Qt::CaseInsensitive)) return NpzPath{path, {}};
    return std::nullopt;
}

QStringList npzMembers(const QString& archive) {
    if (!QFileInfo(archive).isFile())
        fail(archive, q("no such file; expected a NumPy .npz archive"));
    int error = 0;
    zip_t* z = zip_open(QFile::encodeName(archive).constData(), ZIP_RDONLY, &error);
    if (!z) fail(archive, q("not a readable .npz archive (a zip file, as np.savez writes)"));
    const QStringList out = ZipMemberSource::npzMembersOf(z);
    zip_discard(z);
    return out;
}

long long NpyHeader::elementCount() const {
    long long n = 1;
    for (long long s : shape) n *= s;
    return n;
}

QString nonFiniteValueText(double v, const std::vector<long long>& shape, long long cIndex) {
    if (std::isfinite(v)) return {};
    QStringList at;
    for (size_t k = shape.size(); k-- > 0;) {
        const long long extent = std::max(1LL, shape[k]);
        at.prepend(QString::number(cIndex % extent));
        cIndex /= extent;
    }
    return q("value ") +
           (std::isnan(v) ? q("nan")
            : v > 0       ? q("inf")
                          : q("-inf")) +
           q(" at [") + at.join(q(", ")) + q("]");
}

QString npyShapeText(const std::vector<long long>& shape) {
    QStringList parts;
    for (long long s : shape) parts << QString::number(s);
    if (shape.size() == 1) return q("(") + parts.front() + q(",)");
    return q("(") + parts.join(q(", ")) + q(")");
}

NpyHeader readNpyHeader(const QString& path) {
    const std::unique_ptr<ByteSource> source = openSource(path);
    ByteSource& f = *source;
    const long long fileBytes = f.size();
    const QByteArray head = f.read(kMagicBytes + 2);
    if (head.size() < kMagicBytes + 2 || std::memcmp(head.constData(), kMagic, kMagicBytes) != 0)
        fail(path, q("not a NumPy .npy file (the magic string \\x93NUMPY is missing)"));
    NpyHeader h;
    h.version = static_cast<unsigned char>(head[kMagicBytes]);
    if (h.version < 1 || h.version > 3)
        fail(path, q("format version ") + QString::number(h.version) + q(".") +
                       QString::number(static_cast<unsigned char>(head[kMagicBytes + 1])) +
                       q(" is not supported; allowed: 1.0, 2.0, 3.0"));
    const int lenBytes = h.version == 1 ? 2 : 4;
    const QByteArray lenRaw = f.read(lenBytes);
    if (lenRaw.size() < lenBytes) fail(path, q("truncated: the file ends inside its header"));
    long long headerLen = 0;
    for (int i = lenBytes - 1; i >= 0; --i)
        headerLen = headerLen * 256 + static_cast<unsigned char>(lenRaw[i]);
    if (headerLen > kMaxHeaderBytes)
        fail(path, q("the header claims ") + QString::number(headerLen) +
                       q(" bytes; a .npy header has at most ") + QString::number(kMaxHeaderBytes));
    const QByteArray dictRaw = f.read(headerLen);
    if (dictRaw.size() < headerLen) fail(path, q("truncated: the file ends inside its header"));
    h.dataOffset = kMagicBytes + 2 + lenBytes + headerLen;
    const QString dict = h.version == 3 ? QString::fromUtf8(dictRaw) : QString::fromLatin1(dictRaw);

    const QString descr = dictValue(path, dict, "descr");
    if (descr == q("'<f8'")) h.itemBytes = 8;
    else if (descr == q("'<f4'")) h.itemBytes = 4;
    else
        fail(path, q("dtype ") + descr +
                       q(" is not supported; allowed: '<f8' (float64) or '<f4' (float32), "
                         "little-endian (convert with a.astype('<f8'))"));
    const QString order = dictValue(path, dict, "fortran_order");
    if (order == q("True")) h.fortranOrder = true;
    else if (order == q("False")) h.fortranOrder = false;
    else fail(path, q("fortran_order ") + order + q(" is not True or False"));
    QString shape = dictValue(path, dict, "shape");
    if (!shape.startsWith(QLatin1Char('(')) || !shape.endsWith(QLatin1Char(')')))
        fail(path, q("shape ") + shape + q(" is not a tuple"));
    shape = shape.mid(1, shape.size() - 2);
    // Overflow-safe product of the shape, in bytes.
    long double bytes = h.itemBytes;
    for (const QString& part : shape.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        bool ok = false;
        const long long s = part.trimmed().toLongLong(&ok);
        if (!ok || s < 0)
            fail(path, q("shape (") + shape + q(") holds ") + part.trimmed() +
                           q(", not a dimension >= 0"));
        h.shape.push_back(s);
        bytes *= static_cast<long double>(s);
    }
    const long double available = static_cast<long double>(fileBytes - h.dataOffset);
    if (bytes > available)
        fail(path, q("truncated: the header claims shape ") + npyShapeText(h.shape) + q(" of ") +
                       QString::number(h.itemBytes) + q("-byte values, ") +
                       QString::number(static_cast<double>(bytes), 'g', 6) +
                       q(" bytes of data, but the file holds ") +
                       QString::number(static_cast<double>(available), 'g', 6) +
                       q(" bytes after its header"));
    return h;
}

namespace {
/// Streams the file's values in blocks of kNpyReadBlockBytes and calls visit(cIndex, value)
/// for each, in file order, where cIndex is the value's index in C (row-major) order; refuses
/// a truncated file and a value that is not finite, naming its index. Checks cancel between
/// blocks (throws Cancelled).
template <class Visit>
void forEachNpyValue(const QString& path, const NpyHeader& h, const CancelToken* cancel,
                     Visit&& visit) {
    const long long count = h.elementCount();
    const std::unique_ptr<ByteSource> source = openSource(path);
    ByteSource& f = *source;
    // Past the header (read and dropped: a deflated archive member is a stream).
    if (f.read(h.dataOffset).size() != h.dataOffset)
        fail(path, q("truncated: the file ends inside its header"));
    // C-order strides, to place Fortran-ordered values (file index L) where they belong.
    const size_t nd = h.shape.size();
    std::vector<long long> cStride(nd, 1);
    for (size_t k = nd; k-- > 1;) cStride[k - 1] = cStride[k] * h.shape[k];
    std::vector<long long> idx(nd, 0); // Fortran multi-index of the current file element
    const long long perBlock = kNpyReadBlockBytes / h.itemBytes;
    QByteArray block;
    for (long long L = 0; L < count;) {
        if (cancel) cancel->check();
        const long long b = std::min(perBlock, count - L);
        block = f.read(b * h.itemBytes);
        if (block.size() != b * h.itemBytes)
            fail(path, q("truncated: the file ended after ") +
                           QString::number(L + block.size() / h.itemBytes) + q(" of ") +
                           QString::number(count) + q(" values"));
        const char* p = block.constData();
        for (long long j = 0; j < b; ++j, ++L) {
            double v;
            if (h.itemBytes == 8) std::memcpy(&v, p + 8 * j, 8);
            else {
                float x;
                std::memcpy(&x, p + 4 * j, 4);
                v = static_cast<double>(x);
            }
            long long dst = L;
            if (h.fortranOrder && nd > 1) {
                dst = 0;
                for (size_t k = 0; k < nd; ++k) dst += idx[k] * cStride[k];
                for (size_t k = 0; k < nd; ++k) {
                    if (++idx[k] < h.shape[k]) break;
                    idx[k] = 0;
                }
            }
            if (!std::isfinite(v))
                fail(path, nonFiniteValueText(v, h.shape, dst) + q("; every value must be finite"));
            visit(dst, v);
        }
    }
}
} // namespace

void readNpyData(const QString& path, const NpyHeader& h, std::vector<double>& out) {
    out.assign(static_cast<size_t>(h.elementCount()), 0.0);
    forEachNpyValue(path, h, nullptr,
                    [&out](long long dst, double v) { out[static_cast<size_t>(dst)] = v; });
}

NpyStatistics npyStatistics(const QString& path, const NpyHeader& h, const CancelToken* cancel) {
    NpyStatistics st;
    double m2 = 0; // Welford: the sum of squared deviations from the running mean
    st.min = std::numeric_limits<double>::infinity();
    st.max = -std::numeric_limits<double>::infinity();
    forEachNpyValue(path, h, cancel, [&](long long, double v) {
        ++st.count;
        const double delta = v - st.mean;
        st.mean += delta / static_cast<double>(st.count);
        m2 += delta * (v - st.mean);
        st.min = std::min(st.min, v);
        st.max = std::max(st.max, v);
    });
    if (st.count == 0) {
        st.min = st.max = 0;
        return st;
    }
    st.std = std::sqrt(std::max(0.0, m2 / static_cast<double>(st.count)));
    return st;
}

QByteArray npyBytes(const std::vector<long long>& shape, const double* data) {
    QByteArray dict =
        "{'descr': '<f8', 'fortran_order': False, 'shape': " + npyShapeText(shape).toLatin1() +
        ", }";
    // Pad with spaces so that magic + version + length + dict + '\n' is a multiple of 64.
    const int fixed = kMagicBytes + 2 + 2;
    while ((fixed + dict.size() + 1) % 64 != 0) dict += ' ';
    dict += '\n';
    long long count = 1;
    for (long long s : shape) count *= s;
    QByteArray out;
    out.reserve(static_cast<qsizetype>(fixed + dict.size() + 8 * count));
    out.append(kMagic, kMagicBytes);
    out.append(char(1));
    out.append(char(0));
    out.append(static_cast<char>(dict.size() & 0xff));
    out.append(static_cast<char>((dict.size() >> 8) & 0xff));
    out.append(dict);
    static_assert(std::numeric_limits<double>::is_iec559, "IEEE doubles are written as-is");
    out.append(reinterpret_cast<const char*>(data), static_cast<qsizetype>(8 * count));
    return out;
}

QByteArray npzBytes(const std::vector<std::pair<QString, QByteArray>>& members) {
    const auto refuse = [](const QString& what, zip_error_t* ze) {
        throw NpyError((q("cannot build the .npz archive (") + what + q("): ") +
                        QString::fromUtf8(zip_error_strerror(ze)))
                           .toStdString());
    };
    struct SourceFree {
        void operator()(zip_source_t* s) const { zip_source_free(s); }
    };
    struct ZipDiscard {
        void operator()(zip_t* z) const { zip_discard(z); }
    };
    zip_error_t ze;
    zip_error_init(&ze);
    // The archive is written into this buffer source; kept so that it outlives zip_close.
    std::unique_ptr<zip_source_t, SourceFree> buffer(zip_source_buffer_create(nullptr, 0, 0, &ze));
    if (!buffer) refuse(q("no memory"), &ze);
    zip_source_keep(buffer.get());
    std::unique_ptr<zip_t, ZipDiscard> z(zip_open_from_source(buffer.get(), ZIP_TRUNCATE, &ze));
    if (!z) {
        zip_source_free(buffer.get()); // the reference zip_open_from_source did not take
        refuse(q("opening"), &ze);
    }
    for (const auto& [name, bytes] : members) {
        // The member's bytes are read at zip_close; `members` outlives it.
        zip_source_t* src = zip_source_buffer(z.get(), bytes.constData(),
                                              static_cast<zip_uint64_t>(bytes.size()), 0);
        const zip_int64_t i = src ? zip_file_add(z.get(), (name + q(".npy")).toUtf8().constData(),
                                                 src, ZIP_FL_ENC_UTF_8)
                                  : -1;
        if (i < 0) {
            if (src) zip_source_free(src);
            refuse(name, zip_get_error(z.get()));
        }
        const auto index = static_cast<zip_uint64_t>(i);
        // Stored as np.savez stores; 1980-01-01, the zip format's first day, for stable bytes.
        if (zip_set_file_compression(z.get(), index, ZIP_CM_STORE, 0) != 0 ||
            zip_file_set_mtime(z.get(), index, 315532800, 0) != 0)
            refuse(name, zip_get_error(z.get()));
    }
    if (zip_close(z.get()) != 0) refuse(q("writing"), zip_get_error(z.get()));
    (void)z.release(); // closed: zip_close freed it
    zip_source_t* b = buffer.get();
    if (zip_source_open(b) != 0) refuse(q("reading back"), zip_source_error(b));
    QByteArray out;
    if (zip_source_seek(b, 0, SEEK_END) == 0) {
        const zip_int64_t size = zip_source_tell(b);
        if (size >= 0 && zip_source_seek(b, 0, SEEK_SET) == 0) {
            out.resize(static_cast<qsizetype>(size));
            if (zip_source_read(b, out.data(), static_cast<zip_uint64_t>(size)) != size)
                out.clear();
        }
    }
    zip_source_close(b);
    if (out.isEmpty()) refuse(q("reading back"), zip_source_error(b));
    return out;
}

} // namespace mhla
