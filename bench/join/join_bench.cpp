// Bloom-join benchmark on TPC-H columns written by gen_data.py: an equi-join
//   SELECT count(*), sum(build payload), sum(probe payload) FROM probe JOIN build ON key
// timed (a) as a hash join on an Abseil flat_hash_map, and (b) as the same hash join behind a
// batchbloom JoinFilter on each CPU engine (and CUDA where there is a GPU), for every
// selectivity of the build side in the manifest, on integer keys (lineitem x orders) and on
// string keys (partsupp x part, on p_name).
//
//   batchbloom_join_bench DATA_DIR [--reps N] [--threads T] [--fpr P] [--json FILE]
//
// Both plans run the probe side in chunks of 64K rows on T threads, the way an engine's
// pipeline does: (a) probes the hash table with every row; (b) runs the chunk through the
// filter into a selection vector and probes the table with the survivors only. Each engine's
// plan (b) first asks the library's join plan (batchbloom::JoinPlan, planned_bloom_join) whether
// its filter pays and runs (a) where it does not; "<engine> always" runs (b) whatever it pays.
// End-to-end time = building the hash table + the filter (b only) + the probe; median of N runs,
// taken in rounds of every plan, each plan's run beside a hash join's (the ratio of the pair).
#include <absl/container/flat_hash_map.h>
#include <malloc.h>

#include <batchbloom/backend.hpp>
#include <batchbloom/join.hpp>
#include <batchbloom/join_plan.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <limits>
#include <numeric>
#include <optional>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace bb = batchbloom;

