#pragma once
// NumPy .npy files (format versions 1.0, 2.0 and 3.0), the layout of the dataset task
// (MATH.md, "Data on disk"), read from disk or from a member of a .npz archive (np.savez or
// np.savez_compressed; read as a stream through Debian's libzip). Only little-endian float64
// ('<f8') and float32 ('<f4') arrays are read, in C or Fortran order; data are written as
// float64 in C order. Every refusal names the file, what is wrong and what is allowed.
//
// A path names a .npy file, or an array of a .npz archive as ARCHIVE.npz:NAME (the key np.load
// gives it, i.e. the member NAME.npy); ARCHIVE.npz alone names its only array.
#include <QString>
#include <QStringList>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace mhla {

class CancelToken;

/// A .npy file that cannot be read as asked. what() names the file and the reason.
class NpyError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct NpyHeader {
    int version = 1;                ///< major format version (1, 2 or 3)
    int itemBytes = 8;              ///< 8 for '<f8', 4 for '<f4'
    bool fortranOrder = false;      ///< column-major data
    std::vector<long long> shape;   ///< as written ((N, n, d) for prompts)
    long long dataOffset = 0;       ///< bytes before the data
    long long elementCount() const; ///< product of shape (1 for a 0-d array)
};

/// An array of a .npz archive: the archive's path, and the array's name (empty: its only one).
struct NpzPath {
    QString archive;
    QString member;
};

/// The archive and member a path names when it names a .npz array ("d.npz:prompts",
/// "d.npz"), else nullopt (a .npy file). Only a ':' after the last '/' separates a member.
[[nodiscard]] std::optional<NpzPath> parseNpzPath(const QString& path);

/// The arrays of a .npz archive, by the names np.load gives them, in archive order.
/// Throws NpyError when the archive cannot be opened as a zip file.
[[nodiscard]] QStringList npzMembers(const QString& archive);

/// Reads and checks the header only (cheap: at most the header bytes are read): magic,
/// version, dtype, order, shape, and that the file holds every byte the header claims.
/// Throws NpyError.
[[nodiscard]] NpyHeader readNpyHeader(const QString& path);

/// Reads the whole array as float64 in C (row-major) order into out (resized to
/// elementCount()), streaming the file in blocks of kNpyReadBlockBytes; refuses NaN and
/// infinite values, naming the first one's index. Throws NpyError.
void readNpyData(const QString& path, const NpyHeader& header, std::vector<double>& out);

/// The values of a .npy file summarised, as a researcher checks data before fitting it (the
/// certificate's λ_min scales with the sixth power of the prompts' scale).
struct NpyStatistics {
    long long count = 0; ///< values read (elementCount())
    double mean = 0;     ///< over every value
    double std = 0;      ///< population standard deviation (divides by count)
    double min = 0;      ///< 0 with max when count is 0
    double max = 0;
};

/// Streams the file once (blocks of kNpyReadBlockBytes, nothing else held) and summarises its
/// values; the same refusals as readNpyData (truncated, NaN, inf). Checks cancel between
/// blocks and throws Cancelled. Throws NpyError.
[[nodiscard]] NpyStatistics npyStatistics(const QString& path, const NpyHeader& header,
                                          const CancelToken* cancel = nullptr);

/// Bytes read from the file at a time by readNpyData (beyond its output, the only memory used).
constexpr long long kNpyReadBlockBytes = 1LL << 20;

/// A complete .npy file (version 1.0, '<f8', C order) holding data (row-major, of the given
/// shape), as bytes ready to be written.
[[nodiscard]] QByteArray npyBytes(const std::vector<long long>& shape, const double* data);

/// A complete .npz archive as np.savez writes one: each (name, .npy bytes) a stored member
/// NAME.npy, in the given order, with a fixed timestamp (the same members give the same bytes).
/// Throws NpyError when libzip cannot build it (names the array).
[[nodiscard]] QByteArray npzBytes(const std::vector<std::pair<QString, QByteArray>>& members);

/// "value nan at [1, 0, 2]": a value that is not finite (NumPy's spellings nan, inf, -inf) at
/// C-order index cIndex of an array of the given shape, named by its multi-index; the .npy
/// reader and the Python module's arrays refuse with it. Empty when v is finite.
[[nodiscard]] QString nonFiniteValueText(double v, const std::vector<long long>& shape,
                                         long long cIndex);

/// "(2, 3, 4)": a shape as NumPy prints it.
[[nodiscard]] QString npyShapeText(const std::vector<long long>& shape);

} // namespace mhla
