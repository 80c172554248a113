#include "bench_report.hpp"

#include <algorithm>

#include "text_format.hpp"

namespace batchbloom::cli {

std::vector<BenchColumn> bench_columns() {
    return {
        {"backend", [](const BenchResult& r) { return r.backend; }},
        {"keys", [](const BenchResult& r) { return std::to_string(r.keys); }},
        {"bits/key", [](const BenchResult& r) { return format_fixed(r.bits_per_key(), 2); }},
        {"k", [](const BenchResult& r) { return std::to_string(r.params.k); }},
        {"insert Mkeys/s", [](const BenchResult& r) { return format_fixed(r.insert_mkeys_per_s(), 1); }},
        {"insert ns/key", [](const BenchResult& r) { return format_fixed(r.insert_ns_per_key(), 2); }},
        {"probe Mkeys/s (50% hit)", [](const BenchResult& r) { return format_fixed(r.probe_mixed_mkeys_per_s(), 1); }},
        {"probe Mkeys/s (0% hit)", [](const BenchResult& r) { return format_fixed(r.probe_absent_mkeys_per_s(), 1); }},
        {"measured FPR", [](const BenchResult& r) { return strprintf("%.3e", r.measured_fpr()); }},
        {"predicted FPR", [](const BenchResult& r) { return strprintf("%.3e", r.predicted_fpr); }},
    };
}

void print_bench_context(std::FILE* out, const BenchSetup& setup, std::uint64_t keys, std::uint64_t queries,
                         std::uint64_t seed) {
    const Params& p = setup.params;
    std::fprintf(out, "# %llu keys inserted; probes: %llu keys (50%% inserted) and %llu absent keys; key seed %llu\n",
                 static_cast<unsigned long long>(keys), static_cast<unsigned long long>(queries),
                 static_cast<unsigned long long>(queries), static_cast<unsigned long long>(seed));
    std::fprintf(out, "# filter: %s, %llu blocks, bytes %s, k=%u; hash %s seed %llu; best of %u run(s) per phase\n",
                 std::string(to_string(p.shape)).c_str(), static_cast<unsigned long long>(p.blocks),
                 format_bytes(p.bytes()).c_str(), p.k, std::string(to_string(setup.hashing.kind)).c_str(),
                 static_cast<unsigned long long>(setup.hashing.seed), setup.repeat);
}

void print_bench_table(std::FILE* out, std::span<const BenchColumn> columns, std::span<const BenchResult> results) {
    std::vector<std::vector<std::string>> cells;
    std::vector<std::size_t> width;
    for (const auto& c : columns) width.push_back(c.header.size());
    for (const auto& r : results) {
        auto& row = cells.emplace_back();
        for (std::size_t i = 0; i < columns.size(); ++i) {
            row.push_back(columns[i].cell(r));
            width[i] = std::max(width[i], row.back().size());
        }
    }
    auto print_row = [&](auto&& text_of) {
        std::string line;
        for (std::size_t i = 0; i < columns.size(); ++i) {
            const std::string& t = text_of(i);
            if (i > 0) line += "  ";
            // The first column (the engine name) is left-aligned, numbers right-aligned.
            if (i == 0) {
                line += t;
                line.append(width[i] - t.size(), ' ');
            } else {
                line.append(width[i] - t.size(), ' ');
                line += t;
            }
        }
        while (!line.empty() && line.back() == ' ') line.pop_back();
        std::fprintf(out, "%s\n", line.c_str());
    };
    print_row([&](std::size_t i) -> const std::string& { return columns[i].header; });
    std::string rule;
    for (std::size_t i = 0; i < columns.size(); ++i) {
        if (i > 0) rule += "  ";
        rule.append(width[i], '-');
    }
    std::fprintf(out, "%s\n", rule.c_str());
    for (const auto& row : cells) print_row([&](std::size_t i) -> const std::string& { return row[i]; });
}

}  // namespace batchbloom::cli
