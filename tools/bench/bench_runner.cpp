#include "bench/bench_runner.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <vector>

namespace batchbloom::cli {

namespace {

/// The first call's seconds and the phase's figure: the fastest of `repeat` runs of `body`,
/// each after `prepare` (not timed); cold, each also after the flush buffer is read, and the
/// figure is the median of the runs after the first (the first alone if there is one run).
struct PhaseTimes {
    double first, figure;
};

template <class Prepare, class Body>
PhaseTimes time_phase(const BenchSetup& setup, Prepare&& prepare, Body&& body) {
    using clock = std::chrono::steady_clock;
    std::vector<double> runs;
    for (unsigned r = 0; r < std::max(setup.repeat, 1u); ++r) {
        prepare();
        if (setup.flush != nullptr) read_through(*setup.flush);
        const auto t0 = clock::now();
        body();
        const auto t1 = clock::now();
        // A phase too fast for the clock still gets a finite rate.
        runs.push_back(std::max(std::chrono::duration<double>(t1 - t0).count(), 1e-9));
    }
    if (setup.flush == nullptr) return {std::nan(""), *std::min_element(runs.begin(), runs.end())};
    std::vector<double> later(runs.begin() + (runs.size() > 1 ? 1 : 0), runs.end());
    std::sort(later.begin(), later.end());
    const std::size_t m = later.size() / 2;
    return {runs.front(), later.size() % 2 ? later[m] : (later[m - 1] + later[m]) / 2};
}

}  // namespace

std::string backend_label(Backend backend) {
    if (backend == Backend::automatic)
        return std::string(to_string(backend)) + "(" + std::string(to_string(resolve_backend(backend))) + ")";
    return std::string(to_string(backend));
}

void read_through(const std::vector<std::uint64_t>& buffer) {
    std::uint64_t sum = 0;
    for (std::size_t i = 0; i < buffer.size(); i += 8) sum += buffer[i];  // one word a line
    volatile std::uint64_t sink = sum;
    (void)sink;
}

std::string_view path_name(BatchPath path) {
    switch (path) {
        case BatchPath::direct: return "direct";
        case BatchPath::partitioned: return "partitioned";
        case BatchPath::automatic: break;
    }
    return "automatic";
}

BenchRun run_backend(const Workload& work, const BenchSetup& setup, Backend backend, unsigned threads, BatchPath path) {
    BenchRun run;
    BenchResult& r = run.result;
    r.backend = backend_label(backend);
    r.threads = threads;
    r.path = path_name(path);
    r.keys = work.inserted.size();
    r.queries = work.absent.size();
    r.params = setup.params;
    r.predicted_fpr = predicted_fpr(setup.params, r.keys);

    Filter filter(setup.params, setup.hashing);
    filter.set_backend(backend);
    filter.set_threads(threads);
    filter.set_batch_path(path);

    r.cold = setup.flush != nullptr;
    const PhaseTimes insert = time_phase(
        setup, [&] { filter.clear(); }, [&] { filter.insert(std::span<const std::uint64_t>(work.inserted)); });
    r.insert_seconds = insert.figure;
    r.insert_first_seconds = insert.first;

    std::vector<std::uint8_t> hits(work.mixed.size());
    const PhaseTimes probe = time_phase(
        setup, [] {}, [&] { filter.contains(std::span<const std::uint64_t>(work.mixed), hits); });
    r.probe_mixed_seconds = probe.figure;
    r.probe_first_seconds = probe.first;
    for (std::size_t i = 0; i < hits.size(); ++i) {
        r.mixed_hits += hits[i] != 0;
        r.false_negatives += hits[i] == 0 && Workload::is_inserted(work.mixed[i]);
    }

    std::size_t absent_hits = 0;
    r.probe_absent_seconds =
        time_phase(setup, [] {}, [&] { absent_hits = filter.count(std::span<const std::uint64_t>(work.absent)); }).figure;
    r.absent_hits = absent_hits;
    if (path == BatchPath::automatic) {
        r.chosen_insert = path_name(filter.batch_path_for(work.inserted.size(), true));
        r.chosen_probe = path_name(filter.batch_path_for(work.mixed.size(), false));
    }

    run.filter.emplace(std::move(filter));
    return run;
}

}  // namespace batchbloom::cli
