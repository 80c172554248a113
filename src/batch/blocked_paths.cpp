#include "batch/blocked_paths.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <new>
#include <vector>

#include "engine/buckets.hpp"
#include "engine/machine.hpp"
#include "batch/path_choice.hpp"
#include "batch/scratch.hpp"

namespace batchbloom::detail {
namespace {

std::uint64_t block_bytes(const FilterRef& f) { return layout::info(f.shape).block_bytes; }
std::uint64_t filter_bytes(const FilterRef& f) { return f.blocks * block_bytes(f); }

/// f, told how its kernels reach `bytes` of it: up to `cached` bytes through the in-cache kernel
/// (prefetch 0: nothing in flight but the next groups' blocks, and those only where they fill
/// more than half of L2, prefetch_near), beyond that as far ahead as this machine needs.
FilterRef prefetched(FilterRef f, std::uint64_t bytes, std::uint64_t cached) {
    const std::uint64_t l2 = machine().l2_bytes;
    f.prefetch = bytes > cached ? machine().prefetch_distance : 0;
    f.prefetch_near = bytes <= cached && bytes > l2 / 2;
    return f;
}

/// A whole filter on the direct path: the in-cache kernel up to four L2s. Its near prefetch,
/// two groups of keys ahead, covers a line from L3 but not from memory: on a Zen 3 VM (512 KiB
/// L2) it ran 1M keys (1.2 MiB) 1.35-1.5x faster warm than the prefetching kernel and no slower
/// cold, and 4M keys (4.8 MiB) 1.2-1.4x faster warm but 1.4-2x slower cold (docs/design.md,
/// "The batch code's constants").
FilterRef prefetched(const FilterRef& f) { return prefetched(f, filter_bytes(f), 4 * machine().l2_bytes); }

constexpr KeyMode hashed{KeyMode::hashed, 0};

/// The CUDA engine moves each call's data to the device itself: one call, on one host thread
/// (so that its errors can surface as exceptions rather than inside a parallel region).
BulkCall for_engine(const BlockedKernels& e, BulkCall call) {
    if (e.backend == Backend::cuda) call.threads = 1;
    if (e.partition == nullptr) call.path = BatchPath::direct;
    return call;
}

// ---- partitioning ------------------------------------------------------------------------

using partition::line;

/// How the partitioned path cuts a filter: into regions of 2^shift blocks (an aligned run, so
/// a region is a shift away from the block index and no block straddles two), each half an L2
/// so that it stays there while its keys are processed. Filters of more than
/// partition::max_regions such regions get larger ones.
struct Geometry {
    unsigned shift = 0, regions = 1;
    explicit Geometry(const FilterRef& f) {
        const std::uint64_t target = std::max<std::uint64_t>(machine().l2_bytes / 2, 64 << 10);
        while ((block_bytes(f) << (shift + 1)) <= target) ++shift;
        while (((f.blocks - 1) >> shift) + 1 > partition::max_regions) ++shift;
        regions = static_cast<unsigned>(((f.blocks - 1) >> shift) + 1);
    }
};

/// Hashes per region in the scatter's write-combining entries (cpu/partition_kernel.hpp): 32, else
/// 16, else 8, the first whose entries take at most an eighth of L2. An entry costs one
/// mispredicted branch when it fills, so wider ones save most of the scatter's misses, but
/// all regions' entries must stay in L2 beside what streams through it: 32-hash entries lost
/// from 2048 regions up on a 2 MiB L2 (docs/design.md, "The batch code's constants").
std::size_t wc_slots(unsigned regions) {
    std::size_t slots = 32;
    while (slots > line && regions * slots * sizeof(std::uint64_t) > machine().l2_bytes / 8) slots /= 2;
    return slots;
}

/// One thread's scratch for rounds of up to `round` keys: a write-combining entry and a count
/// per region, the buckets (room for 1.25x a region's fair share plus an entry, and at least
/// 64 keys), and for probes (`ordered`) each key's region id and each bucket's answers, a bit
/// per key (so a bucket's room is whole 64-bit words).
struct Plan {
    unsigned regions = 0;
    std::size_t round = 0, cap = 0, slots = line;
    bool ordered = false;

