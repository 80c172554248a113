// batchbloom insert: add keys to a saved filter.
#include <cstdio>
#include <filesystem>
#include <string>

#include "adapters/filter_adapter.hpp"
#include "commands/commands.hpp"
#include "common/common_options.hpp"
#include "common/progress.hpp"
#include "common/stdout_output.hpp"

namespace batchbloom::cli {

namespace {

constexpr std::size_t batch_keys = std::size_t(1) << 16;

}  // namespace

CommandSpec insert_spec() {
    return {
        .name = "insert",
        .synopsis = "FILE [INPUT] [--u64] [--key-type T] [--out FILE2] [--quiet]",
        .summary = "Insert the keys of INPUT into the filter in FILE (any type).",
        .options = {u64_option(), key_type_option(),
                    {"out", "FILE2", "write the result here instead of replacing FILE (atomically)"}, quiet_option()},
        .positionals = {{"FILE", "a filter file of any type", true},
                        {"INPUT", "key file, or - for stdin (default: stdin); read like 'query' reads it", false}},
        .notes = "Every occurrence is inserted: a counting filter counts a repeated key twice, a\n"
                 "scalable filter counts it against its capacity. A filter of any other type keeps its\n"
                 "size, so its FPR rises with every key; a scalable one adds stages as it fills. Spark\n"
                 "files stay in Spark's form. Lines are typed as 'query' types them; a filter that holds\n"
                 "both kinds takes a decimal line as both, so that every front end finds it.",
    };
}

int run_insert(const ParsedArgs& args) {
    const std::string path(*args.positional(0));
    const auto filter = open_filter_file(path);
    KeyTyping typing(*filter, path, args, KeyUse::insert);
    filter->set_threads(1);
    KeyReader reader(args.positional(1).value_or("-"), read_key_format(args));
    Progress progress(reader, args);
    KeyBatch batch;
    TypedKeys keys;
    while (reader.next(batch, batch_keys)) {
        split_keys(batch, typing.type(), reader, keys);
        typing.check(keys);
        filter->insert(keys);
        progress.update();
    }
    progress.finish();
    write_output(args.value("out").value_or(path), [&](std::ostream& o) { filter->write(o); });
    std::printf("inserted %llu keys\n", static_cast<unsigned long long>(reader.keys_read()));
    return 0;
}

}  // namespace batchbloom::cli
