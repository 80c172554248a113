// The exact baseline Bloom (1970) compared his filters against, "hash coding" without errors:
// an open-addressing hash set of the keys themselves (Abseil's flat_hash_set, SwissTable).
// Same keys, sizes and 50%-hit probes as bench_filter.cpp, so a run of
//   build/bench/batchbloom_bench --benchmark_filter='hashset|probe/avx512/word512/(1M|10M)/bpk10/t1$'
// puts its space (bits_per_key counter) and time beside the filters'. The table is reserved for
// n keys first, as a filter is sized for n keys.
#include <absl/container/flat_hash_set.h>
#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "bench_keys.hpp"

namespace bench = batchbloom::bench;

namespace {

using Set = absl::flat_hash_set<std::uint64_t>;

// Slots of 8 bytes plus one control byte each (SwissTable's metadata), over the keys held.
double bits_per_key(const Set& s, std::size_t n) {
    return double(s.capacity()) * double(sizeof(std::uint64_t) + 1) * 8.0 / double(n);
}

void insert(benchmark::State& state, std::size_t n) {
    const auto keys = bench::keys_with_parity(n, 1, 0);
    double bpk = 0;
    for (auto _ : state) {
        Set s;
        s.reserve(n);
        for (auto k : keys) s.insert(k);
        benchmark::DoNotOptimize(s);
        bpk = bits_per_key(s, n);
    }
    bench::set_counters(state, n);
    state.counters["bits_per_key"] = bpk;
}

// prefetch_distance 0: plain contains(); otherwise the slot group of the key that far ahead is
// prefetched first, the batch trick the filters' pipelines use.
void probe(benchmark::State& state, std::size_t n, bool miss, std::size_t prefetch_distance) {
    const auto keys = bench::keys_with_parity(n, 1, 0);
    const auto misses = bench::keys_with_parity(n, 2, 1);
    const auto q = miss ? misses : bench::half_hits(keys, misses);
    Set s;
    s.reserve(n);
    s.insert(keys.begin(), keys.end());
    std::vector<std::uint8_t> out(n);
    for (auto _ : state) {
        for (std::size_t i = 0; i < n; ++i) {
            if (prefetch_distance != 0 && i + prefetch_distance < n) s.prefetch(q[i + prefetch_distance]);
            out[i] = s.contains(q[i]);
        }
        benchmark::DoNotOptimize(out.data());
    }
    bench::set_counters(state, n);
    state.counters["bits_per_key"] = bits_per_key(s, n);
    std::size_t hits = 0;
    for (auto r : out) hits += r;
    state.counters["hit_ratio"] = double(hits) / double(n);
}

int register_all() {
    const std::pair<const char*, std::size_t> sizes[] = {{"1M", 1'000'000}, {"10M", 10'000'000}, {"100M", 100'000'000}};
    for (const auto& [label, n] : sizes) {
        const std::string suffix = std::string("/absl/") + label;
        for (auto* b : {benchmark::RegisterBenchmark(("hashset_insert" + suffix).c_str(), insert, n),
                        benchmark::RegisterBenchmark(("hashset_probe" + suffix).c_str(), probe, n, false, 0),
                        benchmark::RegisterBenchmark(("hashset_probe_miss" + suffix).c_str(), probe, n, true, 0),
                        benchmark::RegisterBenchmark(("hashset_probe_prefetch" + suffix).c_str(), probe, n, false,
                                                     std::size_t{16})})
            b->Unit(benchmark::kMillisecond)->UseRealTime();
    }
    return 0;
}

const int registered = register_all();

}  // namespace
