#include "cpu/batch.hpp"

#include <algorithm>
#include <atomic>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
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
// `automatic` partitions when the filter is far larger than the caches and the batch visits
// each block at least once on average (see bench/RESULTS.md for the measured crossover).
constexpr std::uint64_t partition_above_bytes = std::uint64_t(128) << 20;
constexpr double partition_min_keys_per_block = 1.0;

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

/// Partitions rounds of keys by region (a contiguous range of blocks): hashes, counts, and
/// scatters them so that each region's keys are contiguous in `sorted`.
struct Partitioner {
    const Engine& e;
    const FilterRef& f;
    unsigned t, regions;
    std::vector<std::uint64_t> hashes, sorted;  // caller's order; grouped by region
    std::vector<std::size_t> counts, offsets;    // [part * regions + region]
    std::vector<std::size_t> base;               // region r occupies sorted[base[r], base[r + 1])
    std::size_t len = 0;

    Partitioner(const Engine& e_, const FilterRef& f_, unsigned t_, unsigned regions_, std::size_t n)
        : e(e_), f(f_), t(t_), regions(regions_), hashes(std::min(n, round_keys)), sorted(hashes.size()),
          counts(std::size_t(t) * regions), offsets(counts.size()), base(regions + 1) {}

    unsigned region(std::uint64_t h) const {
        return static_cast<unsigned>(layout::block_index(h, f.blocks) * regions / f.blocks);
    }
    /// Part v of the round in the caller's order, aligned to 64 keys (bitmap words stay private).
    Range chunk(unsigned v) const { return part(len, t, v, 64); }
    /// The partitioned keys of the regions part v owns (contiguous in `sorted`).
    Range owned(unsigned v) const {
        return {base[std::size_t(regions) * v / t], base[std::size_t(regions) * (v + 1) / t]};
    }
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
        std::size_t at = 0;  // region-major; within a region, part 0's keys first
        for (unsigned r = 0; r < regions; ++r) {
            base[r] = at;
            for (unsigned v = 0; v < t; ++v) {
                offsets[std::size_t(v) * regions + r] = at;
                at += counts[std::size_t(v) * regions + r];
            }
        }
        base[regions] = at;
        each_thread(t, [&](unsigned v) {
            const Range c = chunk(v);
            auto next = cursors(v);
            for (std::size_t i = c.begin; i < c.end; ++i) sorted[next[region(hashes[i])]++] = hashes[i];
        });
    }

    /// Calls put(i, answers[position of key i in `sorted`]) for the keys of part v, in order.
    template <class Put>
    void restore(unsigned v, const std::uint8_t* answers, Put&& put) const {
        const Range c = chunk(v);
        auto next = cursors(v);
        for (std::size_t i = c.begin; i < c.end; ++i) put(i, answers[next[region(hashes[i])]++]);
    }
};

unsigned regions_for(const FilterRef& f, bool partitioned, unsigned t) {
    if (!partitioned) return t;
    const std::uint64_t r = (filter_bytes(f) + region_bytes - 1) / region_bytes;
    // Each part owns whole regions; more regions than blocks would leave some empty.
    return static_cast<unsigned>(std::clamp<std::uint64_t>(std::min<std::uint64_t>(r, f.blocks), t, max_regions));
}

constexpr KeyMode hashed{KeyMode::hashed, 0};

/// Partitioned probe in rounds: consume(p, v, round_begin, answers) restores part v's answers.
template <class Consume>
void partitioned_probe(const Engine& e, const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode,
                       unsigned t, Consume&& consume) {
    Partitioner p(e, f, t, regions_for(f, true, t), n);
    std::vector<std::uint8_t> answers(p.hashes.size());
    for (std::size_t r0 = 0; r0 < n; r0 += round_keys) {
        p.partition(keys + r0, std::min(round_keys, n - r0), mode);
        each_thread(t, [&](unsigned v) {
            const Range mine = p.owned(v);
            e.contains_bytes(f, p.sorted.data() + mine.begin, mine.size(), hashed, answers.data() + mine.begin);
        });
        each_thread(t, [&](unsigned v) { consume(p, v, r0, answers.data()); });
    }
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

bool use_partitioned(const FilterRef& f, std::size_t n, BatchPath path) {
    if (path != BatchPath::automatic) return path == BatchPath::partitioned;
    return filter_bytes(f) >= partition_above_bytes &&
           double(std::min(n, round_keys)) >= partition_min_keys_per_block * double(f.blocks);
}

void bulk_insert(const Engine& e, const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode,
                 BatchConfig cfg) {
    const unsigned t = threads_for(n, cfg.threads);
    const bool partitioned = use_partitioned(f, n, cfg.path);
    if (t == 1 && !partitioned) return e.insert(f, keys, n, mode);
    Partitioner p(e, f, t, regions_for(f, partitioned, t), n);
    for (std::size_t r0 = 0; r0 < n; r0 += round_keys) {
        p.partition(keys + r0, std::min(round_keys, n - r0), mode);
        each_thread(t, [&](unsigned v) {
            const Range mine = p.owned(v);  // whole regions: no block is shared between parts
            e.insert(f, p.sorted.data() + mine.begin, mine.size(), hashed);
        });
    }
}

void bulk_contains_bytes(const Engine& e, const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode,
                         std::uint8_t* out, BatchConfig cfg) {
    const unsigned t = threads_for(n, cfg.threads);
    if (use_partitioned(f, n, cfg.path)) {
        partitioned_probe(e, f, keys, n, mode, t,
                          [&](const Partitioner& p, unsigned v, std::size_t r0, const std::uint8_t* answers) {
                              p.restore(v, answers, [&](std::size_t i, std::uint8_t a) { out[r0 + i] = a; });
                          });
        return;
    }
    each_thread(t, [&](unsigned v) {
        const Range c = part(n, t, v, 64);
        e.contains_bytes(f, keys + c.begin, c.size(), mode, out + c.begin);
    });
}

void bulk_contains_bits(const Engine& e, const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode,
                        std::uint64_t* out, BatchConfig cfg) {
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
    each_thread(t, [&](unsigned v) {
        const Range c = part(n, t, v, 64);
        e.contains_bits(f, keys + c.begin, c.size(), mode, out + c.begin / 64);
    });
}

std::size_t bulk_count(const Engine& e, const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode,
                       BatchConfig cfg) {
    const unsigned t = threads_for(n, cfg.threads);
    std::atomic<std::size_t> total{0};
    if (use_partitioned(f, n, cfg.path)) {
        // Counting needs no answers back in order: each part counts its own regions.
        Partitioner p(e, f, t, regions_for(f, true, t), n);
        for (std::size_t r0 = 0; r0 < n; r0 += round_keys) {
            p.partition(keys + r0, std::min(round_keys, n - r0), mode);
            each_thread(t, [&](unsigned v) {
                const Range mine = p.owned(v);
                total += e.count(f, p.sorted.data() + mine.begin, mine.size(), hashed);
            });
        }
        return total;
    }
    each_thread(t, [&](unsigned v) {
        const Range c = part(n, t, v, 64);
        total += e.count(f, keys + c.begin, c.size(), mode);
    });
    return total;
}

}  // namespace batchbloom::detail
