// batchbloom insert: add keys to a saved filter (plain, counting, deletable or scalable).
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <string>

#include <batchbloom/counting.hpp>
#include <batchbloom/deletable.hpp>
#include <batchbloom/filter.hpp>
#include <batchbloom/scalable.hpp>

#include "commands/commands.hpp"
#include "adapters/family_cli.hpp"
#include "common/stdout_output.hpp"

namespace batchbloom::cli {

CommandSpec insert_spec() {
    return {
        .name = "insert",
        .synopsis = "FILE [INPUT] [--u64] [--out FILE2]",
        .summary = "Insert the keys of INPUT into the filter in FILE (plain, counting, deletable or scalable).",
        .options = {{"u64", "", "INPUT is raw little-endian uint64 values"},
                    {"out", "FILE2", "write the result here instead of replacing FILE (atomically)"}},
        .positionals = {{"FILE", "a filter written by 'batchbloom build'", true},
                        {"INPUT", "key file, or - for stdin (default: stdin); read like 'build' reads it", false}},
        .notes = "Every occurrence is inserted: a counting filter counts a repeated key twice, a\n"
                 "scalable filter counts it against its capacity. A plain or deletable filter keeps its\n"
                 "size, so its FPR rises with every key; a scalable one adds stages as it fills.",
    };
}

int run_insert(const ParsedArgs& args) {
    const std::filesystem::path path{std::string(*args.positional(0))};
    const std::filesystem::path out{std::string(args.value("out").value_or(*args.positional(0)))};
    const std::string input(args.positional(1).value_or("-"));
    const bool u64 = args.has("u64");
    std::size_t n = 0;
    auto insert = [&](auto f, auto&& add) {
        KeyKinds kinds = KeyKinds::none();
        const auto hashes = read_hashes(input, u64, f.hashing(), &kinds);
        add(f, hashes);
        f.add_key_kinds(kinds);
        n = hashes.size();
        write_output(out.string(), [&](std::ostream& o) { f.save(o); });
    };
    switch (const FileKind kind = file_kind(path)) {
        case FileKind::plain:
            insert(Filter::load(path), [](Filter& f, const auto& h) { f.insert_hashes(h); });
            break;
        case FileKind::counting:
            insert(CountingFilter::load(path), [](CountingFilter& f, const auto& h) { f.insert_hashes(h); });
            break;
        case FileKind::deletable:
            insert(DeletableFilter::load(path), [](DeletableFilter& f, const auto& h) {
                for (auto x : h) f.insert_hash(x);
            });
            break;
        case FileKind::scalable:
            insert(ScalableFilter::load(path), [](ScalableFilter& f, const auto& h) { f.insert_hashes(h); });
            break;
        default:
            throw std::runtime_error("'" + path.string() + "' holds a " + std::string(to_string(kind)) +
                                     " filter; insert takes plain, counting, deletable and scalable filters");
    }
    std::printf("inserted %zu keys\n", n);
    return 0;
}

}  // namespace batchbloom::cli
