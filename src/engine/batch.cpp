#include "engine/batch.hpp"

#include "batchbloom/aligned_buffer.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <new>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace batchbloom::detail {

namespace {

// Partitioning works in rounds of up to this many keys per thread, which bounds its scratch
// memory at about 12.5 bytes per key of a round (bucketed hashes with slack, region ids,
// answers): 200 MiB. Larger rounds visit each filter line with more keys (20M keys inserted
// into a 120 MiB filter: 8.4 ns/key in one round, 9.2 in rounds of 8M).
constexpr std::size_t max_round_keys = std::size_t(1) << 24;

/// Rounds of equal length (a multiple of 64, so bitmap words are never split) covering n keys.
std::size_t round_length(std::size_t n) {
    const std::size_t rounds = (n + max_round_keys - 1) / max_round_keys;
    return rounds <= 1 ? n : ((n + rounds - 1) / rounds + 63) / 64 * 64;
}

// Filters below this size are never partitioned automatically.
constexpr std::uint64_t partition_above_bytes = std::uint64_t(32) << 20;
// A region's blocks should stay in L2 while its keys are processed.
constexpr std::uint64_t region_bytes = std::uint64_t(512) << 10;
// Regions up to this size are probed without per-key prefetching (the SIMD engines' own
// threshold for a whole filter, simd::prefetch_above_bytes).
constexpr std::uint64_t local_region_bytes = std::uint64_t(4) << 20;

std::uint64_t filter_bytes(const FilterRef& f) { return f.blocks * layout::info(f.shape).block_bytes; }

constexpr std::size_t line = 8;  // hashes per 64-byte cache line

/// Uninitialized scratch memory for n values of T (AlignedBuffer: cache-line aligned, so
/// whole-line streaming stores cover whole lines; large buffers in huge pages, since a fresh
/// buffer's first touch costs one fault per page). Partitioning writes every byte it reads, so
/// zeroing would only cost time. Throws std::bad_alloc.
template <class T>
class Scratch {
public:
    Scratch() = default;
    explicit Scratch(std::size_t n) : buf_(bytes_for(n), AlignedBuffer::Init::uninitialized) {}
    T* data() const { return buf_.as<T>(); }

private:
    static std::size_t bytes_for(std::size_t n) {
        if (n > std::size_t(-1) / sizeof(T)) throw std::bad_alloc();
        return std::max<std::size_t>(n, 1) * sizeof(T);
    }
    mutable AlignedBuffer buf_;  // pointer-like, as the unique_ptr it replaces: const Scratch, writable memory
};

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

constexpr KeyMode hashed{KeyMode::hashed, 0};

/// Region ids are bytes; this one marks a key that found its region's bucket full.
constexpr std::uint8_t overflowed = 255;
constexpr unsigned max_regions = overflowed;

/// One thread's partitioning of one round of keys by filter region (an aligned run of
/// 2^shift blocks, so a region is a shift away from the block index and no block straddles
/// two). Keys are hashed a chunk at a time and their hashes scattered, in the caller's order,
/// into one fixed-size bucket per region, so there is no counting pass over the keys: the
/// buckets have room for 1.25x the expected share plus a line, and the rare key whose bucket
/// is full (skewed or repeated keys) is set aside and handled on the direct path. For probes,
/// each key's region id is kept, which is all that is needed to put answers back in order:
/// bucket r holds its keys in the caller's order, so the i-th key of region r gets the i-th
/// answer of bucket r.
struct Buckets {
    const BlockedKernels& e;
    const FilterRef& f;
    unsigned shift, regions;
    bool cache_sized, keep_ids;  // keep_ids: record each key's region, for restore()
    std::size_t cap;                          // hashes per bucket, a multiple of `line`
    Scratch<std::uint64_t> hashes;            // bucket r at r * cap
    std::vector<std::uint32_t> count;         // per region
    Scratch<std::uint8_t> rid;                // per key of the round, if kept
    std::vector<std::size_t> spill;           // overflowed keys' positions in the round
    std::vector<std::uint64_t> spill_hashes;  // and their hashes

