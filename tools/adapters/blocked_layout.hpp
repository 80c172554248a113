#pragma once
// What the adapters of the types on the blocked layout (blocked, counting, deletable, scalable)
// share: their build options and the common lines of `info`.
#include <cstdint>
#include <string>
#include <string_view>

#include <batchbloom/filter.hpp>

#include "adapters/filter_adapter.hpp"
#include "common/args.hpp"
#include "common/common_options.hpp"

namespace batchbloom::cli {

/// --region-bits (deletable), --growth and --tightening (scalable).
OptionSpec region_bits_option();
OptionSpec growth_option();
OptionSpec tightening_option();

/// UsageError for build options that do not apply to `type`.
void check_blocked_layout_options(const ParsedArgs& args, std::string_view type);

/// The `build --format` entry of a type on the blocked layout: the blocked layout's options, its
/// hashing (--hash, --seed), and text lines as strings by default; `create` and what differs
/// come from the type.
constexpr FilterType blocked_layout_type(std::string_view name, decltype(FilterType::create) create, bool distinct_keys,
                                 decltype(FilterType::print_size) print_size = nullptr) {
    return {
        .name = name,
        .check_options = check_blocked_layout_options,
        .create = create,
        .key_hashing = read_hashing,
        .distinct_keys = distinct_keys,
        .default_key_type = KeyType::string,
        .print_size = print_size,
    };
}

/// info's lines for file, type, shape, blocks, k, hash and seed.
void describe_blocked_layout(const std::string& path, std::string_view type, const Params& p, const Hashing& h);
/// info's fill, cardinality estimate, FPR and bits per estimated key of a filter's bits.
void describe_bits(const Filter& bits);
/// The distinct keys estimated from the fill; infinity when the filter is full.
double estimated_keys_of(const Filter& bits);
/// "123 word512 blocks, k=7".
std::string blocks_layout(const Params& p);

}  // namespace batchbloom::cli
