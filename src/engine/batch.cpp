#include "engine/batch.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <new>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "engine/machine.hpp"
#include "engine/path_choice.hpp"
#include "engine/scratch.hpp"

namespace batchbloom::detail {
namespace {

std::uint64_t block_bytes(const FilterRef& f) { return layout::info(f.shape).block_bytes; }
std::uint64_t filter_bytes(const FilterRef& f) { return f.blocks * block_bytes(f); }

/// f, told to prefetch as far ahead as this machine needs unless `bytes` of it fit in L2.
FilterRef prefetched(FilterRef f, std::uint64_t bytes) {
    f.prefetch = bytes > machine().l2_bytes ? machine().prefetch_distance : 0;
    return f;
}
FilterRef prefetched(const FilterRef& f) { return prefetched(f, filter_bytes(f)); }

constexpr KeyMode hashed{KeyMode::hashed, 0};

/// The CUDA engine moves each call's data to the device itself: one call, on one host thread
/// (so that its errors can surface as exceptions rather than inside a parallel region).
BatchConfig for_engine(const BlockedKernels& e, BatchConfig cfg) {
    if (e.backend == Backend::cuda) cfg.threads = 1, cfg.path = BatchPath::direct;
    return cfg;
}

/// body(range) on t threads, for t contiguous ranges of the batch aligned to 64 keys so that
/// bitmap words are never shared.
template <class Body>
void direct(std::size_t n, unsigned t, Body&& body) {
    each_thread(t, [&](unsigned v) { body(part(n, t, v, 64)); });
}

// ---- partitioning ------------------------------------------------------------------------

constexpr std::size_t line = 8;  // hashes per 64-byte cache line

struct alignas(64) Line {
    std::uint64_t w[line];
};

inline void flush(const Line& src, std::uint64_t* dst) {  // dst is 64-byte aligned
#if defined(__SSE2__)
    auto* d = reinterpret_cast<__m128i*>(dst);
    const auto* s = reinterpret_cast<const __m128i*>(src.w);
    for (int j = 0; j < 4; ++j) _mm_stream_si128(d + j, _mm_load_si128(s + j));
#else
    std::memcpy(dst, src.w, sizeof src.w);
#endif
}

/// Region ids are bytes; this one marks a key that found its region's bucket full.
constexpr std::uint8_t overflowed = 255;
constexpr unsigned max_regions = overflowed;

/// How the partitioned path cuts a filter: into regions of 2^shift blocks (an aligned run, so
/// a region is a shift away from the block index and no block straddles two), each half an L2
/// so that it stays there while its keys are processed. Filters of more than 255 such regions
/// get larger ones.
struct Geometry {
    unsigned shift = 0, regions = 1;
    explicit Geometry(const FilterRef& f) {
        const std::uint64_t target = std::max<std::uint64_t>(machine().l2_bytes / 2, 64 << 10);
        while ((block_bytes(f) << (shift + 1)) <= target) ++shift;
        while (((f.blocks - 1) >> shift) + 1 > max_regions) ++shift;
        regions = static_cast<unsigned>(((f.blocks - 1) >> shift) + 1);
    }
};

/// One thread's scratch for rounds of up to `round` keys: a write-combining line and a count
/// per region, the buckets (room for 1.25x a region's fair share plus a line), and for probes
/// each key's region id and each bucket's answers.
struct Plan {
    unsigned regions = 0;
    std::size_t round = 0, cap = 0;
    bool probe = false;

