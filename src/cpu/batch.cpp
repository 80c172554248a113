#include "cpu/batch.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace batchbloom::detail {

namespace {

// Below this many keys per thread, starting threads costs more than it saves.
constexpr std::size_t min_keys_per_thread = std::size_t(1) << 15;
// Partitioning works in rounds of this many keys (a multiple of 64), which bounds the scratch
// memory at 17 bytes per key of a round (hashes, partitioned hashes, answers).
constexpr std::size_t round_keys = std::size_t(1) << 23;
// A region's blocks should stay in L2 while its keys are processed.
constexpr std::uint64_t region_bytes = std::uint64_t(512) << 10;
constexpr unsigned max_regions = 4096;

unsigned threads_for(std::size_t n, unsigned threads) {
    return static_cast<unsigned>(std::clamp<std::size_t>(n / min_keys_per_thread, 1, threads));
}

std::uint64_t filter_bytes(const FilterRef& f) { return f.blocks * layout::info(f.shape).block_bytes; }

/// [begin, end) of part i of n split into t parts, with boundaries on multiples of `align`.
struct Range {
    std::size_t begin, end;
    std::size_t size() const { return end - begin; }
};
Range part(std::size_t n, unsigned t, unsigned i, std::size_t align) {
    const std::size_t units = (n + align - 1) / align;
    auto edge = [&](unsigned j) { return std::min(n, units * j / t * align); };
    return {edge(i), edge(i + 1)};
}

/// Runs body(v) for v in [0, t), in parallel. Each call is one phase: all of a phase's calls
/// finish before the next phase starts (the parallel loop's implicit barrier), however many
/// threads the OpenMP runtime really grants.
template <class Body>
void each_thread(unsigned t, Body&& body) {
#ifdef _OPENMP
    if (t > 1) {
#pragma omp parallel for num_threads(t) schedule(static, 1)
        for (int v = 0; v < static_cast<int>(t); ++v) body(static_cast<unsigned>(v));
        return;
    }
#endif
    for (unsigned v = 0; v < t; ++v) body(v);
}

constexpr std::size_t line = 8;  // hashes per 64-byte cache line

/// Cache-line aligned storage, so that whole-line streaming stores really cover one line.
template <class T>
struct LineAllocator {
    using value_type = T;
    LineAllocator() = default;
    template <class U>
    LineAllocator(const LineAllocator<U>&) noexcept {}
    T* allocate(std::size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t(64))); }
    void deallocate(T* p, std::size_t) noexcept { ::operator delete(p, std::align_val_t(64)); }
    friend bool operator==(const LineAllocator&, const LineAllocator&) { return true; }
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

/// Partitions rounds of keys by region (an aligned run of blocks): hashes, counts, and
/// scatters them so that each region's keys are together in `sorted`, thread by thread.
struct Partitioner {
    const Engine& e;
    const FilterRef& f;
    unsigned t, shift, regions;  // region = block >> shift
    std::vector<std::uint64_t> hashes;                                 // caller's order
    std::vector<std::uint64_t, LineAllocator<std::uint64_t>> sorted;  // grouped by region
    std::vector<std::size_t> counts, offsets;    // [part * regions + region]: a run of sorted
    std::size_t len = 0;

    // Regions are aligned runs of 2^shift blocks, so a region is a shift away from the block
    // index (no division per key) and no block straddles two regions.
    Partitioner(const Engine& e_, const FilterRef& f_, unsigned t_, unsigned shift_, std::size_t n)
        : e(e_), f(f_), t(t_), shift(shift_), regions(static_cast<unsigned>(((f.blocks - 1) >> shift) + 1)),
          hashes(std::min(n, round_keys)), sorted(hashes.size()), counts(std::size_t(t) * regions),
          offsets(counts.size()) {}

    unsigned region(std::uint64_t h) const { return static_cast<unsigned>(layout::block_index(h, f.blocks) >> shift); }
    /// Part v of the round in the caller's order, aligned to 64 keys (bitmap words stay private).
    Range chunk(unsigned v) const { return part(len, t, v, 64); }
    std::vector<std::size_t> cursors(unsigned v) const {
        return {offsets.begin() + std::ptrdiff_t(v) * regions, offsets.begin() + std::ptrdiff_t(v + 1) * regions};
    }

    void partition(const std::uint64_t* keys, std::size_t n, KeyMode mode) {
        len = n;
        each_thread(t, [&](unsigned v) {
            const Range c = chunk(v);
            e.hash(keys + c.begin, c.size(), mode, hashes.data() + c.begin);
            std::size_t* mine = counts.data() + std::size_t(v) * regions;
            std::fill(mine, mine + regions, 0);
            for (std::size_t i = c.begin; i < c.end; ++i) ++mine[region(hashes[i])];
        });
        // Region-major; within a region, part 0's keys first. Every (part, region) run starts
        // on a cache line, so the scatter writes whole lines (the gaps are never read).
        std::size_t at = 0;
        for (unsigned r = 0; r < regions; ++r) {
            for (unsigned v = 0; v < t; ++v) {
                offsets[std::size_t(v) * regions + r] = at;
                at += (counts[std::size_t(v) * regions + r] + line - 1) / line * line;
            }
        }
        if (sorted.size() < at) sorted.resize(at);
        each_thread(t, [&](unsigned v) { scatter(v); });
    }

