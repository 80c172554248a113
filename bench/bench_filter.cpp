// Google Benchmark suite: insert and probe per engine x block shape x filter size x bits/key x
// threads (t1, t2) x batch path (direct; "part" = partitioned, for the larger sizes).
//   build/bench/batchbloom_bench --benchmark_filter='probe/avx512/word512/10M/bpk10/t1'
// Sizes: 1M keys (filter ~1.2 MB, in L2), 10M (~12 MB, in L3), 100M (~120 MB, beyond this
// machine's 105 MB L3). Probes are 50% hits unless the name says "miss"; each call is one
// batch of as many keys as the filter holds. Counters: ns_per_key (lower is better) and fpr.
// The *_batch rows sweep the batch size against the 100M-key filter on both paths, for the
// best engine, to locate the crossover that BatchPath::automatic uses:
//   build/bench/batchbloom_bench --benchmark_filter='_batch/'
#include <benchmark/benchmark.h>

#include <batchbloom/filter.hpp>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "bench_keys.hpp"

namespace bb = batchbloom;
using bb::bench::keys_with_parity;
using bb::bench::set_counters;

namespace {

struct Data {
    std::vector<std::uint64_t> keys, hits50, misses;
    std::unique_ptr<bb::Filter> filter;
};

// One data set per (n, shape, bits/key), built once and shared by the engines.
Data& data(std::size_t n, bb::Shape shape, double bpk) {
    static std::map<std::tuple<std::size_t, bb::Shape, double>, std::unique_ptr<Data>> cache;
    auto& d = cache[{n, shape, bpk}];
    if (!d) {
        cache.clear();  // keep one large data set in memory at a time
        auto& fresh = cache[{n, shape, bpk}];
        fresh = std::make_unique<Data>();
        fresh->keys = keys_with_parity(n, 1, 0);
        fresh->misses = keys_with_parity(n, 2, 1);
        fresh->hits50 = bb::bench::half_hits(fresh->keys, fresh->misses);
        fresh->filter = std::make_unique<bb::Filter>(bb::Params::for_bits_per_key(n, bpk, shape));
        fresh->filter->insert(fresh->keys);
        return *fresh;
    }
    return *d;
}

struct Run {
    bb::Backend backend;
    unsigned threads;
    bb::BatchPath path;
};

void insert(benchmark::State& state, Run run, bb::Shape shape, std::size_t n, double bpk) {
    Data& d = data(n, shape, bpk);
    bb::Filter f(d.filter->params());
    f.set_backend(run.backend);
    f.set_threads(run.threads);
    f.set_batch_path(run.path);
    for (auto _ : state) {
        f.insert(d.keys);
        benchmark::ClobberMemory();
    }
    set_counters(state, n);
}

/// Batches of `batch` keys against the filter for n keys (inserts go into a fresh copy).
void batch_sweep(benchmark::State& state, Run run, std::size_t n, std::size_t batch, bool insert) {
    Data& d = data(n, bb::Shape::word512, 10.0);
    bb::Filter f(d.filter->params());
    bb::Filter& target = insert ? f : *d.filter;
    target.set_backend(run.backend);
    target.set_threads(run.threads);
    target.set_batch_path(run.path);
    const std::span<const std::uint64_t> keys = std::span(insert ? d.keys : d.hits50).first(batch);
    std::vector<std::uint8_t> out(batch);
    for (auto _ : state) {
        if (insert)
            target.insert(keys);
        else
            target.contains(keys, out);
        benchmark::ClobberMemory();
    }
    set_counters(state, batch);
}

void probe(benchmark::State& state, Run run, bb::Shape shape, std::size_t n, double bpk, bool miss) {
    Data& d = data(n, shape, bpk);
    d.filter->set_backend(run.backend);
    d.filter->set_threads(run.threads);
    d.filter->set_batch_path(run.path);
    const auto& q = miss ? d.misses : d.hits50;
    std::vector<std::uint8_t> out(n);
    for (auto _ : state) {
        d.filter->contains(q, out);
        benchmark::DoNotOptimize(out.data());
    }
    set_counters(state, n);
    if (miss) {
        std::size_t fp = 0;
        for (auto r : out) fp += r;
        state.counters["fpr"] = double(fp) / double(n);
    }
}

int register_all() {
    const std::pair<const char*, std::size_t> sizes[] = {{"1M", 1'000'000}, {"10M", 10'000'000}, {"100M", 100'000'000}};
    for (const auto& name : bb::available_backends()) {
        if (name == "cuda") continue;  // bench/cuda measures the GPU
        for (bb::Shape shape : {bb::Shape::word512, bb::Shape::split256, bb::Shape::line512})
            for (double bpk : {10.0, 15.0})
                for (const auto& [label, n] : sizes)
                    for (unsigned threads : {1u, 2u})
                        for (bb::BatchPath path : {bb::BatchPath::direct, bb::BatchPath::partitioned}) {
                            if (path == bb::BatchPath::partitioned && n < 10'000'000) continue;
                            const Run run{bb::parse_backend(name), threads, path};
                            const std::string suffix = name + "/" + std::string(bb::to_string(shape)) + "/" + label +
                                                       "/bpk" + std::to_string(int(bpk)) + "/t" +
                                                       std::to_string(threads) +
                                                       (path == bb::BatchPath::partitioned ? "/part" : "");
                            for (const char* op : {"insert/", "probe/", "probe_miss/"}) {
                                const std::string full = op + suffix;
                                auto* bm = op[0] == 'i'
                                               ? benchmark::RegisterBenchmark(full.c_str(), insert, run, shape, n, bpk)
                                               : benchmark::RegisterBenchmark(full.c_str(), probe, run, shape, n, bpk,
                                                                              op[5] == '_');
                                bm->Unit(benchmark::kMillisecond)->UseRealTime();
                            }
                        }
    }
    const auto names = bb::available_backends();
    const std::string best = names.front() == "cuda" && names.size() > 1 ? names[1] : names.front();
    for (const auto& [label, batch] : {std::pair{"b2M", 2'000'000}, {"b5M", 5'000'000}, {"b20M", 20'000'000}})
        for (unsigned threads : {1u, 2u})
            for (bb::BatchPath path : {bb::BatchPath::direct, bb::BatchPath::partitioned})
                for (bool insert : {true, false}) {
                    const std::string name = std::string(insert ? "insert_batch/" : "probe_batch/") + best +
                                             "/word512/100M/bpk10/" + label + "/t" + std::to_string(threads) +
                                             (path == bb::BatchPath::partitioned ? "/part" : "/direct");
                    benchmark::RegisterBenchmark(name.c_str(), batch_sweep, Run{bb::parse_backend(best), threads, path},
                                                 std::size_t(100'000'000), std::size_t(batch), insert)
                        ->Unit(benchmark::kMillisecond)
                        ->UseRealTime();
                }
    return 0;
}

const int registered = register_all();

}  // namespace

BENCHMARK_MAIN();
