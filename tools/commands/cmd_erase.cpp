// batchbloom erase: remove keys from a saved counting or deletable filter.
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

CommandSpec erase_spec() {
    return {
        .name = "erase",
        .synopsis = "FILE [INPUT] [--u64] [--key-type T] [--out FILE2] [--quiet]",
        .summary = "Erase the keys of INPUT from the counting or deletable filter in FILE.",
        .options = rewrite_options(),
        .positionals = rewrite_positionals("a filter written by 'batchbloom build --format counting|deletable'"),
        .notes = "Keys are erased in input order, each occurrence once. A key that tests negative is\n"
                 "refused (it is certainly not in the filter). Counting filters never decrement a\n"
                 "saturated counter (15); deletable filters cannot erase a key whose bits all lie in\n"
                 "regions with collisions. Erase only keys that were inserted: erasing a false positive\n"
                 "can make a present key test negative. Lines are typed as 'query' types them, except\n"
                 "that a filter holding both kinds needs --key-type.\n" +
                 rewrite_lock_note(),
    };
}

int run_erase(const ParsedArgs& args) {
    const std::string path(*args.positional(0));
    const std::string out(args.value("out").value_or(path));
    const FileLock lock = lock_if_rewritten(out, {path});
    const auto filter = open_filter_file(path);
    if (!filter->can_erase()) filter->erase(TypedKeys{});  // throws, naming the type, before any input is read
    KeyTyping typing(*filter, path, args, KeyUse::erase);
    EraseCounts total;
    const std::uint64_t keys_read = for_each_key_batch(args, typing, [&](const KeyBatch&, const TypedKeys& keys) {
        const EraseCounts c = filter->erase(keys);
        total.erased += c.erased, total.absent += c.absent, total.not_deletable += c.not_deletable;
    });
    write_output(out, [&](std::ostream& o) { filter->write(o); });
    std::printf("erased %llu of %llu keys; %llu not in the filter", static_cast<unsigned long long>(total.erased),
                static_cast<unsigned long long>(keys_read), static_cast<unsigned long long>(total.absent));
    if (filter->type_name() == "deletable")
        std::printf("; %llu not deletable (regions with collisions)", static_cast<unsigned long long>(total.not_deletable));
    std::printf("\n");
    return 0;
}

}  // namespace

const Command erase_command = {"erase", "remove the keys of a key file from a counting or deletable filter",
                               erase_spec, run_erase};

}  // namespace batchbloom::cli