    Plan(unsigned regions_, std::size_t round_, bool ordered_)
        : regions(regions_), round(round_), slots(wc_slots(regions_)), ordered(ordered_) {
        const std::size_t unit = ordered ? 64 : slots;
        cap = std::max<std::size_t>((round / regions + round / regions / 4 + slots + unit - 1) / unit * unit, 64);
    }
    std::size_t bytes() const {
        const std::size_t per_region = (slots + cap) * 8 + sizeof(std::uint32_t) + (ordered ? cap / 8 : 0);
        return regions * per_region + (ordered ? round * sizeof(partition::region_id) : 0) + 64;
    }
    /// The largest round of at most `keys` keys (a multiple of 64, so bitmap words are never
    /// split) whose scratch fits in `budget` bytes; round == 0 if not even one that gives each
    /// bucket a few lines fits.
    static Plan fit(unsigned regions, std::size_t keys, std::size_t budget, bool ordered) {
        Plan p(regions, keys, ordered);
        while (p.bytes() > budget && p.round > 0) {
            const double scale = double(budget) / double(p.bytes());
            p = Plan(regions, std::size_t(double(p.round) * scale * 0.98) / 64 * 64, ordered);
        }
        if (p.round < std::size_t(regions) * 4 * line) p.round = 0;
        return p;
    }
};

/// The most keys one of t threads takes into a round: together, 32 per filter line. A round
/// streams each region it touches once, so it must bring several keys to each line (at 1.2 per
/// line a 1 GiB filter ran 1.3-1.7x slower than at 5), but a larger round only grows the
/// scratch the first call faults in, which a VM's host may hand over slowly (docs/design.md,
/// "The batch code's constants"). A multiple of 64 keys, as every round is: a probe's rounds
/// then never share a word of the answer bitmap.
std::size_t round_keys(const FilterRef& f, unsigned t) {
    constexpr std::uint64_t keys_per_line = 32;
    const std::uint64_t lines = filter_bytes(f) / 64 + 1;
    return static_cast<std::size_t>((keys_per_line * lines / t + 63) / 64 * 64);
}

/// One thread's partitioning of rounds of keys by filter region (the scatter kernel,
/// cpu/partition_kernel.hpp), and the processing of its buckets region by region. Bucket r
/// holds its keys in the caller's order, so for probes the i-th key of region r gets the i-th
/// answer of bucket r: each key's region id is all that is needed to put answers back in order.
struct Round {
    const BlockedKernels& e;
    const PartitionKernels& k;
    FilterRef f;
    Geometry g;
    Plan p;
    partition::Buckets b;
    std::uint64_t* answers;  // probes: bucket r's answers from bit r * cap, a bit per key

    Round(const BlockedKernels& e_, const FilterRef& f_, const Geometry& g_, const Plan& p_, std::byte* mem)
        : e(e_), k(*e_.partition), f(f_), g(g_), p(p_) {
        b.blocks = f.blocks;
        b.shift = g.shift;
        b.regions = g.regions;
        b.cap = p.cap;
        b.slots = p.slots;
        b.wc = reinterpret_cast<std::uint64_t*>(mem);
        b.hashes = b.wc + p.regions * p.slots;
        answers = b.hashes + std::size_t(p.regions) * p.cap;
        b.count = reinterpret_cast<std::uint32_t*>(answers + (p.ordered ? std::size_t(p.regions) * p.cap / 64 : 0));
        b.ids = p.ordered ? reinterpret_cast<partition::region_id*>(b.count + p.regions) : nullptr;
    }

    /// Scatters keys[0, n) (n <= the round) into the buckets; returns how many it took (all,
    /// or fewer when a bucket filled up: the rest go into the next round).
    std::size_t fill(const std::uint64_t* keys, std::size_t n, KeyMode mode) { return k.scatter(b, keys, n, mode); }
    std::uint32_t count(unsigned r) const { return b.count[r]; }
    const std::uint64_t* bucket(unsigned r) const { return b.bucket(r); }

    /// Calls dense(region filter) or sparse(prefetching filter) for bucket r. A region with at
    /// least as many keys as cache lines is first brought into the cache in address order,
    /// which the hardware streams at full bandwidth, and its keys then processed by the
    /// in-region kernels without prefetching (unless the region is larger than L2); a sparser
    /// one is left to the engine's own prefetching kernels.
    template <class Dense, class Sparse>
    auto visit(unsigned r, Dense dense, Sparse sparse) const {
        const std::uint64_t bb = block_bytes(f);
        const std::uint64_t first = std::uint64_t(r) << g.shift;
        const std::uint64_t end = std::min(f.blocks, first + (std::uint64_t(1) << g.shift));
        const std::uint64_t bytes = (end - first) * bb;
        if (count(r) < bytes / 64) return sparse(prefetched(f));
        // Into L1 (and so L2), not only L2: a loop of L2-only hints finished faster than memory
        // can deliver a region (as if at 19 GB/s), and the kernel then met lines still on their
        // way or never fetched; with L1 hints the loop is paced by its misses, and probes and
        // inserts ran faster (docs/design.md, "The batch code's constants").
        for (std::uint64_t at = first * bb; at < end * bb; at += 64) __builtin_prefetch(f.data + at, 0, 3);
        const FilterRef in = prefetched(f, bytes, machine().l2_bytes);
        return in.prefetch == 0 ? dense(in) : sparse(in);
    }