    /// Scatter through one cache line of buffer per region (software write-combining): a full
    /// line goes out with streaming stores, so the scatter neither reads the destination
    /// (no read-for-ownership) nor keeps hundreds of partly written lines in the cache.
    void scatter(unsigned v) {
        const Range c = chunk(v);
        auto next = cursors(v);
        std::vector<Line> buf(regions);
        for (std::size_t i = c.begin; i < c.end; ++i) {
            const std::uint64_t h = hashes[i];
            const unsigned r = region(h);
            const std::size_t at = next[r]++;
            buf[r].w[at % line] = h;
            if (at % line == line - 1) flush(buf[r], sorted.data() + at - (line - 1));
        }
        for (unsigned r = 0; r < regions; ++r)  // partial last lines
            for (std::size_t at = next[r] / line * line; at < next[r]; ++at) sorted[at] = buf[r].w[at % line];
#if defined(__SSE2__)
        _mm_sfence();
#endif
    }

    /// The keys of region r from part v: sorted[offset, offset + count).
    template <class Fn>
    void for_each_run(unsigned v, Fn&& fn) const {
        const unsigned lo = static_cast<unsigned>(std::size_t(regions) * v / t);
        const unsigned hi = static_cast<unsigned>(std::size_t(regions) * (v + 1) / t);
        for (unsigned r = lo; r < hi; ++r)
            for (unsigned p = 0; p < t; ++p) {
                const std::size_t k = std::size_t(p) * regions + r;
                if (counts[k] != 0) fn(offsets[k], counts[k]);
            }
    }

