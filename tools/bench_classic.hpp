#pragma once
// The classic-filter rows of `batchbloom bench`: the same workload in a classic Bloom filter
// sized for the same FPR (or bits per key), one thread, on the scalar probe and, where the
// machine has it, the AVX-512 gather probe. The yardstick for the blocked rows above it.
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <vector>

#include <batchbloom/classic.hpp>

#include "bench_workload.hpp"
#include "common_options.hpp"

namespace batchbloom::cli {

struct ClassicBenchRow {
    std::string engine;  ///< "classic scalar", "classic avx512"
    std::uint64_t keys = 0, queries = 0;
    ClassicParams params;
    double insert_seconds = 0, probe_mixed_seconds = 0, probe_absent_seconds = 0;
    std::uint64_t absent_hits = 0, false_negatives = 0;
    double predicted_fpr = 0;
};

/// One row per probe engine; each phase timed `repeat` times, the fastest counts.
std::vector<ClassicBenchRow> run_classic_bench(const Workload& work, const Sizing& sizing, unsigned repeat);

void print_classic_table(std::FILE* out, std::span<const ClassicBenchRow> rows);

}  // namespace batchbloom::cli
