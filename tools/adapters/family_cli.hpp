#pragma once
// The counting, deletable and scalable filters in the CLI: `build --format counting|
// deletable|scalable` writes one, `query` and `info` read their files, `insert` and `erase`
// change them in place.
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include <batchbloom/file_kind.hpp>
#include <batchbloom/filter.hpp>
#include <batchbloom/scalable.hpp>

#include "common/args.hpp"

namespace batchbloom::cli {

/// Build options of the family types: --region-bits (deletable), --growth and --tightening
/// (scalable).
OptionSpec region_bits_option();
OptionSpec growth_option();
OptionSpec tightening_option();
/// True when --format names a family type (counting, deletable, scalable).
bool family_format_requested(const ParsedArgs& args);
int build_family(const ParsedArgs& args);

/// For `size`: the bytes and deletability of the counting and deletable filters with params p.
void print_family_sizes(const Params& p, std::uint64_t n);

/// True for a batchbloom file of kind counting, deletable or scalable (never throws).
bool is_family_filter_file(const std::filesystem::path& path);
int info_family(const std::string& path);

/// Any batchbloom filter file but a classic one, as something that answers probes on hashes:
/// plain filters as they are, counting filters as their plain view (counter > 0), deletable
/// filters as their bits, scalable filters through all their stages.
class FilterProbe {
public:
    static FilterProbe load(const std::filesystem::path& path);
    const Hashing& hashing() const;
    void contains_hashes(std::span<const std::uint64_t> hashes, std::span<std::uint8_t> out) const;

private:
    explicit FilterProbe(std::variant<Filter, ScalableFilter> f) : f_(std::move(f)) {}
    std::variant<Filter, ScalableFilter> f_;
};

/// Reads every key of `source` (a path or "-") and returns their hashes under `hashing`; adds
/// the kinds of the keys to *kinds if given.
std::vector<std::uint64_t> read_hashes(std::string_view source, bool u64, const Hashing& hashing,
                                       KeyKinds* kinds = nullptr);

}  // namespace batchbloom::cli