    void insert(unsigned r) const {
        visit(
            r, [&](const FilterRef& in) { k.insert(in, bucket(r), count(r)); },
            [&](const FilterRef& in) { e.insert(in, bucket(r), count(r), hashed); });
    }
    std::size_t count_found(unsigned r) const {
        return visit(
            r, [&](const FilterRef& in) { return k.count(in, bucket(r), count(r)); },
            [&](const FilterRef& in) { return e.count(in, bucket(r), count(r), hashed); });
    }
    /// Probes bucket r: bit r * cap + i of the answers for its i-th key.
    void probe(unsigned r) const {
        std::uint64_t* const a = answers + std::size_t(r) * p.cap / 64;
        visit(
            r, [&](const FilterRef& in) { k.contains(in, bucket(r), count(r), a); },
            [&](const FilterRef& in) { e.contains_bits(in, bucket(r), count(r), hashed, a); });
    }

    /// Calls put(i, answer of key i) for the first n keys of the round, in order.
    template <class Put>
    void restore(std::size_t n, Put put) const {
        // Answers are bits rather than bytes: a cursor's line then serves 512 keys of its
        // region rather than 64, and the lines under 4096 regions' cursors stay near the core
        // (docs/design.md, "The batch code's constants"). `put` is taken by value: a local
        // copy cannot be aliased by the stores it makes, so the pointers it captured stay in
        // registers.
        std::size_t next[partition::max_regions];  // bit index of each region's next answer
        for (unsigned r = 0; r < p.regions; ++r) next[r] = std::size_t(r) * p.cap;
        const partition::region_id* const ids = b.ids;
        const std::uint64_t* const a = answers;
        for (std::size_t i = 0; i < n; ++i) {
            const unsigned r = ids[i];
            const std::size_t at = next[r];
            put(i, static_cast<std::uint8_t>((a[at / 64] >> (at % 64)) & 1));
            next[r] = at + 1;
        }
    }
};

/// Multi-threaded insert for filters small next to the batch: slot 0's pieces go into the
/// filter, each other slot's into a zeroed private copy in its thread's scratch (faulted in by
/// that thread as it zeroes it), and the copies are then ORed in (insert_into_copies,
/// threads.hpp).
void insert_copies(const BlockedKernels& e, const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode,
                   unsigned t, BatchScratch::Lease& lease) {
    const std::size_t words = filter_bytes(f) / sizeof(std::uint64_t);
    insert_into_copies(
        reinterpret_cast<std::uint64_t*>(f.data), words, t,
        [&](unsigned slot) {
            const std::size_t bytes = words * sizeof(std::uint64_t);
            return reinterpret_cast<std::uint64_t*>(lease.arena(slot).get(bytes, false, copy_spare_most(bytes)));
        },
        true, n, 64, [&](std::uint64_t* into, Range c) {
            FilterRef mine = f;
            mine.data = reinterpret_cast<std::byte*>(into);
            e.insert(prefetched(mine), keys + c.begin, c.size(), mode);
        });
}

/// Direct insert on t threads: each thread reads the whole batch and sets only the blocks of
/// its own range of the filter, so no block has two writers (no atomics, and the same bits
/// as one thread). Hashing every key t times is cheap next to a cache miss per key.
void insert_by_block_range(const BlockedKernels& e, const FilterRef& f, const std::uint64_t* keys, std::size_t n,
                           KeyMode mode, unsigned t) {
    each_thread(t, [&](unsigned v) {
        FilterRef mine = prefetched(f);
        mine.first_block = f.blocks * v / t;
        mine.end_block = f.blocks * (v + 1) / t;
        e.insert(mine, keys, n, mode);
    });
}

/// The partitioned path on t threads, in rounds: each thread scatters its share of a round
/// into its own buckets; then each thread takes whole regions and calls region(bucket, r,
/// thread) for every thread's bucket of each of them, so no block is visited by two threads
/// and each region is brought into the cache once per round however many threads there are
/// (a probe writes the answers into the bucket's own round, where its owner looks for them);
/// then each thread calls finish(its round, begin, len) for the len keys from `begin` it
/// scattered. A thread whose buckets filled up before its share was done scatters the rest in
/// the next pass; with `ordered` (answers put back in order), what it took is cut to whole
/// 64-key words (the keys cut off sit in the buckets after all the others, and are scattered
/// again). Throws std::bad_alloc, before any work, if some thread cannot have its scratch.
template <class Region, class Finish>
void partitioned_rounds(const BlockedKernels& e, const FilterRef& f, const std::uint64_t* keys, std::size_t n,
                        KeyMode mode, unsigned t, BatchScratch::Lease& lease, bool ordered, Region&& region,
                        Finish&& finish) {
    const Geometry g(f);
    const Plan p = Plan::fit(g.regions, std::min((n + t - 1) / t, round_keys(f, t)), lease.per_thread(), ordered);
    if (p.round == 0) throw std::bad_alloc();
    std::vector<std::byte*> mem(t);
    each_thread(t, [&](unsigned v) { mem[v] = lease.arena(v).get(p.bytes()); });  // each faults in its own
    std::vector<Round> parts;
    parts.reserve(t);
    for (unsigned v = 0; v < t; ++v) parts.emplace_back(e, f, g, p, mem[v]);
    std::vector<std::size_t> done(t), from(t), got(t);  // per thread: of its share of the round
    const std::size_t round = p.round * t;
    for (std::size_t r0 = 0; r0 < n; r0 += round) {
        const std::size_t len = std::min(round, n - r0);
        std::fill(done.begin(), done.end(), 0);
        std::atomic<bool> more{true};
        while (more) {
            more = false;
            each_thread(t, [&](unsigned v) {
                const Range c = part(len, t, v, 64);
                from[v] = r0 + c.begin + done[v];
                got[v] = parts[v].fill(keys + from[v], c.size() - done[v], mode);
                if (ordered && done[v] + got[v] < c.size()) got[v] = got[v] / 64 * 64;
                done[v] += got[v];
                if (done[v] < c.size()) more = true;
            });
            each_thread(t, [&](unsigned v) {
                for (unsigned r = g.regions * v / t; r < g.regions * (v + 1) / t; ++r)
                    for (const Round& b : parts)
                        if (b.count(r) != 0) region(b, r, v);
            });
            each_thread(t, [&](unsigned v) {
                if (got[v] != 0) finish(parts[v], from[v], got[v]);
            });
        }
    }
}

void insert_partitioned(const BlockedKernels& e, const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode,
                        unsigned t, BatchScratch::Lease& lease) {
    partitioned_rounds(
        e, f, keys, n, mode, t, lease, false, [](const Round& b, unsigned r, unsigned) { b.insert(r); },
        [](const Round&, std::size_t, std::size_t) {});
}

/// Runs n keys of a bulk call with the engine's limits (for_engine), on the call's threads (fewer
/// for a part too small for them) and the path choose_path() picks for them (path_choice.hpp):
/// run(threads, partitioned, scratch). Once per call or part, outside the per-key loops.
template <class Run>
void on_chosen_path(const BlockedKernels& e, const FilterRef& f, std::size_t n, const BulkCall& call, Op op, Run&& run) {
    const BulkCall c = for_engine(e, call);
    const unsigned t = c.threads_for(n);
    run(t, choose_path(f, n, t, c.path, op) == BatchPath::partitioned, c.scratch);
}

bool insert_range(const BlockedKernels& e, const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode,
                  unsigned t, bool partitioned, BatchScratch* scratch) {
    if (t == 1 && !partitioned) {
        e.insert(prefetched(f), keys, n, mode);
        return false;
    }
    BatchScratch::Lease lease(scratch, t);
    if (lease) try {
            if (partitioned) {
                insert_partitioned(e, f, keys, n, mode, t, lease);
                return true;
            }
            if (private_copies_pay(f, t, n) && lease.per_thread() >= filter_bytes(f)) {  // within the scratch limit
                insert_copies(e, f, keys, n, mode, t, lease);
                return false;
            }
        } catch (const std::bad_alloc&) {
            // No memory for copies or buckets: the direct path needs none. Keys already
            // inserted are inserted again, which changes nothing.
        }
    if (t == 1)
        e.insert(prefetched(f), keys, n, mode);
    else
        insert_by_block_range(e, f, keys, n, mode, t);
    return false;
}

/// A probe of keys [0, n): partitioned (partitioned_rounds with `ordered`, `region` and
/// `finish`) if `partitioned` and the scratch is free and can be had, else on the direct path,
/// by direct_range on pieces the threads share. Returns whether it ran partitioned.
template <class Region, class Finish, class Direct>
bool probe_on_path(const BlockedKernels& e, const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode,
                   unsigned t, bool partitioned, BatchScratch* scratch, bool ordered, Region&& region, Finish&& finish,
                   Direct&& direct_range) {
    if (partitioned) {
        if (BatchScratch::Lease lease(scratch, t); lease) try {
                partitioned_rounds(e, f, keys, n, mode, t, lease, ordered, region, finish);
                return true;
            } catch (const std::bad_alloc&) {
                // No memory for the buckets (nothing was probed yet): the direct path needs none.
            }
    }
    each_share(n, t, 64, direct_range);
    return false;
}

void probe_region(const Round& b, unsigned r, unsigned) { b.probe(r); }

bool bytes_range(const BlockedKernels& e, const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode,
                 std::uint8_t* out, unsigned t, bool partitioned, BatchScratch* scratch) {
    auto direct_range = [&](Range c) { e.contains_bytes(prefetched(f), keys + c.begin, c.size(), mode, out + c.begin); };
    return probe_on_path(
        e, f, keys, n, mode, t, partitioned, scratch, true, probe_region,
        [out](const Round& b, std::size_t begin, std::size_t len) {
            std::uint8_t* const o = out + begin;
            b.restore(len, [o](std::size_t i, std::uint8_t a) { o[i] = a; });
        },
        direct_range);
}

bool bits_range(const BlockedKernels& e, const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode,
                std::uint64_t* out, unsigned t, bool partitioned, BatchScratch* scratch) {
    auto direct_range = [&](Range c) { e.contains_bits(prefetched(f), keys + c.begin, c.size(), mode, out + c.begin / 64); };
    return probe_on_path(
        e, f, keys, n, mode, t, partitioned, scratch, true, probe_region,
        [out](const Round& b, std::size_t begin, std::size_t len) {
            // What a thread takes starts on a multiple of 64 keys: it writes whole words of its own.
            std::uint64_t* const words = out + begin / 64;
            std::uint64_t bits = 0;
            b.restore(len, [&bits, words, len](std::size_t i, std::uint8_t a) {
                bits |= std::uint64_t(a) << (i % 64);
                if (i % 64 == 63 || i + 1 == len) {
                    words[i / 64] = bits;
                    bits = 0;
                }
            });
        },
        direct_range);
}

bool count_range(const BlockedKernels& e, const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode,
                 std::atomic<std::size_t>& total, unsigned t, bool partitioned, BatchScratch* scratch) {
    auto direct_range = [&](Range c) { total += e.count(prefetched(f), keys + c.begin, c.size(), mode); };
    // Counting needs no answers back in order: a count per bucket.
    return probe_on_path(
        e, f, keys, n, mode, t, partitioned, scratch, false,
        [&total](const Round& b, unsigned r, unsigned) { total += b.count_found(r); },
        [](const Round&, std::size_t, std::size_t) {}, direct_range);
}

}  // namespace

void bulk_insert(const BlockedKernels& e, const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode,
                 const BulkCall& call) {
    on_chosen_path(e, f, n, call, Op::insert, [&](unsigned t, bool partitioned, BatchScratch* scratch) {
        insert_range(e, f, keys, n, mode, t, partitioned, scratch);
    });
}

void bulk_contains_bytes(const BlockedKernels& e, const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode,
                         std::uint8_t* out, const BulkCall& call) {
    on_chosen_path(e, f, n, call, Op::probe, [&](unsigned t, bool partitioned, BatchScratch* scratch) {
        bytes_range(e, f, keys, n, mode, out, t, partitioned, scratch);
    });
}

void bulk_contains_bits(const BlockedKernels& e, const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode,
                        std::uint64_t* out, const BulkCall& call) {
    on_chosen_path(e, f, n, call, Op::probe, [&](unsigned t, bool partitioned, BatchScratch* scratch) {
        bits_range(e, f, keys, n, mode, out, t, partitioned, scratch);
    });
}

std::size_t bulk_count(const BlockedKernels& e, const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode,
                       const BulkCall& call) {
    std::atomic<std::size_t> total{0};
    on_chosen_path(e, f, n, call, Op::probe, [&](unsigned t, bool partitioned, BatchScratch* scratch) {
        count_range(e, f, keys, n, mode, total, t, partitioned, scratch);
    });
    return total;
}

BatchPath path_for(const BlockedKernels& e, const FilterRef& f, std::size_t n, const BulkCall& call, Op op) {
    bool partitioned = false;
    on_chosen_path(e, f, n, call, op, [&](unsigned, bool p, BatchScratch*) { partitioned = p; });
    return partitioned ? BatchPath::partitioned : BatchPath::direct;
}

}  // namespace batchbloom::detail
