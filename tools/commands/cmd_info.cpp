// batchbloom info: describe a saved filter and estimate what it holds.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>

#include <batchbloom/classic.hpp>
#include <batchbloom/filter.hpp>

#include "adapters/classic_cli.hpp"
#include "commands/commands.hpp"
#include "adapters/family_cli.hpp"
#include "common/text_format.hpp"

namespace batchbloom::cli {

CommandSpec info_spec() {
    return {
        .name = "info",
        .synopsis = "FILE",
        .summary = "Describe a saved filter: layout, hashing, fill, estimated cardinality and current FPR.",
        .options = {},
        .positionals = {{"FILE", "a filter written by 'batchbloom build'", true}},
        .notes = {},
    };
}

int run_info(const ParsedArgs& args) {
    const std::string path(*args.positional(0));
    if (is_classic_filter_file(std::filesystem::path(path))) return info_classic(path);
    if (is_family_filter_file(std::filesystem::path(path))) return info_family(path);
    const Filter filter = Filter::load(std::filesystem::path(path));
    const Params& p = filter.params();
    const Hashing& h = filter.hashing();

    std::string cardinality;
    std::string bits_per_key = "n/a";
    try {
        const double est = filter.estimated_cardinality();
        cardinality = format_fixed(est, 0);
        if (std::isfinite(est) && est >= 1.0) bits_per_key = format_fixed(static_cast<double>(p.bits()) / est, 3);
    } catch (const Error& e) {
        cardinality = std::string("n/a (") + e.what() + ")";
    }

    std::printf("file:                   %s\n", path.c_str());
    std::printf("shape:                  %s\n", std::string(to_string(p.shape)).c_str());
    std::printf("blocks:                 %llu\n", static_cast<unsigned long long>(p.blocks));
    std::printf("bytes:                  %s\n", format_bytes(p.bytes()).c_str());
    std::printf("k:                      %u\n", p.k);
    std::printf("hash:                   %s\n", std::string(to_string(h.kind)).c_str());
    std::printf("seed:                   %llu\n", static_cast<unsigned long long>(h.seed));
    std::printf("fill ratio:             %s\n", format_fixed(filter.fill_ratio(), 6).c_str());
    std::printf("estimated cardinality:  %s\n", cardinality.c_str());
    std::printf("FPR at current fill:    %s\n", format_fpr(filter.current_fpr()).c_str());
    std::printf("bits per estimated key: %s\n", bits_per_key.c_str());
    return 0;
}

}  // namespace batchbloom::cli
