#pragma once
// The subcommands. Each cmd_<name>.cpp defines its command: the spec (options and help text)
// and the run function; main.cpp parses the command line against the spec and calls run. A run
// function returns the exit status, reports failures by throwing (std::exception, or
// UsageError for a bad command line), and writes its results to stdout.
#include <string>
#include <string_view>

#include "common/args.hpp"

namespace batchbloom::cli {

struct Command {
    std::string_view name;
    std::string_view summary;  ///< its line in the program's usage
    CommandSpec (*spec)();
    int (*run)(const ParsedArgs& args);
};

/// The commands, each defined in its cmd_<name>.cpp (union, intersect and fold in
/// cmd_algebra.cpp); main.cpp lists them in the program's usage.
extern const Command size_command, build_command, query_command, insert_command, erase_command, info_command,
    union_command, intersect_command, fold_command, join_command, parquet_command;

/// `bench` (tools/bench/cmd_bench.cpp), whose entry main.cpp makes.
CommandSpec bench_spec();
int run_bench(const ParsedArgs& args);

/// For info: whether PATH starts like a Parquet file, and its description (format, then the
/// per-column-chunk listing of `parquet FILE`).
bool is_parquet_file(const std::string& path);
int describe_parquet(const std::string& path);

}  // namespace batchbloom::cli
