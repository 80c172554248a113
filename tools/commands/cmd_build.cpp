// batchbloom build: read keys, size a filter for them, insert them and save the filter.
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <vector>

#include <batchbloom/filter.hpp>

#include "adapters/classic_cli.hpp"
#include "commands/commands.hpp"
#include "adapters/family_cli.hpp"
#include "common/common_options.hpp"
#include "common/distinct.hpp"
#include "common/key_input.hpp"
#include "common/text_format.hpp"
#include "common/stdout_output.hpp"

namespace batchbloom::cli {

namespace {

constexpr std::size_t batch_keys = std::size_t(1) << 16;

}  // namespace

CommandSpec build_spec() {
    return {
        .name = "build",
        .synopsis = "(--fpr P | --bits-per-key B) [--n N] [--shape S] [--hash H] [--seed S] [--u64] [--zstd L] --out FILE [INPUT]",
        .summary = "Build a filter from the keys in INPUT and save it to FILE.",
        .options = {fpr_option(), bits_per_key_option(),
                    {"n", "N", "size the filter for N keys (default: the number of distinct keys read)"},
                    shape_option(), hash_option(), hash_seed_option(),
                    {"u64", "", "INPUT is raw little-endian uint64 values instead of text lines"},
                    {"out", "FILE", "where to write the filter (replaced atomically)"},
                    {"zstd", "LEVEL", "compress the file with zstd at LEVEL 1..22 (plain filters; loads detect it)"},
                    filter_format_option(),
                    region_bits_option(), growth_option(), tightening_option()},
        .positionals = {{"INPUT", "key file, or - for stdin (default: stdin)", false}},
        .notes = "Text input holds one key per line. A line that is entirely a decimal integer in\n"
                 "[-2^63, 2^64) is an integer key (negative values as two's complement); any other\n"
                 "line, including an empty one, is a byte-string key. A trailing '\\r' is ignored.\n"
                 "--format counting (4-bit counters: keys can be erased), deletable (a collision bitmap:\n"
                 "keys in collision-free regions can be erased) or scalable (adds stages as it fills;\n"
                 "--n is the first stage's capacity) insert each distinct key once; see 'insert', 'erase'.\n"
                 "--format classic builds a classic Bloom filter (k bits anywhere in the array); spark and\n"
                 "spark-v1 the same in Apache Spark's BloomFilter form (version 2 / 1, sized like Spark's\n"
                 "BloomFilter.create(n, fpr); --seed for version 2), which 'query' and 'info' also read.",
    };
}

int run_build(const ParsedArgs& args) {
    if (args.has("zstd") && (family_format_requested(args) || classic_format_requested(args)))
        throw UsageError("--zstd compresses plain (blocked) filters only");
    if (family_format_requested(args)) return build_family(args);
    if (classic_format_requested(args)) return build_classic(args);
    const Sizing sizing = read_sizing(args);
    const Shape shape = read_shape(args);
    const Hashing hashing = read_hashing(args);
    const auto n_option = args.u64("n");
    if (n_option && *n_option == 0) throw UsageError("--n must be at least 1");
    const auto out = args.value("out");
    if (!out) throw UsageError("build needs --out FILE");
    const KeyFormat format = args.has("u64") ? KeyFormat::u64 : KeyFormat::text;
    SaveOptions save_options;
    if (const auto level = args.u64("zstd")) {
        if (*level < 1 || *level > 22) throw UsageError("--zstd expects a level from 1 to 22");
        save_options = {Compression::zstd, static_cast<int>(*level)};
    }

    KeyReader reader(args.positional(0).value_or("-"), format);
    std::vector<std::uint64_t> hashes;
    KeyBatch batch;
    KeyKinds kinds = KeyKinds::none();
    while (reader.next(batch, batch_keys)) kinds = kinds | append_hashes(batch, hashing, hashes);

    std::uint64_t n = 0;
    if (n_option) {
        n = *n_option;
    } else {
        n = count_distinct(hashes);
        if (n == 0) throw std::runtime_error("no keys in input " + reader.name() + " (give --n to build an empty filter)");
    }

    const Params params = sizing.params(n, shape);
    Filter filter(params, hashing);
    filter.insert_hashes(hashes);
    filter.add_key_kinds(kinds);
    write_output(*out, [&](std::ostream& o) { filter.save(o, save_options); });

    std::fprintf(stderr, "batchbloom: wrote %s: %llu keys read, n=%llu%s, %llu blocks, %llu bytes, k=%u, predicted FPR %s\n",
                 std::string(*out).c_str(), static_cast<unsigned long long>(reader.keys_read()),
                 static_cast<unsigned long long>(n), n_option ? "" : " distinct",
                 static_cast<unsigned long long>(params.blocks), static_cast<unsigned long long>(params.bytes()),
                 params.k, format_number(predicted_fpr(params, n), 4).c_str());
    return 0;
}

}  // namespace batchbloom::cli
