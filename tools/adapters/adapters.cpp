// The adapter registry: the filter types of `build --format`, opening any filter file, and
// the FilterFile operations a type does not have.
#include <array>
#include <cstdio>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <variant>

#include <batchbloom/any_filter.hpp>

#include "adapters/filter_adapter.hpp"
#include "common/common_options.hpp"
#include "common/text_format.hpp"

namespace batchbloom::cli {

namespace {

const std::array<const FilterType*, 7> types = {&blocked_type, &counting_type, &deletable_type, &scalable_type,
                                                &classic_type, &spark_type,    &spark_v1_type};

std::string type_names() {
    std::string s;
    for (std::size_t i = 0; i < types.size(); ++i)
        s += (i == 0 ? "" : i + 1 == types.size() ? " or " : ", ") + std::string(types[i]->name);
    return s;
}

[[noreturn]] void unsupported(const FilterFile& f, const std::string& what) {
    throw std::runtime_error(f.type_name() + " filters " + what);
}

}  // namespace

OptionSpec format_option() { return {"format", "F", "filter type: " + type_names() + " (default blocked)"}; }

const FilterType& build_filter_type(const ParsedArgs& args) {
    const auto name = args.value("format").value_or("blocked");
    for (const FilterType* t : types)
        if (t->name == name) return *t;
    throw UsageError("--format expects " + type_names() + ", got " + in_quotes(name));
}

std::span<const FilterType* const> filter_types() { return types; }

KeyTyping::KeyTyping(const FilterFile& f, std::string path, const ParsedArgs& args, KeyUse use)
    : path_(std::move(path)) {
    const KeyKinds kinds = f.key_kinds();
    auto option = read_key_type(args);  // checked against --u64 there
    if (args.has("u64")) option = KeyType::integer;
    if (option) {
        type_ = *option;
        // Keys of a kind the filter never took cannot be found (nor erased): say so, since
        // every answer would be "absent".
        const bool only_ints = kinds.recorded && kinds.integers && !kinds.bytes;
        const bool only_bytes = kinds.recorded && kinds.bytes && !kinds.integers;
        if (use != KeyUse::insert && ((type_ == KeyType::integer && only_bytes) || (type_ == KeyType::string && only_ints)))
            std::fprintf(stderr, "batchbloom: warning: %s holds only %s keys; %s keys are never found in it\n",
                         in_quotes(path_).c_str(), only_ints ? "integer" : "byte-string",
                         only_ints ? "byte-string" : "integer");
        return;
    }
    if (!kinds.recorded) {
        type_ = KeyType::per_line;
        refuse_decimal_ = true;
    } else if (kinds.integers && kinds.bytes) {
        if (use == KeyUse::erase)
            throw UsageError(in_quotes(path_) + " holds both integer and string keys: give --key-type int or string "
                             "to say which the lines are");
        type_ = KeyType::both;
    } else {
        type_ = kinds.integers ? KeyType::per_line : KeyType::string;
    }
}

void KeyTyping::check(const TypedKeys& keys) const {
    if (!refuse_decimal_ || keys.decimal == 0) return;
    throw UsageError(in_quotes(path_) + " does not record whether its keys are integers or strings, and line " +
                     std::to_string(keys.first_line + keys.int_at.front()) + " of " + keys.source +
                     " is a decimal number: give --key-type int or string (as the keys were inserted)");
}

std::unique_ptr<FilterFile> open_filter_file(const std::filesystem::path& path) {
    FileForm form = FileForm::unknown;
    AnyFilter any = load_any(path, {}, &form);
    return std::visit(
        [&]<class F>(F& f) -> std::unique_ptr<FilterFile> {
            if constexpr (std::is_same_v<F, Filter>)
                return open_blocked(std::move(f));
            else if constexpr (std::is_same_v<F, CountingFilter>)
                return open_counting(std::move(f));
            else if constexpr (std::is_same_v<F, DeletableFilter>)
                return open_deletable(std::move(f));
            else if constexpr (std::is_same_v<F, ScalableFilter>)
                return open_scalable(std::move(f));
            else
                return open_classic(std::move(f), form == FileForm::spark);
        },
        any);
}

void FilterFile::insert_hashes(std::span<const std::uint64_t>) {
    unsupported(*this, "take keys, not precomputed hashes");
}

EraseCounts FilterFile::erase(const TypedKeys&) {
    unsupported(*this, "cannot erase keys (build one with --format counting or deletable)");
}

void FilterFile::combine(SetOp, const FilterFile& other) {
    if (other.type_name() != type_name())
        throw std::runtime_error("set algebra needs two filters of one type; these are " + type_name() + " and " +
                                 other.type_name() + " filters");
    unsupported(*this, "have no set algebra (union and intersect take blocked, classic and Spark filters)");
}

std::unique_ptr<FilterFile> FilterFile::folded() const {
    unsupported(*this, "cannot be folded (fold takes blocked filters)");
}

}  // namespace batchbloom::cli
