// batchbloom union / intersect / fold: set algebra on saved filters.
#include <filesystem>
#include <string>
#include <string_view>

#include <batchbloom/filter.hpp>

#include "common/stdout_output.hpp"
#include "commands/commands.hpp"

namespace batchbloom::cli {

namespace {

CommandSpec combine_spec(const char* name, const char* summary) {
    return {
        .name = name,
        .synopsis = "A B --out FILE",
        .summary = summary,
        .options = {{"out", "FILE", "where to write the result (replaced atomically)"}},
        .positionals = {{"A", "a filter written by 'batchbloom build'", true},
                        {"B", "a filter of the same shape, size, k, hash and seed", true}},
        .notes = "Both filters must have the same shape, block count, k, hash kind and seed.",
    };
}

std::filesystem::path out_path(const ParsedArgs& args, const char* command) {
    const auto out = args.value("out");
    if (!out) throw UsageError(std::string(command) + " needs --out FILE");
    return std::filesystem::path(std::string(*out));
}

Filter load(std::string_view path) { return Filter::load(std::filesystem::path(std::string(path))); }

template <class Op>
int combine(const ParsedArgs& args, const char* command, Op op) {
    const auto out = out_path(args, command);
    Filter result = load(*args.positional(0));
    op(result, load(*args.positional(1)));
    write_output(out.string(), [&](std::ostream& o) { result.save(o); });
    return 0;
}

}  // namespace

CommandSpec union_spec() {
    return combine_spec("union", "Write the union (bitwise OR) of two filters: it answers for every key of either.");
}
int run_union(const ParsedArgs& args) {
    return combine(args, "union", [](Filter& r, const Filter& f) { r |= f; });
}

CommandSpec intersect_spec() {
    return combine_spec("intersect",
                        "Write the intersection (bitwise AND) of two filters. It keeps every key in both but "
                        "over-approximates: its FPR is higher than a filter built from the intersection.");
}
int run_intersect(const ParsedArgs& args) {
    return combine(args, "intersect", [](Filter& r, const Filter& f) { r &= f; });
}

CommandSpec fold_spec() {
    return {
        .name = "fold",
        .synopsis = "FILE --out FILE",
        .summary = "Write the filter folded to half its blocks (OR of block pairs): the filter the same keys "
                   "would build at half the size, with a higher FPR. Needs an even block count.",
        .options = {{"out", "FILE", "where to write the result (replaced atomically)"}},
        .positionals = {{"FILE", "a filter written by 'batchbloom build'", true}},
        .notes = "",
    };
}
int run_fold(const ParsedArgs& args) {
    const auto out = out_path(args, "fold");
    const Filter folded = load(*args.positional(0)).fold();
    write_output(out.string(), [&](std::ostream& o) { folded.save(o); });
    return 0;
}

}  // namespace batchbloom::cli