    Buckets(const BlockedKernels& e_, const FilterRef& f_, unsigned shift_, bool cache_sized_, std::size_t round, bool keep_ids_)
        : e(e_), f(f_), shift(shift_), regions(static_cast<unsigned>(((f.blocks - 1) >> shift) + 1)),
          cache_sized(cache_sized_), keep_ids(keep_ids_),
          cap((round / regions + round / regions / 4 + 2 * line - 1) / line * line),
          hashes(std::size_t(regions) * cap), count(regions), rid(keep_ids ? round : 0) {}

    const std::uint64_t* bucket(unsigned r) const { return hashes.data() + std::size_t(r) * cap; }

    /// Scatters the hashes of keys[0, n) (n <= the round size) into the buckets, recording
    /// each key's region id if these buckets keep them.
    void fill(const std::uint64_t* keys, std::size_t n, KeyMode mode) {
        std::fill(count.begin(), count.end(), 0);
        spill.clear();
        spill_hashes.clear();
        // Software write-combining: one line per region, sent out whole with streaming stores.
        // A full line is sent when its region's next key arrives, not at once: by then its
        // eight 8-byte stores have left the store buffer, so reading it back whole does not
        // stall on store forwarding.
        std::vector<Line> buf(regions);
        const std::uint64_t blocks = f.blocks;
        const unsigned sh = shift;
        const std::size_t cp = cap;
        std::uint64_t* const out = hashes.data();
        std::uint32_t* const cnt = count.data();
        std::uint8_t* const ids = rid.data();
        const bool keep = keep_ids;  // a local: the stores below cannot alias it
        constexpr std::size_t chunk = 1024;
        alignas(64) std::uint64_t h[chunk];
        for (std::size_t c0 = 0; c0 < n; c0 += chunk) {
            const std::size_t len = std::min(chunk, n - c0);
            e.hash(keys + c0, len, mode, h);
            for (std::size_t j = 0; j < len; ++j) {
                const auto r = static_cast<unsigned>(layout::block_index(h[j], blocks) >> sh);
                const std::uint32_t at = cnt[r];
                if (at == cp) {
                    spill.push_back(c0 + j);
                    spill_hashes.push_back(h[j]);
                    if (keep) ids[c0 + j] = overflowed;
                    continue;
                }
                if (at % line == 0 && at != 0) flush(buf[r], out + r * cp + at - line);
                buf[r].w[at % line] = h[j];
                cnt[r] = at + 1;
                if (keep) ids[c0 + j] = static_cast<std::uint8_t>(r);
            }
        }
        for (unsigned r = 0; r < regions; ++r)  // each region's last line, full or not
            for (std::size_t at = (cnt[r] + line - 1) / line * line - line; at < cnt[r]; ++at)
                out[r * cp + at] = buf[r].w[at % line];
#if defined(__SSE2__)
        _mm_sfence();
#endif
    }

    /// The filter as seen by the keys of bucket r. Cache-sized regions (the partitioned path)
    /// are first brought into the cache in address order, which the hardware prefetchers
    /// stream at full bandwidth, when the bucket has enough keys to revisit its lines; the
    /// engine is then told not to prefetch, unless the region is larger than a filter it would
    /// not prefetch either (filters past 255 regions of region_bytes get larger regions).
    /// Coarse regions (threads' shares of an insert) are left alone.
    FilterRef region(unsigned r) const {
        FilterRef ref = f;
        if (!cache_sized) return ref;
        const std::uint64_t block_bytes = layout::info(f.shape).block_bytes;
        const std::uint64_t first = std::uint64_t(r) << shift;
        const std::uint64_t end = std::min(f.blocks, first + (std::uint64_t(1) << shift));
        ref.region_local = (end - first) * block_bytes <= local_region_bytes;
        if (count[r] < end - first) return ref;
        for (std::uint64_t at = first * block_bytes; at < end * block_bytes; at += 64)
            __builtin_prefetch(f.data + at, 0, 2);
        return ref;
    }

