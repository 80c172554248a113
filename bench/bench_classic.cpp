// Google Benchmark rows for the classic Bloom filter (k positions over the whole bit array),
// next to the blocked rows of bench_filter.cpp at the same sizes and bits per key:
//   build/bench/batchbloom_bench --benchmark_filter='classic/'
// classic/{insert,probe,probe_miss}/scalar/{1M,10M}/bpk10 ; probes are 50% hits unless "miss".
// Only the scalar engine has classic kernels (docs/architecture.md). Counters: ns_per_key, fpr.
#include <benchmark/benchmark.h>

#include <batchbloom/classic.hpp>
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "bench_keys.hpp"

namespace bb = batchbloom;

namespace {

struct ClassicData {
    std::size_t n = 0;
    std::vector<std::uint64_t> keys, hits50, misses;
    std::unique_ptr<bb::ClassicFilter> filter;
};

ClassicData& classic_data(std::size_t n, double bpk) {
    static ClassicData d;
    if (d.n != n || !d.filter) {
        d = {};
        d.n = n;
        d.keys = bb::bench::keys_with_parity(n, 1, 0);
        d.misses = bb::bench::keys_with_parity(n, 2, 1);
        d.hits50 = bb::bench::half_hits(d.keys, d.misses);
        d.filter = std::make_unique<bb::ClassicFilter>(bb::ClassicParams::for_bits_per_key(n, bpk));
        d.filter->insert(d.keys);
    }
    return d;
}

void classic_insert(benchmark::State& state, std::size_t n, double bpk, unsigned threads) {
    ClassicData& d = classic_data(n, bpk);
    bb::ClassicFilter f(d.filter->params());
    f.set_threads(threads);
    for (auto _ : state) {
        f.insert(d.keys);
        benchmark::DoNotOptimize(f.words().data());
    }
    bb::bench::set_counters(state, n);
}

void classic_probe(benchmark::State& state, bb::Backend backend, std::size_t n, double bpk, bool miss,
                   unsigned threads) {
    ClassicData& d = classic_data(n, bpk);
    d.filter->set_backend(backend);
    d.filter->set_threads(threads);
    const auto& queries = miss ? d.misses : d.hits50;
    std::vector<std::uint8_t> out(queries.size());
    for (auto _ : state) {
        d.filter->contains(queries, out);
        benchmark::DoNotOptimize(out.data());
    }
    bb::bench::set_counters(state, n);
    state.counters["fpr"] = double(d.filter->count(d.misses)) / double(n);
}

int register_classic() {
    const double bpk = 10;
    for (const auto& [n, label] : {std::pair<std::size_t, const char*>{1'000'000, "1M"}, {10'000'000, "10M"}}) {
        for (const unsigned threads : {1u, 2u}) {
            const std::string suffix = std::string(label) + "/bpk10/t" + std::to_string(threads);
            benchmark::RegisterBenchmark(("classic/insert/scalar/" + suffix).c_str(), classic_insert, n, bpk, threads)
                ->Unit(benchmark::kMillisecond)
                ->UseRealTime();
            for (const bool miss : {false, true}) {
                const std::string full = std::string(miss ? "classic/probe_miss/" : "classic/probe/") + "scalar/" + suffix;
                benchmark::RegisterBenchmark(full.c_str(), classic_probe, bb::Backend::scalar, n, bpk, miss, threads)
                    ->Unit(benchmark::kMillisecond)
                    ->UseRealTime();
            }
        }
    }
    return 0;
}

const int registered = register_classic();

}  // namespace
