#pragma once
// Splitting a bulk call by block owner, for writes whose order per block matters (a counting
// filter's counters: an erase must meet the inserts of the batch before it, and a counter that
// saturates must do so as it would on one thread). Thread v of t owns the blocks
// [blocks * v / t, blocks * (v + 1) / t), reads every chunk of the batch's hashes and takes
// those whose block it owns, in batch order, with their positions in the batch: a block's
// counters are then changed by one thread only, in the order one thread would have changed them.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "batch/threads.hpp"
#include "batchbloom/layout.hpp"

namespace batchbloom::detail {

/// One thread's hashes of a chunk of at most Chunk hashes: h[0, n), at batch positions at[0, n).
template <std::size_t Chunk>
struct OwnedHashes {
    std::uint64_t blocks, lo, hi;
    std::size_t n = 0;
    std::uint64_t h[Chunk];
    std::size_t at[Chunk];

    OwnedHashes(std::uint64_t blocks_, unsigned t, unsigned v)
        : blocks(blocks_), lo(blocks_ * v / t), hi(blocks_ * (v + 1) / t) {}
    /// Takes the hashes of its blocks among hashes[0, count), the first at batch position `first`.
    void select(const std::uint64_t* hashes, std::size_t count, std::size_t first) {
        n = 0;
        for (std::size_t j = 0; j < count; ++j) {
            const std::uint64_t b = layout::block_index(hashes[j], blocks);
            h[n] = hashes[j];
            at[n] = first + j;
            n += b >= lo && b < hi;
        }
    }
};

/// body(own) on t threads, each with its OwnedHashes for a filter of `blocks` blocks. They are
/// allocated up front, before any thread starts: the parallel phase, which changes the filter,
/// then cannot fail for memory, so a call either applies every key or none.
template <std::size_t Chunk, class Body>
void each_block_owner(std::uint64_t blocks, unsigned t, Body&& body) {
    std::vector<std::unique_ptr<OwnedHashes<Chunk>>> owned;
    for (unsigned v = 0; v < t; ++v) owned.push_back(std::make_unique<OwnedHashes<Chunk>>(blocks, t, v));
    each_thread(t, [&](unsigned v) { body(*owned[v]); });
}

}  // namespace batchbloom::detail
