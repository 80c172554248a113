// batchbloom join: the Bloom-join pre-filter on two key files. Builds a JoinFilter over the
// build file's keys and prints the 0-based indices of the probe rows that survive it.
#include <cstdio>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <batchbloom/backend.hpp>
#include <batchbloom/join.hpp>

#include "commands/commands.hpp"
#include "common/common_options.hpp"
#include "common/key_input.hpp"
#include "common/stdout_output.hpp"
#include "common/text_format.hpp"

namespace batchbloom::cli {

namespace {

constexpr std::size_t flush_bytes = std::size_t(1) << 20;

/// A whole key column: its integer values while every key read is an integer, and the keys as
/// written (text mode) for the case that some key is not.
struct Column {
    std::string name;  // of the input, for messages
    bool integers = true;
    std::size_t first_string = 0;  // 0-based line of the first non-integer key, when !integers
    std::vector<std::uint64_t> values;
    std::string bytes;               // text keys back to back
    std::vector<std::size_t> ends;  // end offset of each key in `bytes`

    std::vector<std::string_view> strings() const {
        std::vector<std::string_view> out(ends.size());
        for (std::size_t i = 0, begin = 0; i < ends.size(); begin = ends[i++])
            out[i] = std::string_view(bytes).substr(begin, ends[i] - begin);
        return out;
    }
};

Column read_column(std::string_view source, KeyFormat format) {
    KeyReader reader(source, format);
    KeyBatch batch;
    Column c;
    c.name = reader.name();
    while (reader.next(batch, key_batch_size)) {
        if (format == KeyFormat::u64) {
            c.values.insert(c.values.end(), batch.values.begin(), batch.values.end());
            continue;
        }
        for (std::string_view line : batch.lines) {
            c.bytes += line;
            c.ends.push_back(c.bytes.size());
            const auto v = c.integers ? parse_integer_key(line) : std::nullopt;
            if (v) {
                c.values.push_back(*v);
            } else if (c.integers) {
                c.integers = false;
                c.first_string = c.ends.size() - 1;
            }
        }
    }
    return c;
}

Backend read_backend(const ParsedArgs& args) {
    const std::string_view name = args.value("backend").value_or("auto");
    try {
        return resolve_backend(parse_backend(name));
    } catch (const Error& e) {
        throw UsageError("--backend " + std::string(name) + ": " + e.what());
    }
}

CommandSpec join_spec() {
    return {
        .name = "join",
        .synopsis = "--build FILE --probe FILE [--fpr P | --bits-per-key B] [--shape S] [--hash H] [--seed S] "
                    "[--backend NAME] [--threads T] [--u64] [--key-type T] [--count]",
        .summary = "Print the 0-based indices of the probe rows whose keys may be among the build keys.",
        .options = {{"build", "FILE", "build-side keys (the filter is sized for their distinct count)"},
                    {"probe", "FILE", "probe-side keys, one row per key"},
                    fpr_option(" (default 0.01)"), bits_per_key_option(), shape_option(), hash_option(),
                    hash_seed_option(),
                    {"backend", "NAME", "engine: auto (default), scalar, avx2, avx512 or cuda"},
                    {"threads", "T", "threads for the probe (default 0: every core)"},
                    {"u64", "", "both files are raw little-endian uint64 values instead of text lines"},
                    key_type_option(),
                    {"count", "", "print only the number of surviving rows"}},
        .positionals = {},
        .notes = "Keys are read one per line ('-' reads stdin for one of the files). When every line of\n"
                 "both files is a decimal integer the join is on integers, otherwise on the lines as byte\n"
                 "strings; --key-type int or string says which instead (auto: the default). Every row whose key is a build key survives;\n"
                 "other rows survive with about the filter's false-positive rate. A summary (rows,\n"
                 "survivors, predicted FPR) goes to stderr.",
    };
}

int run_join(const ParsedArgs& args) {
    const auto build_path = args.value("build");
    const auto probe_path = args.value("probe");
    if (!build_path) throw UsageError("join needs --build FILE");
    if (!probe_path) throw UsageError("join needs --probe FILE");
    if (*build_path == "-" && *probe_path == "-") throw UsageError("only one of --build and --probe can be stdin");
    const Sizing sizing = read_sizing(args, 0.01);
    JoinFilterOptions options;
    (sizing.kind == Sizing::Kind::fpr ? options.fpr : options.bits_per_key) = sizing.value;
    options.shape = read_shape(args);
    options.hashing = read_hashing(args);
    options.backend = read_backend(args);
    options.threads = read_threads(args);
    const KeyFormat format = args.has("u64") ? KeyFormat::u64 : KeyFormat::text;

    const auto key_type = read_key_type(args);
    const Column build = read_column(*build_path, format);
    const Column probe = read_column(*probe_path, format);
    if (key_type == KeyType::integer)
        for (const Column* c : {&build, &probe})
            if (!c->integers)
                throw std::runtime_error("line " + std::to_string(c->first_string + 1) + " of " + c->name +
                                         " is not a decimal integer in [-2^63, 2^64): " +
                                         in_quotes(c->strings()[c->first_string]) + " (--key-type int)");
    const bool integers = key_type != KeyType::string && build.integers && probe.integers;
    std::vector<std::uint64_t> survivors;
    std::uint64_t sized_for = 0;
    double predicted = 0;
    auto run = [&](const auto& build_keys, const auto& probe_keys) {
        const JoinFilter filter{std::span(build_keys), options};
        survivors = filter.select(std::span(probe_keys));
        sized_for = filter.sized_for();
        predicted = filter.predicted_fpr();
    };
    if (integers)
        run(build.values, probe.values);
    else
        run(build.strings(), probe.strings());

    const std::size_t probe_rows = integers ? probe.values.size() : probe.ends.size();
    const std::size_t build_rows = integers ? build.values.size() : build.ends.size();
    // An empty build side is sized as one key (JoinFilter) but holds none: no FPR to predict.
    std::fprintf(stderr, "batchbloom: join on %s keys: %llu build keys (%llu distinct), %llu probe rows, %llu survive "
                         "(%s%%), predicted FPR %s\n",
                 integers ? "integer" : "string", static_cast<unsigned long long>(build_rows),
                 static_cast<unsigned long long>(build_rows == 0 ? 0 : sized_for),
                 static_cast<unsigned long long>(probe_rows), static_cast<unsigned long long>(survivors.size()),
                 format_number(probe_rows == 0 ? 0.0 : 100.0 * double(survivors.size()) / double(probe_rows), 4).c_str(),
                 format_number(build_rows == 0 ? 0.0 : predicted, 4).c_str());

    std::string out;
    if (args.has("count")) {
        out = std::to_string(survivors.size()) + "\n";
    } else {
        for (std::uint64_t row : survivors) {
            out += std::to_string(row);
            out += '\n';
            if (out.size() >= flush_bytes) {
                write_stdout(out);
                out.clear();
            }
        }
    }
    write_stdout(out);
    finish_stdout();
    return 0;
}

}  // namespace

const Command join_command = {"join", "print the probe rows that survive a Bloom-join pre-filter", join_spec, run_join};

}  // namespace batchbloom::cli
