#include "batchbloom/join_plan.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <mutex>
#include <tuple>
#include <type_traits>
#include <vector>

#include "engine/machine.hpp"
#include "filters/join_engine.hpp"

namespace batchbloom {

namespace {

// Enough rows per timed pass that a timer's granularity does not count, few enough that every
// pass is a fraction of a millisecond.
constexpr std::size_t timed_rows = 2048;
// The fastest of five passes each: on a shared VM another guest thrashing the last-level cache
// for a moment slowed three back-to-back passes of a table probe alike (78 ns a miss against
// 15-17 in other processes), and the decision built on it flipped for that process.
constexpr int passes = 5;
// compute_costs: timed passes after the first (the median ratio's counts) and the keys it times
// at most, the table's and the filter's passes alike. A join's plan must cost a few percent of
// the smallest join it decides: on a Zen 3 VM (TPC-H SF 1) this takes 45-50 us for string keys
// and for the scalar filter's integers, 25 us for AVX2's. The filter's passes once took the
// keys four times over, so that its call's fixed cost (65-100 ns) weighed per row as little
// as in a host's batches: that cost 40 us more per plan, a tenth of a millisecond in a string
// join at 1% matching rows, and the filter cost it left out (0.1-0.4 ns a row, 2-14%) rarely
// counts, as a filter probe weighs the larger of this and the model's.
constexpr int compute_passes = 5;
constexpr std::size_t compute_keys = 256;
// Out of every cache but the largest last-level ones; touching a larger table costs more than
// the measurement it serves.
constexpr std::uint64_t max_model_bytes = std::uint64_t(32) << 20;
constexpr std::size_t default_string_bytes = 24;  // a typical name or identifier
constexpr std::size_t max_string_class = 256;

/// The modelled string length for keys of `bytes` on average: a multiple of 16 (the string
/// hash takes 16-byte blocks) up to max_string_class.
std::size_t string_class(std::size_t bytes) {
    return std::clamp<std::size_t>((std::max<std::size_t>(bytes, 1) + 15) / 16 * 16, 16, max_string_class);
}

std::uint64_t size_class(std::uint64_t bytes) {
    return std::min(std::bit_ceil(std::max<std::uint64_t>(bytes, 64)), max_model_bytes);
}

std::uint64_t splitmix(std::uint64_t& s) {
    std::uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

using Clock = std::chrono::steady_clock;

double ns_per_row(Clock::time_point t) {
    return std::chrono::duration<double, std::nano>(Clock::now() - t).count() / double(timed_rows);
}

/// Batches of distinct keys, so that no pass finds its lines cached by the one before: `passes`
/// of probes (absent from the filter), then 1 + `passes` of inserts (the first untimed).
/// String keys are views into `arena`.
constexpr std::size_t key_batch_count = 2 * passes + 1;
template <class Key>
std::vector<std::vector<Key>> key_batches(std::uint64_t seed, std::string& arena, std::size_t string_bytes) {
    std::vector<std::vector<Key>> batches(key_batch_count);
    if constexpr (std::is_same_v<Key, std::string_view>) arena.resize(key_batch_count * timed_rows * string_bytes, 'k');
    std::size_t at = 0;
    for (auto& b : batches) {
        for (std::size_t i = 0; i < timed_rows; ++i, ++at) {
            const std::uint64_t x = splitmix(seed);
            if constexpr (std::is_same_v<Key, std::string_view>) {
                char* p = arena.data() + at * string_bytes;
                std::memcpy(p, &x, sizeof x);
                b.emplace_back(p, string_bytes);
            } else {
                b.push_back(x);
            }
        }
    }
    return batches;
}

/// The CPU engine whose probes a join filter on `b` costs (join_engine.hpp), resolved.
Backend cpu_engine(Backend b) { return resolve_backend(detail::join_host_engine(b)); }

template <class Key>
JoinCosts measure(std::uint64_t table_bytes, std::uint64_t filter_bytes, std::size_t string_bytes, Backend engine) {
    std::string arena;
    const auto batches = key_batches<Key>(0x6a6f696e, arena, string_bytes);
    const Hashing hashing;
    JoinCosts c;
    c.filter_ns = c.table_miss_ns = c.insert_ns = std::numeric_limits<double>::infinity();

    // Key and row slots, every one written (a table's memory is resident, unlike fresh pages
    // that all map the zero page); the probe keys are not among them.
    const std::uint64_t slots = table_bytes / 16;
    std::vector<std::uint64_t> table(2 * slots);
    for (std::uint64_t i = 0; i < table.size(); ++i) table[i] = i | 1;
    std::uint64_t sink = 0;
    Filter f(Params::make(Shape::word512, filter_bytes / 64, 8), hashing, engine);
    f.set_threads(1);
    // The fastest of several inserts after an untimed one, as for the probes: a process's first
    // small insert (its code and the filter's lines cold) took 2-3 times what a build of many
    // keys pays per key (TPC-H SF 1, Xeon VM, AVX-512: 3.8-6.7 ns against 2), and the plan
    // skipped builds that ran the join 1.1-1.3x faster.
    f.insert(std::span<const Key>(batches[passes]));
    Clock::time_point t;
    for (int p = 0; p < passes; ++p) {
        t = Clock::now();
        f.insert(std::span<const Key>(batches[passes + 1 + p]));
        c.insert_ns = std::min(c.insert_ns, ns_per_row(t));
    }
    JoinFilterOptions o;
    o.threads = 1;
    o.backend = engine;
    const JoinFilter join(std::move(f), timed_rows, o);
    std::vector<std::uint32_t> sel(timed_rows);
    // A filter that L2 holds is read back into the cache before each of its passes: a host's
    // batch of tens of thousands of rows finds it there after its first few hundred, where the
    // pass of 2048 rows right after the table's paid to bring it back (AVX-512, a 32 KiB
    // filter: 3.3 ns a row against 2.85 read back; AVX2 3.65 against 3.5). A larger filter
    // misses the cache in a host's batches too.
    const std::span<const std::byte> filter_lines = join.filter().bytes();
    const bool warm_filter = filter_lines.size() <= detail::machine().l2_bytes;
    // The table's and the filter's passes in alternation, so that each cost's fastest pass is
    // taken from moments spread over the whole measurement.
    for (int p = 0; p < passes; ++p) {
        t = Clock::now();
        for (const Key& k : batches[p]) {
            const std::uint64_t h = hash_key(hashing, k);
            const std::uint64_t slot = h & (slots - 1);
            sink += table[2 * slot] == h ? table[2 * slot + 1] : 0;
        }
        c.table_miss_ns = std::min(c.table_miss_ns, ns_per_row(t));
        if (warm_filter)
            for (std::size_t at = 0; at < filter_lines.size(); at += 64) sink += std::to_integer<unsigned>(filter_lines[at]);
        t = Clock::now();
        sink += join.select_chunk(std::span<const Key>(batches[p]), sel);
        c.filter_ns = std::min(c.filter_ns, ns_per_row(t));
    }
    // Keeps the table probes from being optimised away.
    if (sink == std::numeric_limits<std::uint64_t>::max()) c.table_miss_ns += 1e-9;
    return c;
}

template <class Key>
ComputeCosts timed_in_alternation(std::span<const Key> keys, const std::function<void(std::span<const Key>)>& probe_table,
                                  Backend backend) {
    if (keys.empty()) return {};
    const Backend engine = cpu_engine(backend);
    keys = keys.first(std::min(keys.size(), compute_keys));
    // 4 KiB, in L1: the keys' own work, not the memory of a filter of the build side's size
    // (the model's part). Empty, as the keys are rows the table lacks: the filter drops them.
    Filter f(Params::make(Shape::word512, 64, 8), Hashing{}, engine);
    f.set_threads(1);
    JoinFilterOptions o;
    o.threads = 1;
    o.backend = engine;
    const JoinFilter join(std::move(f), keys.size(), o);
    std::vector<std::uint32_t> sel(keys.size());
    const double n = double(keys.size());
    // The fastest pass of each, and the filter timed on its second call of a pass: a pass takes
    // 1-3 microseconds, and on a Xeon VM (TPC-H strings, AVX-512 engine) a filter pass right after
    // the table's took 2.4 us against 1.2 in a third of the passes or more, no page fault or
    // context switch in them. The pass of the median ratio then put the filter at 14-15 ns a key
    // in 10 to 16 of 21 joins, against 5.5 in the others and in the join's 64K-row batches, and
    // skipped a filter that wins 1.2x. The passes come within some 20 us: one moment of the
    // machine's speed.
    ComputeCosts fastest{std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity()};
    std::size_t sink = 0;
    for (int pass = 0; pass <= compute_passes; ++pass) {
        sink += join.select_chunk(keys, sel);
        auto t = Clock::now();
        sink += join.select_chunk(keys, sel);
        const double filter = std::chrono::duration<double, std::nano>(Clock::now() - t).count() / n;
        t = Clock::now();
        probe_table(keys);
        const double table = std::chrono::duration<double, std::nano>(Clock::now() - t).count() / n;
        if (pass == 0) continue;  // code and keys brought in
        fastest.filter_ns = std::min(fastest.filter_ns, filter);
        fastest.table_ns = std::min(fastest.table_ns, table);
    }
    if (sink == std::numeric_limits<std::size_t>::max()) fastest.filter_ns = 0;  // keeps the probes
    return fastest;
}

bool finite_non_negative(double x) { return std::isfinite(x) && x >= 0; }

void check_cost(double x, const char* name) {
    if (!finite_non_negative(x))
        throw Error(std::string("join plan: ") + name + " must be a finite number >= 0, got " + std::to_string(x));
}

const JoinPlanOptions& checked(const JoinPlanOptions& o) {
    check_cost(o.min_gain, "min_gain");
    check_cost(o.table_miss_ns, "table_miss_ns");
    check_cost(o.table_compute_ns, "table_compute_ns");
    check_cost(o.filter_compute_ns, "filter_compute_ns");
    check_cost(o.table_row_ns, "table_row_ns");
    check_cost(o.trial_low, "trial_low");
    check_cost(o.trial_high, "trial_high");
    check_cost(o.cheap_build, "cheap_build");
    if (o.trial_batches == 0) throw Error("join plan: trial_batches must be at least 1");
    if (o.compare_every == 1)
        throw Error("join plan: compare_every must be 0 (no comparison after the first batches) or at least 2");
    if (o.repeated_rows && !(*o.repeated_rows >= 0 && *o.repeated_rows <= 1))
        throw Error("join plan: repeated_rows must be in [0, 1], got " + std::to_string(*o.repeated_rows));
    if (o.costs) {
        check_cost(o.costs->filter_ns, "costs.filter_ns");
        check_cost(o.costs->table_miss_ns, "costs.table_miss_ns");
        check_cost(o.costs->insert_ns, "costs.insert_ns");
    }
    return o;
}

/// The mean length of a sample's string keys (the model's string length); 0 for integers.
template <class Key>
std::size_t mean_bytes(std::span<const Key> sample) {
    if constexpr (std::is_integral_v<Key>) {
        return 0;
    } else {
        if (sample.empty()) return default_string_bytes;
        std::uint64_t bytes = 0;
        for (const Key& k : sample) bytes += k.size();
        return static_cast<std::size_t>(bytes / sample.size());
    }
}

/// The costs the plan weighs: the host's, or the model's for keys like the host's (strings of
/// o.string_bytes, else of `sample_bytes`).
JoinCosts costs_for(const JoinPlanOptions& o, std::uint64_t build_keys, std::uint64_t filter_bytes, bool strings,
                    std::size_t sample_bytes, Backend backend) {
    const std::size_t string_bytes = o.string_bytes > 0 ? o.string_bytes : sample_bytes;
    JoinCosts c = o.costs ? *o.costs : measured_join_costs(build_keys, filter_bytes, strings, string_bytes, backend);
    if (o.table_miss_ns > 0)
        c.table_miss_ns = o.table_miss_ns;
    else
        c.table_miss_ns = std::max(c.table_miss_ns, o.table_compute_ns);
    c.filter_ns = std::max(c.filter_ns, o.filter_compute_ns);
    return c;
}

/// A table probe with its line in cache: the host's compute, or where the host gave none the
/// model's, whose table has no compute of its own (its hash is the filter's): about a filter
/// probe.
double cached_probe_ns(const JoinCosts& c, const JoinPlanOptions& o) {
    return o.table_compute_ns > 0 ? std::min(o.table_compute_ns, c.table_miss_ns) : std::min(c.filter_ns, c.table_miss_ns);
}

/// What dropping a probe row saves: a table miss, or where the row repeats the previous row's
/// key (a fraction `repeated` of rows) only the table's compute, its line being in cache.
double saved_per_row(const JoinCosts& c, const JoinPlanOptions& o, double repeated) {
    return (1 - repeated) * c.table_miss_ns + repeated * cached_probe_ns(c, o);
}

/// What a filter probe costs a row: the model's, or where the row repeats the previous row's key
/// and the host timed the filter on its keys in cache (filter_compute_ns), that, the key's block
/// being in cache as the table's line is. The model probes distinct keys at random blocks: TPC-H
/// SF 10, integers at 10% matching rows (Xeon VM, AVX-512), it put a probe of the 2.2 MiB filter
/// at 7.8 ns, and with three of four rows repeats the plan never built a filter that ran the
/// join 1.7x faster.
double filter_per_row(const JoinCosts& c, const JoinPlanOptions& o, double repeated) {
    const double cached = o.filter_compute_ns > 0 ? o.filter_compute_ns : c.filter_ns;  // c's is at least that
    return (1 - repeated) * c.filter_ns + repeated * cached;
}

/// The best a trial may find: where the host gave no work of its own, the gain were no row's
/// line cached (`every_row_misses`), as what a repeat saves is then the model's guess (the
/// integer join at 50% gained 1.1-1.25x from its filter on one VM and lost 4-17% on another);
/// where it timed its work on rows in their order (compute_costs), repeats included, the
/// estimate itself. Hoping dropped repeats miss had the plan build filters its trial then
/// passed by: TPC-H SF 1, 2 threads, a scalar filter at 3-5 times a cached integer probe (Zen
/// 5 VM, ints at 50%: built in 19 of 21 joins, used in none, 0.88x of the hash join), and on a
/// Zen 3 VM the scalar string filter at 10% matching rows, which costs what the table's work
/// on a row does (built in 19-20 of 21 joins where the model's miss put the hope at 1.18,
/// 0.87-0.91x).
double hoped_gain(const JoinPlanOptions& o, double gain, double every_row_misses) {
    return o.table_compute_ns > 0 ? gain : std::max(gain, every_row_misses);
}

template <class Key>
double repeated_in(std::span<const Key> rows) noexcept {
    if (rows.size() < 2) return 0;
    std::size_t same = 0;
    for (std::size_t i = 1; i < rows.size(); ++i) same += rows[i] == rows[i - 1];
    return double(same) / double(rows.size() - 1);
}

/// What a dropped row may save at best, from the host's time per row (options' table_row_ns):
/// half of it. A row's time includes the work of rows that match, which no filter saves: with
/// half the rows matching (TPC-H SF 1, Emerald Rapids VM, one thread), each row the filter
/// dropped saved 0.7 of a row's time on integer keys (15 of 21.5 ns), and on string keys less
/// than the filter's probe (the filter ran the join at 0.88x, rows of 39 ns); hoping for the
/// whole row's time there built filters on 17-18 of 21 string joins that a trial then passed by,
/// each build 5% of a join of 18 ms.
double row_saving_hoped(const JoinPlanOptions& o) { return 0.5 * o.table_row_ns; }

/// The gain a trial may find, cheap builds counted (options' cheap_build): a build of `build_keys`
/// that costs at most o.cheap_build of the join's probe work (`probe_rows` rows, each at the
/// host's time per row, or at what a dropped row saves where that is more), where the best case
/// is a clear win (at least trial_high), is worth a comparison on the join's own batches whatever
/// the estimate. The best case: every dropped row a table miss (`every_row_misses`), or where
/// the host timed its rows, what row_saving_hoped says (`row_best`) instead: the model's miss
/// moves with the moment it was timed (in a small string table 12-31 ns between processes, where
/// the host's rows took 14-27), and capped only at the whole row it still built filters that a
/// trial then passed by (TPC-H SF 1, Zen 3 VM: strings at 50% matching rows, AVX2, in 1-13 of 41
/// joins; the scalar filter at 10%; down to 0.93x). A best case that only meets the band is not:
/// the scalar string filter at 10% matching rows (TPC-H SF 1, Zen 3 VM; best case 1.04-1.1, build
/// 2.4% of the probe work) was built in 7-21 of 21 joins, kept by the trial, and ran at
/// 0.91-0.95x of the hash join. No rows known, no rule.
double tried_gain(const JoinPlanOptions& o, const JoinCosts& c, std::uint64_t build_keys, std::uint64_t probe_rows,
                  double repeated, double gain, double every_row_misses, double row_best) {
    const double best = o.table_row_ns > 0 ? row_best : every_row_misses;
    const double work = double(probe_rows) * std::max(saved_per_row(c, o, repeated), o.table_row_ns);
    const bool cheap = probe_rows > 0 && best >= o.trial_high && double(build_keys) * c.insert_ns <= o.cheap_build * work;
    return cheap ? std::max(gain, best) : hoped_gain(o, gain, best);
}

/// Saved over paid, where paying nothing for a saving is an infinite gain and saving nothing
/// none.
double ratio(double saved, double paid) {
    if (saved <= 0) return 0;
    return paid > 0 ? saved / paid : std::numeric_limits<double>::infinity();
}

template <class Key>
constexpr bool string_key = !std::is_integral_v<Key>;

/// Whether gains from `low` to `high` meet the trial band [trial_low, trial_high).
bool meets_trial_band(const JoinPlanOptions& o, double low, double high) {
    return o.trial_low < o.trial_high && low < o.trial_high && high >= o.trial_low;
}

}  // namespace

double repeated_fraction(std::span<const std::uint64_t> rows) noexcept { return repeated_in(rows); }
double repeated_fraction(std::span<const std::uint32_t> rows) noexcept { return repeated_in(rows); }
double repeated_fraction(std::span<const std::string_view> rows) noexcept { return repeated_in(rows); }
double repeated_fraction(std::span<const std::string> rows) noexcept { return repeated_in(rows); }

ComputeCosts compute_costs(std::span<const std::uint64_t> k, const std::function<void(std::span<const std::uint64_t>)>& p, Backend b) {
    return timed_in_alternation(k, p, b);
}
ComputeCosts compute_costs(std::span<const std::uint32_t> k, const std::function<void(std::span<const std::uint32_t>)>& p, Backend b) {
    return timed_in_alternation(k, p, b);
}
ComputeCosts compute_costs(std::span<const std::string_view> k,
                           const std::function<void(std::span<const std::string_view>)>& p, Backend b) {
    return timed_in_alternation(k, p, b);
}
ComputeCosts compute_costs(std::span<const std::string> k, const std::function<void(std::span<const std::string>)>& p, Backend b) {
    return timed_in_alternation(k, p, b);
}

/// A class's costs are measured at up to three moments, calls at least this far apart, and
/// each cost is the median of its measurements: one moment slowed by another guest no longer
/// decides for the whole process (TPC-H SF 1, one process of three measured a filter probe at
/// 12.6 ns against 3.4-3.8 in the others, and skipped the filter in all 21 joins at 50%, where
/// it wins 1.1x). Calls of one join (its plan and its build check) come within it.
constexpr auto remeasure_after = std::chrono::milliseconds(50);
constexpr std::size_t measurements = 3;

double median(std::vector<double> v) {  // of a non-empty v
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

JoinCosts median_costs(const std::vector<JoinCosts>& taken) {
    auto middle = [&](double JoinCosts::*field) {
        std::vector<double> v;
        for (const JoinCosts& c : taken) v.push_back(c.*field);
        return median(std::move(v));
    };
    return {middle(&JoinCosts::filter_ns), middle(&JoinCosts::table_miss_ns), middle(&JoinCosts::insert_ns)};
}

JoinCosts measured_join_costs(std::uint64_t build_keys, std::uint64_t filter_bytes, bool string_keys,
                              std::size_t string_bytes, Backend backend) {
    const Backend engine = cpu_engine(backend);
    // A table of 16-byte slots at most half full.
    const std::uint64_t table = size_class(std::max<std::uint64_t>(build_keys, 1) * 32);
    const std::uint64_t filter = size_class(filter_bytes);
    struct Measured {
        std::vector<JoinCosts> taken;
        Clock::time_point last;
        JoinCosts costs;
    };
    static std::mutex mutex;
    static std::map<std::tuple<Backend, std::size_t, std::uint64_t, std::uint64_t>, Measured> cache;
    // Measured under the lock: callers racing for one class measure it once, and no two
    // measurements share the caches.
    const std::lock_guard lock(mutex);
    const std::size_t length = string_keys ? string_class(string_bytes) : 0;  // 0: integers
    Measured& m = cache[std::make_tuple(engine, length, table, filter)];
    const auto now = Clock::now();
    if (!m.taken.empty() && (m.taken.size() >= measurements || now - m.last < remeasure_after)) return m.costs;
    m.taken.push_back(string_keys ? measure<std::string_view>(table, filter, length, engine)
                                  : measure<std::uint64_t>(table, filter, 0, engine));
    m.last = Clock::now();
    m.costs = median_costs(m.taken);
    return m.costs;
}

/// A single pair whose ways differ by this factor decides without waiting for trial_batches
/// pairs. Batches of one way moved by up to 1.8x on a shared VM (TPC-H SF 1, 64K-row batches),
/// while at TPC-H's 1% matching rows a passed-through batch took 2.5 times a filtered one, and
/// each such batch cost 1.6% of the join.
constexpr double decisive = 2.0;
/// After the first pairs, the way behind gets one batch in max(compare_every, (r - 1) * 64),
/// r its time per row over the way ahead's: about 1/64 of the join's time spent on it, however
/// far behind it is (one batch in eight of a way 2.5 times slower cost a fifth of the join).
constexpr double explore_share = 1.0 / 64;
/// Where the host gave probe_rows, the way behind gets at most this share of the join's batches
/// in all (and the first pairs fewer than trial_batches where that share holds fewer): on a short
/// join the trial's first pairs were its cost (TPC-H SF 1, strings at 10% matching rows, 13
/// batches: three passed through of the first six, 0.25 of the 0.36 ms that the plan lost to
/// filtering every batch, Xeon VM).
constexpr double explore_budget = 1.0 / 8;

/// Both ways compared over the join (see join_plan.hpp). Batches go the way ahead except every
/// gap-th, which goes the way behind: every other batch until trial_batches pairs are in (or
/// one pair is decisive), then a gap that grows with how far behind that way is. Each report
/// of the way behind is paired with the faster of the way ahead's two latest reports, which ran
/// at the same moment (with several host threads, beside it) and so at the same warmth of the
/// host's table: a trial over the first batches alone let the passed-through batches pay the
/// misses that warm a cold table while the filtered ones rode on them (TPC-H SF 10, strings at
/// 50%: the trial kept the filter in 16 of 21 joins, which ran at 0.89x of passing every batch
/// through). The lead changes where the median of the last trial_batches pairs' ratios (or one
/// decisive pair) says the way behind took less per row.
struct JoinPlan::Trial {
    explicit Trial(bool filter_leads) : lead(filter_leads ? 1 : 0) {}
    std::atomic<int> lead;              // 0: pass through; 1: filter
    std::atomic<bool> comparing{true};  // false: no reports came, or compare_every == 0 and decided
    std::mutex mutex;
    std::uint64_t issued = 0;       // batches routed
    std::uint64_t last_behind = 0;  // the turn the way behind last had
    std::uint64_t gap = 2;          // turns from one batch of the way behind to the next
    double latest[2][2] = {};       // each way's two latest reports, ns per row
    unsigned reported[2] = {0, 0};  // of each way, up to 2
    std::vector<double> behind;     // the way behind's reports not yet paired
    std::vector<double> ratios;     // behind over ahead, the last trial_batches pairs since the last change
    bool paired = false;            // a pair was ever formed
    // The exploration budget (explore_budget), set at the first batch whose size is known:
    unsigned pairs = 0;                                            // first pairs; 0: not yet set
    std::uint64_t budget = std::numeric_limits<std::uint64_t>::max();  // batches of the way behind
    std::uint64_t behind_issued = 0;
    bool decided = false;  // the first pairs are in
    void size(const JoinPlanOptions& o, std::size_t batch_rows) {
        if (pairs != 0 || batch_rows == 0) return;
        pairs = o.trial_batches;
        if (o.probe_rows == 0) return;
        const std::uint64_t batches = (o.probe_rows + batch_rows - 1) / batch_rows;
        const auto share = static_cast<std::uint64_t>(double(batches) * explore_budget);
        pairs = static_cast<unsigned>(std::clamp<std::uint64_t>(share, 1, o.trial_batches));
        budget = std::max<std::uint64_t>(pairs, share);
    }
};

bool JoinPlan::trying() const noexcept { return trial_ && trial_->comparing.load(std::memory_order_acquire); }

bool JoinPlan::filters() const noexcept { return trial_ ? trial_->lead.load(std::memory_order_acquire) == 1 : filters_; }

bool JoinPlan::route_batch() const noexcept { return route(0); }

bool JoinPlan::route(std::size_t batch_rows) const noexcept {
    if (!trial_) return filters_;
    Trial& t = *trial_;
    if (!t.comparing.load(std::memory_order_acquire)) return t.lead.load(std::memory_order_acquire) == 1;
    const std::lock_guard lock(t.mutex);
    t.size(options_, batch_rows);
    const bool lead = t.lead.load(std::memory_order_relaxed) == 1;
    const std::uint64_t i = t.issued++;
    // A host that reports nothing gets the estimate's answer after twice the first batches.
    if (i >= 4 * std::uint64_t(options_.trial_batches) && !t.paired) {
        t.comparing.store(false, std::memory_order_release);
        return lead;
    }
    if (t.behind_issued >= t.budget) return lead;  // spent: report() ends the trial at its last pair
    if (i != 0 && i < t.last_behind + t.gap) return lead;
    if (!t.decided && t.pairs != 0 && t.behind_issued >= t.pairs) return lead;  // the first pairs' reports are due
    t.last_behind = i;
    ++t.behind_issued;
    return !lead;
}

void JoinPlan::report(const JoinBatch& batch, double ns) const {
    if (!trying() || batch.batch_rows == 0 || !(ns >= 0) || !std::isfinite(ns)) return;
    Trial& t = *trial_;
    const std::lock_guard lock(t.mutex);
    if (!t.comparing.load(std::memory_order_relaxed)) return;
    const int way = batch.filtered ? 1 : 0, lead = t.lead.load(std::memory_order_relaxed);
    t.size(options_, batch.batch_rows);
    const double per_row = ns / double(batch.batch_rows);
    t.latest[way][1] = t.latest[way][0];
    t.latest[way][0] = per_row;
    t.reported[way] = std::min(t.reported[way] + 1, 2u);
    if (way != lead) t.behind.push_back(per_row);
    if (t.reported[lead] == 0 || t.behind.empty()) return;  // no pair yet
    const double ahead = t.reported[lead] == 1 ? t.latest[lead][0] : std::min(t.latest[lead][0], t.latest[lead][1]);
    const std::size_t n = t.pairs;
    for (const double b : t.behind) t.ratios.push_back(ahead > 0 ? b / ahead : b > 0 ? decisive : 1.0);
    if (t.ratios.size() > n) t.ratios.erase(t.ratios.begin(), t.ratios.end() - std::ptrdiff_t(n));
    t.paired = true;
    t.behind.clear();
    double r = t.ratios.back();  // the way behind over the way ahead
    if (t.ratios.size() == n) {
        r = median(t.ratios);
    } else if (r < decisive && r > 1 / decisive) {
        return;  // every other batch until the pairs are in
    }
    t.decided = true;
    if (r < 1) {
        t.lead.store(1 - lead, std::memory_order_release);
        t.ratios.clear();
        r = 1 / r;
    }
    if (options_.compare_every == 0) {  // without later comparisons the first pairs decide for good
        t.comparing.store(false, std::memory_order_release);
        return;
    }
    t.gap = std::max<std::uint64_t>(options_.compare_every,
                                    static_cast<std::uint64_t>(std::min((r - 1) / explore_share, 1e9)));
    if (t.behind_issued >= t.budget) t.comparing.store(false, std::memory_order_release);
}

template <class Key>
JoinPlan::JoinPlan(const JoinFilter& filter, std::span<const Key> sample, const JoinPlanOptions& options, int)
    : filter_(&filter), options_(checked(options)) {
    if (options_.mode != JoinPlanMode::automatic && sample.empty()) {
        filters_ = options_.mode == JoinPlanMode::always;
        return;
    }
    if (sample.empty())
        throw Error("join plan: the probe-side sample is empty; give it the first probe batch's keys "
                    "(or force the mode: always / never)");
    std::vector<std::uint32_t> sel(sample.size());
    const std::size_t passed = filter.select_chunk(sample, sel);  // throws for 2^32 rows or more
    pass_fraction_ = double(passed) / double(sample.size());
    costs_ = costs_for(options_, filter.sized_for(), filter.filter().params().bytes(), string_key<Key>,
                       mean_bytes(sample), filter.options().backend);
    repeated_ = options_.repeated_rows ? *options_.repeated_rows : repeated_in(sample);
    const double filter_ns = filter_per_row(costs_, options_, repeated_);
    const double dropped = 1 - pass_fraction_;
    gain_ = ratio(dropped * saved_per_row(costs_, options_, repeated_), filter_ns);
    const double every_row_misses = ratio(dropped * costs_.table_miss_ns, filter_ns);
    const double hoped = tried_gain(options_, costs_, filter.sized_for(), options_.probe_rows, repeated_, gain_,
                                    every_row_misses, ratio(dropped * row_saving_hoped(options_), filter_ns));
    filters_ = options_.mode == JoinPlanMode::always ||
               (options_.mode == JoinPlanMode::automatic && gain_ >= options_.min_gain);
    if (options_.mode == JoinPlanMode::automatic && meets_trial_band(options_, gain_, hoped))
        trial_ = std::make_shared<Trial>(filters_);
}

JoinPlan::JoinPlan(const JoinFilter& f, std::span<const std::uint64_t> s, const JoinPlanOptions& o) : JoinPlan(f, s, o, 0) {}
JoinPlan::JoinPlan(const JoinFilter& f, std::span<const std::uint32_t> s, const JoinPlanOptions& o) : JoinPlan(f, s, o, 0) {}
JoinPlan::JoinPlan(const JoinFilter& f, std::span<const std::string_view> s, const JoinPlanOptions& o)
    : JoinPlan(f, s, o, 0) {}
JoinPlan::JoinPlan(const JoinFilter& f, std::span<const std::string> s, const JoinPlanOptions& o) : JoinPlan(f, s, o, 0) {}

template <class Key>
JoinBatch JoinPlan::probe(std::span<const Key> keys, std::span<std::uint32_t> sel) const {
    if (keys.size() > std::numeric_limits<std::uint32_t>::max())
        throw Error("join plan: a probe batch holds at most 2^32 - 1 rows, got " + std::to_string(keys.size()));
    if (sel.size() < keys.size())
        throw Error("join plan: the selection vector has " + std::to_string(sel.size()) + " entries for a batch of " +
                    std::to_string(keys.size()) + " rows");
    if (!route(keys.size())) return {false, keys.size(), keys.size()};
    return {true, filter_->select_chunk(keys, sel), keys.size()};
}

JoinBatch JoinPlan::probe_batch(std::span<const std::uint64_t> keys, std::span<std::uint32_t> sel) const {
    return probe(keys, sel);
}
JoinBatch JoinPlan::probe_batch(std::span<const std::uint32_t> keys, std::span<std::uint32_t> sel) const {
    return probe(keys, sel);
}
JoinBatch JoinPlan::probe_batch(std::span<const std::string_view> keys, std::span<std::uint32_t> sel) const {
    return probe(keys, sel);
}
JoinBatch JoinPlan::probe_batch(std::span<const std::string> keys, std::span<std::uint32_t> sel) const {
    return probe(keys, sel);
}

bool JoinPlan::filter_may_pay(std::uint64_t build_keys, std::uint64_t filter_bytes, bool string_keys,
                              std::uint64_t probe_rows, double matched_fraction, const JoinPlanOptions& options,
                              Backend backend) {
    checked(options);
    if (!(matched_fraction >= 0 && matched_fraction <= 1))
        throw Error("join plan: matched_fraction must be in [0, 1], got " + std::to_string(matched_fraction));
    if (options.mode != JoinPlanMode::automatic) return options.mode == JoinPlanMode::always;
    const JoinCosts c = weighed_costs(build_keys, filter_bytes, string_keys, options, backend);
    const double repeated = options.repeated_rows.value_or(0);
    const double rows = double(probe_rows);
    const double paid = rows * filter_per_row(c, options, repeated) + double(build_keys) * c.insert_ns;
    const double dropped = rows * (1 - matched_fraction);
    const double gain = ratio(dropped * saved_per_row(c, options, repeated), paid);
    const double every_row_misses = ratio(dropped * c.table_miss_ns, paid);
    const double hoped = tried_gain(options, c, build_keys, probe_rows, repeated, gain, every_row_misses,
                                    ratio(dropped * row_saving_hoped(options), paid));
    return gain >= options.min_gain || meets_trial_band(options, gain, hoped);
}

JoinCosts JoinPlan::weighed_costs(std::uint64_t build_keys, std::uint64_t filter_bytes, bool string_keys,
                                  const JoinPlanOptions& options, Backend backend) {
    return costs_for(checked(options), build_keys, filter_bytes, string_keys, default_string_bytes, backend);
}

}  // namespace batchbloom
