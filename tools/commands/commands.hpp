#pragma once
// The subcommands. Each cmd_<name>.cpp defines the command's spec (options and help text) and
// its run function; main.cpp parses the command line against the spec and calls run. A run
// function returns the exit status, reports failures by throwing (std::exception, or
// UsageError for a bad command line), and writes its results to stdout.
#include <string>
#include <string_view>

#include "common/args.hpp"

namespace batchbloom::cli {

struct Command {
    std::string_view name;
    std::string_view summary;
    CommandSpec (*spec)();
    int (*run)(const ParsedArgs& args);
};

CommandSpec size_spec();
int run_size(const ParsedArgs& args);

CommandSpec build_spec();
int run_build(const ParsedArgs& args);

CommandSpec query_spec();
int run_query(const ParsedArgs& args);

CommandSpec info_spec();
int run_info(const ParsedArgs& args);
/// For info: whether PATH starts like a Parquet file, and its description (format, then the
/// per-column-chunk listing of `parquet FILE`).
bool is_parquet_file(const std::string& path);
int describe_parquet(const std::string& path);

CommandSpec bench_spec();
int run_bench(const ParsedArgs& args);

CommandSpec union_spec();
int run_union(const ParsedArgs& args);

CommandSpec intersect_spec();
int run_intersect(const ParsedArgs& args);

CommandSpec fold_spec();
int run_fold(const ParsedArgs& args);

CommandSpec insert_spec();
int run_insert(const ParsedArgs& args);

CommandSpec erase_spec();
int run_erase(const ParsedArgs& args);

CommandSpec join_spec();
int run_join(const ParsedArgs& args);

CommandSpec parquet_spec();
int run_parquet(const ParsedArgs& args);

}  // namespace batchbloom::cli
