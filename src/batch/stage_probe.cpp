#include "batch/stage_probe.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <vector>

#include "batch/scratch.hpp"
#include "batch/threads.hpp"

namespace batchbloom::detail {
namespace {

/// dst[j] |= hits[j] for j < n; returns how many hits[j] are 1. Answers are 0 or 1 bytes, so
/// both are done eight at a time on 64-bit words: the count adds the words bytewise (a byte
/// sums at most 255 words before the lanes are folded).
std::size_t or_answers(std::uint8_t* dst, const std::uint8_t* hits, std::size_t n) {
    std::size_t found = 0, j = 0;
    const std::size_t words_end = n & ~std::size_t(7);
    while (j < words_end) {
        std::uint64_t sums = 0;
        for (const std::size_t end = std::min(words_end, j + 8 * 255); j < end; j += 8) {
            std::uint64_t h, d;
            std::memcpy(&h, hits + j, 8);
            std::memcpy(&d, dst + j, 8);
            d |= h;
            std::memcpy(dst + j, &d, 8);
            sums += h;
        }
        sums = (sums & 0x00FF00FF00FF00FFULL) + ((sums >> 8) & 0x00FF00FF00FF00FFULL);
        found += static_cast<std::size_t>((sums * 0x0001000100010001ULL) >> 48);
    }
    for (; j < n; ++j) {
        dst[j] |= hits[j];
        found += hits[j];
    }
    return found;
}

/// Compacts the `left` values still asked, from[0, left), into to[0, kept) (to may be from):
/// those whose answer in dst is still 0, with their positions in dst (position[j] already holds
/// value j's when `moved`, else j is its own). Returns kept.
std::size_t keep_unanswered(const std::uint64_t* from, std::uint64_t* to, std::uint32_t* position, bool moved,
                            const std::uint8_t* dst, std::size_t left) {
    std::size_t kept = 0;
    for (std::size_t j = 0; j < left; ++j) {
        const std::uint32_t p = moved ? position[j] : static_cast<std::uint32_t>(j);
        to[kept] = from[j];
        position[kept] = p;
        kept += dst[p] ^ 1u;
    }
    return kept;
}

/// ORs a stage's answers hits[0, m) into dst: at the positions pos[0, m) of compacted values,
/// or (pos null) into dst[0, m) in order. Returns how many it found.
std::size_t or_found(std::uint8_t* dst, const std::uint8_t* hits, const std::uint32_t* pos, std::size_t m) {
    if (pos == nullptr) return or_answers(dst, hits, m);
    std::size_t found = 0;
    for (std::size_t j = 0; j < m; ++j) {
        dst[pos[j]] |= hits[j];
        found += hits[j];
    }
    return found;
}

/// Memory of a stage-by-stage probe of n keys: the keys still asked and their positions in the
/// batch once compacted, and a stage's answers.
struct ByStage {
    static constexpr std::size_t bytes_per_key = sizeof(std::uint64_t) + sizeof(std::uint32_t) + 1;
    std::uint64_t* kept;
    std::uint32_t* position;
    std::uint8_t* hits;
    ByStage(std::byte* mem, std::size_t n)
        : kept(reinterpret_cast<std::uint64_t*>(mem)),
          position(reinterpret_cast<std::uint32_t*>(mem + n * sizeof(std::uint64_t))),
          hits(reinterpret_cast<std::uint8_t*>(mem + n * (sizeof(std::uint64_t) + sizeof(std::uint32_t)))) {}
};

/// Probes n 64-bit values stage by stage, newest first (stage 0 here): probe(s, values, m,
/// answers) asks stage s for m values at once, and the values some stage found are dropped
/// (compacted into m.kept, with their positions) by the rule of stage_probe.hpp. dst: one
/// answer per value. A stage's answers are ORed in
/// on t threads (the stages' own calls take theirs): on one, that pass was a serial part of
/// every stage.
void by_stage(std::size_t stages, const std::uint64_t* values, std::size_t n, std::uint8_t* dst, const ByStage& m,
              unsigned t, const ProbeStage& probe) {
    probe(0, values, n, dst);
    const std::uint64_t* asked = values;
    bool moved = false;  // asked has been compacted (m.position holds where each value was)
    std::size_t left = n;
    auto found = static_cast<std::size_t>(std::count(dst, dst + n, 1));
    std::vector<std::size_t> found_by(t);
    for (std::size_t s = 1; s < stages; ++s) {
        if (found * (stages - s) >= left) {
            left = keep_unanswered(asked, m.kept, m.position, moved, dst, left);
            asked = m.kept;
            moved = true;
            found = 0;
            if (left == 0) return;
        }
        probe(s, asked, left, m.hits);
        // Each value's answer is its own byte of dst: the parts never write the same one.
        each_thread(t, [&](unsigned v) {
            const Range r = part(left, t, v, 64);
            found_by[v] = or_found(moved ? dst : dst + r.begin, m.hits + r.begin, moved ? m.position + r.begin : nullptr,
                                   r.size());
        });
        for (const std::size_t f : found_by) found += f;
    }
}

}  // namespace

// Chunks of 16K keys keep the hashes in L2; chunks of 64K and 1M keys (each stage kept in
// cache over a longer run) measured no faster (docs/design.md, "The batch code's constants").
void probe_in_chunks(const BlockedKernels& kernels, std::span<const FilterRef> refs, std::span<const KeyMode> modes,
                     std::size_t n, std::uint8_t* out, const BulkCall& call, const HashKeys& hash) {
    const std::size_t last = refs.size();
    // The CUDA engine moves each call's data to the device itself, from one host thread, so
    // it gets chunks of 1M keys at once, not L1-sized pieces (whose answers are ORed in while
    // in L1).
    const bool cuda = kernels.backend == Backend::cuda;
    const std::size_t chunk = cuda ? std::size_t(1) << 20 : std::size_t(1) << 14;
    const std::size_t piece = cuda ? chunk : 4096;
    const unsigned t = cuda ? 1u : call.threads_for(n);
    each_part(n, t, 1, [&](Range range) {
        const std::size_t scratch = std::min(chunk, range.size());
        // Not zeroed; position[] (in the chunk, of hashes[j] once compacted) only once keys
        // were found.
        const auto hash_buf = std::make_unique_for_overwrite<std::uint64_t[]>(scratch);
        std::unique_ptr<std::uint32_t[]> position_buf;
        const auto hit_buf = std::make_unique_for_overwrite<std::uint8_t[]>(std::min(piece, scratch));
        std::uint64_t* const hashes = hash_buf.get();
        std::uint32_t* position = nullptr;
        std::uint8_t* const hits = hit_buf.get();
        for (std::size_t begin = range.begin; begin < range.end; begin += chunk) {
            const std::size_t m = std::min(chunk, range.end - begin);
            std::uint8_t* const dst = out + begin;
            hash(begin, m, hashes);
            kernels.contains_bytes(refs[0], hashes, m, modes[0], dst);
            std::size_t left = m;  // keys still asked: hashes[0, left)
            bool moved = false;    // whether they have been compacted (position[] holds where they were)
            // Of the keys still asked, those found since the last compaction (or so many: a key
            // two stages found counts twice).
            auto found = static_cast<std::size_t>(std::count(dst, dst + m, 1));
            for (std::size_t s = 1; s < last; ++s) {
                if (found * (last - s) >= left) {
                    if (position == nullptr) {
                        position_buf = std::make_unique_for_overwrite<std::uint32_t[]>(scratch);
                        position = position_buf.get();
                    }
                    left = keep_unanswered(hashes, hashes, position, moved, dst, left);
                    moved = true;
                    found = 0;
                    if (left == 0) break;
                }
                for (std::size_t b = 0; b < left; b += piece) {
                    const std::size_t k = std::min(piece, left - b);
                    kernels.contains_bytes(refs[s], hashes + b, k, modes[s], hits);
                    found += or_found(moved ? dst : dst + b, hits, moved ? position + b : nullptr, k);
                }
            }
        }
    });
}

bool probe_by_stage(BatchScratch& scratch, std::size_t stages, const std::uint64_t* values, std::size_t n,
                    std::uint8_t* out, const BulkCall& call, const HashKeys& hash, const ProbeStage& probe) {
    // Parts of at most the cap, and few enough keys for 32-bit positions.
    const std::size_t cap = scratch.limit() / ByStage::bytes_per_key;
    const std::size_t part = std::min<std::size_t>({n, cap, std::numeric_limits<std::uint32_t>::max()});
    if (part < stage_probe_min_keys) return false;
    BatchScratch::Lease lease(&scratch, 1);
    if (!lease) return false;  // another probe of this filter has it
    std::byte* mem = nullptr;
    try {
        mem = lease.arena(0).get(part * ByStage::bytes_per_key);
    } catch (const std::bad_alloc&) {
        return false;
    }
    const ByStage m(mem, part);
    for (std::size_t b = 0; b < n; b += part) {
        const std::size_t len = std::min(part, n - b);
        const std::uint64_t* v = values + b;
        if (values == nullptr) {  // hashed once for every stage, where the compaction keeps them
            hash(b, len, m.kept);
            v = m.kept;
        }
        by_stage(stages, v, len, out + b, m, call.threads_for(len), probe);
    }
    return true;
}

}  // namespace batchbloom::detail
