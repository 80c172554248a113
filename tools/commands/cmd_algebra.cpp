// batchbloom union / intersect / fold: set algebra on saved filters.
#include <string>

#include "adapters/filter_adapter.hpp"
#include "commands/commands.hpp"
#include "batchbloom/file_lock.hpp"
#include "common/stdout_output.hpp"

namespace batchbloom::cli {

namespace {

CommandSpec combine_spec(const char* name, const char* summary) {
    return {
        .name = name,
        .synopsis = "A B --out FILE",
        .summary = summary,
        .options = {{"out", "FILE", "where to write the result (replaced atomically)"}},
        .positionals = {{"A", "a blocked, classic or Spark filter file", true},
                        {"B", "a filter of the same type and parameters", true}},
        .notes = "Both filters must be of one type with the same parameters and hashing: blocked filters\n"
                 "the same shape, block count, k, hash kind and seed; classic and Spark filters the same\n"
                 "bits, k, scheme and seed. The result is written in A's form (a Spark file stays one).",
    };
}

std::string out_path(const ParsedArgs& args, const char* command) {
    const auto out = args.value("out");
    if (!out) throw UsageError(std::string(command) + " needs --out FILE");
    return std::string(*out);
}

int combine(const ParsedArgs& args, const char* command, SetOp op) {
    const auto out = out_path(args, command);
    const std::string a(*args.positional(0)), b(*args.positional(1));
    const FileLock lock = lock_if_rewritten(out, {a, b});  // --out A: A is read, then replaced
    const auto result = open_filter_file(a);
    result->combine(op, *open_filter_file(b));
    write_output(out, [&](std::ostream& o) { result->write(o); });
    return 0;
}

CommandSpec union_spec() {
    return combine_spec("union", "Write the union (bitwise OR) of two filters: it answers for every key of either.");
}
int run_union(const ParsedArgs& args) { return combine(args, "union", SetOp::union_); }

CommandSpec intersect_spec() {
    return combine_spec("intersect",
                        "Write the intersection (bitwise AND) of two filters. It keeps every key in both but "
                        "over-approximates: its FPR is higher than a filter built from the intersection.");
}
int run_intersect(const ParsedArgs& args) { return combine(args, "intersect", SetOp::intersection); }

CommandSpec fold_spec() {
    return {
        .name = "fold",
        .synopsis = "FILE --out FILE",
        .summary = "Write the filter folded to half its blocks (OR of block pairs): the filter the same keys "
                   "would build at half the size, with a higher FPR. Needs an even block count.",
        .options = {{"out", "FILE", "where to write the result (replaced atomically)"}},
        .positionals = {{"FILE", "a blocked filter file", true}},
        .notes = "",
    };
}
int run_fold(const ParsedArgs& args) {
    const auto out = out_path(args, "fold");
    const std::string in(*args.positional(0));
    const FileLock lock = lock_if_rewritten(out, {in});
    const auto folded = open_filter_file(in)->folded();
    write_output(out, [&](std::ostream& o) { folded->write(o); });
    return 0;
}

}  // namespace

const Command union_command = {"union", "write the union (OR) of two compatible filters", union_spec, run_union};
const Command intersect_command = {"intersect", "write the intersection (AND) of two compatible filters",
                                   intersect_spec, run_intersect};
const Command fold_command = {"fold", "write a filter folded to half its blocks", fold_spec, run_fold};

}  // namespace batchbloom::cli
