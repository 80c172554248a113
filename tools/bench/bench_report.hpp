#pragma once
// Output of `batchbloom bench`: a few lines describing the run, then a table with one row per
// (engine, threads, keys) and a last row for the machine's random cache-line read rate, the
// limit an out-of-cache probe cannot beat. The table is a list of columns (header + cell
// formatters), so a new measurement is one more entry in bench_columns().
#include <cstdint>
#include <cstdio>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "bench/bench_machine.hpp"
#include "bench/bench_runner.hpp"
#include "bench/memory_limit.hpp"

namespace batchbloom::cli {

struct BenchColumn {
    std::vector<std::string> header;  ///< one or more lines, top-aligned
    std::function<std::string(const BenchResult&)> cell;
    /// The cell of the limit row; empty when the column says nothing about the limit.
    std::function<std::string(const LineReadLimit&)> limit_cell = {};
};

/// The table's columns, in order. `limit` feeds the probe/limit column.
/// `cold`: with the first calls' columns (--cold).
std::vector<BenchColumn> bench_columns(const LineReadLimit& limit, bool cold = false);

/// Label of the limit row.
inline constexpr const char* limit_row_label = "random 64B line reads (prefetched)";

/// One line per filter size: keys, queries, and the filter's shape, size and k (with a note
/// when the filter fits in the last-level cache, where probes do not pay the memory latency).
void print_size_context(std::FILE* out, const MachineInfo& machine, const Params& params, std::uint64_t keys,
                        std::uint64_t queries);

/// How the limit was measured, one line.
void print_limit_context(std::FILE* out, const LineReadLimit& limit);

/// A text table of `results` under `columns` (engine name left-aligned, numbers right-aligned),
/// then the limit row when `limit` is given.
void print_bench_table(std::FILE* out, std::span<const BenchColumn> columns, std::span<const BenchResult> results,
                       const LineReadLimit* limit);

}  // namespace batchbloom::cli
