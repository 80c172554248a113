// Google Benchmark rows for the filter types at 1M keys, 1% FPR (word512), one thread (and
// two, in the rows ending "/t2"):
// counting filter insert / erase / probe per kernel (scalar, avx2) beside the plain filter's
// insert / probe per engine, and the scalable filter grown from 1,000 to 1M keys (10 stages)
// beside a plain filter sized for 1M keys up front and beside its own stages probed alone
// (scalable/stages_alone: every stage asked for every key, one after the other).
//   build/bench/batchbloom_bench --benchmark_filter='^types/'
// Probes are 50% hits ("_miss": all absent). Counter: ns_per_key.
#include <benchmark/benchmark.h>

#include <batchbloom/counting.hpp>
#include <batchbloom/filter.hpp>
#include <batchbloom/scalable.hpp>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bench_keys.hpp"

namespace bb = batchbloom;
using bb::bench::keys_with_parity;
using bb::bench::set_counters;

namespace {

constexpr std::size_t n = 1'000'000;
constexpr double fpr = 0.01;

struct Keys {
    std::vector<std::uint64_t> keys = keys_with_parity(n, 11, 0);
    std::vector<std::uint64_t> misses = keys_with_parity(n, 12, 1);
    std::vector<std::uint64_t> hits50 = bb::bench::half_hits(keys, misses);
    bb::Params params = bb::Params::for_fpr(n, fpr);
};

const Keys& keys() {
    static const Keys k;
    return k;
}

void plain_insert(benchmark::State& state, bb::Backend backend, unsigned threads) {
    bb::Filter f(keys().params, {}, backend);
    f.set_threads(threads);
    for (auto _ : state) {
        f.insert(keys().keys);
        benchmark::ClobberMemory();
    }
    set_counters(state, n);
}

// The timed probe loop every filter type shares: 50%-hit batch (or all absent), one byte per answer.
template <class F>
void probe_loop(benchmark::State& state, const F& f, bool miss = false) {
    const auto& queries = miss ? keys().misses : keys().hits50;
    std::vector<std::uint8_t> out(n);
    for (auto _ : state) {
        f.contains(queries, out);
        benchmark::DoNotOptimize(out.data());
    }
    set_counters(state, n);
}

/// The probe of a Filter or CountingFilter sized for the keys and holding them.
template <class F>
void probe_full(benchmark::State& state, bb::Backend backend, unsigned threads) {
    F f(keys().params, {}, backend);
    f.set_threads(threads);
    f.insert(keys().keys);
    probe_loop(state, f);
}

// Inserting twice per iteration would saturate counters over the iterations: each iteration
// starts from empty counters (cleared outside the timed region).
void counting_insert(benchmark::State& state, bb::Backend backend, unsigned threads) {
    bb::CountingFilter f(keys().params, {}, backend);
    f.set_threads(threads);
    for (auto _ : state) {
        state.PauseTiming();
        f.clear();
        state.ResumeTiming();
        f.insert(keys().keys);
        benchmark::ClobberMemory();
    }
    set_counters(state, n);
}

void counting_erase(benchmark::State& state, bb::Backend backend, unsigned threads) {
    bb::CountingFilter full(keys().params, {}, backend);
    full.set_threads(threads);  // copies (below) take it along
    full.insert(keys().keys);
    bb::CountingFilter f = full;
    std::size_t erased = 0;
    for (auto _ : state) {
        state.PauseTiming();
        f = full;
        state.ResumeTiming();
        erased = f.erase(keys().keys);
        benchmark::DoNotOptimize(erased);
    }
    if (erased != n) state.SkipWithError("not every key was erased");
    set_counters(state, n);
}

bb::ScalableParams grown_from_1000() {
    bb::ScalableParams p;
    p.initial_capacity = 1000;
    p.initial_fpr = fpr;
    return p;
}

void scalable_insert(benchmark::State& state, bb::Backend backend, unsigned threads) {
    for (auto _ : state) {
        state.PauseTiming();
        auto f = std::make_unique<bb::ScalableFilter>(grown_from_1000(), bb::Hashing{}, backend);
        f->set_threads(threads);
        state.ResumeTiming();
        f->insert(keys().keys);  // includes allocating and sizing the 9 stages added on the way
        benchmark::DoNotOptimize(f->size());
        state.PauseTiming();
        f.reset();
        state.ResumeTiming();
    }
    set_counters(state, n);
}

/// A scalable filter grown from 1,000 to the 1M keys.
bb::ScalableFilter grown_scalable(bb::Backend backend, unsigned threads) {
    bb::ScalableFilter f(grown_from_1000(), {}, backend);
    f.set_threads(threads);
    f.insert(keys().keys);
    return f;
}

void scalable_probe_as(benchmark::State& state, bb::Backend backend, unsigned threads, bool miss) {
    const bb::ScalableFilter f = grown_scalable(backend, threads);
    probe_loop(state, f, miss);
    state.counters["stages"] = double(f.stages().size());
}
void scalable_probe(benchmark::State& state, bb::Backend backend, unsigned threads) {
    scalable_probe_as(state, backend, threads, false);
}
void scalable_probe_miss(benchmark::State& state, bb::Backend backend, unsigned threads) {
    scalable_probe_as(state, backend, threads, true);
}

// The yardstick of the scalable probe: the same filter's stages, each probed alone with the
// whole batch (what a probe costs that asks every stage for every key).
void scalable_stages_alone_as(benchmark::State& state, bb::Backend backend, unsigned threads, bool miss) {
    const bb::ScalableFilter f = grown_scalable(backend, threads);
    const auto& queries = miss ? keys().misses : keys().hits50;
    std::vector<std::uint8_t> out(n);
    for (auto _ : state) {
        for (const auto& stage : f.stages()) stage.contains(queries, out);
        benchmark::DoNotOptimize(out.data());
    }
    set_counters(state, n);
    state.counters["stages"] = double(f.stages().size());
}
void scalable_stages_alone(benchmark::State& state, bb::Backend backend, unsigned threads) {
    scalable_stages_alone_as(state, backend, threads, false);
}
void scalable_stages_alone_miss(benchmark::State& state, bb::Backend backend, unsigned threads) {
    scalable_stages_alone_as(state, backend, threads, true);
}

int register_all() {
    std::vector<bb::Backend> engines{bb::Backend::scalar};
    for (const auto& name : bb::available_backends())
        if (name == "avx2" || name == "avx512") engines.push_back(bb::parse_backend(name));
    using Body = void (*)(benchmark::State&, bb::Backend, unsigned);
    const std::pair<const char*, Body> rows[] = {
        {"plain/insert", plain_insert},       {"plain/probe", probe_full<bb::Filter>},
        {"scalable/insert", scalable_insert}, {"scalable/probe", scalable_probe},
        {"scalable/probe_miss", scalable_probe_miss}, {"scalable/stages_alone", scalable_stages_alone},
        {"scalable/stages_alone_miss", scalable_stages_alone_miss},
        {"counting/insert", counting_insert}, {"counting/erase", counting_erase},
        {"counting/probe", probe_full<bb::CountingFilter>},
    };
    for (auto b : engines) {
        const std::string e(bb::to_string(b));
        for (const auto& [name, body] : rows) {
            // avx512 runs the AVX2 counting kernels (docs/architecture.md): no separate rows.
            if (b == bb::Backend::avx512 && std::string_view(name).starts_with("counting")) continue;
            for (unsigned threads : {1u, 2u}) {  // one thread: "/1M" (CPU time); two: "/1M/t2" (real time)
                const std::string label = "types/" + std::string(name) + "/" + e + "/1M" + (threads == 1 ? "" : "/t2");
                auto* bm = benchmark::RegisterBenchmark(label.c_str(), body, b, threads)->Unit(benchmark::kMillisecond);
                if (threads > 1) bm->UseRealTime();
            }
        }
    }
    return 0;
}

const int registered = register_all();

}  // namespace
