#pragma once
// The partitioned batch path's scatter (batch/blocked_paths.cpp), written once over a policy that
// hashes a group of keys and finds their regions — a loop in the scalar engine, a few vector
// instructions in the SIMD ones:
//
//   static constexpr std::size_t group;   keys per call of regions()
//   static void regions(const std::uint64_t* keys, KeyMode mode, const Buckets& b,
//                       std::uint64_t* hashes, region_id* ids);     exactly `group` keys
//   static void stream(std::uint64_t* dst, const std::uint64_t* src);  one 64-byte line (both
//                                                                      64-byte aligned), bypassing the cache
//   static void fence();                                            orders the streamed stores
//
// The buckets it fills, and a key's region, are the engine interface's (engine/buckets.hpp).
#include <cstddef>
#include <cstdint>

#include "engine/buckets.hpp"

namespace batchbloom::detail::partition {

/// Scatters the hashes of keys[0, n), in order, into the buckets (counts start at zero) and
/// returns how many keys it took: n, or fewer if a key found its bucket full (skewed or
/// repeated keys). The caller processes what was taken and starts again from there; a bucket
/// holds at least 64 keys, so at least 64 are taken.
///
/// Software write-combining: hashes are collected in an entry of `slots` per region and a full
/// entry sent out with streaming stores when its region's next key arrives rather than at once:
/// by then its 8-byte stores have left the store buffer, so reading it back a line at a time
/// does not stall on store forwarding. The region's count says both where the next hash goes
/// and (every `slots` keys) that an entry is complete, which is also where a full bucket shows.
/// That test is the branch the predictor misses, once per entry. The scatter's time is the
/// core's, not the memory's (it ran as fast with no streaming stores at all), and wider
/// entries made it faster, as long as they stay in L2 (the batch layer picks `slots`).
template <class P>
std::size_t scatter(const Buckets& b, const std::uint64_t* keys, std::size_t n, KeyMode mode) {
    constexpr std::size_t chunk = 256;
    static_assert(chunk % P::group == 0);
    alignas(64) std::uint64_t h[chunk];
    alignas(64) region_id local_ids[chunk];
    std::uint32_t* const count = b.count;
    std::uint64_t* const wc = b.wc;
    // slots is a power of two: a mask, not a division, finds a hash's slot.
    const std::size_t cap = b.cap, slots = b.slots, slot = slots - 1;
    std::size_t taken = n;
    for (unsigned r = 0; r < b.regions; ++r) count[r] = 0;
    for (std::size_t c0 = 0; c0 < n && taken == n; c0 += chunk) {
        const std::size_t len = n - c0 < chunk ? n - c0 : chunk;
        region_id* const ids = b.ids ? b.ids + c0 : local_ids;
        std::size_t j = 0;
        for (; j + P::group <= len; j += P::group) {
            // The next chunk's keys into L1, a line for each line hashed here. Beside the
            // streaming stores, the hardware's own prefetching left hashing keys from memory twice
            // as slow as from L2 (~6 GB/s); this made the scatter faster (docs/design.md, "The
            // batch code's constants").
            if (j % line == 0 && c0 + j + chunk < n) __builtin_prefetch(keys + c0 + j + chunk, 0, 3);
            P::regions(keys + c0 + j, mode, b, h + j, ids + j);
        }
        for (; j < len; ++j) region_of(keys[c0 + j], mode, b, h[j], ids[j]);
        for (j = 0; j < len; ++j) {
            const unsigned r = ids[j];
            const std::uint32_t at = count[r];
            std::uint64_t* const entry = wc + std::size_t(r) * slots;
            if ((at & slot) == 0) [[unlikely]] {
                if (at == cap) {
                    taken = c0 + j;
                    break;
                }
                if (at != 0)
                    for (std::size_t l = 0; l < slots; l += line) P::stream(b.bucket(r) + at - slots + l, entry + l);
            }
            entry[at & slot] = h[j];
            count[r] = at + 1;
        }
    }
    for (unsigned r = 0; r < b.regions; ++r) {  // each region's last entry, full or not
        std::uint64_t* const dst = b.bucket(r);
        const std::uint64_t* const entry = wc + std::size_t(r) * slots;
        if (count[r] != 0)
            for (std::size_t at = (count[r] - 1) / slots * slots; at < count[r]; ++at) dst[at] = entry[at & slot];
    }
    P::fence();
    return taken;
}

}  // namespace batchbloom::detail::partition
