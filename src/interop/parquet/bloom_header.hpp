#pragma once
// The Thrift BloomFilterHeader that precedes every bitset in a Parquet file.
#include <cstddef>
#include <cstdint>
#include <span>

namespace batchbloom::parquet {

struct BloomHeader {
    std::uint32_t num_bytes = 0;    ///< bitset size, validated: a multiple of 32 in range
    std::size_t header_bytes = 0;   ///< size of the serialized header itself
};

/// Parses the header at the start of `data` (which may continue with the bitset); throws
/// FormatError if it is malformed, truncated, or not BLOCK / XXHASH / UNCOMPRESSED.
BloomHeader read_bloom_header(std::span<const std::byte> data);

}  // namespace batchbloom::parquet
