// Page decompression. Each decoder is given the exact output size from the page header and
// must produce exactly that many bytes; anything else is a corrupt page.
#include "interop/parquet/codecs.hpp"

#include <brotli/decode.h>
#include <lz4.h>
#include <snappy-c.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>

#include "batchbloom/error.hpp"

namespace batchbloom::parquet {

namespace {

[[noreturn]] void corrupt(Codec codec, const std::string& why) {
    throw FormatError("corrupt " + std::string(to_string(codec)) + " page: " + why);
}

const char* chars(std::span<const std::byte> b) { return reinterpret_cast<const char*>(b.data()); }
char* chars(std::span<std::byte> b) { return reinterpret_cast<char*>(b.data()); }

void snappy(std::span<const std::byte> in, std::span<std::byte> out) {
    std::size_t n = 0;
    if (snappy_uncompressed_length(chars(in), in.size(), &n) != SNAPPY_OK) corrupt(Codec::snappy, "bad length header");
    if (n != out.size())
        corrupt(Codec::snappy, "holds " + std::to_string(n) + " bytes, the page header says " + std::to_string(out.size()));
    if (snappy_uncompress(chars(in), in.size(), chars(out), &n) != SNAPPY_OK || n != out.size())
        corrupt(Codec::snappy, "does not decompress");
}

// GZIP pages are one or more gzip members (zlib streams are accepted as well).
void gzip(std::span<const std::byte> in, std::span<std::byte> out) {
    z_stream z{};
    if (inflateInit2(&z, 15 + 32) != Z_OK) throw Error("zlib: cannot initialise the decoder");
    struct End {
        z_stream* z;
        ~End() { inflateEnd(z); }
    } end{&z};
    // A page of no bytes (PyArrow's dictionary page of an all-null chunk) may have no buffer,
    // and zlib refuses a null output pointer even when it is to write nothing.
    Bytef none = 0;
    z.next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(in.data()));
    z.next_out = out.empty() ? &none : reinterpret_cast<Bytef*>(out.data());
    std::size_t in_left = in.size(), out_left = out.size();
    for (;;) {
        // zlib counts in uInt; feed it at most that much at a time.
        const auto in_chunk = static_cast<uInt>(std::min<std::size_t>(in_left, UINT_MAX));
        const auto out_chunk = static_cast<uInt>(std::min<std::size_t>(out_left, UINT_MAX));
        z.avail_in = in_chunk;
        z.avail_out = out_chunk;
        const int rc = inflate(&z, Z_NO_FLUSH);
        in_left -= in_chunk - z.avail_in;
        out_left -= out_chunk - z.avail_out;
        if (rc == Z_STREAM_END) {
            if (in_left == 0 || out_left == 0) break;
            if (inflateReset(&z) != Z_OK) corrupt(Codec::gzip, "cannot start the next member");
            continue;
        }
        if (rc == Z_BUF_ERROR && out_left == 0) corrupt(Codec::gzip, "decompresses to more than the page header says");
        if (rc != Z_OK) corrupt(Codec::gzip, z.msg != nullptr ? z.msg : "inflate failed");
        if (in_chunk == z.avail_in && out_chunk == z.avail_out) corrupt(Codec::gzip, "truncated");
    }
    if (out_left != 0) corrupt(Codec::gzip, "decompresses to fewer bytes than the page header says");
}

void brotli(std::span<const std::byte> in, std::span<std::byte> out) {
    std::size_t n = out.size();
    if (BrotliDecoderDecompress(in.size(), reinterpret_cast<const std::uint8_t*>(in.data()), &n,
                                reinterpret_cast<std::uint8_t*>(out.data())) != BROTLI_DECODER_RESULT_SUCCESS ||
        n != out.size())
        corrupt(Codec::brotli, "does not decompress to the page header's size");
}

bool lz4_block(std::span<const std::byte> in, std::span<std::byte> out) {
    if (in.size() > INT_MAX || out.size() > INT_MAX) return false;
    return LZ4_decompress_safe(chars(in), chars(out), static_cast<int>(in.size()), static_cast<int>(out.size())) ==
           static_cast<int>(out.size());
}

std::uint32_t big_endian_u32(const std::byte* p) {
    return std::uint32_t(p[0]) << 24 | std::uint32_t(p[1]) << 16 | std::uint32_t(p[2]) << 8 | std::uint32_t(p[3]);
}

// Hadoop's LZ4 framing: frames of (decompressed size, compressed size, LZ4 block), sizes
// 32-bit big-endian. Returns false if the data is not framed that way.
bool lz4_hadoop(std::span<const std::byte> in, std::span<std::byte> out) {
    while (!in.empty()) {
        if (in.size() < 8) return false;
        const std::uint32_t raw = big_endian_u32(in.data()), packed = big_endian_u32(in.data() + 4);
        in = in.subspan(8);
        if (packed > in.size() || raw > out.size()) return false;
        if (!lz4_block(in.first(packed), out.first(raw))) return false;
        in = in.subspan(packed);
        out = out.subspan(raw);
    }
    return out.empty();
}

void zstd(std::span<const std::byte> in, std::span<std::byte> out) {
    const std::size_t n = ZSTD_decompress(out.data(), out.size(), in.data(), in.size());
    if (ZSTD_isError(n)) corrupt(Codec::zstd, ZSTD_getErrorName(n));
    if (n != out.size()) corrupt(Codec::zstd, "decompresses to fewer bytes than the page header says");
}

}  // namespace

void decompress(Codec codec, std::span<const std::byte> in, std::span<std::byte> out) {
    switch (codec) {
        case Codec::uncompressed:
            if (in.size() != out.size())
                throw FormatError("uncompressed page of " + std::to_string(in.size()) + " bytes, the page header says " +
                                  std::to_string(out.size()));
            std::copy(in.begin(), in.end(), out.begin());
            return;
        case Codec::snappy: snappy(in, out); return;
        case Codec::gzip: gzip(in, out); return;
        case Codec::brotli: brotli(in, out); return;
        case Codec::lz4_raw:
            if (!lz4_block(in, out)) corrupt(codec, "does not decompress to the page header's size");
            return;
        case Codec::lz4:
            // Writers disagree on this codec (Hadoop framing or a bare block); readers try both.
            if (!lz4_hadoop(in, out) && !lz4_block(in, out)) corrupt(codec, "neither Hadoop-framed nor raw LZ4");
            return;
        case Codec::zstd: zstd(in, out); return;
        case Codec::lzo: throw Error("LZO-compressed pages cannot be read (batchbloom has no LZO decoder)");
    }
    throw FormatError("unknown compression codec " + std::to_string(static_cast<std::int32_t>(codec)));
}

}  // namespace batchbloom::parquet
