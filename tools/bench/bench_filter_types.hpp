#pragma once
// The rows of `batchbloom bench` for the other filter types, on the same workload and sizing as
// the blocked rows above them, one thread: the classic Bloom filter (the accuracy yardstick;
// scalar kernels, which every engine runs), the counting filter
// (scalar and AVX2 kernels) and the scalable filter (grown from 1/64 of the keys).
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <vector>

#include "bench/bench_workload.hpp"
#include "common/common_options.hpp"

namespace batchbloom::cli {

struct FilterTypeBenchRow {
    std::string engine;  ///< e.g. "classic scalar", "counting avx2", "scalable avx512"
    std::uint64_t keys = 0, queries = 0;
    double bits_per_key = 0;  ///< memory of the whole structure over the keys
    unsigned k = 0;           ///< 0: varies (scalable stages)
    double insert_seconds = 0, probe_mixed_seconds = 0, probe_absent_seconds = 0;
    std::uint64_t absent_hits = 0, false_negatives = 0;
    double predicted_fpr = 0;
};

/// Each phase timed `repeat` times, the fastest counts.
std::vector<FilterTypeBenchRow> run_filter_types_bench(const Workload& work, const Sizing& sizing, unsigned repeat);

void print_filter_types_table(std::FILE* out, std::span<const FilterTypeBenchRow> rows);

}  // namespace batchbloom::cli
