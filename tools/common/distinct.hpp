#pragma once
// Distinct 64-bit hashes (build sizes a filter for the distinct keys it reads, and some filter
// types take each distinct key once).
#include <cstdint>
#include <vector>

namespace batchbloom::cli {

/// Replaces `values` by its distinct values, in no particular order. Meant for hashes: one
/// radix pass on the top 16 bits spreads uniformly distributed values into cache-sized
/// buckets, each of which is then sorted (peak memory: twice the input).
void make_distinct(std::vector<std::uint64_t>& values);

}  // namespace batchbloom::cli