    Plan(unsigned regions_, std::size_t round_, bool probe_) : regions(regions_), round(round_), probe(probe_) {
        cap = (round / regions + round / regions / 4 + 2 * line - 1) / line * line;
    }
    std::size_t bytes() const {
        const std::size_t per_region = sizeof(Line) + sizeof(std::uint32_t) + cap * (8 + (probe ? 1 : 0));
        return regions * per_region + (probe ? round + 64 : 0) + 64;
    }
    /// The largest round of at most `keys` keys (a multiple of 64, so bitmap words are never
    /// split) whose scratch fits in `budget` bytes; round == 0 if not even one that gives each
    /// bucket a few lines fits.
    static Plan fit(unsigned regions, std::size_t keys, std::size_t budget, bool probe) {
        Plan p(regions, keys, probe);
        while (p.bytes() > budget && p.round > 0) {
            const double scale = double(budget) / double(p.bytes());
            p = Plan(regions, std::size_t(double(p.round) * scale * 0.98) / 64 * 64, probe);
        }
        if (p.round < std::size_t(regions) * 4 * line) p.round = 0;
        return p;
    }
};

/// One thread's partitioning of one round of keys by filter region. Keys are hashed a chunk
/// at a time and their hashes scattered, in the caller's order, into one fixed-size bucket
/// per region, so there is no counting pass over the keys; the rare key whose bucket is full
/// (skewed or repeated keys) is set aside and handled on the direct path. For probes, each
/// key's region id is kept, which is all that is needed to put answers back in order: bucket
/// r holds its keys in the caller's order, so the i-th key of region r gets the i-th answer
/// of bucket r.
struct Buckets {
    const BlockedKernels& e;
    FilterRef f;
    Geometry g;
    Plan p;
    Line* wc;                  // per region
    std::uint32_t* count;      // per region
    std::uint64_t* hashes;     // bucket r at r * cap
    std::uint8_t* answers;     // probes: bucket r's answers at r * cap
    std::uint8_t* rid;         // probes: per key of the round
    std::vector<std::size_t> spill;           // overflowed keys' positions in the round
    std::vector<std::uint64_t> spill_hashes;  // and their hashes

    Buckets(const BlockedKernels& e_, const FilterRef& f_, const Geometry& g_, const Plan& p_, std::byte* mem)
        : e(e_), f(f_), g(g_), p(p_) {
        wc = reinterpret_cast<Line*>(mem);
        hashes = reinterpret_cast<std::uint64_t*>(wc + p.regions);
        count = reinterpret_cast<std::uint32_t*>(hashes + std::size_t(p.regions) * p.cap);
        answers = reinterpret_cast<std::uint8_t*>(count + p.regions);
        rid = answers + std::size_t(p.regions) * p.cap;
    }

    const std::uint64_t* bucket(unsigned r) const { return hashes + std::size_t(r) * p.cap; }

    /// Scatters the hashes of keys[0, n) (n <= the round) into the buckets.
    void fill(const std::uint64_t* keys, std::size_t n, KeyMode mode) {
        std::fill_n(count, p.regions, 0);
        spill.clear();
        spill_hashes.clear();
        // Software write-combining: one line per region, sent out whole with streaming stores.
        // A full line is sent when its region's next key arrives, not at once: by then its
        // eight 8-byte stores have left the store buffer, so reading it back whole does not
        // stall on store forwarding.
        const std::uint64_t blocks = f.blocks;
        const unsigned sh = g.shift;
        const std::size_t cp = p.cap;
        std::uint64_t* const out = hashes;
        std::uint32_t* const cnt = count;
        Line* const buf = wc;
        std::uint8_t* const ids = p.probe ? rid : nullptr;
        constexpr std::size_t chunk = 512;
        alignas(64) std::uint64_t h[chunk];
        for (std::size_t c0 = 0; c0 < n; c0 += chunk) {
            const std::size_t len = std::min(chunk, n - c0);
            e.hash(keys + c0, len, mode, h);
            for (std::size_t j = 0; j < len; ++j) {
                const auto r = static_cast<unsigned>(layout::block_index(h[j], blocks) >> sh);
                const std::uint32_t at = cnt[r];
                if (at == cp) [[unlikely]] {
                    spill.push_back(c0 + j);
                    spill_hashes.push_back(h[j]);
                    if (ids) ids[c0 + j] = overflowed;
                    continue;
                }
                if (at % line == 0 && at != 0) flush(buf[r], out + r * cp + at - line);
                buf[r].w[at % line] = h[j];
                cnt[r] = at + 1;
                if (ids) ids[c0 + j] = static_cast<std::uint8_t>(r);
            }
        }
        for (unsigned r = 0; r < p.regions; ++r)  // each region's last line, full or not
            for (std::size_t at = (cnt[r] + line - 1) / line * line - line; at < cnt[r]; ++at)
                out[r * cp + at] = buf[r].w[at % line];
#if defined(__SSE2__)
        _mm_sfence();
#endif
    }

    /// The filter as seen by the keys of bucket r. A region with at least as many keys as
    /// cache lines is first brought into the cache in address order, which the hardware
    /// streams at full bandwidth, and its keys then processed without prefetching (unless the
    /// region is larger than L2); a sparser one is left to the engine's own prefetching.
    FilterRef region(unsigned r) const {
        const std::uint64_t bb = block_bytes(f);
        const std::uint64_t first = std::uint64_t(r) << g.shift;
        const std::uint64_t end = std::min(f.blocks, first + (std::uint64_t(1) << g.shift));
        const std::uint64_t bytes = (end - first) * bb;
        if (count[r] < bytes / 64) return prefetched(f, filter_bytes(f));
        for (std::uint64_t at = first * bb; at < end * bb; at += 64) __builtin_prefetch(f.data + at, 0, 1);
        return prefetched(f, bytes);
    }