    /// Probes every bucket: answers[r * cap + i] for the i-th key of bucket r.
    void probe(std::uint8_t* answers) const {
        for (unsigned r = 0; r < regions; ++r)
            if (count[r] != 0) e.contains_bytes(region(r), bucket(r), count[r], hashed, answers + std::size_t(r) * cap);
    }

    /// Calls put(i, answer of key i) for the round's keys in order, spilled keys excepted
    /// (their answers come from probe_spill).
    template <class Put>
    void restore(std::size_t n, const std::uint8_t* answers, Put put) const {
        // `put` is taken by value: a local copy cannot be aliased by the byte stores it makes,
        // so the pointers it captured stay in registers.
        std::vector<const std::uint8_t*> next(regions + 1);
        for (unsigned r = 0; r < regions; ++r) next[r] = answers + std::size_t(r) * cap;
        const std::uint8_t* const ids = rid.data();
        for (std::size_t i = 0; i < n; ++i) {
            const std::uint8_t r = ids[i];
            if (r != overflowed) put(i, *next[r]++);
        }
    }

    /// Answers for the spilled keys, in spill order.
    std::vector<std::uint8_t> probe_spill() const {
        std::vector<std::uint8_t> a(spill.size());
        if (!a.empty()) e.contains_bytes(f, spill_hashes.data(), spill_hashes.size(), hashed, a.data());
        return a;
    }
};

/// log2 of the blocks per region: cache-sized regions on the partitioned path; otherwise just
/// enough regions (64 per thread) for the threads' shares of an insert to be even.
unsigned region_shift(const FilterRef& f, bool partitioned, unsigned t) {
    const std::uint64_t block_bytes = layout::info(f.shape).block_bytes;
    unsigned shift = 0;
    if (partitioned)
        while ((block_bytes << (shift + 1)) <= region_bytes) ++shift;
    else
        while ((f.blocks >> (shift + 1)) >= std::uint64_t(64) * t) ++shift;
    while (((f.blocks - 1) >> shift) + 1 > max_regions) ++shift;
    return shift;
}

/// The CUDA engine moves each call's data to the device itself: one call, on one host thread
/// (so that its errors can surface as exceptions rather than inside a parallel region).
BatchConfig for_engine(const BlockedKernels& e, BatchConfig cfg) {
    return e.backend == Backend::cuda ? BatchConfig{1, BatchPath::direct} : cfg;
}

/// body(range) on t threads, for t contiguous ranges of the batch aligned to 64 keys so that
/// bitmap words are never shared.
template <class Body>
void direct(std::size_t n, unsigned t, Body&& body) {
    each_thread(t, [&](unsigned v) { body(part(n, t, v, 64)); });
}

/// Partitioned probe: each thread partitions its own range of the batch in rounds, probes
/// the round's buckets region by region, and calls consume(buckets, round_begin, round_len,
/// answers, spill_answers) to put the answers in order. Returns false, having answered only
/// part of the batch, if the scratch memory could not be allocated: the caller then takes the
/// direct path, which needs none and overwrites every answer.
template <class Consume>
bool partitioned_probe(const BlockedKernels& e, const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode,
                       unsigned t, Consume&& consume) try {
    direct(n, t, [&](Range c) {
        const std::size_t round = round_length(c.size());
        Buckets b(e, f, region_shift(f, true, 1), true, round, true);
        Scratch<std::uint8_t> answers(std::size_t(b.regions) * b.cap);
        for (std::size_t r0 = c.begin; r0 < c.end; r0 += round) {
            const std::size_t len = std::min(round, c.end - r0);
            b.fill(keys + r0, len, mode);
            b.probe(answers.data());
            consume(b, r0, len, answers.data(), b.probe_spill());
        }
    });
    return true;
} catch (const std::bad_alloc&) {
    return false;
}

/// Multi-threaded insert for filters small next to the batch: part 0 goes into the filter,
/// each other part into a zeroed private copy, and the copies are then ORed in, each thread
/// merging one range of words; used where copies_affordable() says so, bigger filters are
/// partitioned instead.
void insert_into_copies(const BlockedKernels& e, const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode,
                        unsigned t) {
    const std::size_t words = filter_bytes(f) / sizeof(std::uint64_t);
    std::vector<Scratch<std::uint64_t>> copies;
    for (unsigned v = 1; v < t; ++v) copies.emplace_back(words);
    each_thread(t, [&](unsigned v) {
        FilterRef mine = f;
        if (v > 0) {
            std::fill_n(copies[v - 1].data(), words, 0);  // zeroed (and first touched) by its own thread
            mine.data = reinterpret_cast<std::byte*>(copies[v - 1].data());
        }
        const Range c = part(n, t, v, 64);
        e.insert(mine, keys + c.begin, c.size(), mode);
    });
    or_copies_into(reinterpret_cast<std::uint64_t*>(f.data), words, copies, t);
}

/// Insert on t threads by filter region: each thread buckets its share of a round, then each
/// inserts whole regions from every thread's buckets, so no block is written by two threads.
/// Cache-sized regions on the partitioned path, else just enough to balance the threads.
void insert_by_region(const BlockedKernels& e, const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode,
                      unsigned t, bool partitioned) {
    const unsigned shift = region_shift(f, partitioned, t);
    std::vector<std::unique_ptr<Buckets>> parts(t);
    const std::size_t round = round_length(n / t) * t;
    for (std::size_t r0 = 0; r0 < n; r0 += round) {
        const std::size_t len = std::min(round, n - r0);
        each_thread(t, [&](unsigned v) {
            const Range c = part(len, t, v, 64);
            if (!parts[v]) parts[v] = std::make_unique<Buckets>(e, f, shift, partitioned, c.size(), false);  // first round is the largest
            parts[v]->fill(keys + r0 + c.begin, c.size(), mode);
        });
        const unsigned regions = parts[0]->regions;
        each_thread(t, [&](unsigned v) {
            for (unsigned r = regions * v / t; r < regions * (v + 1) / t; ++r)
                for (const auto& b : parts)
                    if (b->count[r] != 0) e.insert(b->region(r), b->bucket(r), b->count[r], hashed);
        });
        for (const auto& b : parts) e.insert(f, b->spill_hashes.data(), b->spill_hashes.size(), hashed);
    }
}

}  // namespace

