#include "cpu/parallel.hpp"

#include <algorithm>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace batchbloom::detail {

namespace {

// Below this many keys per thread, starting threads costs more than it saves.
constexpr std::size_t min_keys_per_thread = std::size_t(1) << 15;
// Inserts are partitioned in rounds of this many keys, which bounds the scratch memory.
constexpr std::size_t insert_round = std::size_t(1) << 22;

unsigned threads_for(std::size_t n, unsigned threads) {
    return static_cast<unsigned>(std::clamp<std::size_t>(n / min_keys_per_thread, 1, threads));
}

/// [begin, end) of part i of n split into t parts, with boundaries on multiples of `align`.
struct Range {
    std::size_t begin, end;
};
Range part(std::size_t n, unsigned t, unsigned i, std::size_t align) {
    const std::size_t units = (n + align - 1) / align;
    auto edge = [&](unsigned j) { return std::min(n, units * j / t * align); };
    return {edge(i), edge(i + 1)};
}

template <class Body>
void for_each_part(std::size_t n, unsigned t, std::size_t align, Body&& body) {
#ifdef _OPENMP
#pragma omp parallel for num_threads(t) schedule(static, 1)
#endif
    for (int i = 0; i < static_cast<int>(t); ++i) body(part(n, t, static_cast<unsigned>(i), align));
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

void parallel_contains_bytes(const Engine& e, const FilterRef& f, const std::uint64_t* keys, std::size_t n,
                             KeyMode mode, std::uint8_t* out, unsigned threads) {
    const unsigned t = threads_for(n, threads);
    if (t == 1) return e.contains_bytes(f, keys, n, mode, out);
    for_each_part(n, t, 64, [&](Range r) { e.contains_bytes(f, keys + r.begin, r.end - r.begin, mode, out + r.begin); });
}

void parallel_contains_bits(const Engine& e, const FilterRef& f, const std::uint64_t* keys, std::size_t n,
                            KeyMode mode, std::uint64_t* out, unsigned threads) {
    const unsigned t = threads_for(n, threads);
    if (t == 1) return e.contains_bits(f, keys, n, mode, out);
    for_each_part(n, t, 64, [&](Range r) {
        e.contains_bits(f, keys + r.begin, r.end - r.begin, mode, out + r.begin / 64);
    });
}

std::size_t parallel_count(const Engine& e, const FilterRef& f, const std::uint64_t* keys, std::size_t n,
                           KeyMode mode, unsigned threads) {
    const unsigned t = threads_for(n, threads);
    if (t == 1) return e.count(f, keys, n, mode);
    std::size_t total = 0;
#ifdef _OPENMP
#pragma omp parallel for num_threads(t) schedule(static, 1) reduction(+ : total)
#endif
    for (int i = 0; i < static_cast<int>(t); ++i) {
        const Range r = part(n, t, static_cast<unsigned>(i), 64);
        total += e.count(f, keys + r.begin, r.end - r.begin, mode);
    }
    return total;
}

void parallel_insert(const Engine& e, const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode,
                     unsigned threads) {
    const unsigned t = threads_for(n, threads);
    if (t == 1) return e.insert(f, keys, n, mode);
#ifdef _OPENMP
    // Thread `o` owns blocks [blocks * o / t, blocks * (o + 1) / t).
    auto owner = [&](std::uint64_t h) { return static_cast<unsigned>(layout::block_index(h, f.blocks) * t / f.blocks); };
    const std::size_t cap = std::min(n, insert_round);
    std::vector<std::uint64_t> hashes(cap), parted(cap);
    std::vector<std::size_t> counts(std::size_t(t) * t), starts(t + 1);
    const KeyMode hashed{KeyMode::hashed, 0};
    for (std::size_t base = 0; base < n; base += insert_round) {
        const std::size_t len = std::min(insert_round, n - base);
#pragma omp parallel num_threads(t)
        {
            const auto me = static_cast<unsigned>(omp_get_thread_num());
            const Range r = part(len, t, me, 1);
            e.hash(keys + base + r.begin, r.end - r.begin, mode, hashes.data() + r.begin);
            std::size_t* mine = counts.data() + std::size_t(me) * t;  // mine[o]: my keys for owner o
            std::fill(mine, mine + t, 0);
            for (std::size_t i = r.begin; i < r.end; ++i) ++mine[owner(hashes[i])];
#pragma omp barrier
            // Owner-major layout: all of owner 0's keys (thread 0's first), then owner 1's, ...
            std::vector<std::size_t> next(t);
            std::size_t at = 0;
            for (unsigned o = 0; o < t; ++o) {
                if (o == me) starts[o] = at;
                for (unsigned th = 0; th < t; ++th) {
                    if (th == me) next[o] = at;
                    at += counts[std::size_t(th) * t + o];
                }
            }
            if (me == t - 1) starts[t] = at;
            for (std::size_t i = r.begin; i < r.end; ++i) parted[next[owner(hashes[i])]++] = hashes[i];
#pragma omp barrier
            e.insert(f, parted.data() + starts[me], starts[me + 1] - starts[me], hashed);
#pragma omp barrier
        }
    }
#else
    e.insert(f, keys, n, mode);  // unreachable: without OpenMP every caller has one thread
#endif
}

}  // namespace batchbloom::detail
