#pragma once
// The JSON report of `batchbloom bench` (--json FILE), also the input of tools/bench/plot_bench.py:
//
//   {"machine": {"cpu", "cores", "l2_bytes", "l3_bytes", "compiler", ...},
//    "limit":   {"random_line_reads_per_s", ...},
//    "results": [{"backend", "threads", "keys", "bits_per_key", "insert_keys_per_s",
//                 "probe_keys_per_s", "probe_miss_keys_per_s", "fpr", "predicted_fpr", ...}, ...],
//    "filter_types": [{"type", "keys", "bits_per_key", "k", "insert_ns_per_key", "probe_ns_per_key",
//                      "probe_miss_ns_per_key", "fpr", "predicted_fpr"}, ...]}
//
// Rates are per second; "probe_keys_per_s" is the 50%-hit probe, "probe_miss_keys_per_s" the
// probe of absent keys, "fpr" the false positives among those absent keys / queries.
#include <cstdint>
#include <span>
#include <string>

#include "bench/bench_filter_types.hpp"
#include "bench/bench_machine.hpp"
#include "bench/bench_runner.hpp"
#include "bench/memory_limit.hpp"

namespace batchbloom::cli {

struct BenchRunInfo {
    unsigned repeat = 1;
    std::uint64_t seed = 0;  ///< seed of the random keys
};

std::string bench_json(const MachineInfo& machine, const LineReadLimit& limit, std::span<const BenchResult> results,
                       std::span<const FilterTypeBenchRow> filter_types, const BenchRunInfo& run);

}  // namespace batchbloom::cli
