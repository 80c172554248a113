#pragma once
// Re-encoding a Parquet footer with new Bloom filter locations.
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <utility>
#include <vector>

namespace batchbloom::parquet {

struct ChunkFilter {
    std::int64_t offset = 0;    ///< bloom_filter_offset
    std::int32_t length = 0;    ///< bloom_filter_length
    std::optional<std::int64_t> distinct;  ///< recorded under distinct_values_key (nothing if unknown)
};

/// (row group index, column index within the row group)
using ChunkIndex = std::pair<std::size_t, std::size_t>;

/// The serialized FileMetaData `footer` again, with each listed column chunk's
/// bloom_filter_offset, bloom_filter_length and distinct_values_key entry set to the given
/// values (replacing any it had; without a distinct count, an old entry is dropped). Every other field is copied as it was encoded. Throws
/// FormatError on a malformed footer or if a listed chunk does not exist.
std::vector<std::byte> rewrite_footer(std::span<const std::byte> footer, const std::map<ChunkIndex, ChunkFilter>& filters);

/// The bytes that end a file whose footer was `footer`: rewrite_footer(footer, filters), then
/// its length and the PAR1 magic. Throws Error if the new footer exceeds 4 GiB (the length
/// field's limit).
std::vector<std::byte> rewrite_file_end(std::span<const std::byte> footer, const std::map<ChunkIndex, ChunkFilter>& filters);

}  // namespace batchbloom::parquet
