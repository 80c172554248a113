// batchbloom query: print the keys of INPUT that a saved filter may contain.
#include <filesystem>
#include <string>
#include <vector>

#include "adapters/filter_adapter.hpp"
#include "commands/commands.hpp"
#include "commands/key_batches.hpp"
#include "common/stdout_output.hpp"

namespace batchbloom::cli {

namespace {

constexpr std::size_t flush_bytes = std::size_t(1) << 20;

CommandSpec query_spec() {
    return {
        .name = "query",
        .synopsis = "FILE [INPUT] [--u64] [--key-type T] [--count] [--quiet]",
        .summary = "Print each key of INPUT that the filter in FILE may contain, one per line.",
        .options = {{"u64", "", "INPUT is raw little-endian uint64 values (printed in decimal)"}, key_type_option(),
                    {"count", "", "print only the number of keys that may be present"}, quiet_option()},
        .positionals = {{"FILE", "a filter file of any type (batchbloom's, or Spark's serialized form)", true},
                        {"INPUT", "key file, or - for stdin (default: stdin); one key per line", false}},
        .notes = "Without --key-type the filter's record of its key kinds decides how a line is read: a\n"
                 "filter of integer keys reads a decimal line as an integer, one of string keys every line\n"
                 "as a string, one of both kinds tries a decimal line as either. Files that do not record\n"
                 "their key kinds (Spark's form) need --key-type for decimal lines: without it a decimal\n"
                 "line is an error, as reading it the wrong way would miss the keys. FILE may be a pipe,\n"
                 "a FIFO or /dev/stdin (it is read once).",
    };
}

int run_query(const ParsedArgs& args) {
    const std::string path(*args.positional(0));
    const auto filter = open_filter_file(path);
    KeyTyping typing(*filter, path, args, KeyUse::probe);
    const bool count_only = args.has("count");

    std::vector<std::uint8_t> hits;
    std::string out;
    std::uint64_t positives = 0;
    for_each_key_batch(args, typing, [&](const KeyBatch& batch, const TypedKeys& keys) {
        hits.assign(keys.size, 0);
        filter->contains(keys, hits);
        for (std::size_t i = 0; i < hits.size(); ++i) {
            if (hits[i] == 0) continue;
            ++positives;
            if (!count_only) append_key_line(batch, i, out);
        }
        if (out.size() >= flush_bytes) {
            write_stdout(out);
            out.clear();
        }
    });
    if (count_only) out = std::to_string(positives) + "\n";
    write_stdout(out);
    finish_stdout();
    return 0;
}

}  // namespace

const Command query_command = {"query", "print the keys of a key file that a saved filter may contain",
                               query_spec, run_query};

}  // namespace batchbloom::cli