bool use_partitioned(const FilterRef& f, std::size_t n, unsigned threads, BatchPath path, Op op) {
    if (path != BatchPath::automatic) return path == BatchPath::partitioned;
    // Measured crossovers (avx512, word512, bench/RESULTS.md "Partitioned vs direct"):
    // partitioning pays for filters well beyond L3 (a 12 MiB filter, in L3, was 1.6x slower
    // partitioned), once a batch brings enough keys per filter line to amortize streaming each
    // region in: at 120 MiB, inserts won from 2.5 keys per line (5M keys) on one thread and by
    // 2x on two; probes, which must also put answers back in order, from about 5 keys per line
    // on one thread, but not on two (their scratch traffic then competes for DRAM bandwidth
    // with the other thread's direct probes' parallelism).
    if (op == Op::probe && threads > 1) return false;
    const std::uint64_t lines = filter_bytes(f) / 64;
    const std::uint64_t keys_per_line = op == Op::insert ? 2 : 5;
    return filter_bytes(f) >= partition_above_bytes && n >= lines * keys_per_line;
}

void bulk_insert(const BlockedKernels& e, const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode,
                 BatchConfig cfg) {
    cfg = for_engine(e, cfg);
    const unsigned t = threads_for(n, cfg.threads);
    const bool partitioned = use_partitioned(f, n, t, cfg.path, Op::insert);
    if (t == 1 && !partitioned) return e.insert(f, keys, n, mode);
    try {
        if (!partitioned && copies_affordable(t, filter_bytes(f), n))
            return insert_into_copies(e, f, keys, n, mode, t);
        insert_by_region(e, f, keys, n, mode, t, partitioned);
    } catch (const std::bad_alloc&) {
        // No memory for copies or buckets: one pass in place needs none. Keys already inserted
        // are inserted again, which changes nothing.
        e.insert(f, keys, n, mode);
    }
}