namespace {

constexpr std::size_t chunk_rows = std::size_t(1) << 16;
constexpr std::uint32_t no_row = std::numeric_limits<std::uint32_t>::max();

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot open " + path + " (run bench/join/run.sh to generate the data)");
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::vector<std::uint64_t> read_u64(const std::string& path) {
    const std::string bytes = read_file(path);
    if (bytes.size() % 8 != 0) throw std::runtime_error(path + ": size is not a multiple of 8");
    std::vector<std::uint64_t> v(bytes.size() / 8);
    for (std::size_t i = 0; i < v.size(); ++i) {
        std::uint64_t x = 0;
        for (unsigned b = 0; b < 8; ++b) x |= std::uint64_t(static_cast<unsigned char>(bytes[8 * i + b])) << (8 * b);
        v[i] = x;
    }
    return v;
}

/// One side of the join: keys and one payload column. String keys view `arena`.
template <class Key>
struct Side {
    std::string arena;
    std::vector<Key> keys;
    std::vector<std::uint64_t> payload;
};

Side<std::uint64_t> read_int_side(const std::string& keys, const std::string& payload) {
    return {{}, read_u64(keys), read_u64(payload)};
}

Side<std::string_view> read_str_side(const std::string& lines, const std::string& payload) {
    Side<std::string_view> s{read_file(lines), {}, read_u64(payload)};
    for (std::size_t begin = 0; begin < s.arena.size();) {
        const std::size_t end = s.arena.find('\n', begin);
        s.keys.push_back(std::string_view(s.arena).substr(begin, end - begin));
        begin = end + 1;
    }
    if (s.keys.size() != s.payload.size()) throw std::runtime_error(lines + ": row count differs from " + payload);
    return s;
}

struct Result {
    std::uint64_t rows = 0, sum_build = 0, sum_probe = 0;  // the query's answer
    std::uint64_t matched = 0;                               // probe rows with at least one match
    std::uint64_t survivors = 0;                             // probe rows that went on to the table
    // Of the rows the filter saw (all, some of a plan's trial, or none): how many, how many it
    // passed, how many of those matched. False positives are counted among these rows only.
    std::uint64_t filter_rows = 0, filter_passed = 0, filter_matched = 0;
    void add(const Result& o) {
        rows += o.rows, sum_build += o.sum_build, sum_probe += o.sum_probe, matched += o.matched,
            survivors += o.survivors, filter_rows += o.filter_rows, filter_passed += o.filter_passed,
            filter_matched += o.filter_matched;
    }
    bool same_answer(const Result& o) const {
        return rows == o.rows && sum_build == o.sum_build && sum_probe == o.sum_probe && matched == o.matched;
    }
};

/// Key -> first build row, duplicates chained through `next` (build keys need not be unique).
template <class Key>
class HashTable {
public:
    // Not inlined into any plan: every plan builds its table with the same machine code (the
    // same loop inlined into two plans built a fifth apart, as probe_rows below says).
    [[gnu::noinline]] explicit HashTable(const Side<Key>& build) : build_(build), next_(build.keys.size(), no_row) {
        first_.reserve(build.keys.size());
        for (std::size_t i = 0; i < build.keys.size(); ++i) {
            const auto [it, fresh] = first_.try_emplace(build.keys[i], static_cast<std::uint32_t>(i));
            if (!fresh) next_[i] = std::exchange(it->second, static_cast<std::uint32_t>(i));
        }
    }
    /// Whether the table has the key (the plan's compute_costs times it).
    bool has(const Key& key) const { return first_.find(key) != first_.end(); }
    /// Brings in the lines a lookup of the key reads first (its group of the table).
    void prefetch(const Key& key) const { first_.prefetch(key); }
    /// Distinct build keys: what an engine sizes its join filter with.
    std::size_t distinct() const { return first_.size(); }
    void probe(const Key& key, std::uint64_t probe_payload, Result& r) const {
        const auto it = first_.find(key);
        if (it == first_.end()) return;
        ++r.matched;
        for (std::uint32_t b = it->second; b != no_row; b = next_[b]) {
            ++r.rows;
            r.sum_build += build_.payload[b];
            r.sum_probe += probe_payload;
        }
    }

private:
    const Side<Key>& build_;
    absl::flat_hash_map<Key, std::uint32_t> first_;
    std::vector<std::uint32_t> next_;
};

/// Runs chunk_fn(begin, n, result) over probe rows [0, rows) in 64K-row chunks on `threads`
/// threads.
template <class Fn>
Result over_chunks(std::size_t rows, unsigned threads, Fn&& chunk_fn) {
    Result total;
    const auto chunks = static_cast<std::ptrdiff_t>((rows + chunk_rows - 1) / chunk_rows);
#pragma omp parallel num_threads(threads)
    {
        Result mine;
#pragma omp for schedule(dynamic, 1)
        for (std::ptrdiff_t c = 0; c < chunks; ++c) {
            const std::size_t begin = static_cast<std::size_t>(c) * chunk_rows;
            chunk_fn(begin, std::min(chunk_rows, rows - begin), mine);
        }
#pragma omp critical
        total.add(mine);
    }
    return total;
}

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

/// What the plan decided from: the fraction of the host's sample of probe rows that matched its
/// table, the fraction of probe rows repeating the row before's key, and the library's costs
/// (JoinCosts, ns per row on one thread).
struct Costs {
    double matched = 0, repeated = 0, miss_ns = 0, filter_ns = 0, insert_ns = 0;
    double compute_ns = 0;  // the host table's own work per miss, its lines in cache (compute_costs)
    double row_ns = 0;      // the host's time per row through its table, its first rows timed
};

struct Run {
    Result result;
    double total_ms, build_ms;  // end to end; of which filter + table build
    double predicted_fpr = 0;
    bool filtered = true;       // the filter ran on the probe side
    std::optional<Costs> sample;  // what the planned join decided from
    double plan_ms = 0;           // of total_ms, the plan's: its sample, costs and decisions
    bool built = false;           // the filter was built (a planned join may skip it)
};

/// Probe rows [begin, begin + n) straight into the table: the hash join's probe, and the
/// bloom+hash plan's where its filter does not pay. One function for all, not
/// inlined into any: the same machine code for the same work (the same loop inlined in two
/// places measured up to a fifth apart).
template <class Key>
[[gnu::noinline]] void probe_rows(const HashTable<Key>& table, const Side<Key>& probe, std::size_t begin, std::size_t n,
                                  Result& out) {
    out.survivors += n;  // every row goes on to the table
    for (std::size_t i = begin; i < begin + n; ++i) table.probe(probe.keys[i], probe.payload[i], out);
}

/// Every probe row straight into the table, in chunks on `threads` threads.
template <class Key>
Result probe_directly(const HashTable<Key>& table, const Side<Key>& probe, unsigned threads) {
    return over_chunks(probe.keys.size(), threads, [&](std::size_t begin, std::size_t n, Result& out) {
        probe_rows(table, probe, begin, n, out);
    });
}

template <class Key>
Run hash_join(const Side<Key>& build, const Side<Key>& probe, unsigned threads) {
    const auto t0 = Clock::now();
    const HashTable<Key> table(build);
    const double build_ms = ms_since(t0);
    const Result r = probe_directly(table, probe, threads);
    return {r, ms_since(t0), build_ms, 0, false, {}};
}

/// The filter options of a build side of `distinct` keys.
bb::JoinFilterOptions filter_options(std::size_t distinct, unsigned threads, bb::Backend backend, double fpr) {
    bb::JoinFilterOptions o;
    o.fpr = fpr;
    o.expected_keys = std::max<std::size_t>(distinct, 1);
    o.backend = backend;
    o.threads = threads;
    return o;
}

/// One chunk of a bloom+hash plan: the rows the plan selects probe the table, or every row where
/// the plan passes the chunk through; while the plan tries both ways, the chunk's time goes
/// back to it (JoinPlan::report).
template <class Key>
void plan_then_probe(const bb::JoinPlan& plan, const HashTable<Key>& table, const Side<Key>& probe, std::size_t begin,
                     std::size_t n, Result& out) {
    thread_local std::vector<std::uint32_t> sel(chunk_rows);
    const bool timed = plan.trying();
    const auto t0 = timed ? Clock::now() : Clock::time_point{};
    const bb::JoinBatch batch = plan.probe_batch(std::span<const Key>(probe.keys).subspan(begin, n), sel);
    if (!batch.filtered) {
        probe_rows(table, probe, begin, n, out);
    } else {
        const std::uint64_t matched = out.matched;
        out.survivors += batch.rows;
        for (std::size_t j = 0; j < batch.rows; ++j)
            table.probe(probe.keys[begin + sel[j]], probe.payload[begin + sel[j]], out);
        out.filter_rows += n;
        out.filter_passed += batch.rows;
        out.filter_matched += out.matched - matched;
    }
    if (timed) plan.report(batch, ms_since(t0) * 1e6);
}

/// Probe rows the host samples, in two parts. Rows a stride apart over the whole column (a column
/// sorted by key would fool a sample of its head): its own table tells how many of them match
/// (filter_may_pay), the filter how many it passes (JoinPlan); 256 rows tell a pass fraction to
/// about 3%. And short runs of rows taken across the column, in their order, of which the rows
/// the table lacks are those on which the host times its work per miss (compute_costs): a key's
/// repeats find the table's lines in cache and its branches trained, as they will in the join,
/// where rows a stride apart each cost a distinct probe's work (TPC-H SF 1, strings at 50%,
/// AVX2: 14.7 ns a row on those, while each row the filter dropped saved 7.7). Runs of 4: of
/// shorter runs, fewer rows can repeat the one before (in runs of 2, half the share in the join).
constexpr std::size_t stride_rows = 256, sample_runs = 64, run_rows = 4;

template <class Key>
struct Sample {
    std::vector<Key> rows;    // a stride apart
    std::vector<Key> absent;  // the runs' rows the table lacks, in their order
    double matched = 0;       // the fraction of `rows` the table has
};

template <class Key>
Sample<Key> sample_of(const std::vector<Key>& keys, const HashTable<Key>& table) {
    Sample<Key> s;
    if (keys.empty()) return s;
    const std::size_t step = std::max<std::size_t>(keys.size() / stride_rows, 1);
    for (std::size_t i = 0; i < keys.size() && s.rows.size() < stride_rows; i += step) s.rows.push_back(keys[i]);
    const std::size_t run_stride = std::max(keys.size() / sample_runs, run_rows);
    std::vector<Key> in_runs;
    for (std::size_t at = 0; at < keys.size(); at += run_stride)
        in_runs.insert(in_runs.end(), keys.begin() + std::ptrdiff_t(at),
                       keys.begin() + std::ptrdiff_t(std::min(at + run_rows, keys.size())));
    // Each lookup is a chain of cache misses (the key's bytes, then the table's group): one
    // by one, the sample's took 60-170 us (TPC-H SF 1, Zen 3 VM), a tenth of a millisecond of a
    // string join of 7, each row's misses waiting on the one before. The lines first, for
    // every row at once.
    for (const std::vector<Key>* v : {&s.rows, &in_runs}) {
        if constexpr (!std::is_integral_v<Key>)
            for (const Key& k : *v) __builtin_prefetch(k.data());
        for (std::size_t i = 0; i < v->size(); ++i)
            if (i == 0 || (*v)[i] != (*v)[i - 1]) table.prefetch((*v)[i]);
    }
    std::size_t absent = 0;
    for (const Key& k : s.rows) absent += !table.has(k);
    s.matched = 1 - double(absent) / double(s.rows.size());
    for (const Key& k : in_runs)
        if (!table.has(k)) s.absent.push_back(k);
    return s;
}

/// The bloom+hash plan that decides whether its filter pays, with the library's plan: before the
/// build, JoinPlan::filter_may_pay from the matched fraction of the sample in the host's table
/// and the host's own work per miss (compute_costs), on its estimate alone; where that says no,
/// the join's first chunk goes straight to the table, timed, and filter_may_pay asks again with
/// the host's time per row (JoinPlanOptions::table_row_ns), which no model of the table sees,
/// now trying a cheap build (cheap_build). After a build, a JoinPlan from the sample filters
/// every chunk left or passes it through (or tries both).
template <class Key>
Run planned_bloom_join(const Side<Key>& build, const Side<Key>& probe, unsigned threads, bb::Backend backend, double fpr) {
    const auto t0 = Clock::now();
    const HashTable<Key> table(build);
    double build_ms = ms_since(t0);
    const auto plan_start = Clock::now();
    const Sample<Key> sample = sample_of(probe.keys, table);
    // What the host knows of its own table: its work per miss (Abseil's string hash costs half
    // again the filter's), timed with the filter's on those rows, in alternation.
    // With costs measured so, the estimate is within about a sixth of the real gain: the filter
    // is built where the estimate says it pays, build included (a trial cannot give a build
    // back), and once built the plan tries both ways only where its estimate is within that.
    bb::JoinPlanOptions po;
    std::size_t found = 0;
    const bb::ComputeCosts work = bb::compute_costs(std::span<const Key>(sample.absent), [&](std::span<const Key> keys) {
        for (const Key& k : keys) found += table.has(k);
    }, backend);
    if (found != 0) throw std::logic_error("the table found a key it lacks");
    po.table_compute_ns = work.table_ns;
    po.filter_compute_ns = work.filter_ns;
    po.trial_low = 0.9;
    po.trial_high = 1.25;
    po.probe_rows = probe.keys.size();  // a cheap build is tried where its best case pays
    // The sample, taken at a stride, shows no runs of a key: count them on the first rows (a
    // key's repeats find the table's line in cache). 2,048 rows tell the fraction to about 1%
    // in 10-15 us of strings (the runs' 192 pairs to 3%, which moved the integer join at 10%
    // matching rows across the line between building and not).
    po.repeated_rows = bb::repeated_fraction(
        std::span<const Key>(probe.keys).first(std::min<std::size_t>(2048, probe.keys.size())));
    const bb::JoinFilterOptions o = filter_options(table.distinct(), threads, backend, fpr);
    const bool strings = !std::is_integral_v<Key>;
    // The plan's cost model takes the filter's size to a power of two: an estimate at 1.5 bits
    // per key per halving of the FPR does, where sizing it (the FPR model's search) would cost
    // a third of a millisecond again.
    const auto filter_bytes = static_cast<std::uint64_t>(double(o.expected_keys) * -1.5 * std::log2(fpr) / 8) + 64;
    if constexpr (!std::is_integral_v<Key>) {  // the model's string length: the sample's mean
        for (const Key& k : sample.rows) po.string_bytes += k.size();
        po.string_bytes = std::max<std::size_t>(po.string_bytes / std::max<std::size_t>(sample.rows.size(), 1), 1);
    }
    const bb::JoinCosts weighed = bb::JoinPlan::weighed_costs(table.distinct(), filter_bytes, strings, po, backend);
    Costs c{sample.rows.empty() ? 1.0 : sample.matched, *po.repeated_rows,
            weighed.table_miss_ns, weighed.filter_ns, weighed.insert_ns, work.table_ns};
    // First on the estimate alone; a cheap build is hoped for (cheap_build) only once the host
    // has timed its own rows, which cap what a dropped row can save.
    const auto may_pay = [&](bool hope) {
        bb::JoinPlanOptions build_if_it_pays = po;
        build_if_it_pays.trial_low = 1;
        if (!hope) build_if_it_pays.cheap_build = 0;
        return bb::JoinPlan::filter_may_pay(table.distinct(), filter_bytes, strings, po.probe_rows, c.matched,
                                            build_if_it_pays, backend);
    };
    bool build_it = may_pay(false);
    double plan_ms = ms_since(plan_start);
    std::optional<bb::JoinFilter> filter;
    std::optional<bb::JoinPlan> plan;
    const auto build_and_plan = [&] {
        const auto t = Clock::now();
        filter.emplace(std::span<const Key>(build.keys), o);
        build_ms += ms_since(t);
        const auto plan_made = Clock::now();
        plan.emplace(*filter, std::span<const Key>(sample.rows), po);
        plan_ms += ms_since(plan_made);
    };
    if (build_it || probe.keys.empty()) {
        if (!build_it) return {probe_directly(table, probe, threads), ms_since(t0), build_ms, 0, false, c, plan_ms};
        build_and_plan();
        const Result r = over_chunks(probe.keys.size(), threads, [&](std::size_t begin, std::size_t n, Result& out) {
            plan_then_probe(*plan, table, probe, begin, n, out);
        });
        return {r, ms_since(t0), build_ms, filter->predicted_fpr(), plan->filters(), c, plan_ms, true};
    }
    // The join's first chunk goes straight to the table, timed: work the join does anyway, and
    // the host's time per row under the join's own load. Its thread then asks again with that
    // time (JoinPlanOptions::table_row_ns) and builds where it now pays, while the other
    // threads pass their chunks through: no thread waits on the decision (as a first pass of a
    // chunk a thread before it did, at a barrier behind a worker waking up late).
    enum : int { undecided, pass_through, planned };
    std::atomic<int> state{undecided};
    const Result r = over_chunks(probe.keys.size(), threads, [&](std::size_t begin, std::size_t n, Result& out) {
        const int now = state.load(std::memory_order_acquire);
        if (now == planned) return plan_then_probe(*plan, table, probe, begin, n, out);
        if (begin != 0) return probe_rows(table, probe, begin, n, out);
        const auto at = Clock::now();
        probe_rows(table, probe, begin, n, out);
        const auto replan = Clock::now();
        po.table_row_ns = std::chrono::duration<double, std::nano>(replan - at).count() / double(n);
        po.probe_rows = probe.keys.size() - n;
        c.row_ns = po.table_row_ns;
        build_it = may_pay(true);
        plan_ms += ms_since(replan);
        if (build_it) build_and_plan();
        state.store(build_it ? planned : pass_through, std::memory_order_release);
    });
    if (!build_it) return {r, ms_since(t0), build_ms, 0, false, c, plan_ms};
    return {r, ms_since(t0), build_ms, filter->predicted_fpr(), plan->filters(), c, plan_ms, true};
}

template <class Key>
Run bloom_join(const Side<Key>& build, const Side<Key>& probe, unsigned threads, bb::Backend backend, double fpr) {
    const auto t0 = Clock::now();
    const HashTable<Key> table(build);
    const bb::JoinFilter filter(std::span<const Key>(build.keys), filter_options(table.distinct(), threads, backend, fpr));
    const double build_ms = ms_since(t0);
    bb::JoinPlanOptions always;
    always.mode = bb::JoinPlanMode::always;
    const bb::JoinPlan plan(filter, std::span<const Key>(), always);
    const Result r = over_chunks(probe.keys.size(), threads, [&](std::size_t begin, std::size_t n, Result& out) {
        plan_then_probe(plan, table, probe, begin, n, out);
    });
    return {r, ms_since(t0), build_ms, filter.predicted_fpr(), true, {}, 0, true};
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

struct Config {
    std::string dir;
    unsigned reps = 5, threads = 0;
    double fpr = 0.01;
    std::string json;
};

/// Times every plan on one build/probe pair; prints a table row per plan and appends JSON.
template <class Key>
void measure(const Config& cfg, const char* join, const std::string& selectivity, const Side<Key>& build,
             const Side<Key>& probe, std::ostringstream& json) {
    struct Plan {
        std::string name;
        std::optional<bb::Backend> backend;
        bool adaptive = true;  // decides from the data whether the filter pays
    };
    // Each engine's plan decides whether its filter pays; "always" runs the best engine's filter
    // over every probe row whatever it pays, as the plan did before it decided.
    std::vector<Plan> plans = {{"hash join", std::nullopt}};
    const auto engines = bb::available_backends();
    for (const auto& e : engines) plans.push_back({"bloom+hash " + e, bb::parse_backend(e)});
    plans.push_back({"bloom+hash " + engines.front() + " always", bb::parse_backend(engines.front()), false});

    // Rounds of every plan, so that a noisy minute on the shared machine hits all plans, each
    // round in its own order (a fixed seed's shuffle): a plan's place in the round (what ran just
    // before it, where the allocator puts its table) moves its time by up to a fifth on small joins.
    // Each plan runs beside a hash join of its own, before or after it by turns, and its ratio to
    // the hash join is taken from that pair: the machine's speed drifts within a round (TPC-H SF 1,
    // Emerald Rapids VM: a round's ratio of a plan to a hash join up to five runs away moved by
    // 8-19% (one standard deviation) from round to round, where the plan ran the hash join's own
    // work plus 0.1 ms; 21 rounds then put such rows at 0.93-0.95x).
    std::vector<std::vector<double>> totals(plans.size()), builds(plans.size()), plan_mss(plans.size()),
        beside(plans.size());  // beside[p]: the hash join run next to each of p's runs
    std::vector<unsigned> filters_built(plans.size()), filtered_runs(plans.size());
    std::vector<Run> runs(plans.size());
    std::vector<std::size_t> order(plans.size() - 1);
    std::iota(order.begin(), order.end(), std::size_t{1});
    std::mt19937 shuffle(20261128);
    const auto run_plan = [&](std::size_t p) {
        const Plan& plan = plans[p];
        runs[p] = !plan.backend   ? hash_join(build, probe, cfg.threads)
                  : plan.adaptive ? planned_bloom_join(build, probe, cfg.threads, *plan.backend, cfg.fpr)
                                  : bloom_join(build, probe, cfg.threads, *plan.backend, cfg.fpr);
        totals[p].push_back(runs[p].total_ms);
        filters_built[p] += runs[p].built;
        filtered_runs[p] += runs[p].filtered;
        builds[p].push_back(runs[p].build_ms);
        plan_mss[p].push_back(runs[p].plan_ms);
    };
    for (unsigned rep = 0; rep < cfg.reps; ++rep) {
        std::shuffle(order.begin(), order.end(), shuffle);
        for (std::size_t i = 0; i < order.size(); ++i) {
            const bool hash_first = (rep + i) % 2 == 0;
            if (hash_first) run_plan(0);
            run_plan(order[i]);
            if (!hash_first) run_plan(0);
            beside[order[i]].push_back(totals[0].back());
        }
    }
    std::optional<Result> reference;
    for (std::size_t p = 0; p < plans.size(); ++p) {
        const Plan& plan = plans[p];
        const Run& run = runs[p];
        const std::vector<double>& total = totals[p];
        const std::vector<double>& build_ms = builds[p];
        const Result& r = run.result;
        if (!reference) reference = r;
        if (!r.same_answer(*reference)) throw std::runtime_error(plan.name + " gave a different join result");
        const std::uint64_t rows = probe.keys.size();
        const std::uint64_t survivors = r.survivors;
        const double fp = double(r.filter_passed - r.filter_matched);
        const double fp_pred = run.predicted_fpr * double(r.filter_rows - r.filter_matched);
        std::printf("%-4s %3s%% %-20s build %8zu probe %9llu survive %9llu matched %9llu FP %8.0f (pred %8.0f) "
                    "build %7.2f ms total %8.2f ms\n",
                    join, selectivity.c_str(), plan.name.c_str(), build.keys.size(), (unsigned long long)rows,
                    (unsigned long long)survivors, (unsigned long long)r.matched, fp, fp_pred, median(build_ms),
                    median(total));
        std::fflush(stdout);
        json << (json.tellp() > 1 ? ",\n" : "\n") << "  {\"join\": \"" << join << "\", \"selectivity\": " << selectivity
             << ", \"plan\": \"" << plan.name << "\", \"filtered\": " << (run.filtered ? "true" : "false")
             << ", \"filter_built_runs\": " << filters_built[p] << ", \"filtered_runs\": " << filtered_runs[p]
             << ", \"build_rows\": " << build.keys.size() << ", \"probe_rows\": " << rows
             << ", \"survivors\": " << survivors << ", \"matched_rows\": " << r.matched << ", \"false_positives\": " << fp
             << ", \"false_positives_predicted\": " << fp_pred << ", \"build_ms\": " << median(build_ms)
             << ", \"total_ms\": " << median(total) << ", \"total_ms_runs\": [";
        for (std::size_t i = 0; i < total.size(); ++i) json << (i ? ", " : "") << total[i];
        json << "]";
        if (p != 0) {
            json << ", \"hash_join_ms_runs\": [";
            for (std::size_t i = 0; i < beside[p].size(); ++i) json << (i ? ", " : "") << beside[p][i];
            json << "]";
        }
        if (run.sample)
            json << ", \"plan_ms\": " << median(plan_mss[p]) << ", \"sample\": {\"matched\": " << run.sample->matched
                 << ", \"repeated_rows\": " << run.sample->repeated << ", \"miss_ns\": " << run.sample->miss_ns
                 << ", \"filter_ns\": " << run.sample->filter_ns << ", \"insert_ns\": " << run.sample->insert_ns
                 << ", \"table_compute_ns\": " << run.sample->compute_ns << ", \"table_row_ns\": " << run.sample->row_ns
                 << "}";
        json << ", \"result\": {\"count\": " << r.rows << ", \"sum_build\": " << r.sum_build
             << ", \"sum_probe\": " << r.sum_probe << "}}";
    }
}

Config parse(int argc, char** argv) {
    if (argc < 2) throw std::invalid_argument("usage: batchbloom_join_bench DATA_DIR [--reps N] [--threads T] [--fpr P] [--json FILE]");
    Config c;
    c.dir = argv[1];
    for (int i = 2; i < argc; i += 2) {
        const std::string opt = argv[i];
        if (i + 1 >= argc) throw std::invalid_argument(opt + " needs a value");
        const std::string v = argv[i + 1];
        if (opt == "--reps")
            c.reps = static_cast<unsigned>(std::stoul(v));
        else if (opt == "--threads")
            c.threads = static_cast<unsigned>(std::stoul(v));
        else if (opt == "--fpr")
            c.fpr = std::stod(v);
        else if (opt == "--json")
            c.json = v;
        else
            throw std::invalid_argument("unknown option " + opt);
    }
    if (c.reps == 0) throw std::invalid_argument("--reps must be at least 1");
#ifdef _OPENMP
    if (c.threads == 0) c.threads = static_cast<unsigned>(omp_get_max_threads());
#else
    c.threads = 1;
#endif
    return c;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        // Every run allocates its tables afresh: freed memory stays with the process, so that a
        // run reuses warm pages rather than faulting in ones the allocator gave back (the system
        // time of a run of 21 rounds halved, 0.35 -> 0.18 s).
        mallopt(M_MMAP_THRESHOLD, 1 << 30);
        mallopt(M_TRIM_THRESHOLD, 1 << 30);
        const Config cfg = parse(argc, argv);
        std::printf("# %u threads, %u runs per plan (median), filter target FPR %g\n", cfg.threads, cfg.reps, cfg.fpr);
        std::ostringstream json;
        json << "[";
        const std::string d = cfg.dir + "/";
        const auto probe = read_int_side(d + "probe_orderkey.u64", d + "probe_quantity.u64");
        for (const char* s : {"1", "10", "50"}) {
            const std::string p = d + "build_" + s;
            measure(cfg, "int", s, read_int_side(p + "_orderkey.u64", p + "_custkey.u64"), probe, json);
        }
        const auto sprobe = read_str_side(d + "sprobe_name.txt", d + "sprobe_availqty.u64");
        for (const char* s : {"1", "10", "50"}) {
            const std::string p = d + "sbuild_" + s;
            measure(cfg, "str", s, read_str_side(p + "_name.txt", p + "_size.u64"), sprobe, json);
        }
        json << "\n]\n";
        if (!cfg.json.empty()) {
            std::ofstream out(cfg.json);
            out << json.str();
            if (!out) throw std::runtime_error("cannot write " + cfg.json);
        }
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "batchbloom_join_bench: %s\n", e.what());
        return 1;
    }
}
