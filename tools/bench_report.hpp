#pragma once
// Output of `batchbloom bench`: a few lines describing the workload and filter, then a table
// with one row per engine. The table is a list of columns (header + cell formatter), so a new
// measurement is one more entry in bench_columns().
#include <cstdio>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "bench_runner.hpp"

namespace batchbloom::cli {

struct BenchColumn {
    std::string header;
    std::function<std::string(const BenchResult&)> cell;
};

/// The table's columns, in order.
std::vector<BenchColumn> bench_columns();

/// Workload and filter description printed above the table.
void print_bench_context(std::FILE* out, const BenchSetup& setup, std::uint64_t keys, std::uint64_t queries,
                         std::uint64_t seed);

/// A right-aligned text table of `results` under `columns`.
void print_bench_table(std::FILE* out, std::span<const BenchColumn> columns, std::span<const BenchResult> results);

}  // namespace batchbloom::cli
