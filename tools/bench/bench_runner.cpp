#include "bench/bench_runner.hpp"

#include <algorithm>
#include <chrono>
#include <limits>
#include <vector>

namespace batchbloom::cli {

namespace {

/// Seconds of the fastest of `repeat` runs of `body`, each after `prepare` (not timed).
template <class Prepare, class Body>
double best_seconds(unsigned repeat, Prepare&& prepare, Body&& body) {
    using clock = std::chrono::steady_clock;
    double best = std::numeric_limits<double>::infinity();
    for (unsigned r = 0; r < std::max(repeat, 1u); ++r) {
        prepare();
        const auto t0 = clock::now();
        body();
        const auto t1 = clock::now();
        best = std::min(best, std::chrono::duration<double>(t1 - t0).count());
    }
    // A phase too fast for the clock still gets a finite rate.
    return std::max(best, 1e-9);
}

}  // namespace

std::string backend_label(Backend backend) {
    if (backend == Backend::automatic)
        return std::string(to_string(backend)) + "(" + std::string(to_string(resolve_backend(backend))) + ")";
    return std::string(to_string(backend));
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

    r.insert_seconds = best_seconds(
        setup.repeat, [&] { filter.clear(); }, [&] { filter.insert(std::span<const std::uint64_t>(work.inserted)); });

    std::vector<std::uint8_t> hits(work.mixed.size());
    r.probe_mixed_seconds = best_seconds(
        setup.repeat, [] {}, [&] { filter.contains(std::span<const std::uint64_t>(work.mixed), hits); });
    for (std::size_t i = 0; i < hits.size(); ++i) {
        r.mixed_hits += hits[i] != 0;
        r.false_negatives += hits[i] == 0 && Workload::is_inserted(work.mixed[i]);
    }

    std::size_t absent_hits = 0;
    r.probe_absent_seconds = best_seconds(
        setup.repeat, [] {}, [&] { absent_hits = filter.count(std::span<const std::uint64_t>(work.absent)); });
    r.absent_hits = absent_hits;
    if (path == BatchPath::automatic) {
        r.chosen_insert = path_name(filter.batch_path_for(work.inserted.size(), true));
        r.chosen_probe = path_name(filter.batch_path_for(work.mixed.size(), false));
    }

    run.filter.emplace(std::move(filter));
    return run;
}

}  // namespace batchbloom::cli
