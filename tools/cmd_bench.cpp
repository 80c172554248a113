// batchbloom bench: insert and probe throughput and measured FPR of each engine.
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <batchbloom/backend.hpp>
#include <batchbloom/error.hpp>

#include "bench_report.hpp"
#include "bench_runner.hpp"
#include "bench_workload.hpp"
#include "commands.hpp"
#include "common_options.hpp"

namespace batchbloom::cli {

namespace {

constexpr std::uint64_t default_keys = 10'000'000;
constexpr double default_fpr = 0.01;
constexpr std::uint64_t default_seed = 1;

std::string available_list() {
    std::string s;
    for (const auto& name : available_backends()) s += (s.empty() ? "" : ", ") + name;
    return s;
}

/// The engines named by --backend: one name (default "auto"), or "all" for every engine
/// available here. Throws Error for an engine this machine lacks, before any work is done.
std::vector<Backend> read_backends(const ParsedArgs& args) {
    const std::string_view name = args.value("backend").value_or("auto");
    std::vector<Backend> out;
    if (name == "all") {
        for (const auto& n : available_backends()) out.push_back(parse_backend(n));
        return out;
    }
    try {
        out.push_back(parse_backend(name));
    } catch (const Error&) {
        throw UsageError("--backend expects auto, scalar, avx2, avx512, cuda or all, got '" + std::string(name) +
                         "' (available here: " + available_list() + ")");
    }
    resolve_backend(out.back());
    return out;
}

std::uint64_t read_count(const ParsedArgs& args, std::string_view option, std::uint64_t fallback) {
    const std::uint64_t v = args.u64(option, fallback);
    if (v == 0) throw UsageError("--" + std::string(option) + " must be at least 1");
    return v;
}

}  // namespace

CommandSpec bench_spec() {
    return {
        .name = "bench",
        .synopsis = "[--keys N] [--queries N] [--fpr P | --bits-per-key B] [--shape S] [--backend NAME|all] [--seed S] "
                    "[--repeat R]",
        .summary = "Measure bulk insert and probe throughput and the false-positive rate on random 64-bit keys.",
        .options = {{"keys", "N", "keys to insert (default 10000000)"},
                    {"queries", "N", "keys per probe set (default 10000000)"},
                    fpr_option(" (default 0.01)"),
                    bits_per_key_option(),
                    shape_option(),
                    {"backend", "NAME", "engine: auto (default), scalar, avx2, avx512, cuda, or all available"},
                    {"seed", "S", "seed of the random keys (default 1)"},
                    {"repeat", "R", "run each phase R times and keep the fastest (default 1)"}},
        .positionals = {},
        .notes = "Inserted keys are random with lowest bit 0, absent keys random with lowest bit 1, so every\n"
                 "hit among the absent keys is a false positive. Insert uses insert(span); the 50%-hit probe\n"
                 "uses contains(span, out); the 0%-hit probe uses count(span).",
    };
}

int run_bench(const ParsedArgs& args) {
    const std::uint64_t keys = read_count(args, "keys", default_keys);
    const std::uint64_t queries = read_count(args, "queries", default_keys);
    const Sizing sizing = read_sizing(args, default_fpr);
    const Shape shape = read_shape(args);
    const std::uint64_t seed = args.u64("seed", default_seed);
    const std::uint64_t repeat = read_count(args, "repeat", 1);
    if (repeat > 1000) throw UsageError("--repeat must be at most 1000");
    const std::vector<Backend> backends = read_backends(args);

    BenchSetup setup{sizing.params(keys, shape), Hashing{}, static_cast<unsigned>(repeat)};
    const Workload work = make_workload(keys, queries, seed);

    print_bench_context(stdout, setup, keys, queries, seed);
    std::fflush(stdout);

    std::vector<BenchResult> results;
    std::optional<Filter> reference;
    std::string reference_backend;
    std::vector<std::string> problems;
    for (Backend b : backends) {
        BenchRun run = run_backend(work, setup, b);
        if (run.result.false_negatives != 0)
            problems.push_back(run.result.backend + ": " + std::to_string(run.result.false_negatives) +
                               " inserted keys reported absent (false negatives)");
        if (!reference) {
            reference = std::move(run.filter);
            reference_backend = run.result.backend;
        } else if (!(*run.filter == *reference)) {
            problems.push_back(run.result.backend + ": filter differs from the one built by " + reference_backend);
        }
        results.push_back(std::move(run.result));
    }

    print_bench_table(stdout, bench_columns(), results);
    std::fflush(stdout);
    if (!problems.empty()) {
        std::string msg = "benchmark found wrong results:";
        for (const auto& p : problems) msg += "\n  " + p;
        throw std::runtime_error(msg);
    }
    return 0;
}

}  // namespace batchbloom::cli
