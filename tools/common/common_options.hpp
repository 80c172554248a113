#pragma once
// Options shared by several subcommands: filter sizing (--fpr / --bits-per-key), block shape
// (--shape), hashing (--hash / --seed) and key input (--u64 / --key-type). Each has its OptionSpec for the command's help and
// a function that reads and checks it, throwing UsageError on a bad value.
#include <cstdint>
#include <optional>
#include <string>

#include <batchbloom/hash.hpp>
#include <batchbloom/params.hpp>

#include "common/args.hpp"
#include "common/key_input.hpp"

namespace batchbloom::cli {

OptionSpec fpr_option(const std::string& default_note = "");
OptionSpec bits_per_key_option();
OptionSpec shape_option();
OptionSpec hash_option();
OptionSpec hash_seed_option();
/// --u64 (binary input) and --key-type (how text lines become keys).
OptionSpec u64_option();
OptionSpec key_type_option();

/// How the user asked to size a filter: a target FPR or a number of bits per key.
struct Sizing {
    enum class Kind { fpr, bits_per_key } kind = Kind::fpr;
    double value = 0.01;

    /// Params for n keys of the given shape (Params::for_fpr / for_bits_per_key).
    Params params(std::uint64_t n, Shape shape) const;
    /// "target FPR 0.01" / "10 bits per key", for messages.
    std::string describe() const;
};

/// Exactly one of --fpr / --bits-per-key; when neither is given, `fallback_fpr` if it is set
/// (> 0), otherwise a UsageError.
Sizing read_sizing(const ParsedArgs& args, double fallback_fpr = 0.0);
/// --shape, default word512.
Shape read_shape(const ParsedArgs& args);
/// --hash and --seed, default xxh3 with seed 0; validated against the kind.
Hashing read_hashing(const ParsedArgs& args);
/// --key-type int|string|auto, if given (--u64 input is integers: string is refused with it).
std::optional<KeyType> read_key_type(const ParsedArgs& args);
/// --threads, default 0 (every core): at most max_threads (bulk_settings.hpp), else a UsageError.
unsigned read_threads(const ParsedArgs& args);
/// --u64 as the KeyReader's format.
KeyFormat read_key_format(const ParsedArgs& args);

}  // namespace batchbloom::cli
