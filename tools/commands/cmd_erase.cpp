// batchbloom erase: remove keys from a saved counting or deletable filter.
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include <batchbloom/counting.hpp>
#include <batchbloom/deletable.hpp>

#include "commands/commands.hpp"
#include "adapters/family_cli.hpp"
#include "common/stdout_output.hpp"

namespace batchbloom::cli {

CommandSpec erase_spec() {
    return {
        .name = "erase",
        .synopsis = "FILE [INPUT] [--u64] [--out FILE2]",
        .summary = "Erase the keys of INPUT from the counting or deletable filter in FILE.",
        .options = {{"u64", "", "INPUT is raw little-endian uint64 values"},
                    {"out", "FILE2", "write the result here instead of replacing FILE (atomically)"}},
        .positionals = {{"FILE", "a filter written by 'batchbloom build --format counting|deletable'", true},
                        {"INPUT", "key file, or - for stdin (default: stdin); read like 'build' reads it", false}},
        .notes = "Keys are erased in input order, each occurrence once. A key that tests negative is\n"
                 "refused (it is certainly not in the filter). Counting filters never decrement a\n"
                 "saturated counter (15); deletable filters cannot erase a key whose bits all lie in\n"
                 "regions with collisions. Erase only keys that were inserted: erasing a false positive\n"
                 "can make a present key test negative.",
    };
}

int run_erase(const ParsedArgs& args) {
    const std::filesystem::path path{std::string(*args.positional(0))};
    const std::filesystem::path out{std::string(args.value("out").value_or(*args.positional(0)))};
    const std::string input(args.positional(1).value_or("-"));
    const FileKind kind = file_kind(path);
    std::uint64_t erased = 0, refused = 0, stuck = 0, total = 0;
    if (kind == FileKind::counting) {
        auto f = CountingFilter::load(path);
        const auto hashes = read_hashes(input, args.has("u64"), f.hashing());
        total = hashes.size();
        erased = f.erase_hashes(hashes);
        refused = total - erased;
        write_output(out.string(), [&](std::ostream& o) { f.save(o); });
    } else if (kind == FileKind::deletable) {
        auto f = DeletableFilter::load(path);
        const auto hashes = read_hashes(input, args.has("u64"), f.hashing());
        total = hashes.size();
        for (auto h : hashes) {
            switch (f.erase_hash(h)) {
                case EraseResult::erased: ++erased; break;
                case EraseResult::absent: ++refused; break;
                case EraseResult::not_deletable: ++stuck; break;
            }
        }
        write_output(out.string(), [&](std::ostream& o) { f.save(o); });
    } else {
        throw std::runtime_error("'" + path.string() + "' holds a " + std::string(to_string(kind)) +
                                 " filter, which cannot erase keys (build one with --format counting or deletable)");
    }
    std::printf("erased %llu of %llu keys; %llu not in the filter", static_cast<unsigned long long>(erased),
                static_cast<unsigned long long>(total), static_cast<unsigned long long>(refused));
    if (kind == FileKind::deletable)
        std::printf("; %llu not deletable (regions with collisions)", static_cast<unsigned long long>(stuck));
    std::printf("\n");
    return 0;
}

}  // namespace batchbloom::cli
