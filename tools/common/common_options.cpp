#include "common/common_options.hpp"

#include <batchbloom/bulk_settings.hpp>
#include <batchbloom/error.hpp>

#include "common/text_format.hpp"

namespace batchbloom::cli {

OptionSpec fpr_option(const std::string& default_note) {
    return {"fpr", "P", "target false-positive rate, 0 < P < 1" + default_note};
}

OptionSpec bits_per_key_option() { return {"bits-per-key", "B", "filter size in bits per key, B > 0 (instead of --fpr)"}; }

OptionSpec shape_option() { return {"shape", "S", "block shape: split256, word512 (default) or line512"}; }

OptionSpec hash_option() { return {"hash", "H", "hash function: xxh3 (default) or murmur3"}; }

OptionSpec hash_seed_option() { return {"seed", "S", "hash seed (default 0; below 2^32 for murmur3)"}; }

OptionSpec u64_option() { return {"u64", "", "INPUT is raw little-endian uint64 values instead of text lines"}; }

OptionSpec key_type_option() {
    return {"key-type", "T",
            "text lines are int (decimal integers), string (byte strings) or auto (a decimal line is an "
            "integer, any other a string); default: build string (auto for Spark filters), other "
            "commands the kinds the filter records (a file that records none, as Spark's form, needs it "
            "for decimal lines)"};
}

Params Sizing::params(std::uint64_t n, Shape shape) const {
    return kind == Kind::fpr ? Params::for_fpr(n, value, shape) : Params::for_bits_per_key(n, value, shape);
}

std::string Sizing::describe() const {
    return kind == Kind::fpr ? "target FPR " + format_number(value) : format_number(value) + " bits per key";
}

Sizing read_sizing(const ParsedArgs& args, double fallback_fpr) {
    const auto fpr = args.real("fpr");
    const auto bpk = args.real("bits-per-key");
    if (fpr && bpk) throw UsageError("give either --fpr or --bits-per-key, not both");
    if (fpr) {
        if (!(*fpr > 0.0 && *fpr < 1.0))
            throw UsageError("--fpr must be strictly between 0 and 1, got " + std::string(*args.value("fpr")));
        return {Sizing::Kind::fpr, *fpr};
    }
    if (bpk) {
        if (!(*bpk > 0.0)) throw UsageError("--bits-per-key must be positive, got " + std::string(*args.value("bits-per-key")));
        return {Sizing::Kind::bits_per_key, *bpk};
    }
    if (fallback_fpr > 0.0) return {Sizing::Kind::fpr, fallback_fpr};
    throw UsageError("give --fpr P or --bits-per-key B to size the filter");
}

Shape read_shape(const ParsedArgs& args) {
    const auto name = args.value("shape");
    if (!name) return Shape::word512;
    try {
        return parse_shape(*name);
    } catch (const Error&) {
        throw UsageError("--shape expects split256, word512 or line512, got '" + std::string(*name) + "'");
    }
}

Hashing read_hashing(const ParsedArgs& args) {
    Hashing h;
    if (const auto name = args.value("hash")) {
        try {
            h.kind = parse_hash_kind(*name);
        } catch (const Error&) {
            throw UsageError("--hash expects xxh3 or murmur3, got '" + std::string(*name) + "'");
        }
    }
    h.seed = args.u64("seed", 0);
    try {
        validate(h);
    } catch (const Error& e) {
        throw UsageError(std::string("bad --hash/--seed: ") + e.what());
    }
    return h;
}

std::optional<KeyType> read_key_type(const ParsedArgs& args) {
    const auto name = args.value("key-type");
    if (!name) return std::nullopt;
    KeyType type;
    if (*name == "int") type = KeyType::integer;
    else if (*name == "string") type = KeyType::string;
    else if (*name == "auto") type = KeyType::per_line;
    else throw UsageError("--key-type expects int, string or auto, got " + in_quotes(*name));
    if (args.has("u64") && type != KeyType::integer)
        throw UsageError("--u64 input holds integer keys; --key-type " + std::string(*name) + " does not apply");
    return type;
}

unsigned read_threads(const ParsedArgs& args) {
    const std::uint64_t t = args.u64("threads", 0);
    if (t > max_threads)
        throw UsageError("--threads must be in [0, " + std::to_string(max_threads) + "] (0: every core), got " +
                         std::string(*args.value("threads")));
    return static_cast<unsigned>(t);
}

KeyFormat read_key_format(const ParsedArgs& args) { return args.has("u64") ? KeyFormat::u64 : KeyFormat::text; }

}  // namespace batchbloom::cli