    /// Probes every bucket: answers[r * cap + i] for the i-th key of bucket r.
    void probe() const {
        for (unsigned r = 0; r < p.regions; ++r)
            if (count[r] != 0) e.contains_bytes(region(r), bucket(r), count[r], hashed, answers + std::size_t(r) * p.cap);
    }

    /// Calls put(i, answer of key i) for the round's keys in order; spilled keys get 0 here
    /// (their answers come from probe_spill).
    template <class Put>
    void restore(std::size_t n, Put put) const {
        // `put` is taken by value: a local copy cannot be aliased by the byte stores it makes,
        // so the pointers it captured stay in registers.
        static constexpr std::uint8_t none = 0;
        const std::uint8_t* next[max_regions + 1];
        for (unsigned r = 0; r < p.regions; ++r) next[r] = answers + std::size_t(r) * p.cap;
        next[overflowed] = &none;
        const std::uint8_t* const ids = rid;
        for (std::size_t i = 0; i < n; ++i) {
            const std::uint8_t r = ids[i];
            const std::uint8_t* const a = next[r];
            // A region's next answer line is far from every other region's: fetch it before
            // the cursor gets there (a no-op for all but the first key of a line).
            __builtin_prefetch(a + 64, 0, 3);
            put(i, *a);
            next[r] = a + (r != overflowed);
        }
    }

