// The classic Bloom filter (ClassicFilter) in the CLI, in both of its file forms: batchbloom's
// (`build --format classic`) and Apache Spark's serialized BloomFilter (`--format spark` for
// version 2, `spark-v1`), which Spark's readFrom and batchbloom's commands read alike.
#include <cmath>
#include <cstdio>
#include <limits>
#include <ostream>

#include <batchbloom/classic.hpp>
#include <batchbloom/file_kind.hpp>

#include "adapters/library_file.hpp"
#include "common/common_options.hpp"
#include "common/text_format.hpp"

namespace batchbloom::cli {

namespace {

enum class Form { classic, spark_v2, spark_v1 };

std::string form_name(Form form) {
    return form == Form::classic ? "classic" : form == Form::spark_v2 ? "spark" : "spark-v1";
}

class ClassicFile final : public LibraryFile<ClassicFilter> {
public:
    ClassicFile(ClassicFilter f, Form form) : LibraryFile(std::move(f)), form_(form) {}

    std::string type_name() const override { return form_name(form_); }
    // Inserts: integers as Spark's putLong, byte strings as its putBinary / putString of UTF-8 text.
    std::optional<Hashing> key_hashing() const override { return std::nullopt; }  // the scheme hashes keys
    void write(std::ostream& out) const override {
        if (form_ == Form::classic)
            f_.save(out);
        else
            f_.write_spark(out);
    }

    void describe(const std::string& path) const override {
        const auto& p = f_.params();
        const auto& h = f_.hashing();
        std::printf("file:                   %s\n", path.c_str());
        std::printf("type:                   classic Bloom filter\n");
        if (form_ != Form::classic)
            std::printf("format:                 Spark serialized BloomFilter, version %d (no checksum)\n",
                        form_ == Form::spark_v2 ? 2 : 1);
        std::printf("scheme:                 %s\n", std::string(to_string(h.scheme)).c_str());
        std::printf("bits:                   %llu\n", static_cast<unsigned long long>(p.bits));
        std::printf("bytes:                  %s\n", format_bytes(p.bytes()).c_str());
        std::printf("k:                      %u\n", p.k);
        if (h.scheme == ClassicScheme::double_hashing)
            std::printf("hash:                   %s\n", std::string(to_string(h.kind)).c_str());
        std::printf("seed:                   %llu\n", static_cast<unsigned long long>(h.seed));
        std::printf("fill ratio:             %s\n", format_fixed(f_.fill_ratio(), 6).c_str());
        std::printf("estimated cardinality:  %s\n", format_fixed(estimated_keys(), 0).c_str());
        std::printf("FPR at current fill:    %s\n", format_fpr(current_fpr()).c_str());
    }

    void combine(SetOp op, const FilterFile& other) override { combine_filters(op, other); }

    double current_fpr() const override { return std::pow(f_.fill_ratio(), double(f_.params().k)); }
    // Swamidass & Baldi: n ~ -(m / k) ln(1 - fill).
    double estimated_keys() const override {
        const double fill = f_.fill_ratio();
        return fill < 1.0 ? -double(f_.params().bits) / f_.params().k * std::log1p(-fill)
                          : std::numeric_limits<double>::infinity();
    }
    double predicted_fpr(std::uint64_t n) const override { return f_.predicted_fpr(n); }
    std::string layout() const override {
        return std::to_string(f_.params().bits) + " bits (" + std::string(to_string(f_.hashing().scheme)) +
               "), k=" + std::to_string(f_.params().k);
    }

private:
    Form form_;
};

Form form_named(std::string_view name) {
    return name == "spark" ? Form::spark_v2 : name == "spark-v1" ? Form::spark_v1 : Form::classic;
}

Form read_form(const ParsedArgs& args) { return form_named(args.value("format").value_or("classic")); }

void check_classic_options(const ParsedArgs& args, std::string_view type) {
    const Form form = form_named(type);
    if (args.has("shape")) throw UsageError("--shape applies to blocked filters only");
    if (args.has("zstd")) throw UsageError("--zstd compresses blocked filters only");
    if (args.has("region-bits")) throw UsageError("--region-bits needs --format deletable");
    if (args.has("growth") || args.has("tightening")) throw UsageError("--growth and --tightening need --format scalable");
    if (form == Form::classic) return;
    if (args.has("hash")) throw UsageError("--hash does not apply to Spark filters (they use Spark's Murmur3)");
    const std::uint64_t seed = args.u64("seed", 0);
    if (form == Form::spark_v1 && seed != 0) throw UsageError("spark-v1 filters have no seed");
    if (seed > std::numeric_limits<std::uint32_t>::max()) throw UsageError("--seed must be below 2^32 for Spark filters");
}

std::unique_ptr<FilterFile> create_classic(const ParsedArgs& args, std::uint64_t n) {
    const Form form = read_form(args);
    const Sizing sizing = read_sizing(args);
    ClassicHashing hashing;
    ClassicParams params;
    if (form == Form::classic) {
        const Hashing h = read_hashing(args);
        hashing = {ClassicScheme::double_hashing, h.kind, h.seed};
        params = sizing.kind == Sizing::Kind::fpr ? ClassicParams::for_fpr(n, sizing.value)
                                                  : ClassicParams::for_bits_per_key(n, sizing.value);
    } else {
        hashing = {form == Form::spark_v1 ? ClassicScheme::spark_v1 : ClassicScheme::spark_v2, HashKind::xxh3,
                   args.u64("seed", 0)};
        if (sizing.kind == Sizing::Kind::fpr) {
            params = ClassicParams::spark(n, sizing.value);  // as Spark's BloomFilter.create(n, fpp)
        } else {
            params = ClassicParams::for_bits_per_key(n, sizing.value);
            params.bits = (params.bits + 63) / 64 * 64;
        }
    }
    return std::make_unique<ClassicFile>(ClassicFilter(params, hashing), form);
}

constexpr FilterType classic_form_type(std::string_view name, KeyType key_type) {
    return {.name = name,
            .check_options = check_classic_options,
            .create = create_classic,
            .key_hashing = nullptr,
            .distinct_keys = false,
            .default_key_type = key_type,
            .print_size = nullptr};
}

}  // namespace

const FilterType classic_type = classic_form_type("classic", KeyType::string);
// Spark's format records no key kinds, so Spark filters keep the per-line rule both ways (as
// Spark itself types a column: a Long column's values are integers, putLong).
const FilterType spark_type = classic_form_type("spark", KeyType::per_line);
const FilterType spark_v1_type = classic_form_type("spark-v1", KeyType::per_line);

std::unique_ptr<FilterFile> open_classic(ClassicFilter f, bool spark_form) {
    const Form form = !spark_form                                       ? Form::classic
                      : f.hashing().scheme == ClassicScheme::spark_v1 ? Form::spark_v1
                                                                      : Form::spark_v2;
    return std::make_unique<ClassicFile>(std::move(f), form);
}

}  // namespace batchbloom::cli
