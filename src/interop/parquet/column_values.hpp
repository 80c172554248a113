#pragma once
// Reading one column chunk's values from its pages, as Parquet Bloom filter hashes.
#include <cstdint>
#include <span>

#include "batchbloom/parquet.hpp"

namespace batchbloom::parquet {

/// Where the hashes of a chunk's values go.
class HashSink {
public:
    virtual void add(std::uint64_t hash) = 0;

protected:
    ~HashSink() = default;
};

/// Where a chunk's pages start: at its dictionary page when it has one, else its first data
/// page; an offset below 4 means "no such page" (writers record 0: some for no dictionary,
/// PyArrow for no data page in a chunk of no rows); a chunk of no pages (total_compressed_size
/// 0) has nothing to read and gets 4. Throws FormatError unless the pages (total_compressed_size
/// bytes) lie in [4, data_end).
std::uint64_t pages_offset(const ColumnChunk& meta, std::uint64_t data_end);

/// Throws Error if the chunk's values cannot be hashed (BOOLEAN or INT96: Parquet defines no
/// Bloom filter hashing for them) and FormatError if its schema information is missing or
/// inconsistent.
void check_hashable(const ColumnChunk& meta);

/// Decodes every page of a column chunk (`pages`: the chunk's bytes, from its first page, as
/// long as ColumnMetaData.total_compressed_size says) and hands sink the hash of each of its
/// non-null values as Parquet hashes them (XXH64 of the PLAIN encoding); a dictionary entry's
/// hash comes once, however many values refer to it. Reads pages until the definition levels
/// add up to meta.num_values; returns the number of non-null values. Throws Error for what it
/// cannot decode (LZO, an unknown encoding, BOOLEAN / INT96 values) and FormatError for a
/// malformed chunk.
std::int64_t hash_chunk_values(std::span<const std::byte> pages, const ColumnChunk& meta, HashSink& sink);

}  // namespace batchbloom::parquet
