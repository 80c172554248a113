#pragma once
// The partitioned batch path's buckets: the contract between the batch layer, which owns their
// memory and sizes them (batch/blocked_paths.cpp), and every engine's scatter and bucket kernels
// (cpu/partition_kernel.hpp, engine.hpp's PartitionKernels), which fill and read them. A key's
// region is block_index(hash) >> shift: an aligned run of 2^shift blocks.
#include <cstddef>
#include <cstdint>

#include "batchbloom/hash.hpp"
#include "batchbloom/layout.hpp"
#include "engine/engine.hpp"

namespace batchbloom::detail::partition {

inline constexpr std::size_t line = 8;  // hashes per 64-byte cache line

/// Region ids are 16 bits, and a filter is cut into at most 4096 regions: enough for regions
/// of half an L2 up to filters of a few GiB, few enough that the write-combining entries (a
/// line or more per region) stay in L2 while the scatter fills them.
using region_id = std::uint16_t;
inline constexpr unsigned max_regions = 4096;

/// One thread's buckets for a round of keys, in memory the batch layer owns: one bucket of
/// `cap` hashes per region (a multiple of `slots`, at least 64), one write-combining entry of
/// `slots` hashes (a power of two, whole lines) and one count per region, and for probes each
/// key's region id.
struct Buckets {
    std::uint64_t blocks;  // the filter's
    unsigned shift;
    unsigned regions;
    std::size_t cap;
    std::size_t slots;
    std::uint64_t* wc;  // region r's entry at r * slots, 64-byte aligned
    std::uint32_t* count;
    std::uint64_t* hashes;  // bucket r at r * cap
    region_id* ids;         // per key of the round; null when the order is not needed (inserts, counts)

    std::uint64_t* bucket(unsigned r) const { return hashes + std::size_t(r) * cap; }
};

/// One key's hash and region, as every policy must compute them.
inline void region_of(std::uint64_t key, KeyMode mode, const Buckets& b, std::uint64_t& hash, region_id& id) {
    hash = mode.kind == KeyMode::mix64 ? mix64(key, mode.seed) : key;
    id = static_cast<region_id>(layout::block_index(hash, b.blocks) >> b.shift);
}

}  // namespace batchbloom::detail::partition
