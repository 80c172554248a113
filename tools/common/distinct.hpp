#pragma once
// Counting distinct 64-bit hashes (build sizes a filter for the distinct keys it reads).
#include <cstdint>
#include <span>

namespace batchbloom::cli {

/// Number of distinct values. Meant for hashes: one radix pass on the top 16 bits spreads
/// uniformly distributed values into cache-sized buckets, each of which is then sorted.
std::uint64_t count_distinct(std::span<const std::uint64_t> values);

}  // namespace batchbloom::cli
