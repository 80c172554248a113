// batchbloom query: print the keys of INPUT that a saved filter may contain.
#include <filesystem>
#include <string>
#include <vector>

#include <batchbloom/classic.hpp>
#include <batchbloom/filter.hpp>

#include "adapters/classic_cli.hpp"
#include "commands/commands.hpp"
#include "adapters/family_cli.hpp"
#include "common/key_input.hpp"
#include "common/stdout_output.hpp"

namespace batchbloom::cli {

namespace {

constexpr std::size_t batch_keys = std::size_t(1) << 16;
constexpr std::size_t flush_bytes = std::size_t(1) << 20;


}  // namespace

CommandSpec query_spec() {
    return {
        .name = "query",
        .synopsis = "FILE [INPUT] [--u64] [--count]",
        .summary = "Print each key of INPUT that the filter in FILE may contain, one per line.",
        .options = {{"u64", "", "INPUT is raw little-endian uint64 values (printed in decimal)"},
                    {"count", "", "print only the number of keys that may be present"}},
        .positionals = {{"FILE", "a filter written by 'batchbloom build'", true},
                        {"INPUT", "key file, or - for stdin (default: stdin); read like 'build' reads it", false}},
        .notes = {},
    };
}

int run_query(const ParsedArgs& args) {
    if (is_classic_filter_file(std::filesystem::path(std::string(*args.positional(0))))) return query_classic(args);
    const FilterProbe filter = FilterProbe::load(std::filesystem::path(std::string(*args.positional(0))));
    const KeyFormat format = args.has("u64") ? KeyFormat::u64 : KeyFormat::text;
    const bool count_only = args.has("count");

    KeyReader reader(args.positional(1).value_or("-"), format);
    KeyBatch batch;
    std::vector<std::uint64_t> hashes;
    std::vector<std::uint8_t> hits;
    std::string out;
    std::uint64_t positives = 0;
    while (reader.next(batch, batch_keys)) {
        hashes.clear();
        append_hashes(batch, filter.hashing(), hashes);
        hits.resize(hashes.size());
        filter.contains_hashes(hashes, hits);
        for (std::size_t i = 0; i < hits.size(); ++i) {
            if (hits[i] == 0) continue;
            ++positives;
            if (!count_only) append_key_line(batch, i, out);
        }
        if (out.size() >= flush_bytes) {
            write_stdout(out);
            out.clear();
        }
    }
    if (count_only) out = std::to_string(positives) + "\n";
    write_stdout(out);
    finish_stdout();
    return 0;
}

}  // namespace batchbloom::cli
