#include "bench/bench_report.hpp"

#include <algorithm>

#include "common/text_format.hpp"

namespace batchbloom::cli {

namespace {

std::string mebibytes(std::uint64_t bytes) {
    const double b = static_cast<double>(bytes);
    if (bytes >= (std::uint64_t(1) << 30)) return strprintf("%.2f GiB", b / (1024.0 * 1024.0 * 1024.0));
    if (bytes >= (std::uint64_t(1) << 20)) return strprintf("%.1f MiB", b / (1024.0 * 1024.0));
    return strprintf("%.1f KiB", b / 1024.0);
}

}  // namespace

std::vector<BenchColumn> bench_columns(const LineReadLimit& limit, bool cold) {
    const double limit_rate = limit.best.lines_per_s;
    std::vector<BenchColumn> columns = {
        {{"engine"}, [](const BenchResult& r) { return r.backend; }},
        {{"threads"}, [](const BenchResult& r) { return std::to_string(r.threads); }},
        {{"path"},
         [](const BenchResult& r) {
             // automatic: the paths it took, insert/probe (d: direct, p: partitioned)
             if (r.path != "automatic") return r.path;
             auto letter = [](const std::string& c) { return c == "automatic" ? std::string("?") : c.substr(0, 1); };
             return "auto(" + letter(r.chosen_insert) + "/" + letter(r.chosen_probe) + ")";
         }},
        {{"keys"}, [](const BenchResult& r) { return std::to_string(r.keys); }},
        {{"bits/", "key"}, [](const BenchResult& r) { return format_fixed(r.bits_per_key(), 2); }},
        {{"k"}, [](const BenchResult& r) { return std::to_string(r.params.k); }},
        {{"insert", "Mkeys/s"}, [](const BenchResult& r) { return format_fixed(r.insert_mkeys_per_s(), 1); }},
        {{"insert", "ns/key"}, [](const BenchResult& r) { return format_fixed(r.insert_ns_per_key(), 2); }},
        {{"probe", "Mkeys/s", "50% hit"},
         [](const BenchResult& r) { return format_fixed(r.probe_mixed_mkeys_per_s(), 1); },
         [](const LineReadLimit& l) { return format_fixed(l.best.lines_per_s / 1e6, 1); }},
        {{"probe", "ns/key", "50% hit"},
         [](const BenchResult& r) { return format_fixed(r.probe_mixed_ns_per_key(), 2); },
         [](const LineReadLimit& l) { return format_fixed(1e9 / l.best.lines_per_s, 2); }},
        {{"probe", "Mkeys/s", "0% hit"},
         [](const BenchResult& r) { return format_fixed(r.probe_absent_mkeys_per_s(), 1); }},
        {{"measured", "FPR"}, [](const BenchResult& r) { return strprintf("%.3e", r.measured_fpr()); }},
        {{"predicted", "FPR"}, [](const BenchResult& r) { return strprintf("%.3e", r.predicted_fpr); }},
        {{"probe/", "limit"},
         [limit_rate](const BenchResult& r) {
             return limit_rate > 0 ? format_fixed(r.probe_mixed_mkeys_per_s() * 1e6 / limit_rate, 2) : std::string("-");
         },
         [](const LineReadLimit&) { return std::string("1.00"); }},
        {{"probe/", "limit", "at size"},
         [](const BenchResult& r) {
             return r.size_limit_lines_per_s > 0 ? format_fixed(r.probe_over_size_limit(), 2) : std::string("-");
         }},
    };
    if (cold) {
        columns.push_back({{"insert", "1st call", "ns/key"}, [](const BenchResult& r) { return format_fixed(r.insert_first_ns_per_key(), 2); }});
        columns.push_back({{"probe", "1st call", "ns/key"}, [](const BenchResult& r) { return format_fixed(r.probe_first_ns_per_key(), 2); }});
    }
    return columns;
}

void print_size_context(std::FILE* out, const MachineInfo& machine, const Params& p, std::uint64_t keys,
                        std::uint64_t queries) {
    std::string cache_note;
    if (machine.l3_bytes > 0 && p.bytes() <= machine.l3_bytes)
        cache_note =
            strprintf(" (fits in the %s L3 cache: probes may beat the limit)", mebibytes(machine.l3_bytes).c_str());
    else if (machine.l3_bytes > 0)
        cache_note = strprintf(" (%.1fx the %s L3 cache)",
                               static_cast<double>(p.bytes()) / static_cast<double>(machine.l3_bytes),
                               mebibytes(machine.l3_bytes).c_str());
    std::fprintf(out, "# %llu keys, %llu queries: %s filter of %s, %llu blocks, k=%u%s\n",
                 static_cast<unsigned long long>(keys), static_cast<unsigned long long>(queries),
                 std::string(to_string(p.shape)).c_str(), mebibytes(p.bytes()).c_str(),
                 static_cast<unsigned long long>(p.blocks), p.k, cache_note.c_str());
}

void print_limit_context(std::FILE* out, const LineReadLimit& limit) {
    std::string rates;
    for (const auto& r : limit.by_distance)
        rates += strprintf("%s%u: %.1f", rates.empty() ? "" : ", ", r.distance, r.lines_per_s / 1e6);
    std::string huge = limit.huge_pages_advised ? " (MADV_HUGEPAGE" : " (no MADV_HUGEPAGE";
    if (limit.huge_page_bytes >= 0)
        huge += strprintf(", %.0f%% in huge pages",
                          100.0 * static_cast<double>(limit.huge_page_bytes) / static_cast<double>(limit.buffer_bytes));
    huge += ")";
    std::fprintf(out,
                 "# limit: %llu random 64B line reads over a %s buffer%s, 1 thread, best of %u; "
                 "Mlines/s by prefetch distance %s\n",
                 static_cast<unsigned long long>(limit.reads), mebibytes(limit.buffer_bytes).c_str(), huge.c_str(),
                 limit.repeat, rates.c_str());
    rates.clear();
    for (const auto& r : limit.by_l2_distance)
        rates += strprintf("%s%u: %.1f", rates.empty() ? "" : ", ", r.distance, r.lines_per_s / 1e6);
    std::fprintf(out, "# limit, two-level prefetch (into L2 d lines ahead, into L1 8 ahead): Mlines/s by d %s; best: %s %u\n",
                 rates.c_str(), limit.best.two_level ? "two-level" : "one-level", limit.best.distance);
}

void print_bench_table(std::FILE* out, std::span<const BenchColumn> columns, std::span<const BenchResult> results,
                       const LineReadLimit* limit) {
    const std::size_t ncol = columns.size();
    std::size_t header_lines = 0;
    std::vector<std::size_t> width(ncol, 0);
    for (std::size_t i = 0; i < ncol; ++i) {
        header_lines = std::max(header_lines, columns[i].header.size());
        for (const auto& h : columns[i].header) width[i] = std::max(width[i], h.size());
    }
    std::vector<std::vector<std::string>> cells;
    for (const auto& r : results) {
        auto& row = cells.emplace_back();
        for (std::size_t i = 0; i < ncol; ++i) {
            row.push_back(columns[i].cell(r));
            width[i] = std::max(width[i], row.back().size());
        }
    }
    // The limit row's label may run over the next columns (which it leaves empty); its other
    // cells widen their columns like any row's.
    std::vector<std::string> limit_cells;
    if (limit != nullptr) {
        limit_cells.push_back(limit_row_label);
        for (std::size_t i = 1; i < ncol; ++i) {
            limit_cells.push_back(columns[i].limit_cell ? columns[i].limit_cell(*limit) : std::string());
            width[i] = std::max(width[i], limit_cells.back().size());
        }
    }

    // Column i ends at end[i]; the first column is left-aligned, the others right-aligned.
    std::vector<std::size_t> end(ncol);
    for (std::size_t i = 0, at = 0; i < ncol; ++i) {
        at += (i > 0 ? 2 : 0) + width[i];
        end[i] = at;
    }
    auto print_row = [&](const std::vector<std::string>& row) {
        std::string line = row[0];
        for (std::size_t i = 1; i < ncol; ++i) {
            if (row[i].empty()) continue;
            const std::size_t start = end[i] - row[i].size();
            line.append(line.size() + 1 < start ? start - line.size() : 1, ' ');
            line += row[i];
        }
        std::fprintf(out, "%s\n", line.c_str());
    };
    for (std::size_t l = 0; l < header_lines; ++l) {
        std::vector<std::string> row;
        for (const auto& c : columns) row.push_back(l < c.header.size() ? c.header[l] : std::string());
        print_row(row);
    }
    std::string rule;
    for (std::size_t i = 0; i < ncol; ++i) {
        if (i > 0) rule += "  ";
        rule.append(width[i], '-');
    }
    std::fprintf(out, "%s\n", rule.c_str());
    for (const auto& row : cells) print_row(row);
    if (limit != nullptr) print_row(limit_cells);
}

}  // namespace batchbloom::cli
