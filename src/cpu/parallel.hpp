#pragma once
// Multi-core bulk operations over any engine. Probes split the batch into one contiguous
// range per thread. Inserts partition the batch by block range, one range per thread, so no
// two threads ever write the same block: no atomics, and since OR is commutative the filter
// is bit-identical to a single-threaded build whatever the thread count.
#include "cpu/engine.hpp"

namespace batchbloom::detail {

/// Threads used for `requested` (0 = every core OpenMP offers); 1 without OpenMP.
unsigned resolve_threads(unsigned requested);

void parallel_insert(const Engine& e, const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode,
                     unsigned threads);
void parallel_contains_bytes(const Engine& e, const FilterRef& f, const std::uint64_t* keys, std::size_t n,
                             KeyMode mode, std::uint8_t* out, unsigned threads);
void parallel_contains_bits(const Engine& e, const FilterRef& f, const std::uint64_t* keys, std::size_t n,
                            KeyMode mode, std::uint64_t* out, unsigned threads);
std::size_t parallel_count(const Engine& e, const FilterRef& f, const std::uint64_t* keys, std::size_t n,
                           KeyMode mode, unsigned threads);

}  // namespace batchbloom::detail
