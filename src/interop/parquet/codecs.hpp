#pragma once
// Decompressing Parquet pages with the codec libraries Debian ships (snappy, zlib, brotli,
// lz4, zstd).
#include <cstddef>
#include <span>

#include "batchbloom/parquet.hpp"

namespace batchbloom::parquet {

/// Decompresses `in` into exactly `out.size()` bytes (the page header's uncompressed size).
/// Throws FormatError if the data is corrupt or does not decompress to exactly that size, and
/// Error for LZO or an unknown codec.
void decompress(Codec codec, std::span<const std::byte> in, std::span<std::byte> out);

}  // namespace batchbloom::parquet
