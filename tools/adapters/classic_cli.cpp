#include "adapters/classic_cli.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <ostream>
#include <limits>
#include <stdexcept>
#include <vector>

#include <batchbloom/classic.hpp>

#include "common/common_options.hpp"
#include "common/distinct.hpp"
#include "common/key_input.hpp"
#include "common/stdout_output.hpp"
#include "common/text_format.hpp"

namespace batchbloom::cli {

namespace {

constexpr std::size_t batch_keys = std::size_t(1) << 16;

enum class Output { blocked, classic, spark_v2, spark_v1 };

Output read_output(const ParsedArgs& args) {
    const auto name = args.value("format");
    if (!name || *name == "blocked") return Output::blocked;
    if (*name == "classic") return Output::classic;
    if (*name == "spark") return Output::spark_v2;
    if (*name == "spark-v1") return Output::spark_v1;
    throw UsageError("--format expects blocked, counting, deletable, scalable, classic, spark or spark-v1, got '" +
                     std::string(*name) + "'");
}

// Integer lines are integer keys (Spark: putLong), other lines byte strings (putBinary /
// putString of UTF-8 text), as `build` reads them for blocked filters.
template <class IntFn, class StrFn>
void for_each_key(const KeyBatch& batch, IntFn&& on_int, StrFn&& on_str) {
    if (batch.format == KeyFormat::u64) {
        for (std::size_t i = 0; i < batch.values.size(); ++i) on_int(i, batch.values[i]);
        return;
    }
    for (std::size_t i = 0; i < batch.lines.size(); ++i) {
        if (const auto v = parse_integer_key(batch.lines[i])) {
            on_int(i, *v);
        } else {
            on_str(i, batch.lines[i]);
        }
    }
}

ClassicHashing read_classic_hashing(const ParsedArgs& args, Output out) {
    const std::uint64_t seed = args.u64("seed", 0);
    if (out == Output::classic) {
        Hashing h = read_hashing(args);
        return {ClassicScheme::double_hashing, h.kind, h.seed};
    }
    if (args.has("hash")) throw UsageError("--hash does not apply to Spark filters (they use Spark's Murmur3)");
    if (out == Output::spark_v1 && seed != 0) throw UsageError("spark-v1 filters have no seed");
    if (seed > std::numeric_limits<std::uint32_t>::max()) throw UsageError("--seed must be below 2^32 for Spark filters");
    return {out == Output::spark_v1 ? ClassicScheme::spark_v1 : ClassicScheme::spark_v2, HashKind::xxh3, seed};
}


}  // namespace

OptionSpec filter_format_option() {
    return {"format", "F", "filter type: blocked (default), counting, deletable, scalable, classic, spark, spark-v1"};
}

bool classic_format_requested(const ParsedArgs& args) { return read_output(args) != Output::blocked; }

int build_classic(const ParsedArgs& args) {
    const Output out_kind = read_output(args);
    const auto out = args.value("out");
    if (!out) throw UsageError("build needs --out FILE");
    if (args.has("shape")) throw UsageError("--shape applies to blocked filters only");
    const ClassicHashing hashing = read_classic_hashing(args, out_kind);
    const bool spark = out_kind != Output::classic;
    const Sizing sizing = read_sizing(args);

    // Keys are kept (not just hashes) because the scheme hashes them itself.
    std::vector<std::uint64_t> ints;
    std::vector<std::string> strings;
    KeyReader reader(args.positional(0).value_or("-"), args.has("u64") ? KeyFormat::u64 : KeyFormat::text);
    KeyBatch batch;
    while (reader.next(batch, batch_keys))
        for_each_key(batch, [&](std::size_t, std::uint64_t v) { ints.push_back(v); },
                     [&](std::size_t, std::string_view s) { strings.emplace_back(s); });

    std::uint64_t n = args.u64("n", 0);
    if (args.has("n") && n == 0) throw UsageError("--n must be at least 1");
    if (n == 0) {
        std::vector<std::uint64_t> h;
        for (const auto v : ints) h.push_back(hash_key(Hashing{}, v));
        for (const auto& s : strings) h.push_back(hash_key(Hashing{}, std::string_view(s)));
        n = count_distinct(h);
        if (n == 0) throw std::runtime_error("no keys in input " + reader.name() + " (give --n to build an empty filter)");
    }

    ClassicParams params;
    if (sizing.kind == Sizing::Kind::fpr) {
        params = spark ? ClassicParams::spark(n, sizing.value) : ClassicParams::for_fpr(n, sizing.value);
    } else {
        params = ClassicParams::for_bits_per_key(n, sizing.value);
        if (spark) params.bits = (params.bits + 63) / 64 * 64;
    }
    ClassicFilter filter(params, hashing);
    filter.insert(ints);
    const std::vector<std::string_view> views(strings.begin(), strings.end());
    filter.insert(views);

    const std::filesystem::path path{std::string(*out)};
    write_output(path.string(), [&](std::ostream& o) { spark ? filter.write_spark(o) : filter.save(o); });
    std::fprintf(stderr, "batchbloom: wrote %s (%s): %llu keys read, n=%llu, %llu bits, k=%u, predicted FPR %s\n",
                 path.c_str(), std::string(to_string(hashing.scheme)).c_str(),
                 static_cast<unsigned long long>(reader.keys_read()), static_cast<unsigned long long>(n),
                 static_cast<unsigned long long>(params.bits), params.k,
                 format_number(filter.predicted_fpr(n), 4).c_str());
    return 0;
}

int query_classic(const ParsedArgs& args) {
    const ClassicFilter filter = load_classic_filter_file(std::filesystem::path(std::string(*args.positional(0))));
    const bool count_only = args.has("count");
    KeyReader reader(args.positional(1).value_or("-"), args.has("u64") ? KeyFormat::u64 : KeyFormat::text);
    KeyBatch batch;
    std::vector<std::uint64_t> ints;
    std::vector<std::string_view> strs;
    std::vector<std::size_t> int_at, str_at;
    std::vector<std::uint8_t> hits, int_hits, str_hits;
    std::uint64_t positives = 0;
    std::string out;
    while (reader.next(batch, batch_keys)) {
        ints.clear(), strs.clear(), int_at.clear(), str_at.clear();
        for_each_key(batch, [&](std::size_t i, std::uint64_t v) { ints.push_back(v), int_at.push_back(i); },
                     [&](std::size_t i, std::string_view s) { strs.push_back(s), str_at.push_back(i); });
        int_hits.resize(ints.size());
        str_hits.resize(strs.size());
        filter.contains(ints, int_hits);
        filter.contains(strs, str_hits);
        hits.assign(batch.size(), 0);
        for (std::size_t j = 0; j < ints.size(); ++j) hits[int_at[j]] = int_hits[j];
        for (std::size_t j = 0; j < strs.size(); ++j) hits[str_at[j]] = str_hits[j];
        for (std::size_t i = 0; i < hits.size(); ++i) {
            if (hits[i] == 0) continue;
            ++positives;
            if (!count_only) append_key_line(batch, i, out);
        }
        write_stdout(out);
        out.clear();
    }
    if (count_only) write_stdout(std::to_string(positives) + "\n");
    finish_stdout();
    return 0;
}

int info_classic(const std::string& path) {
    const ClassicFilter f = load_classic_filter_file(std::filesystem::path(path));
    const auto& p = f.params();
    const auto& h = f.hashing();
    const double fill = f.fill_ratio();
    // Swamidass & Baldi: n ~ -(m / k) ln(1 - fill).
    const double est = fill < 1.0 ? -double(p.bits) / p.k * std::log1p(-fill) : INFINITY;
    std::printf("file:                   %s\n", path.c_str());
    std::printf("type:                   classic Bloom filter\n");
    std::printf("scheme:                 %s\n", std::string(to_string(h.scheme)).c_str());
    std::printf("bits:                   %llu\n", static_cast<unsigned long long>(p.bits));
    std::printf("bytes:                  %s\n", format_bytes(p.bytes()).c_str());
    std::printf("k:                      %u\n", p.k);
    if (h.scheme == ClassicScheme::double_hashing)
        std::printf("hash:                   %s\n", std::string(to_string(h.kind)).c_str());
    std::printf("seed:                   %llu\n", static_cast<unsigned long long>(h.seed));
    std::printf("fill ratio:             %s\n", format_fixed(fill, 6).c_str());
    std::printf("estimated cardinality:  %s\n", format_fixed(est, 0).c_str());
    std::printf("FPR at current fill:    %s\n", format_fpr(std::pow(fill, double(p.k))).c_str());
    return 0;
}

}  // namespace batchbloom::cli
