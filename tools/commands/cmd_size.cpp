// batchbloom size: how large a filter for n keys is, and what FPR it is predicted to have.
#include <cstdio>

#include <string>

#include <batchbloom/classic.hpp>
#include <batchbloom/params.hpp>

#include "commands/commands.hpp"
#include "adapters/filter_adapter.hpp"
#include "common/common_options.hpp"
#include "common/text_format.hpp"

namespace batchbloom::cli {

namespace {

CommandSpec size_spec() {
    return {
        .name = "size",
        .synopsis = "--n N (--fpr P | --bits-per-key B) [--shape S]",
        .summary = "Print the size, k and predicted false-positive rate of a filter for N keys.",
        .options = {{"n", "N", "number of distinct keys"}, fpr_option(), bits_per_key_option(), shape_option()},
        .positionals = {},
        .notes = "The predicted FPR is the blocked-filter model (Putze, Sanders, Singler); the classic\n"
                 "formula (1 - e^(-kn/m))^k ignores uneven block loads and is shown for comparison only.\n"
                 "The table compares the blocked filter with a classic Bloom filter (k positions over the\n"
                 "whole bit array, 'build --format classic') sized the same way: for --fpr, the bits each\n"
                 "needs for that FPR; for --bits-per-key, the FPR each reaches with those bits.",
    };
}

int run_size(const ParsedArgs& args) {
    const auto n = args.u64("n");
    if (!n) throw UsageError("size needs --n N (the number of keys)");
    if (*n == 0) throw UsageError("--n must be at least 1");
    const Sizing sizing = read_sizing(args);
    const Shape shape = read_shape(args);

    const Params p = sizing.params(*n, shape);
    const double bits_per_key = static_cast<double>(p.bits()) / static_cast<double>(*n);

    std::printf("keys (n):               %llu\n", static_cast<unsigned long long>(*n));
    std::printf("requested:              %s\n", sizing.describe().c_str());
    std::printf("shape:                  %s\n", std::string(to_string(p.shape)).c_str());
    std::printf("blocks:                 %llu\n", static_cast<unsigned long long>(p.blocks));
    std::printf("bytes:                  %s\n", format_bytes(p.bytes()).c_str());
    std::printf("k:                      %u\n", p.k);
    std::printf("bits per key:           %s\n", format_fixed(bits_per_key, 3).c_str());
    std::printf("predicted FPR (blocked model): %s\n", format_fpr(predicted_fpr(p, *n)).c_str());
    std::printf("classic FPR (1-e^-kn/m)^k:     %s  (classic formula, for comparison)\n",
                format_fpr(classic_fpr(p.bits(), p.k, *n)).c_str());
    for (const FilterType* type : filter_types())
        if (type->print_size != nullptr) type->print_size(p, *n);

    const ClassicParams c = sizing.kind == Sizing::Kind::fpr ? ClassicParams::for_fpr(*n, sizing.value)
                                                             : ClassicParams::for_bits_per_key(*n, sizing.value);
    const auto row = [](const char* name, const std::string& blocked, const std::string& classic) {
        std::printf("  %-14s %-24s %s\n", name, blocked.c_str(), classic.c_str());
    };
    std::printf("\nblocked vs classic (%s):\n", sizing.describe().c_str());
    row("", "blocked " + std::string(to_string(p.shape)), "classic");
    row("bits per key", format_fixed(bits_per_key, 3), format_fixed(double(c.bits) / double(*n), 3));
    row("bytes", format_bytes(p.bytes()), format_bytes(c.bytes()));
    row("k", std::to_string(p.k), std::to_string(c.k));
    row("FPR", format_fpr(predicted_fpr(p, *n)), format_fpr(ClassicFilter::classic_fpr_of(c, *n)));
    row("memory / key", "1 cache line", "up to " + std::to_string(c.k) + " cache lines");
    return 0;
}

}  // namespace

const Command size_command = {"size", "print the size and predicted FPR of a filter for N keys", size_spec, run_size};

}  // namespace batchbloom::cli
