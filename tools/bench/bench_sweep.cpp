#include "bench/bench_sweep.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <span>
#include <stdexcept>

#include <batchbloom/filter.hpp>
#include <batchbloom/params.hpp>

#include "bench/bench_runner.hpp"
#include "common/splitmix64.hpp"

namespace batchbloom::cli {
namespace {

constexpr BatchPath paths[] = {BatchPath::direct, BatchPath::partitioned, BatchPath::automatic};

/// Keys per timed sample at least (a few milliseconds of work at in-cache speed).
constexpr std::size_t min_sample_keys = std::size_t(1) << 21;

std::uint64_t filter_bytes_of(const std::string& name, const MachineInfo& m) {
    const std::uint64_t l2 = m.l2_bytes ? m.l2_bytes : std::uint64_t(1) << 20;
    const std::uint64_t l3 = m.l3_bytes ? m.l3_bytes : 4 * l2;
    // "In L2" and "in L3": half the cache, so that the filter stays there beside the batch.
    if (name == "L2") return l2 / 2;
    if (name == "L3") return l3 / 2;
    if (name == "4xL3") return 4 * l3;
    std::uint64_t v = 0;
    std::size_t used = 0;
    try {
        v = std::stoull(name, &used);
    } catch (const std::exception&) {
        throw std::invalid_argument("a sweep filter is L2, L3, 4xL3 or a size such as 1G, got '" + name + "'");
    }
    const std::string unit = name.substr(used);
    if (unit == "K") return v << 10;
    if (unit == "M") return v << 20;
    if (unit == "G") return v << 30;
    if (unit.empty()) return v;
    throw std::invalid_argument("a sweep filter is L2, L3, 4xL3 or a size such as 1G, got '" + name + "'");
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

template <class Body>
double seconds(Body&& body) {
    const auto t0 = std::chrono::steady_clock::now();
    body();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void print_header(std::FILE* out) {
    std::fprintf(out, "%-6s %9s %6s %3s %10s %8s | %-6s %8s %8s %8s %11s %9s %8s %8s | %8s\n", "filter", "MiB", "keys/",
                 "thr", "keys", "limit", "op", "direct", "partit.", "auto", "chose", "auto/best", "limit/", "partit./",
                 "partit.");
    std::fprintf(out, "%-6s %9s %6s %3s %10s %8s | %-6s %8s %8s %8s %11s %9s %8s %8s | %8s\n", "", "", "line", "", "",
                 "ns/line", "", "ns/key", "ns/key", "ns/key", "", "", "direct", "limit", "1st ms");
}

}  // namespace

std::vector<SweepPoint> run_sweep(const SweepSpec& spec, const MachineInfo& machine, Backend backend, std::FILE* out) {
    std::vector<SweepPoint> points;
    for (const std::string& name : spec.filters) filter_bytes_of(name, machine);  // every name checked first
    print_header(out);
    for (const std::string& name : spec.filters) {
        const std::uint64_t bytes = filter_bytes_of(name, machine);
        const Params params = Params::make(Shape::word512, std::max<std::uint64_t>(bytes / 64, 1), 8);
        // The limit at this size: the best scheme and distance of a full measurement (one
        // thread), then one read pass of it on the row's threads beside every timed call
        // below, whose median is the figure.
        const LineReader reader(params.bytes(), spec.seed);
        const LineReadRate scheme = reader.measure(3).best;
        for (const double density : spec.keys_per_line) {
            const auto n = static_cast<std::uint64_t>(std::ceil(density * double(params.blocks)));
            std::vector<std::uint64_t> keys(n), queries(n);
            SplitMix64 rng(spec.seed ^ n);
            for (auto& k : keys) k = rng.next() & ~std::uint64_t(1);
            for (std::size_t i = 0; i < n; ++i) queries[i] = i % 2 ? keys[i] : rng.next() | 1;
            // A sample is enough calls for some milliseconds: one call of a small batch lasts
            // microseconds, shorter than the clock's and the VM's jitter.
            const std::size_t calls = std::max<std::size_t>(1, (min_sample_keys + n - 1) / n);
            for (const unsigned threads : spec.threads) {
                SweepPoint pt{name, params.bytes(), density, threads, n, 0, {}, {}};
                // One filter for every path, its path set before each call: filters are separate
                // allocations, and on a VM two of them can differ in speed by more than the
                // paths do (a path measured 10-29% slower on another filter object than on its
                // own in the same repeats). Its scratch is shared, as automatic's choice is.
                const auto make_filter = [&] {
                    Filter f(params, Hashing{}, backend);
                    f.set_threads(threads);
                    if (spec.scratch_limit) f.set_scratch_limit(spec.scratch_limit);
                    return f;
                };
                Filter filter = make_filter();
                const auto on = [&](std::size_t p) -> Filter& {
                    filter.set_batch_path(paths[p]);
                    return filter;
                };
                std::vector<std::vector<std::uint8_t>> answers(std::size(paths), std::vector<std::uint8_t>(n));
                // The paths take turns within each repeat, so that a slow spell of the machine
                // falls on all of them rather than on whichever ran then, and the order turns
                // by one from repeat to repeat. A call pays for writing back the dirty lines
                // the call before it left, and direct inserts leave the costliest (automatic's
                // partitioned inserts, run after direct, measured 1.07-1.21x the partitioned
                // path's own at 4xL3 and 1 GiB), so each timed sample follows one untimed call
                // of its own path, as in a process that keeps to one path. Inserting keys again
                // sets the same bits and costs the same.
                constexpr std::size_t turns[] = {0, 2, 1};  // direct, automatic, partitioned
                constexpr std::size_t automatic = std::size(paths) - 1;
                std::vector<double> ins[std::size(paths)], probe[std::size(paths)], limit_ns;
                // The limit of this row's thread count: its threads read lines at once.
                const auto limit_sample = [&] { limit_ns.push_back(1e9 / reader.sample(scheme, threads)); };
                const auto timed = [&](auto&& once) {
                    once();
                    return seconds([&] {
                        for (std::size_t c = 0; c < calls; ++c) once();
                    });
                };
                for (unsigned r = 0; r < std::max(spec.repeat, 1u); ++r) {
                    limit_sample();
                    for (std::size_t i = 0; i < std::size(turns); ++i) {
                        const std::size_t p = turns[(i + r) % std::size(turns)];
                        Filter& f = on(p);
                        ins[p].push_back(timed([&] { f.insert(std::span<const std::uint64_t>(keys)); }));
                    }
                }
                for (unsigned r = 0; r < std::max(spec.repeat, 1u); ++r) {
                    limit_sample();
                    for (std::size_t i = 0; i < std::size(turns); ++i) {
                        const std::size_t p = turns[(i + r) % std::size(turns)];
                        Filter& f = on(p);
                        probe[p].push_back(timed([&] { f.contains(std::span<const std::uint64_t>(queries), answers[p]); }));
                    }
                }
                // The partitioned path's first call grows its scratch and faults its pages in,
                // which a process that takes that path pays once: timed apart, on scratch
                // given back first, after a call that leaves the filter as warm as before.
                double first_use_s[2] = {};
                const auto first_use = [&](unsigned op, auto&& call) {
                    call(on(1), 1);
                    filter.release_scratch();
                    first_use_s[op] = seconds([&] { call(on(1), 1); });
                };
                first_use(0, [&](Filter& f, std::size_t) { f.insert(std::span<const std::uint64_t>(keys)); });
                first_use(1, [&](Filter& f, std::size_t p) { f.contains(std::span<const std::uint64_t>(queries), answers[p]); });
                pt.limit_at_size_ns = median(limit_ns);
                pt.chosen[0] = path_name(on(automatic).batch_path_for(n, true));
                pt.chosen[1] = path_name(on(automatic).batch_path_for(n, false));
                // Each path builds the filter from empty as the direct path did, and answers
                // as it does.
                Filter built = make_filter();
                for (std::size_t p = 0; p < std::size(paths); ++p) {
                    pt.ns[0][p] = median(ins[p]) * 1e9 / double(n * calls);
                    pt.ns[1][p] = median(probe[p]) * 1e9 / double(n * calls);
                    built.clear();
                    built.set_batch_path(paths[p]);
                    built.insert(std::span<const std::uint64_t>(keys));
                    if (!(built == filter) || answers[p] != answers[0])
                        throw std::runtime_error("sweep: the " + std::string(path_name(paths[p])) +
                                                 " path gave other results than the direct path (" + name + ", " +
                                                 std::to_string(n) + " keys)");
                }
                for (unsigned op = 0; op < 2; ++op) {
                    const double best = std::min(pt.ns[op][0], pt.ns[op][1]);
                    pt.first_use_ms[op] = (first_use_s[op] - double(n) * pt.ns[op][1] * 1e-9) * 1e3;
                    std::fprintf(out,
                                 "%-6s %9.1f %6.1f %3u %10llu %8.2f | %-6s %8.2f %8.2f %8.2f %11s %9.2f %8.2f %8.2f | %8.2f\n",
                                 name.c_str(), double(params.bytes()) / double(1 << 20), density, threads,
                                 static_cast<unsigned long long>(n), pt.limit_at_size_ns, op ? "probe" : "insert",
                                 pt.ns[op][0], pt.ns[op][1], pt.ns[op][2], pt.chosen[op].c_str(),
                                 pt.ns[op][2] / best, pt.limit_at_size_ns / pt.ns[op][0],
                                 pt.ns[op][1] / pt.limit_at_size_ns, pt.first_use_ms[op]);
                }
                std::fflush(out);
                points.push_back(pt);
            }
        }
    }
    return points;
}

}  // namespace batchbloom::cli
