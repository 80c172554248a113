#pragma once
// The partitioned batch path's scatter (engine/batch.cpp), written once over a policy that
// hashes a group of keys and finds their regions — a loop in the scalar engine, a few vector
// instructions in the SIMD ones:
//
//   static constexpr std::size_t group;   keys per call of regions()
//   static void regions(const std::uint64_t* keys, KeyMode mode, const Buckets& b,
//                       std::uint64_t* hashes, region_id* ids);     exactly `group` keys
//   static void stream(std::uint64_t* dst, const Line& src);         64 bytes, bypassing the cache
//   static void fence();                                            orders the streamed stores
//
// A key's region is block_index(hash) >> shift: an aligned run of 2^shift blocks.
#include <cstddef>
#include <cstdint>

#include "batchbloom/hash.hpp"
#include "batchbloom/layout.hpp"
#include "engine/engine.hpp"

namespace batchbloom::detail::partition {

inline constexpr std::size_t line = 8;  // hashes per 64-byte cache line

struct alignas(64) Line {
    std::uint64_t w[line];
};

/// Region ids are 16 bits, and a filter is cut into at most 4096 regions: enough for regions
/// of half an L2 up to filters of a few GiB, few enough that the write-combining lines (256 KiB
/// at most) stay in L2 while the scatter fills them.
using region_id = std::uint16_t;
inline constexpr unsigned max_regions = 4096;

/// One thread's buckets for a round of keys, in memory the batch layer owns: one bucket of
/// `cap` hashes per region (a multiple of `line`, at least 64), one write-combining line and
/// one count per region, and for probes each key's region id.
struct Buckets {
    std::uint64_t blocks;  // the filter's
    unsigned shift;
    unsigned regions;
    std::size_t cap;
    Line* wc;
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

/// Scatters the hashes of keys[0, n), in order, into the buckets (counts start at zero) and
/// returns how many keys it took: n, or fewer if a key found its bucket full (skewed or
/// repeated keys). The caller processes what was taken and starts again from there; a bucket
/// holds at least 64 keys, so at least 64 are taken.
///
/// Software write-combining: hashes are collected in one line per region and a full line
/// sent out with streaming stores when its region's next key arrives rather than at once: by
/// then its eight 8-byte stores have left the store buffer, so reading it back whole does not
/// stall on store forwarding. The region's count says both where the next hash goes and
/// (every eighth key) that a line is complete, which is also where a full bucket shows.
template <class P>
std::size_t scatter(const Buckets& b, const std::uint64_t* keys, std::size_t n, KeyMode mode) {
    constexpr std::size_t chunk = 256;
    static_assert(chunk % P::group == 0);
    alignas(64) std::uint64_t h[chunk];
    alignas(64) region_id local_ids[chunk];
    std::uint32_t* const count = b.count;
    Line* const wc = b.wc;
    const std::size_t cap = b.cap;
    std::size_t taken = n;
    for (unsigned r = 0; r < b.regions; ++r) count[r] = 0;
    for (std::size_t c0 = 0; c0 < n && taken == n; c0 += chunk) {
        const std::size_t len = n - c0 < chunk ? n - c0 : chunk;
        region_id* const ids = b.ids ? b.ids + c0 : local_ids;
        std::size_t j = 0;
        for (; j + P::group <= len; j += P::group) {
            // The next chunk's keys into L1, a line for each line hashed here. Beside the
            // streaming stores, the hardware's own prefetching left hashing keys from memory twice
            // as slow as from L2 (~6 GB/s); this made the scatter 15-20% faster (bench/RESULTS.md).
            if (j % line == 0 && c0 + j + chunk < n) __builtin_prefetch(keys + c0 + j + chunk, 0, 3);
            P::regions(keys + c0 + j, mode, b, h + j, ids + j);
        }
        for (; j < len; ++j) region_of(keys[c0 + j], mode, b, h[j], ids[j]);
        for (j = 0; j < len; ++j) {
            const unsigned r = ids[j];
            const std::uint32_t at = count[r];
            if (at % line == 0) [[unlikely]] {
                if (at == cap) {
                    taken = c0 + j;
                    break;
                }
                if (at != 0) P::stream(b.bucket(r) + at - line, wc[r]);
            }
            wc[r].w[at % line] = h[j];
            count[r] = at + 1;
        }
    }
    for (unsigned r = 0; r < b.regions; ++r) {  // each region's last line, full or not
        std::uint64_t* const dst = b.bucket(r);
        if (count[r] != 0)
            for (std::size_t at = (count[r] - 1) / line * line; at < count[r]; ++at) dst[at] = wc[r].w[at % line];
    }
    P::fence();
    return taken;
}

}  // namespace batchbloom::detail::partition
