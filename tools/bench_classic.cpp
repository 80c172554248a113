#include "bench_classic.hpp"

#include <algorithm>
#include <chrono>
#include <limits>

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

}  // namespace

std::vector<ClassicBenchRow> run_classic_bench(const Workload& work, const Sizing& sizing, unsigned repeat) {
    const std::uint64_t n = work.inserted.size();
    const ClassicParams params = sizing.kind == Sizing::Kind::fpr ? ClassicParams::for_fpr(n, sizing.value)
                                                                  : ClassicParams::for_bits_per_key(n, sizing.value);
    ClassicFilter filter(params);
    filter.set_backend(Backend::scalar);
    const double insert_seconds = fastest(repeat, [&] {
        filter.clear();
        filter.insert(work.inserted);
    });

    std::vector<ClassicBenchRow> rows;
    const auto engines = available_backends();
    for (const Backend b : {Backend::scalar, Backend::avx512}) {
        if (std::find(engines.begin(), engines.end(), to_string(b)) == engines.end()) continue;
        filter.set_backend(b);
        ClassicBenchRow r{"classic " + std::string(to_string(b)), n, work.absent.size(), params, insert_seconds,
                          0, 0, 0, 0, filter.predicted_fpr(n)};
        std::vector<std::uint8_t> hits(work.mixed.size());
        r.probe_mixed_seconds = fastest(repeat, [&] { filter.contains(work.mixed, hits); });
        for (std::size_t i = 0; i < hits.size(); ++i)
            r.false_negatives += (Workload::is_inserted(work.mixed[i]) && hits[i] == 0) ? 1 : 0;
        r.probe_absent_seconds = fastest(repeat, [&] { r.absent_hits = filter.count(work.absent); });
        rows.push_back(r);
    }
    return rows;
}

void print_classic_table(std::FILE* out, std::span<const ClassicBenchRow> rows) {
    if (rows.empty()) return;
    std::fprintf(out, "# classic Bloom filter (k positions over the whole array), same sizing, 1 thread, ns/key:\n");
    std::fprintf(out, "%-16s %10s %7s %4s %8s %8s %8s %10s %10s\n", "engine", "keys", "bits/", "k", "insert", "probe",
                 "probe", "measured", "predicted");
    std::fprintf(out, "%-16s %10s %7s %4s %8s %8s %8s %10s %10s\n", "", "", "key", "", "", "50%hit", "absent", "FPR",
                 "FPR");
    for (const auto& r : rows) {
        const double keys = double(r.keys), queries = double(r.queries);
        std::fprintf(out, "%-16s %10llu %7.3f %4u %8.2f %8.2f %8.2f %10.3e %10.3e\n", r.engine.c_str(),
                     static_cast<unsigned long long>(r.keys), double(r.params.bits) / keys, r.params.k,
                     r.insert_seconds * 1e9 / keys, r.probe_mixed_seconds * 1e9 / queries,
                     r.probe_absent_seconds * 1e9 / queries, double(r.absent_hits) / queries, r.predicted_fpr);
    }
}

}  // namespace batchbloom::cli
