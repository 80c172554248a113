#pragma once
// zstd framing of saved filters (Mitzenmacher 2002, "Compressed Bloom filters": a filter
// sent over a network is worth compressing when it is sparse, i.e. built with fewer hash
// functions than the optimum). The compressed file is one zstd frame whose content is the
// uncompressed file, byte for byte, so every filter kind gets compression through one path.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <istream>
#include <ostream>
#include <string>
#include <string_view>

namespace batchbloom::io {

/// True if `prefix` starts with the zstd frame magic (28 B5 2F FD).
bool is_zstd(std::string_view prefix) noexcept;

/// One zstd frame (with its content checksum) holding `data`; level as in zstd (1..22, or negative
/// for the fast levels). Throws Error on an invalid level.
std::string zstd_compress(std::string_view data, int level);
/// The same frame for the `size` bytes that `write` puts into the stream it is handed, written
/// onto `out` as they come (memory: zstd's window and two buffers, whatever `size`). Writing
/// other than `size` bytes is an Error, as is an invalid level (before anything is written).
void zstd_compress(std::ostream& out, int level, std::uint64_t size, const std::function<void(std::ostream&)>& write);

/// Decompresses the zstd frame that starts with `already_read` (bytes the caller took from the
/// stream to recognise the frame, none of them past its end) and goes on at the stream's
/// position. A frame can expand far beyond its own size, so the output is bounded before it is
/// allocated: once `header_bytes` of output exist, `expected_size` (which may throw FormatError)
/// tells the exact decompressed size the inner header promises, and any output beyond it is an
/// error. No byte after the frame is read, from any stream (a pipe too), so the stream is left
/// just past the frame: whether anything may follow is for the caller to check, with the check
/// every uncompressed file gets (expect_end, file_io.hpp).
std::string zstd_decompress(std::istream& in, std::string_view already_read, std::size_t header_bytes,
                            const std::function<std::uint64_t(std::string_view header)>& expected_size);

}  // namespace batchbloom::io