    /// Calls put(i, answers[position of key i in `sorted`]) for the keys of part v, in order.
    template <class Put>
    void restore(unsigned v, const std::uint8_t* answers, Put&& put) const {
        const Range c = chunk(v);
        auto next = cursors(v);
        for (std::size_t i = c.begin; i < c.end; ++i) put(i, answers[next[region(hashes[i])]++]);
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

constexpr KeyMode hashed{KeyMode::hashed, 0};

/// The CUDA engine moves each call's data to the device itself: one call, on one host thread
/// (so that its errors can surface as exceptions rather than inside a parallel region).
BatchConfig for_engine(const Engine& e, BatchConfig cfg) {
    return e.backend == Backend::cuda ? BatchConfig{1, BatchPath::direct} : cfg;
}

/// Direct probe on t threads: body(range) for t contiguous ranges of the batch, aligned to 64
/// keys so that bitmap words are never shared.
template <class Body>
void direct(std::size_t n, unsigned t, Body&& body) {
    each_thread(t, [&](unsigned v) { body(part(n, t, v, 64)); });
}

/// Partitioned probe in rounds: consume(p, v, round_begin, answers) restores part v's answers.
template <class Consume>
void partitioned_probe(const Engine& e, const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode,
                       unsigned t, Consume&& consume) {
    Partitioner p(e, f, t, region_shift(f, true, t), n);
    std::vector<std::uint8_t> answers;
    for (std::size_t r0 = 0; r0 < n; r0 += round_keys) {
        p.partition(keys + r0, std::min(round_keys, n - r0), mode);
        answers.resize(p.sorted.size());
        each_thread(t, [&](unsigned v) {
            p.for_each_run(v, [&](std::size_t at, std::size_t len) {
                e.contains_bytes(f, p.sorted.data() + at, len, hashed, answers.data() + at);
            });
        });
        each_thread(t, [&](unsigned v) { consume(p, v, r0, answers.data()); });
    }
}

/// Multi-threaded insert for filters small next to the batch: part 0 goes into the filter,
/// each other part into a zeroed private copy, and the copies are then ORed in, each thread
/// merging one range of words. Costs (t - 1) copies of the filter, never more memory than the
/// partitioning scratch (16 bytes per key) or 64 MiB; bigger filters are partitioned instead.
void insert_into_copies(const Engine& e, const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode,
                        unsigned t) {
    const std::size_t words = filter_bytes(f) / sizeof(std::uint64_t);
    std::vector<std::vector<std::uint64_t, LineAllocator<std::uint64_t>>> copies(t - 1);
    each_thread(t, [&](unsigned v) {
        FilterRef mine = f;
        if (v > 0) {
            copies[v - 1].assign(words, 0);  // zeroed (and first touched) by its own thread
            mine.data = reinterpret_cast<std::byte*>(copies[v - 1].data());
        }
        const Range c = part(n, t, v, 64);
        e.insert(mine, keys + c.begin, c.size(), mode);
    });
    auto* dst = reinterpret_cast<std::uint64_t*>(f.data);
    each_thread(t, [&](unsigned v) {
        const Range w = part(words, t, v, 8);
        for (const auto& copy : copies)
            for (std::size_t i = w.begin; i < w.end; ++i) dst[i] |= copy[i];
    });
}

}  // namespace

unsigned resolve_threads(unsigned requested) {
#ifdef _OPENMP
    return requested == 0 ? static_cast<unsigned>(std::max(1, omp_get_max_threads())) : requested;
#else
    (void)requested;
    return 1;
#endif
}

bool use_partitioned(const FilterRef&, std::size_t, BatchPath path) {
    // `automatic` takes the direct path: partitioning was measured slower at every size tried
    // (filters of 120 MiB and 500 MiB, batches of 20M and 40M keys: 20-22 vs 13-14 ns/key, see
    // bench/RESULTS.md), so there is no crossover to switch at yet.
    return path == BatchPath::partitioned;
}

void bulk_insert(const Engine& e, const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode,
                 BatchConfig cfg) {
    cfg = for_engine(e, cfg);
    const unsigned t = threads_for(n, cfg.threads);
    const bool partitioned = use_partitioned(f, n, cfg.path);
    if (t == 1 && !partitioned) return e.insert(f, keys, n, mode);
    if (!partitioned && (t - 1) * filter_bytes(f) <= std::max<std::uint64_t>(16 * std::uint64_t(n), 64u << 20))
        return insert_into_copies(e, f, keys, n, mode, t);
    Partitioner p(e, f, t, region_shift(f, partitioned, t), n);
    for (std::size_t r0 = 0; r0 < n; r0 += round_keys) {
        p.partition(keys + r0, std::min(round_keys, n - r0), mode);
        each_thread(t, [&](unsigned v) {  // whole regions: no block is shared between parts
            p.for_each_run(v, [&](std::size_t at, std::size_t len) { e.insert(f, p.sorted.data() + at, len, hashed); });
        });
    }
}

void bulk_contains_bytes(const Engine& e, const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode,
                         std::uint8_t* out, BatchConfig cfg) {
    cfg = for_engine(e, cfg);
    const unsigned t = threads_for(n, cfg.threads);
    if (use_partitioned(f, n, cfg.path)) {
        partitioned_probe(e, f, keys, n, mode, t,
                          [&](const Partitioner& p, unsigned v, std::size_t r0, const std::uint8_t* answers) {
                              p.restore(v, answers, [&](std::size_t i, std::uint8_t a) { out[r0 + i] = a; });
                          });
        return;
    }
    direct(n, t, [&](Range c) { e.contains_bytes(f, keys + c.begin, c.size(), mode, out + c.begin); });
}

void bulk_contains_bits(const Engine& e, const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode,
                        std::uint64_t* out, BatchConfig cfg) {
    cfg = for_engine(e, cfg);
    const unsigned t = threads_for(n, cfg.threads);
    if (use_partitioned(f, n, cfg.path)) {
        partitioned_probe(e, f, keys, n, mode, t,
                          [&](const Partitioner& p, unsigned v, std::size_t r0, const std::uint8_t* answers) {
                              // Parts start on multiples of 64 keys: each writes whole words of its own.
                              const Range c = p.chunk(v);
                              std::uint64_t* words = out + (r0 + c.begin) / 64;
                              std::fill(words, words + (c.size() + 63) / 64, 0);
                              p.restore(v, answers, [&](std::size_t i, std::uint8_t a) {
                                  words[(i - c.begin) / 64] |= std::uint64_t(a) << (i % 64);
                              });
                          });
        return;
    }
    direct(n, t, [&](Range c) { e.contains_bits(f, keys + c.begin, c.size(), mode, out + c.begin / 64); });
}

std::size_t bulk_count(const Engine& e, const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode,
                       BatchConfig cfg) {
    cfg = for_engine(e, cfg);
    const unsigned t = threads_for(n, cfg.threads);
    std::atomic<std::size_t> total{0};
    if (use_partitioned(f, n, cfg.path)) {
        // Counting needs no answers back in order: each part counts its own regions.
        Partitioner p(e, f, t, region_shift(f, true, t), n);
        for (std::size_t r0 = 0; r0 < n; r0 += round_keys) {
            p.partition(keys + r0, std::min(round_keys, n - r0), mode);
            each_thread(t, [&](unsigned v) {
                std::size_t mine = 0;
                p.for_each_run(v, [&](std::size_t at, std::size_t len) { mine += e.count(f, p.sorted.data() + at, len, hashed); });
                total += mine;
            });
        }
        return total;
    }
    direct(n, t, [&](Range c) { total += e.count(f, keys + c.begin, c.size(), mode); });
    return total;
}

}  // namespace batchbloom::detail
