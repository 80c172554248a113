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
#include <vector>

#include "batchbloom/any_filter.hpp"

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

/// The content of the zstd frame that starts with `already_read` (bytes the caller took from
/// the stream to recognise the frame, none of them past its end) and goes on at the stream's
/// position, as a stream buffer: the loader reads the inner file from it into the filter's own
/// storage, so decompressing holds zstd's window (at most 8 MiB) and one output block, never a
/// second copy of the filter. What the content may expand to is the loader's to bound before it
/// allocates (the inner header's size against the load limit, file_io.hpp). No byte after the
/// frame is read, from any stream (a pipe too), so the stream is left just past the frame once
/// the content was read to its end: whether anything may follow is for the caller to check,
/// with the check every uncompressed file gets (expect_end, file_io.hpp). Errors (a corrupt or
/// truncated frame) are thrown as FormatError from the reads: give the istream over it
/// exceptions(badbit), or they become a failed read.
class ZstdSource : public PullBuf {
public:
    ZstdSource(std::istream& in, std::string_view already_read);
    ~ZstdSource() override;
    ZstdSource(const ZstdSource&) = delete;
    ZstdSource& operator=(const ZstdSource&) = delete;

private:
    /// Up to n bytes of content into dst; 0 only at the frame's end.
    std::size_t decompress(char* dst, std::size_t n);

    std::istream& in_;
    void* dctx_;  // ZSTD_DCtx, kept out of this header
    std::vector<char> input_;
    std::size_t src_pos_ = 0, src_size_ = 0;
    // ZSTD_decompressStream's hint: how much input it wants next, never more than the rest of
    // the frame; 0 once the frame is complete. Reading no more than it asks keeps every byte
    // after the frame in the stream.
    std::size_t frame_left_ = 1;
    bool output_was_full_ = false;  // then the decoder may hold output without needing input
};

}  // namespace batchbloom::io