void bulk_contains_bytes(const BlockedKernels& e, const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode,
                         std::uint8_t* out, BatchConfig cfg) {
    cfg = for_engine(e, cfg);
    const unsigned t = threads_for(n, cfg.threads);
    if (use_partitioned(f, n, t, cfg.path, Op::probe)) {
        const bool done =
            partitioned_probe(e, f, keys, n, mode, t,
                              [&](const Buckets& b, std::size_t r0, std::size_t len, const std::uint8_t* answers,
                                  const std::vector<std::uint8_t>& spilled) {
                                  b.restore(len, answers, [&](std::size_t i, std::uint8_t a) { out[r0 + i] = a; });
                                  for (std::size_t s = 0; s < spilled.size(); ++s) out[r0 + b.spill[s]] = spilled[s];
                              });
        if (done) return;
    }
    direct(n, t, [&](Range c) { e.contains_bytes(f, keys + c.begin, c.size(), mode, out + c.begin); });
}

void bulk_contains_bits(const BlockedKernels& e, const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode,
                        std::uint64_t* out, BatchConfig cfg) {
    cfg = for_engine(e, cfg);
    const unsigned t = threads_for(n, cfg.threads);
    if (use_partitioned(f, n, t, cfg.path, Op::probe)) {
        const bool done = partitioned_probe(
            e, f, keys, n, mode, t,
            [&](const Buckets& b, std::size_t r0, std::size_t len, const std::uint8_t* answers,
                const std::vector<std::uint8_t>& spilled) {
                // Rounds start on multiples of 64 keys: each writes whole words of its own.
                std::uint64_t* words = out + r0 / 64;
                std::fill(words, words + (len + 63) / 64, 0);
                auto put = [&](std::size_t i, std::uint8_t a) { words[i / 64] |= std::uint64_t(a) << (i % 64); };
                b.restore(len, answers, put);
                for (std::size_t s = 0; s < spilled.size(); ++s) put(b.spill[s], spilled[s]);
            });
        if (done) return;
    }
    direct(n, t, [&](Range c) { e.contains_bits(f, keys + c.begin, c.size(), mode, out + c.begin / 64); });
}

std::size_t bulk_count(const BlockedKernels& e, const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode,
                       BatchConfig cfg) {
    cfg = for_engine(e, cfg);
    const unsigned t = threads_for(n, cfg.threads);
    std::atomic<std::size_t> total{0};
    if (use_partitioned(f, n, t, cfg.path, Op::probe)) try {
        // Counting needs no answers back in order: no region ids, a count per bucket.
        direct(n, t, [&](Range c) {
            const std::size_t round = round_length(c.size());
            Buckets b(e, f, region_shift(f, true, 1), true, round, false);
            std::size_t mine = 0;
            for (std::size_t r0 = c.begin; r0 < c.end; r0 += round) {
                b.fill(keys + r0, std::min(round, c.end - r0), mode);
                for (unsigned r = 0; r < b.regions; ++r)
                    if (b.count[r] != 0) mine += e.count(b.region(r), b.bucket(r), b.count[r], hashed);
                mine += e.count(f, b.spill_hashes.data(), b.spill_hashes.size(), hashed);
            }
            total += mine;
        });
        return total;
    } catch (const std::bad_alloc&) {
        total = 0;  // no scratch memory: count again on the direct path, which needs none
    }
    direct(n, t, [&](Range c) { total += e.count(f, keys + c.begin, c.size(), mode); });
    return total;
}

}  // namespace batchbloom::detail
