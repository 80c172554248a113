#pragma once
// Key sets and counters shared by the Google Benchmark files, so every row of the suite
// measures the same keys the same way.
#include <benchmark/benchmark.h>

#include <batchbloom/hash.hpp>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace batchbloom::bench {

/// n pseudo-random keys whose lowest bit is `parity`: keys of parity 0 and 1 never collide,
/// so a set built from one parity answers "absent" for every key of the other.
inline std::vector<std::uint64_t> keys_with_parity(std::size_t n, std::uint64_t seed, unsigned parity) {
    std::vector<std::uint64_t> v(n);
    std::uint64_t s = seed;
    for (auto& k : v) k = (mix64(s++, 0x5eed) & ~1ULL) | parity;
    return v;
}

/// Half hits (even positions from `present`), half misses.
inline std::vector<std::uint64_t> half_hits(const std::vector<std::uint64_t>& present,
                                            const std::vector<std::uint64_t>& absent) {
    std::vector<std::uint64_t> q = absent;
    for (std::size_t i = 0; i < q.size() && i < present.size(); i += 2) q[i] = present[i];
    return q;
}

/// items/s and ns_per_key for a benchmark whose every iteration handles n keys.
inline void set_counters(benchmark::State& state, std::size_t n) {
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n));
    state.counters["ns_per_key"] =
        benchmark::Counter(double(n), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

}  // namespace batchbloom::bench
