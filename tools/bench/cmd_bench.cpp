// batchbloom bench: insert and probe throughput and measured FPR of each engine, for one or
// more thread counts and filter sizes, beside the machine's random cache-line read rate (the
// limit of an out-of-cache probe). Optionally a JSON report and a plot.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <batchbloom/atomic_file.hpp>
#include <batchbloom/backend.hpp>
#include <batchbloom/bulk_settings.hpp>
#include <batchbloom/error.hpp>

#include "bench/bench_json.hpp"
#include "bench/bench_machine.hpp"
#include "bench/bench_plot.hpp"
#include "bench/bench_report.hpp"
#include "bench/bench_runner.hpp"
#include "bench/bench_sweep.hpp"
#include "bench/bench_workload.hpp"
#include "bench/bench_filter_types.hpp"
#include "bench/bench_wake.hpp"
#include "commands/commands.hpp"
#include "common/common_options.hpp"
#include "bench/memory_limit.hpp"
#include "common/text_format.hpp"

namespace batchbloom::cli {

namespace {

constexpr std::uint64_t default_keys = 10'000'000;
constexpr double default_fpr = 0.01;
constexpr std::uint64_t default_seed = 1;
constexpr unsigned default_repeat = 3;

std::string available_list() {
    std::string s;
    for (const auto& name : available_backends()) s += (s.empty() ? "" : ", ") + name;
    return s;
}

/// The engines named by --backend: one name, or "all" (the default) for every engine
/// available here, the scalar reference first. Throws for an engine this machine lacks,
/// before any work is done.
std::vector<Backend> read_backends(const ParsedArgs& args) {
    const std::string_view name = args.value("backend").value_or("all");
    std::vector<Backend> out;
    if (name == "all") {
        for (const auto& n : available_backends()) out.push_back(parse_backend(n));
        std::reverse(out.begin(), out.end());  // available_backends() lists the best first
        return out;
    }
    try {
        out.push_back(parse_backend(name));
    } catch (const Error&) {
        throw UsageError("--backend expects auto, scalar, avx2, avx512, cuda or all, got '" + std::string(name) +
                         "' (available here: " + available_list() + ")");
    }
    try {
        resolve_backend(out.back());
    } catch (const Error& e) {
        throw UsageError("--backend " + std::string(name) + ": " + e.what());
    }
    return out;
}

std::vector<std::string_view> split_list(std::string_view text) {
    std::vector<std::string_view> out;
    while (true) {
        const auto comma = text.find(',');
        out.push_back(text.substr(0, comma));
        if (comma == std::string_view::npos) break;
        text.remove_prefix(comma + 1);
    }
    return out;
}

/// `text` without its last character when that is one of `suffixes`' letters (either case),
/// and that letter's index + 1; 0 when there is no such suffix.
unsigned strip_suffix(std::string_view& text, std::string_view suffixes) {
    if (text.empty()) return 0;
    const char c = static_cast<char>(text.back() | 0x20);  // lower case
    const auto at = suffixes.find(c);
    if (at == std::string_view::npos) return 0;
    text.remove_suffix(1);
    return static_cast<unsigned>(at) + 1;
}

/// The most keys or queries a run may ask for: 10^12 (8 TB of keys alone). Larger counts
/// overflowed the memory estimate and failed deep in an allocation.
constexpr std::uint64_t max_count = 1'000'000'000'000ULL;

/// A key count: decimal digits with an optional k, M or G (10^3, 10^6, 10^9) suffix, at most
/// max_count.
std::uint64_t parse_count(std::string_view text, const std::string& what) {
    std::string_view digits = text;
    const unsigned suffix = strip_suffix(digits, "kmg");
    std::uint64_t scale = 1;
    for (unsigned i = 0; i < suffix; ++i) scale *= 1000;
    std::uint64_t v = 0;
    try {
        v = parse_u64(digits, what);
    } catch (const UsageError&) {
        throw UsageError(what + " expects a positive count such as 200000, 500k, 10M or 1G, got '" + std::string(text) +
                         "'");
    }
    if (v == 0) throw UsageError(what + " must be at least 1, got '" + std::string(text) + "'");
    if (v > max_count / scale)
        throw UsageError(what + " must be at most 1000G (10^12), got '" + std::string(text) + "'");
    return v * scale;
}

/// A byte size: digits with an optional K, M or G (2^10, 2^20, 2^30) suffix, then "B" or "iB".
std::uint64_t parse_bytes(std::string_view text, const std::string& what) {
    std::string_view digits = text;
    if (digits.ends_with("iB"))
        digits.remove_suffix(2);
    else if (digits.ends_with("B"))
        digits.remove_suffix(1);
    const unsigned shift = 10 * strip_suffix(digits, "kmg");
    std::uint64_t v = 0;
    try {
        v = parse_u64(digits, what);
    } catch (const UsageError&) {
        throw UsageError(what + " expects a size such as 64M or 1G, got '" + std::string(text) + "'");
    }
    if (v > (UINT64_MAX >> shift)) throw UsageError(what + " value '" + std::string(text) + "' is too large");
    return v << shift;
}

/// --threads: a comma list of thread counts; 0 means every core. Repeats are dropped.
std::vector<unsigned> read_thread_counts(const ParsedArgs& args) {
    const auto text = args.value("threads");
    if (!text) return {1};
    std::vector<unsigned> out;
    for (const auto item : split_list(*text)) {
        std::uint64_t t = 0;
        try {
            t = parse_u64(item, "--threads");
        } catch (const UsageError&) {
            throw UsageError("--threads expects thread counts like 1 or 1,2 (0 = all cores), got '" +
                             std::string(*text) + "'");
        }
        if (t > max_threads)
            throw UsageError("--threads must be in [0, " + std::to_string(max_threads) + "] (0: every core), got " +
                             std::string(item));
        const unsigned n = t == 0 ? std::max(1u, std::thread::hardware_concurrency()) : static_cast<unsigned>(t);
        if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
    }
    return out;
}

/// The batch paths named by --paths (default: automatic only), each once.
std::vector<BatchPath> read_paths(const ParsedArgs& args) {
    std::vector<BatchPath> out;
    for (const auto item : split_list(args.value("paths").value_or("auto"))) {
        BatchPath p;
        if (item == "direct")
            p = BatchPath::direct;
        else if (item == "partitioned")
            p = BatchPath::partitioned;
        else if (item == "auto" || item == "automatic")
            p = BatchPath::automatic;
        else
            throw UsageError("--paths expects a list of direct, partitioned and auto, got '" + std::string(item) + "'");
        if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
    }
    return out;
}

/// Filter sizes in keys: --sizes LIST, else --keys N, else the default.
std::vector<std::uint64_t> read_sizes(const ParsedArgs& args) {
    const auto sizes = args.value("sizes");
    if (sizes && args.has("keys")) throw UsageError("give either --keys or --sizes, not both");
    if (!sizes) {
        const auto keys = args.value("keys");
        return {keys ? parse_count(*keys, "--keys") : default_keys};
    }
    std::vector<std::uint64_t> out;
    for (const auto item : split_list(*sizes)) {
        const std::uint64_t n = parse_count(item, "--sizes");
        if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
    }
    return out;
}

/// Bytes one size of the benchmark holds at once: keys, the two probe sets, the answers, and
/// two filters (the reference and the one being measured).
std::uint64_t memory_needed(std::uint64_t keys, std::uint64_t queries, const Params& p) {
    return keys * 8 + queries * 17 + 2 * p.bytes();
}

/// "1.5 GiB", "105.0 MiB", "48.0 KiB".
std::string human_bytes(std::uint64_t bytes) {
    const double b = static_cast<double>(bytes);
    if (bytes >= (std::uint64_t(1) << 30)) return strprintf("%.1f GiB", b / double(1 << 30));
    if (bytes >= (std::uint64_t(1) << 20)) return strprintf("%.1f MiB", b / double(1 << 20));
    return strprintf("%.1f KiB", b / double(1 << 10));
}

std::string join_backends(const std::vector<Backend>& backends) {
    std::string s;
    for (Backend b : backends) {
        if (!s.empty()) s += ", ";
        s += backend_label(b);
    }
    return s;
}

std::string join_numbers(const std::vector<unsigned>& v) {
    std::string s;
    for (unsigned x : v) {
        if (!s.empty()) s += ',';
        s += std::to_string(x);
    }
    return s;
}

std::vector<double> read_densities(const ParsedArgs& args) {
    std::vector<double> out;
    for (const auto item : split_list(args.value("keys-per-line").value_or("0.1,1,10"))) {
        double v = 0;
        try {
            v = std::stod(std::string(item));
        } catch (const std::exception&) {
            v = 0;
        }
        if (!(v > 0 && v <= 1000))
            throw UsageError("--keys-per-line expects numbers in (0, 1000], got '" + std::string(item) + "'");
        out.push_back(v);
    }
    return out;
}

int run_sweep_command(const ParsedArgs& args, const std::vector<Backend>& backends, const std::vector<unsigned>& threads) {
    if (backends.size() != 1 && args.value("backend"))
        throw UsageError("--sweep runs one engine: give --backend NAME");
    SweepSpec spec;
    for (const auto item : split_list(args.value("sweep-filters").value_or("L2,L3,4xL3,1G")))
        spec.filters.emplace_back(item);
    spec.keys_per_line = read_densities(args);
    spec.threads = threads;
    spec.repeat = static_cast<unsigned>(args.u64("repeat", 5));
    if (spec.repeat == 0 || spec.repeat > 1000) throw UsageError("--repeat must be between 1 and 1000");
    spec.seed = args.u64("seed", default_seed);
    if (args.value("scratch-limit")) spec.scratch_limit = parse_bytes(*args.value("scratch-limit"), "--scratch-limit");
    const Backend backend = args.value("backend") ? backends.front() : Backend::automatic;
    const MachineInfo machine = machine_info();
    std::printf("# batchbloom bench --sweep: engine %s; word512, k = 8; median of %u runs per path, taking turns;\n"
                "# each run >= 2M keys in repeated calls; 'partit. 1st' is the partitioned path's first call (its\n"
                "# scratch grown and faulted in) beyond its median\n",
                backend_label(backend).c_str(), spec.repeat);
    std::printf("# machine: %s, %u cores, L2 %s, L3 %s; compiler %s\n", machine.cpu.c_str(), machine.cores,
                machine.l2_bytes ? human_bytes(machine.l2_bytes).c_str() : "?",
                machine.l3_bytes ? human_bytes(machine.l3_bytes).c_str() : "?", machine.compiler.c_str());
    std::printf("# limit: random 64B line reads over a buffer the size of the filter on the row's threads (the best\n"
                "# scheme and distance of a full measurement on one), one read pass beside each round of timed calls:\n"
                "# the median; limit/direct >= 0.95 and partit./limit <= 0.6 (one thread) are the targets out of cache\n");
    std::fflush(stdout);
    try {
        run_sweep(spec, machine, backend, stdout);
    } catch (const std::invalid_argument& e) {
        throw UsageError(std::string("--sweep-filters: ") + e.what());
    }
    return 0;
}

/// A temporary file for the JSON that --plot reads when --json was not given; removed when done.
class TempFile {
public:
    TempFile() {
        const auto dir = std::filesystem::temp_directory_path();
        std::string pattern = (dir / "batchbloom-bench-XXXXXX.json").string();
        const int fd = mkstemps(pattern.data(), 5);
        if (fd < 0) throw std::runtime_error("cannot create a temporary file in " + dir.string());
        ::close(fd);
        path_ = pattern;
    }
    ~TempFile() {
        std::error_code ec;
        std::filesystem::remove(path_, ec);
    }
    TempFile(const TempFile&) = delete;
    TempFile& operator=(const TempFile&) = delete;
    const std::filesystem::path& path() const { return path_; }

private:
    std::filesystem::path path_;
};

}  // namespace

CommandSpec bench_spec() {
    return {
        .name = "bench",
        .synopsis =
            "[--keys N | --sizes LIST] [--queries N] [--fpr P | --bits-per-key B] [--shape S] "
            "[--backend NAME|all] [--threads LIST] [--paths LIST] [--repeat R] [--cold [--cold-buffer BYTES]] [--sweep [--sweep-filters LIST] [--keys-per-line LIST] [--scratch-limit BYTES]] [--blocked-only] [--seed S] [--json FILE] [--plot FILE.png]",
        .summary =
            "Measure bulk insert and probe throughput and the false-positive rate of each engine on random "
            "64-bit keys,\nbeside this machine's random cache-line read rate.",
        .options = {{"keys", "N", "keys to insert (default 10M; k, M, G suffixes are 10^3, 10^6, 10^9; at most 1000G)"},
                    {"sizes", "LIST", "several key counts, e.g. 1M,10M,100M: one run per size (instead of --keys)"},
                    {"queries", "N", "keys per probe set (default: as many as keys)"},
                    fpr_option(" (default 0.01)"),
                    bits_per_key_option(),
                    shape_option(),
                    {"backend", "NAME", "engine: all available (default), auto, scalar, avx2, avx512 or cuda"},
                    {"threads", "LIST", "threads per bulk call, e.g. 1 or 1,2; 0 = all cores (default 1)"},
                    {"paths", "LIST", "batch paths: direct, partitioned, auto, e.g. direct,partitioned,auto (default auto)"},
                    {"repeat", "R", "run each phase R times and keep the fastest (default 3; --sweep: the median of 5)"},
                    {"cold", "", "read a buffer several times the last-level cache before every timed call; report the median of\n"
                                 "                          the calls after the first, and the first call of each phase apart"},
                    {"cold-buffer", "BYTES", "--cold: the buffer read between calls (default: 4x L3, at least 256M)"},
                    {"sweep", "", "instead: time each batch path over filter sizes and batch densities (one engine)"},
                    {"sweep-filters", "LIST", "--sweep filter sizes: L2, L3, 4xL3, or sizes like 1G (default L2,L3,4xL3,1G)"},
                    {"keys-per-line", "LIST", "--sweep batch sizes in keys per filter line (default 0.1,1,10)"},
                    {"scratch-limit", "BYTES", "--sweep: Filter::set_scratch_limit of every filter (default: the filter's default)"},
                    {"blocked-only", "", "time the blocked filter only (no classic, counting or scalable rows)"},
                    {"seed", "S", "seed of the random keys (default 1)"},
                    {"json", "FILE", "also write the results as JSON to FILE"},
                    {"plot", "FILE", "draw throughput vs filter size (--sizes) into FILE (PNG; needs matplotlib)"},
                    {"limit-buffer", "BYTES", "buffer for the limit row (default 1G; K, M, G: binary units)"}},
        .positionals = {},
        .notes =
            "Inserted keys are random with lowest bit 0, absent keys random with lowest bit 1, so every\n"
            "hit among the absent keys is a false positive. Insert uses insert(span); the 50%-hit probe\n"
            "uses contains(span, out) on keys half inserted, half absent; the 0%-hit probe uses count(span)\n"
            "on the absent keys. Every engine and thread count must build a byte-identical filter and find\n"
            "every inserted key; otherwise the command fails.\n"
            "\n"
            "The limit row is this machine's rate of random 64-byte line reads (best of no prefetching,\n"
            "software prefetching 8, 16, 32, ... lines ahead, and the direct path's two-level scheme: into\n"
            "L2 16, 32, 64, ... lines ahead and into L1 8 ahead; each deepened while the rate still rises),\n"
            "one thread, over a buffer far larger than the\n"
            "last-level cache: an out-of-cache probe reads one such line per key, so 'probe/limit' (50%-hit\n"
            "probe rate / limit) near 1 means the engine runs at the memory system's speed. Filters that\n"
            "fit in the cache can exceed it; 'probe/limit at size' compares with the same measurement over a\n"
            "buffer the size of the filter, on as many threads as the row (each reading its own lines at\n"
            "once), the limit of a probe in the caller's order wherever the filter lives. Partitioned\n"
            "batches (large batches on filters beyond L3) can exceed both.\n"
            "\n"
            "--paths runs each engine on each batch path; 'auto(p/d)' is the automatic path and what it\n"
            "takes for insert/probe by its rule (p: partitioned, d: direct; docs/design.md, \"Two batch paths\").",
    };
}

int run_bench(const ParsedArgs& args) {
    // Every option is read and checked before anything is measured.
    const std::vector<std::uint64_t> sizes = read_sizes(args);
    // Probe-set size; 0: as many as the keys of each size.
    const std::uint64_t fixed_queries = args.has("queries") ? parse_count(*args.value("queries"), "--queries") : 0;
    const Sizing sizing = read_sizing(args, default_fpr);
    const Shape shape = read_shape(args);
    const std::uint64_t seed = args.u64("seed", default_seed);
    const std::uint64_t repeat = args.u64("repeat", default_repeat);
    if (repeat == 0 || repeat > 1000) throw UsageError("--repeat must be between 1 and 1000");
    const std::vector<Backend> backends = read_backends(args);
    const std::vector<unsigned> thread_counts = read_thread_counts(args);
    const std::vector<BatchPath> paths = read_paths(args);
    if (args.has("sweep")) return run_sweep_command(args, backends, thread_counts);
    const std::uint64_t limit_buffer = args.value("limit-buffer")
                                           ? parse_bytes(*args.value("limit-buffer"), "--limit-buffer")
                                           : default_limit_buffer_bytes;
    if (limit_buffer < (std::uint64_t(1) << 20)) throw UsageError("--limit-buffer must be at least 1M");
    if (args.value("cold-buffer") && !args.has("cold")) throw UsageError("--cold-buffer goes with --cold");
    std::optional<std::filesystem::path> json_path, plot_path;
    if (const auto v = args.value("json")) json_path = std::filesystem::path(*v);
    if (const auto v = args.value("plot")) plot_path = std::filesystem::path(*v);

    for (const auto* out : {&json_path, &plot_path}) {
        if (!*out) continue;
        const auto dir = (*out)->has_parent_path() ? (*out)->parent_path() : std::filesystem::path(".");
        std::error_code ec;
        if (!std::filesystem::is_directory(dir, ec))
            throw UsageError("--" + std::string(out == &json_path ? "json" : "plot") + " " + (*out)->string() +
                             ": directory " + dir.string() + " does not exist");
    }

    std::vector<Params> params;
    for (const std::uint64_t n : sizes) {
        try {
            params.push_back(sizing.params(n, shape));
        } catch (const Error& e) {
            throw UsageError("cannot size a filter for " + std::to_string(n) + " keys (" + sizing.describe() +
                             "): " + e.what());
        }
    }
    const MachineInfo machine = machine_info();
    if (machine.available_memory_bytes > 0) {
        for (std::size_t i = 0; i < sizes.size(); ++i) {
            const std::uint64_t need = memory_needed(sizes[i], fixed_queries ? fixed_queries : sizes[i], params[i]);
            if (need > machine.available_memory_bytes)
                throw std::runtime_error("a run with " + std::to_string(sizes[i]) + " keys needs about " +
                                         human_bytes(need) + " of memory; " +
                                         human_bytes(machine.available_memory_bytes) +
                                         " is available (use fewer --keys/--sizes or --queries)");
        }
        if (limit_buffer > machine.available_memory_bytes / 2)
            throw UsageError("--limit-buffer " + human_bytes(limit_buffer) +
                             " is more than half the available memory (" + human_bytes(machine.available_memory_bytes) +
                             ")");
    }
    if (plot_path) check_plot_tools();

    // Cold mode's buffer, read through before every timed call: several times the last level.
    std::vector<std::uint64_t> flush;
    if (args.has("cold")) {
        const std::uint64_t bytes = args.value("cold-buffer")
                                        ? parse_bytes(*args.value("cold-buffer"), "--cold-buffer")
                                        : std::max<std::uint64_t>(4 * machine.l3_bytes, std::uint64_t(256) << 20);
        if (bytes < (std::uint64_t(1) << 20)) throw UsageError("--cold-buffer must be at least 1M");
        flush.assign(bytes / 8, 1);  // written once: every page faulted in before any timing
    }
    if (flush.empty())
        std::printf("# batchbloom bench: engines %s; threads %s; best of %llu run(s) per phase; key seed %llu; hash xxh3\n",
                    join_backends(backends).c_str(), join_numbers(thread_counts).c_str(),
                    static_cast<unsigned long long>(repeat), static_cast<unsigned long long>(seed));
    else
        std::printf("# batchbloom bench --cold: engines %s; threads %s; %s read before every timed call; median of the\n"
                    "# %llu run(s) per phase after the first, the first apart ('1st'); key seed %llu; hash xxh3\n",
                    join_backends(backends).c_str(), join_numbers(thread_counts).c_str(),
                    human_bytes(flush.size() * 8).c_str(), static_cast<unsigned long long>(repeat > 1 ? repeat - 1 : 1),
                    static_cast<unsigned long long>(seed));
    std::printf("# machine: %s, %u cores, L2 %s, L3 %s; compiler %s\n", machine.cpu.c_str(), machine.cores,
                machine.l2_bytes ? human_bytes(machine.l2_bytes).c_str() : "?",
                machine.l3_bytes ? human_bytes(machine.l3_bytes).c_str() : "?", machine.compiler.c_str());
    // Before any other timing: what a multi-thread call pays to wake the threads after idle.
    const unsigned most_threads = *std::max_element(thread_counts.begin(), thread_counts.end());
    std::optional<WakeCost> wake;
    if (most_threads > 1) {
        wake = measure_wake_cost(most_threads);
        print_wake_cost(stdout, *wake);
    }
    std::fflush(stdout);

    const LineReadLimit limit = measure_line_read_limit(limit_buffer, static_cast<unsigned>(repeat), seed);
    print_limit_context(stdout, limit);
    std::fflush(stdout);

    std::vector<BenchResult> results;
    std::vector<FilterTypeBenchRow> type_rows;
    std::vector<std::string> problems;
    std::vector<std::string> notes;
    for (std::size_t s = 0; s < sizes.size(); ++s) {
        const std::uint64_t keys = sizes[s];
        const std::uint64_t queries = fixed_queries ? fixed_queries : keys;
        print_size_context(stdout, machine, params[s], keys, queries);
        // The line read rate where this filter lives: a direct probe's limit at this size, on
        // each thread count (its threads reading at once, with the best scheme of one).
        std::vector<double> size_limit(thread_counts.size());
        {
            const LineReader at_size(params[s].bytes(), seed);
            const LineReadRate best = at_size.measure(static_cast<unsigned>(repeat)).best;
            for (std::size_t t = 0; t < thread_counts.size(); ++t) {
                size_limit[t] = thread_counts[t] == 1 ? best.lines_per_s : 0;
                for (std::uint64_t r = 0; thread_counts[t] != 1 && r < repeat; ++r)
                    size_limit[t] = std::max(size_limit[t], at_size.sample(best, thread_counts[t]));
                std::printf("# random 64B line reads over a buffer the size of this filter, %u thread%s: %.1f Mlines/s (%.2f ns/line)\n",
                            thread_counts[t], thread_counts[t] == 1 ? "" : "s", size_limit[t] / 1e6, 1e9 / size_limit[t]);
            }
        }
        std::fflush(stdout);

        const BenchSetup setup{params[s], Hashing{}, static_cast<unsigned>(repeat), flush.empty() ? nullptr : &flush};
        const Workload work = make_workload(keys, queries, seed);
        std::optional<Filter> reference;
        std::optional<BenchResult> first;
        for (std::size_t t = 0; t < thread_counts.size(); ++t) {
            const unsigned threads = thread_counts[t];
            for (const Backend b : backends)
            for (const BatchPath path : paths) {
                BenchRun run = run_backend(work, setup, b, threads, path);
                run.result.size_limit_lines_per_s = size_limit[t];
                const BenchResult& r = run.result;
                const std::string who = r.backend + " (" + std::to_string(threads) + " thread" +
                                        (threads == 1 ? "" : "s") + ", " + r.path + ", " + std::to_string(keys) +
                                        " keys)";
                if (r.false_negatives != 0)
                    problems.push_back(who + ": " + std::to_string(r.false_negatives) +
                                       " inserted keys reported absent (false negatives)");
                if (!reference) {
                    reference = std::move(run.filter);
                    first = r;
                } else {
                    const std::string ref = first->backend + " (" + std::to_string(first->threads) + " thread" +
                                            (first->threads == 1 ? "" : "s") + ")";
                    if (!(*run.filter == *reference))
                        problems.push_back(who + ": filter differs from the one built by " + ref);
                    if (r.absent_hits != first->absent_hits || r.mixed_hits != first->mixed_hits)
                        problems.push_back(who + ": probe answers differ from " + ref + " (" +
                                           std::to_string(r.absent_hits) + " vs " + std::to_string(first->absent_hits) +
                                           " false positives, " + std::to_string(r.mixed_hits) + " vs " +
                                           std::to_string(first->mixed_hits) + " hits in the 50% set)");
                }
                results.push_back(r);
            }
        }
        if (!args.has("blocked-only"))
            for (const auto& c : run_filter_types_bench(work, sizing, static_cast<unsigned>(repeat))) {
                if (c.false_negatives != 0)
                    problems.push_back(c.engine + " (" + std::to_string(keys) + " keys): " +
                                       std::to_string(c.false_negatives) + " false negatives");
                type_rows.push_back(c);
            }
        // Every run of a size gives the same answers, so one FPR check per size: more than six
        // standard deviations (and 10%) away from the model is worth a note, not a failure.
        const double p = first->predicted_fpr, q = static_cast<double>(queries);
        const double sd = std::sqrt(q * p * (1 - p)), diff = std::fabs(static_cast<double>(first->absent_hits) - q * p);
        if (diff > 6 * sd + 3 && diff > 0.1 * q * p)
            notes.push_back(
                strprintf("%llu keys: measured FPR %.3e is %.1f standard deviations from the predicted %.3e",
                          static_cast<unsigned long long>(keys), first->measured_fpr(), diff / sd, p));
    }

    std::printf("# probe/limit = 50%%-hit probe rate / the single-thread limit in the last row; probe/limit at size =\n"
                "# the same over the line read rate of a buffer the size of the filter on the row's threads (above each size's runs)\n");
    print_bench_table(stdout, bench_columns(limit, !flush.empty()), results, &limit);
    print_filter_types_table(stdout, type_rows);
    for (const auto& n : notes) std::printf("# note: %s\n", n.c_str());
    std::fflush(stdout);
    if (!problems.empty()) {
        std::string msg = "benchmark found wrong results:";
        for (const auto& p : problems) msg += "\n  " + p;
        throw std::runtime_error(msg);
    }

    if (json_path || plot_path) {
        const std::string text = bench_json(machine, limit, results, type_rows, {static_cast<unsigned>(repeat), seed});
        std::optional<TempFile> temp;
        if (!json_path) temp.emplace();
        const std::filesystem::path& jp = json_path ? *json_path : temp->path();
        batchbloom::write_file(jp, [&](std::ostream& out) { out << text; });
        if (json_path) std::printf("# results written to %s\n", json_path->c_str());
        if (plot_path) {
            std::fflush(stdout);
            run_plot_script(jp, *plot_path);
            std::printf("# plot written to %s\n", plot_path->c_str());
        }
    }
    return 0;
}

}  // namespace batchbloom::cli
