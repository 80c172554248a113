// batchbloom build: read keys, size a filter for them, insert them and save the filter.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "adapters/blocked_layout.hpp"
#include "adapters/filter_adapter.hpp"
#include "commands/commands.hpp"
#include "common/common_options.hpp"
#include "common/distinct.hpp"
#include "common/progress.hpp"
#include "common/stdout_output.hpp"
#include "common/text_format.hpp"

namespace batchbloom::cli {

namespace {

// The keys read, kept until the filter can be sized: their hashes for the types addressed by
// one hash per key, the keys themselves for the others.
struct HeldKeys {
    explicit HeldKeys(std::optional<Hashing> h) : hashing(h) {}

    std::optional<Hashing> hashing;
    std::vector<std::uint64_t> hashes;
    std::vector<std::uint64_t> ints;
    std::string bytes;               // string keys back to back
    std::vector<std::size_t> ends;   // end of each string key in `bytes`
    KeyKinds kinds = KeyKinds::none();  // what the hashes were computed from

    void add(const TypedKeys& k) {
        if (hashing) {
            if (!k.ints.empty()) kinds = kinds | KeyKinds::only_integers();
            if (!k.strings.empty()) kinds = kinds | KeyKinds::only_bytes();
            for (const auto v : k.ints) hashes.push_back(hash_key(*hashing, v));
            for (const auto s : k.strings) hashes.push_back(hash_key(*hashing, s));
            return;
        }
        ints.insert(ints.end(), k.ints.begin(), k.ints.end());
        for (const auto s : k.strings) {
            bytes += s;
            ends.push_back(bytes.size());
        }
    }
    std::uint64_t distinct() {
        if (hashing) {
            make_distinct(hashes);
            return hashes.size();
        }
        std::vector<std::uint64_t> h;  // any fixed hashing counts distinct keys
        for (const auto v : ints) h.push_back(hash_key(Hashing{}, v));
        for (const auto& s : strings()) h.push_back(hash_key(Hashing{}, s));
        make_distinct(h);
        return h.size();
    }
    std::vector<std::string_view> strings() const {
        std::vector<std::string_view> out(ends.size());
        for (std::size_t i = 0, begin = 0; i < ends.size(); begin = ends[i++])
            out[i] = std::string_view(bytes).substr(begin, ends[i] - begin);
        return out;
    }
    void insert_into(FilterFile& f) {
        if (hashing) {
            f.insert_hashes(hashes);
            f.add_key_kinds(kinds);
            return;
        }
        TypedKeys k;
        k.ints = std::move(ints);
        k.strings = strings();
        f.insert(k);
    }
};

// `distinct`: counted exactly, or estimated from the fill. A filter that passes nearly every
// probe is too full to estimate from (a one-block filter of 100,000 keys estimated 23,657): then
// only the keys read bound the count.
void warn_overfilled(const FilterFile& f, std::uint64_t n, double distinct, bool exact, std::uint64_t keys_read) {
    const bool saturated = !exact && !(f.current_fpr() < 0.99 && std::isfinite(distinct));
    const std::string how_many = saturated ? "more distinct keys than it can count (" + std::to_string(keys_read) +
                                                 " keys read)"
                                           : (exact ? "" : "about ") + format_fixed(distinct, 0) + " distinct keys";
    std::fprintf(stderr,
                 "batchbloom: warning: %s for a filter sized for --n %llu: its FPR at this fill is "
                 "%s, not the %s predicted for %llu keys; rebuild with a larger --n (or without --n)\n",
                 how_many.c_str(), static_cast<unsigned long long>(n), format_fpr(f.current_fpr()).c_str(),
                 format_fpr(f.predicted_fpr(n)).c_str(), static_cast<unsigned long long>(n));
}

CommandSpec build_spec() {
    return {
        .name = "build",
        .synopsis = "(--fpr P | --bits-per-key B) [--n N] [--format F] [--shape S] [--hash H] [--seed S] [--u64] "
                    "[--key-type T] [--zstd L] [--quiet] --out FILE [INPUT]",
        .summary = "Build a filter from the keys in INPUT and save it to FILE.",
        .options = {fpr_option(), bits_per_key_option(),
                    {"n", "N", "size the filter for N keys and stream the input (default: the number of distinct keys read)"},
                    format_option(), shape_option(), hash_option(), hash_seed_option(), u64_option(), key_type_option(),
                    {"out", "FILE", "where to write the filter (replaced atomically)"},
                    {"zstd", "LEVEL", "compress the file with zstd at LEVEL 1..22 (blocked filters; loads detect it)"},
                    region_bits_option(), growth_option(), tightening_option(), quiet_option()},
        .positionals = {{"INPUT", "key file, or - for stdin (default: stdin)", false}},
        .notes = "Text input holds one key per line; a trailing '\\r' is ignored. --key-type says what a line\n"
                 "is: int (a decimal integer in [-2^63, 2^64), negative values as two's complement; any\n"
                 "other line is an error), string (its bytes: the default, except for Spark filters), or\n"
                 "auto: a decimal line is an integer, any other line (including an empty one) a byte\n"
                 "string (the default for --format spark and spark-v1, whose file cannot record which).\n"
                 "The file records which kinds went in; query, insert and erase type lines by it.\n"
                 "With --n the input streams through (memory ~ the filter); without it build keeps 8 bytes\n"
                 "per key (the keys themselves for classic and Spark filters) to count the distinct keys.\n"
                 "If more distinct keys than --n arrive, build warns and prints the FPR at the real fill.\n"
                 "--format counting (4-bit counters: keys can be erased), deletable (a collision bitmap:\n"
                 "keys in collision-free regions can be erased) or scalable (adds stages as it fills;\n"
                 "--n is the first stage's capacity, --fpr the whole filter's bound at any size, in any\n"
                 "order of the keys) insert each distinct key once (8 bytes per key held);\n"
                 "see 'insert', 'erase'. --format classic builds a classic Bloom filter (k bits anywhere in\n"
                 "the array); spark and spark-v1 the same in Apache Spark's BloomFilter form (version 2 / 1,\n"
                 "sized like Spark's BloomFilter.create(n, fpr); --seed for version 2), which the other\n"
                 "commands also read. A progress line goes to stderr when it is a terminal (--quiet: none).",
    };
}

int run_build(const ParsedArgs& args) {
    const FilterType& type = build_filter_type(args);
    type.check_options(args, type.name);
    const auto out = args.value("out");
    if (!out) throw UsageError("build needs --out FILE");
    const auto n_option = args.u64("n");
    if (n_option && *n_option == 0) throw UsageError("--n must be at least 1");
    (void)read_sizing(args);  // a bad --fpr is a usage error before any input is read
    const KeyType key_type = read_key_type(args).value_or(type.default_key_type);

    KeyReader reader(args.positional(0).value_or("-"), read_key_format(args));
    Progress progress(reader, args);
    KeyBatch batch;
    TypedKeys keys;
    std::unique_ptr<FilterFile> filter;
    std::uint64_t n = 0;
    std::optional<std::uint64_t> distinct;  // counted exactly, when build held the keys
    if (n_option && !type.distinct_keys) {
        n = *n_option;
        filter = type.create(args, n);
        filter->set_threads(1);
        while (reader.next(batch, key_batch_size)) {
            split_keys(batch, key_type, reader, keys);
            filter->insert(keys);
            progress.update();
        }
    } else {
        HeldKeys held(type.key_hashing != nullptr ? std::optional(type.key_hashing(args)) : std::nullopt);
        while (reader.next(batch, key_batch_size)) {
            split_keys(batch, key_type, reader, keys);
            held.add(keys);
            progress.update();
        }
        distinct = held.distinct();
        n = n_option.value_or(*distinct);
        if (n == 0) throw std::runtime_error("no keys in input " + reader.name() + " (give --n to build an empty filter)");
        filter = type.create(args, n);
        held.insert_into(*filter);
    }
    progress.finish();
    write_output(*out, [&](std::ostream& o) { filter->write(o); });

    if (n_option && !filter->grows()) {
        if (distinct && *distinct > n)
            warn_overfilled(*filter, n, double(*distinct), true, reader.keys_read());
        else if (!distinct && reader.keys_read() > n && filter->estimated_keys() > 1.02 * double(n))
            // The fill saturates the estimate; there are never more distinct keys than keys read.
            warn_overfilled(*filter, n, std::min(filter->estimated_keys(), double(reader.keys_read())), false,
                            reader.keys_read());
    }
    if (!args.has("quiet"))
        std::fprintf(stderr, "batchbloom: wrote %s (%s filter): %llu keys read, n=%llu%s, %s, predicted FPR %s\n",
                     std::string(*out).c_str(), filter->type_name().c_str(),
                     static_cast<unsigned long long>(reader.keys_read()), static_cast<unsigned long long>(n),
                     n_option ? "" : " distinct", filter->layout().c_str(),
                     format_number(filter->predicted_fpr(n), 4).c_str());
    return 0;
}

}  // namespace

const Command build_command = {"build", "build a filter from a key file and save it", build_spec, run_build};

}  // namespace batchbloom::cli