    /// Answers for the spilled keys, in spill order.
    std::vector<std::uint8_t> probe_spill() const {
        std::vector<std::uint8_t> a(spill.size());
        if (!a.empty()) e.contains_bytes(prefetched(f), spill_hashes.data(), spill_hashes.size(), hashed, a.data());
        return a;
    }
};

/// The thread's scratch for plan p, or null if the plan has no room for a round or the memory
/// cannot be had.
std::byte* scratch_for(BatchScratch::Lease& lease, unsigned thread, const Plan& p) {
    if (p.round == 0) return nullptr;
    try {
        return lease.arena(thread).get(p.bytes());
    } catch (const std::bad_alloc&) {
        return nullptr;
    }
}

/// Partitioned probe: each thread partitions its own range of the batch in rounds, probes
/// the round's buckets region by region, and calls consume(buckets, round_begin, round_len,
/// spill_answers) to put the answers in order. A thread that cannot have its scratch answers
/// its range on the direct path instead, by direct(range); false if any did.
template <class Consume, class Direct>
bool partitioned_probe(const BlockedKernels& e, const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode,
                       unsigned t, BatchScratch::Lease& lease, Consume&& consume, Direct&& direct_range) {
    const Geometry g(f);
    std::atomic<bool> all{true};
    each_thread(t, [&](unsigned v) {
        const Range c = part(n, t, v, 64);
        const Plan p = Plan::fit(g.regions, c.size(), lease.per_thread(), true);
        std::byte* mem = scratch_for(lease, v, p);
        if (mem == nullptr) {
            all = false;
            return direct_range(c);
        }
        Buckets b(e, f, g, p, mem);
        for (std::size_t r0 = c.begin; r0 < c.end; r0 += p.round) {
            const std::size_t len = std::min(p.round, c.end - r0);
            b.fill(keys + r0, len, mode);
            b.probe();
            consume(b, r0, len, b.probe_spill());
        }
    });
    return all;
}

/// Multi-threaded insert for filters small next to the batch: part 0 goes into the filter,
/// each other part into a zeroed private copy in its thread's scratch, and the copies are
/// then ORed in, each thread merging one range of words.
void insert_into_copies(const BlockedKernels& e, const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode,
                        unsigned t, BatchScratch::Lease& lease) {
    const std::size_t words = filter_bytes(f) / sizeof(std::uint64_t);
    struct Copy {
        std::uint64_t* p;
        const std::uint64_t* data() const { return p; }
    };
    std::vector<Copy> copies;
    for (unsigned v = 1; v < t; ++v)
        copies.push_back({reinterpret_cast<std::uint64_t*>(lease.arena(v).get(words * sizeof(std::uint64_t)))});
    each_thread(t, [&](unsigned v) {
        FilterRef mine = f;
        if (v > 0) {
            std::fill_n(copies[v - 1].p, words, 0);
            mine.data = reinterpret_cast<std::byte*>(copies[v - 1].p);
        }
        const Range c = part(n, t, v, 64);
        e.insert(prefetched(mine), keys + c.begin, c.size(), mode);
    });
    or_copies_into(reinterpret_cast<std::uint64_t*>(f.data), words, copies, t);
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

/// Partitioned insert on t threads: each thread buckets its share of a round, then each
/// inserts whole regions from every thread's buckets, so no block is written by two threads.
/// Throws std::bad_alloc if some thread cannot have its scratch (nothing is lost: the caller
/// inserts the batch again directly).
void insert_partitioned(const BlockedKernels& e, const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode,
                        unsigned t, BatchScratch::Lease& lease) {
    const Geometry g(f);
    const Plan p = Plan::fit(g.regions, (n + t - 1) / t, lease.per_thread(), false);
    if (p.round == 0) throw std::bad_alloc();
    std::vector<Buckets> parts;
    parts.reserve(t);
    for (unsigned v = 0; v < t; ++v) parts.emplace_back(e, f, g, p, lease.arena(v).get(p.bytes()));
    const std::size_t round = p.round * t;
    for (std::size_t r0 = 0; r0 < n; r0 += round) {
        const std::size_t len = std::min(round, n - r0);
        each_thread(t, [&](unsigned v) {
            const Range c = part(len, t, v, 64);
            parts[v].fill(keys + r0 + c.begin, c.size(), mode);
        });
        each_thread(t, [&](unsigned v) {
            for (unsigned r = g.regions * v / t; r < g.regions * (v + 1) / t; ++r)
                for (const auto& b : parts)
                    if (b.count[r] != 0) e.insert(b.region(r), b.bucket(r), b.count[r], hashed);
        });
        for (const auto& b : parts) e.insert(prefetched(f), b.spill_hashes.data(), b.spill_hashes.size(), hashed);
    }
}

/// Runs a call on the path choose_path() picks. A call that measures runs its first slice
/// direct and the rest partitioned, timed, and records which was faster per key for its class.
/// run(partitioned, begin, len) processes keys [begin, begin + len) and returns whether the
/// partitioned path really ran (without scratch it falls back to direct).
template <class Run>
void on_chosen_path(const FilterRef& f, std::size_t n, unsigned t, BatchPath path, Op op, Run&& run) {
    const BatchPath p = choose_path(f, n, t, path, op);
    if (p != BatchPath::automatic) {
        run(p == BatchPath::partitioned, 0, n);
        return;
    }
    using clock = std::chrono::steady_clock;
    const std::size_t d = measuring_slice(n);
    const auto t0 = clock::now();
    run(false, 0, d);
    const auto t1 = clock::now();
    const bool measured = run(true, d, n - d);
    const auto t2 = clock::now();
    if (measured)
        record_path_times(f, n, t, op, std::chrono::duration<double>(t1 - t0).count() / double(d),
                          std::chrono::duration<double>(t2 - t1).count() / double(n - d));
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
            if (t > 1 && filter_bytes(f) <= machine().l2_bytes && copies_affordable(t, filter_bytes(f), n)) {
                insert_into_copies(e, f, keys, n, mode, t, lease);
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

bool bytes_range(const BlockedKernels& e, const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode,
                 std::uint8_t* out, unsigned t, bool partitioned, BatchScratch* scratch) {
    auto direct_range = [&](Range c) { e.contains_bytes(prefetched(f), keys + c.begin, c.size(), mode, out + c.begin); };
    if (partitioned) {
        if (BatchScratch::Lease lease(scratch, t); lease)
            return partitioned_probe(
                e, f, keys, n, mode, t, lease,
                [&](const Buckets& b, std::size_t r0, std::size_t len, const std::vector<std::uint8_t>& spilled) {
                    std::uint8_t* const o = out + r0;
                    b.restore(len, [o](std::size_t i, std::uint8_t a) { o[i] = a; });
                    for (std::size_t s = 0; s < spilled.size(); ++s) o[b.spill[s]] = spilled[s];
                },
                direct_range);
    }
    direct(n, t, direct_range);
    return false;
}

bool bits_range(const BlockedKernels& e, const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode,
                std::uint64_t* out, unsigned t, bool partitioned, BatchScratch* scratch) {
    auto direct_range = [&](Range c) { e.contains_bits(prefetched(f), keys + c.begin, c.size(), mode, out + c.begin / 64); };
    if (partitioned) {
        if (BatchScratch::Lease lease(scratch, t); lease)
            return partitioned_probe(
                e, f, keys, n, mode, t, lease,
                [&](const Buckets& b, std::size_t r0, std::size_t len, const std::vector<std::uint8_t>& spilled) {
                    // Rounds start on multiples of 64 keys: each writes whole words of its own.
                    std::uint64_t* const words = out + r0 / 64;
                    std::uint64_t bits = 0;
                    b.restore(len, [&bits, words, len](std::size_t i, std::uint8_t a) {
                        bits |= std::uint64_t(a) << (i % 64);
                        if (i % 64 == 63 || i + 1 == len) {
                            words[i / 64] = bits;
                            bits = 0;
                        }
                    });
                    for (std::size_t s = 0; s < spilled.size(); ++s) {
                        const std::size_t i = b.spill[s];
                        words[i / 64] = (words[i / 64] & ~(std::uint64_t(1) << (i % 64))) | (std::uint64_t(spilled[s]) << (i % 64));
                    }
                },
                direct_range);
    }
    direct(n, t, direct_range);
    return false;
}

bool count_range(const BlockedKernels& e, const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode,
                 std::atomic<std::size_t>& total, unsigned t, bool partitioned, BatchScratch* scratch) {
    auto direct_range = [&](Range c) { total += e.count(prefetched(f), keys + c.begin, c.size(), mode); };
    if (partitioned) {
        if (BatchScratch::Lease lease(scratch, t); lease) {
            // Counting needs no answers back in order: a count per bucket.
            const Geometry g(f);
            std::atomic<bool> all{true};
            each_thread(t, [&](unsigned v) {
                const Range c = part(n, t, v, 64);
                const Plan p = Plan::fit(g.regions, c.size(), lease.per_thread(), false);
                std::byte* mem = scratch_for(lease, v, p);
                if (mem == nullptr) {
                    all = false;
                    return direct_range(c);
                }
                Buckets b(e, f, g, p, mem);
                std::size_t mine = 0;
                for (std::size_t r0 = c.begin; r0 < c.end; r0 += p.round) {
                    b.fill(keys + r0, std::min(p.round, c.end - r0), mode);
                    for (unsigned r = 0; r < g.regions; ++r)
                        if (b.count[r] != 0) mine += e.count(b.region(r), b.bucket(r), b.count[r], hashed);
                    mine += e.count(prefetched(f), b.spill_hashes.data(), b.spill_hashes.size(), hashed);
                }
                total += mine;
            });
            return all;
        }
    }
    direct(n, t, direct_range);
    return false;
}

}  // namespace

void bulk_insert(const BlockedKernels& e, const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode,
                 BatchConfig cfg) {
    cfg = for_engine(e, cfg);
    const unsigned t = threads_for(n, cfg.threads);
    on_chosen_path(f, n, t, cfg.path, Op::insert, [&](bool partitioned, std::size_t b, std::size_t len) {
        return insert_range(e, f, keys + b, len, mode, t, partitioned, cfg.scratch);
    });
}

void bulk_contains_bytes(const BlockedKernels& e, const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode,
                         std::uint8_t* out, BatchConfig cfg) {
    cfg = for_engine(e, cfg);
    const unsigned t = threads_for(n, cfg.threads);
    on_chosen_path(f, n, t, cfg.path, Op::probe, [&](bool partitioned, std::size_t b, std::size_t len) {
        return bytes_range(e, f, keys + b, len, mode, out + b, t, partitioned, cfg.scratch);
    });
}

void bulk_contains_bits(const BlockedKernels& e, const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode,
                        std::uint64_t* out, BatchConfig cfg) {
    cfg = for_engine(e, cfg);
    const unsigned t = threads_for(n, cfg.threads);
    // Measuring slices are multiples of 64 keys: b / 64 is a whole word.
    on_chosen_path(f, n, t, cfg.path, Op::probe, [&](bool partitioned, std::size_t b, std::size_t len) {
        return bits_range(e, f, keys + b, len, mode, out + b / 64, t, partitioned, cfg.scratch);
    });
}

std::size_t bulk_count(const BlockedKernels& e, const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode,
                       BatchConfig cfg) {
    cfg = for_engine(e, cfg);
    const unsigned t = threads_for(n, cfg.threads);
    std::atomic<std::size_t> total{0};
    on_chosen_path(f, n, t, cfg.path, Op::probe, [&](bool partitioned, std::size_t b, std::size_t len) {
        return count_range(e, f, keys + b, len, mode, total, t, partitioned, cfg.scratch);
    });
    return total;
}

}  // namespace batchbloom::detail
