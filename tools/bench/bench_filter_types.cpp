#include "bench/bench_filter_types.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>

#include <batchbloom/classic.hpp>
#include <batchbloom/counting.hpp>
#include <batchbloom/scalable.hpp>

#include "common/text_format.hpp"

namespace batchbloom::cli {

namespace {

template <class Body>
double fastest(unsigned repeat, Body&& body) {
    double best = std::numeric_limits<double>::infinity();
    for (unsigned r = 0; r < repeat; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        body();
        best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    return best;
}

bool available(Backend b) {
    const auto engines = available_backends();
    return std::find(engines.begin(), engines.end(), to_string(b)) != engines.end();
}

/// Untimed calls of each probe before its timed ones: the first calls of a kind measure the
/// batch paths of the filter (or of each stage of a scalable one), and a decision takes two or
/// three of them; a process pays that once, and the timed calls are the steady state after it.
constexpr unsigned warm_up_calls = 3;

// Times the probes of a filter that holds work.inserted; insert_seconds is the caller's.
template <class F>
FilterTypeBenchRow probe_row(std::string engine, const F& filter, const Workload& work, unsigned repeat) {
    FilterTypeBenchRow r;
    r.engine = std::move(engine);
    r.keys = work.inserted.size();
    r.queries = work.absent.size();
    std::vector<std::uint8_t> hits(work.mixed.size());
    for (unsigned c = 0; c < warm_up_calls; ++c) {
        filter.contains(work.mixed, hits);
        (void)filter.count(work.absent);
    }
    r.probe_mixed_seconds = fastest(repeat, [&] { filter.contains(work.mixed, hits); });
    for (std::size_t i = 0; i < hits.size(); ++i)
        r.false_negatives += (Workload::is_inserted(work.mixed[i]) && hits[i] == 0) ? 1 : 0;
    r.probe_absent_seconds = fastest(repeat, [&] { r.absent_hits = filter.count(work.absent); });
    return r;
}

/// A scalable filter's stages as one filter that asks each of them for every key, hashing
/// included: what its own probe (each key hashed once, a stage asked only for the keys no newer
/// stage has found) is measured against.
struct StagesAlone {
    const ScalableFilter& filter;
    // Kept between calls, so that no timed call allocates or faults in pages.
    mutable std::vector<std::uint8_t> one, all;
    mutable std::vector<std::uint64_t> hashes;
    void contains(std::span<const std::uint64_t> keys, std::span<std::uint8_t> out) const {
        one.resize(keys.size());
        hashes.resize(keys.size());
        std::fill(out.begin(), out.end(), std::uint8_t{0});
        for (std::size_t s = 0; s < filter.stages().size(); ++s) {
            // What stage s holds for a key (ScalableFilter::stage_hash).
            for (std::size_t i = 0; i < keys.size(); ++i) hashes[i] = filter.stage_hash(s, filter.hash(keys[i]));
            filter.stages()[s].contains_hashes(hashes, one);
            for (std::size_t i = 0; i < keys.size(); ++i) out[i] |= one[i];
        }
    }
    std::uint64_t count(std::span<const std::uint64_t> keys) const {
        all.resize(keys.size());
        contains(keys, all);
        return static_cast<std::uint64_t>(std::count(all.begin(), all.end(), std::uint8_t{1}));
    }
};

}  // namespace

std::vector<FilterTypeBenchRow> run_filter_types_bench(const Workload& work, const Sizing& sizing, unsigned repeat) {
    const std::uint64_t n = work.inserted.size();
    const double keys = double(n);
    std::vector<FilterTypeBenchRow> rows;

    // Classic: every engine runs the scalar engine's classic kernels (docs/architecture.md).
    const ClassicParams cp = sizing.kind == Sizing::Kind::fpr ? ClassicParams::for_fpr(n, sizing.value)
                                                              : ClassicParams::for_bits_per_key(n, sizing.value);
    ClassicFilter classic(cp);
    classic.set_backend(Backend::scalar);
    classic.set_threads(1);
    const double classic_insert = fastest(repeat, [&] {
        classic.clear();
        classic.insert(work.inserted);
    });
    auto classic_row = probe_row("classic scalar", classic, work, repeat);
    classic_row.insert_seconds = classic_insert;
    classic_row.bits_per_key = double(cp.bits) / keys;
    classic_row.k = cp.k;
    classic_row.predicted_fpr = classic.predicted_fpr(n);
    rows.push_back(classic_row);

    // Counting: the blocked filter's params, four bits per bit of it.
    const Params bp = sizing.params(n, Shape::word512);
    for (const Backend b : {Backend::scalar, Backend::avx2}) {
        if (!available(b)) continue;
        CountingFilter counting(bp, Hashing{}, b);
        counting.set_threads(1);
        const double insert = fastest(repeat, [&] {
            counting.clear();
            counting.insert(work.inserted);
        });
        auto r = probe_row("counting " + std::string(to_string(b)), counting, work, repeat);
        r.insert_seconds = insert;
        r.bits_per_key = 8.0 * double(counting.bytes().size()) / keys;
        r.k = bp.k;
        r.predicted_fpr = predicted_fpr(bp, n);
        rows.push_back(r);
    }

    // Scalable: starts at 1/64 of the keys, grows ~6 stages, and the whole stays at or below
    // the blocked filter's FPR (as --fpr means for `build --format scalable`).
    const ScalableParams sp = ScalableParams::for_total_fpr(std::max<std::uint64_t>(1, n / 64), predicted_fpr(bp, n));
    const Backend best = resolve_backend(Backend::automatic);
    std::optional<ScalableFilter> scalable;
    const double scalable_insert = fastest(repeat, [&] {
        scalable.emplace(sp, Hashing{}, best);
        scalable->set_threads(1);
        scalable->insert(work.inserted);
    });
    auto r = probe_row("scalable " + std::string(to_string(best)), *scalable, work, repeat);
    r.insert_seconds = scalable_insert;
    r.bits_per_key = 8.0 * double(scalable->bytes()) / keys;
    r.predicted_fpr = scalable->predicted_fpr();
    rows.push_back(r);

    // The scalable probe's yardstick: the same stages, each probed alone with the whole batch
    // (what a probe that hashes every key per stage and asks every stage for it costs).
    const StagesAlone alone{*scalable, {}, {}, {}};
    auto a = probe_row("  stages alone", alone, work, repeat);
    a.insert_seconds = std::nan("");
    a.bits_per_key = r.bits_per_key;
    a.predicted_fpr = r.predicted_fpr;
    rows.push_back(a);
    return rows;
}

void print_filter_types_table(std::FILE* out, std::span<const FilterTypeBenchRow> rows) {
    if (rows.empty()) return;
    std::fprintf(out,
                 "# other filter types, same keys and sizing, 1 thread, ns/key (classic: k positions over\n"
                 "# the whole array; counting: 4-bit counters, erasable; scalable: grown from n/64 keys,\n"
                 "# the whole at the FPR, inserted key by key; stages alone: the same stages, each asked\n"
                 "# for every key, hashing included); probes timed after %u untimed calls of each:\n",
                 warm_up_calls);
    std::fprintf(out, "%-16s %10s %7s %4s %8s %8s %8s %10s %10s\n", "engine", "keys", "bits/", "k", "insert", "probe",
                 "probe", "measured", "predicted");
    std::fprintf(out, "%-16s %10s %7s %4s %8s %8s %8s %10s %10s\n", "", "", "key", "", "", "50%hit", "absent", "FPR",
                 "FPR");
    for (const auto& r : rows) {
        const double keys = double(r.keys), queries = double(r.queries);
        const std::string k = r.k == 0 ? "-" : std::to_string(r.k);
        const std::string insert = std::isnan(r.insert_seconds) ? "-" : strprintf("%.2f", r.insert_seconds * 1e9 / keys);
        std::fprintf(out, "%-16s %10llu %7.3f %4s %8s %8.2f %8.2f %10.3e %10.3e\n", r.engine.c_str(),
                     static_cast<unsigned long long>(r.keys), r.bits_per_key, k.c_str(), insert.c_str(),
                     r.probe_mixed_seconds * 1e9 / queries, r.probe_absent_seconds * 1e9 / queries,
                     double(r.absent_hits) / queries, r.predicted_fpr);
    }
}

}  // namespace batchbloom::cli
