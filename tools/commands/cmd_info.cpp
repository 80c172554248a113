// batchbloom info: describe a saved filter and estimate what it holds.
#include <filesystem>
#include <string>
#include <system_error>

#include "adapters/filter_adapter.hpp"
#include "commands/commands.hpp"

namespace batchbloom::cli {

namespace {

CommandSpec info_spec() {
    return {
        .name = "info",
        .synopsis = "FILE",
        .summary = "Describe a saved filter: layout, hashing, fill, estimated cardinality and current FPR.",
        .options = {},
        .positionals = {{"FILE",
                         "a filter file of any type (batchbloom's, Spark's serialized form; a pipe or FIFO too, read "
                         "once), or a Parquet file (a regular file)",
                         true}},
        .notes = {},
    };
}

int run_info(const ParsedArgs& args) {
    const std::string path(*args.positional(0));
    // Only a regular file can be Parquet (its footer is read first); anything else (a pipe, a
    // FIFO, /dev/stdin) is read once, by the filter loader, which tells its kind itself.
    std::error_code ec;
    if (std::filesystem::is_regular_file(path, ec) && is_parquet_file(path)) return describe_parquet(path);
    open_filter_file(path)->describe(path);
    return 0;
}

}  // namespace

const Command info_command = {"info", "describe a saved filter", info_spec, run_info};

}  // namespace batchbloom::cli
