// batchbloom insert: add keys to a saved filter.
#include <cstdio>
#include <filesystem>
#include <string>

#include "adapters/filter_adapter.hpp"
#include "commands/commands.hpp"
#include "commands/key_batches.hpp"
#include "batchbloom/file_lock.hpp"
#include "common/stdout_output.hpp"

namespace batchbloom::cli {

namespace {

CommandSpec insert_spec() {
    return {
        .name = "insert",
        .synopsis = "FILE [INPUT] [--u64] [--key-type T] [--out FILE2] [--quiet]",
        .summary = "Insert the keys of INPUT into the filter in FILE (any type).",
        .options = rewrite_options(),
        .positionals = rewrite_positionals("a filter file of any type"),
        .notes = "Every occurrence is inserted: a counting filter counts a repeated key twice, a\n"
                 "scalable filter counts it against its capacity. A filter of any other type keeps its\n"
                 "size, so its FPR rises with every key; a scalable one adds stages as it fills. Spark\n"
                 "files stay in Spark's form. Lines are typed as 'query' types them; a filter that holds\n"
                 "both kinds takes a decimal line as both, so that every front end finds it.\n" +
                 rewrite_lock_note(),
    };
}

int run_insert(const ParsedArgs& args) {
    const std::string path(*args.positional(0));
    const std::string out(args.value("out").value_or(path));
    const FileLock lock = lock_if_rewritten(out, {path});
    const auto filter = open_filter_file(path);
    KeyTyping typing(*filter, path, args, KeyUse::insert);
    filter->set_threads(1);
    const std::uint64_t keys_read =
        for_each_key_batch(args, typing, [&](const KeyBatch&, const TypedKeys& keys) { filter->insert(keys); });
    write_output(out, [&](std::ostream& o) { filter->write(o); });
    std::printf("inserted %llu keys\n", static_cast<unsigned long long>(keys_read));
    return 0;
}

}  // namespace

const Command insert_command = {"insert", "add the keys of a key file to a saved filter", insert_spec, run_insert};

}  // namespace batchbloom::cli
