#include "batch/path_choice.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <tuple>

#include "batchbloom/error.hpp"
#include "core/environment.hpp"
#include "engine/machine.hpp"
#include "batch/threads.hpp"

namespace batchbloom::detail {
namespace {

/// Below this many keys a call is not worth partitioning (its buckets would hold a few keys
/// per region) nor measuring (the clock's resolution and the first misses dominate).
constexpr std::size_t min_partitioned_keys = std::size_t(1) << 17;

/// Partitioned is taken only when it measured at least this much faster: it holds scratch
/// memory that direct does not. Small, because missing a faster path costs as much as taking
/// a slower one.
constexpr double partitioned_margin = 1.02;

/// Measuring calls a class decides from: two that agree on the faster path, else a third,
/// whose median decides. On a shared VM one call's measurement varies by tens of percent, so
/// one call alone picked the slower path wherever the paths were within ~20% of each other;
/// a third call is needed mostly where they are close, where it costs little either way.
constexpr unsigned max_measurements = 3;

constexpr unsigned op_classes = 2, engine_classes = 3, shape_classes = 3, thread_classes = 4, size_classes = 64,
                   density_classes = 32;
constexpr std::size_t class_count =
    std::size_t(op_classes) * engine_classes * shape_classes * thread_classes * size_classes * density_classes;

/// Per class: 0 not measured; 1 + BatchPath::direct / partitioned otherwise.
std::atomic<std::uint8_t> choices[class_count];

/// What a class's measuring calls did: each pair's time per key on both paths, and the keys
/// they ran on each path (slices, rounds, and the rest of a call that ended undecided).
struct Record {
    double direct[max_measurements] = {}, partitioned[max_measurements] = {};
    unsigned pairs = 0, calls = 0;
    double direct_keys = 0, partitioned_keys = 0, scratch_s = 0;
    unsigned decided_calls = 0, reopened = 0;  // calls since a decision; decisions measured again
};

/// A decided class is measured again every this many of its calls, at most max_reopens times
/// a process: a verdict that one noisy measurement got wrong is not kept for the process, and
/// a machine's state that changed (another guest on the cache, memory handed back) is seen. A
/// new verdict needs the same agreement as the first (two pairs, else the median of three).
constexpr unsigned reopen_every = 16, max_reopens = 4;
std::mutex records_mutex;
std::map<PathClass, Record> records;  // by class, from its first measurement on

static_assert(max_measurements == 3);
/// The median of v[0, n), 1 <= n <= 3.
double median(const double* v, unsigned n) {
    if (n == 1) return v[0];
    if (n == 2) return (v[0] + v[1]) / 2;
    return std::max(std::min(v[0], v[1]), std::min(std::max(v[0], v[1]), v[2]));
}

bool partitioned_wins(double ratio) { return ratio * partitioned_margin < 1; }

BatchPath parse_env(std::string_view s) {
    if (s.empty() || s == "automatic" || s == "auto") return BatchPath::automatic;
    if (s == "direct") return BatchPath::direct;
    if (s == "partitioned") return BatchPath::partitioned;
    throw Error("BATCHBLOOM_BATCH_PATH must be direct, partitioned or automatic, got '" + std::string(s) + "'");
}

BatchPath env_path() {
    const auto& v = environment().batch_path;
    return v ? parse_env(*v) : BatchPath::automatic;
}

}  // namespace

PathClass path_class(const FilterRef& f, Backend engine, std::size_t n, unsigned threads, Op op) {
    const std::uint64_t bytes = f.blocks * layout::info(f.shape).block_bytes;
    const std::uint64_t lines = std::max<std::uint64_t>(bytes / 64, 1);
    // Keys per line, within a factor of two, from 1/64 up: floor(log2(64 n / lines)).
    const std::uint64_t scaled = std::max<std::uint64_t>(64 * std::uint64_t(n) / lines, 1);
    const auto log2_within = [](std::uint64_t v, unsigned classes) {
        return std::min<unsigned>(static_cast<unsigned>(std::bit_width(v)) - 1, classes - 1);
    };
    // The CPU engines (scalar, avx2, avx512) and the shapes (split256, word512, line512) are 1 to 3.
    const auto numbered = [](auto v, unsigned classes) { return std::clamp<unsigned>(unsigned(v), 1, classes) - 1; };
    std::size_t c = static_cast<unsigned>(op);
    c = c * engine_classes + numbered(engine, engine_classes);
    c = c * shape_classes + numbered(f.shape, shape_classes);
    c = c * thread_classes + log2_within(threads, thread_classes);
    c = c * size_classes + log2_within(bytes, size_classes);
    return c * density_classes + log2_within(scaled, density_classes);
}

bool private_copies_pay(const FilterRef& f, unsigned t, std::size_t n) {
    const std::uint64_t bytes = f.blocks * layout::info(f.shape).block_bytes;
    return t > 1 && t * bytes <= std::max(machine().l2_bytes, machine().l3_bytes) && copies_affordable(t, bytes, n);
}

BatchPath choose_path(const FilterRef& f, Backend engine, std::size_t n, unsigned threads, BatchPath path, Op op,
                      bool call) {
    if (path != BatchPath::automatic) return path;
    if (const BatchPath e = env_path(); e != BatchPath::automatic) return e;
    const std::uint64_t bytes = f.blocks * layout::info(f.shape).block_bytes;
    if (bytes <= machine().l2_bytes || n < min_partitioned_keys) return BatchPath::direct;
    if (op == Op::insert && private_copies_pay(f, threads, n)) return BatchPath::direct;
    const PathClass k = path_class(f, engine, n, threads, op);
    const std::uint8_t c = choices[k].load(std::memory_order_relaxed);
    if (c == 0 || (call && measure_again(k))) return BatchPath::automatic;
    return static_cast<BatchPath>(c - 1);
}

std::size_t measuring_slice(std::size_t n) {
    // Enough keys for a steady direct rate (tens of thousands of misses), a small share of a
    // large call, and few enough that a slice costs a few milliseconds beyond the faster path
    // out of cache (512K keys at ~10 ns/key more than partitioned: ~5 ms a pair, where 4M
    // keys cost ~45): a slice is direct work whether or not direct is the faster path. A
    // multiple of 64 so that bitmap words are not split.
    return std::clamp<std::size_t>(n / 16, std::size_t(1) << 16, std::size_t(1) << 19) / 64 * 64;
}

BatchPath record_path_times(PathClass c, double direct_s_per_key, double partitioned_s_per_key) {
    const std::lock_guard lock(records_mutex);
    if (const std::uint8_t done = choices[c].load(std::memory_order_relaxed); done != 0)
        return static_cast<BatchPath>(done - 1);  // decided by a concurrent call
    Record& p = records[c];
    p.direct[p.pairs] = direct_s_per_key;
    p.partitioned[p.pairs] = partitioned_s_per_key;
    ++p.pairs;
    double ratio[max_measurements];  // partitioned / direct, per pair
    for (unsigned i = 0; i < p.pairs; ++i) ratio[i] = p.partitioned[i] / std::max(p.direct[i], 1e-15);
    bool partitioned = false;
    if (p.pairs == 2 && partitioned_wins(ratio[0]) == partitioned_wins(ratio[1])) {
        partitioned = partitioned_wins(ratio[0]);
    } else if (p.pairs == max_measurements) {
        partitioned = partitioned_wins(median(ratio, p.pairs));
    } else {
        return BatchPath::automatic;  // measure again
    }
    const BatchPath best = partitioned ? BatchPath::partitioned : BatchPath::direct;
    choices[c].store(static_cast<std::uint8_t>(best) + 1, std::memory_order_relaxed);
    return best;
}

double partitioned_floor(Backend engine, const FilterRef& f, unsigned threads, Op op,
                         const std::function<double()>& measure) {
    static std::mutex floors_mutex;
    static std::map<std::tuple<Backend, Shape, unsigned, unsigned, Op>, double> floors;
    const auto key = std::make_tuple(engine, f.shape, f.k, threads, op);
    const std::lock_guard lock(floors_mutex);  // concurrent first calls measure once, not at once
    const auto it = floors.find(key);
    if (it != floors.end()) return it->second;
    return floors[key] = measure();
}

bool measure_again(PathClass c) {
    const std::lock_guard lock(records_mutex);
    const auto it = records.find(c);
    if (it == records.end() || choices[c].load(std::memory_order_relaxed) == 0) return false;  // decided by a rule
    Record& r = it->second;
    if (++r.decided_calls < reopen_every || r.reopened >= max_reopens) return false;
    r.decided_calls = 0;
    ++r.reopened;
    r.pairs = 0;
    choices[c].store(0, std::memory_order_relaxed);
    return true;
}

void record_direct_below_floor(PathClass c, double direct_s_per_key, double floor_s_per_key) {
    const std::lock_guard lock(records_mutex);
    if (choices[c].load(std::memory_order_relaxed) != 0) return;  // decided by a concurrent call
    Record& p = records[c];
    p.direct[0] = direct_s_per_key;
    p.partitioned[0] = floor_s_per_key;
    p.pairs = 1;
    choices[c].store(static_cast<std::uint8_t>(BatchPath::direct) + 1, std::memory_order_relaxed);
}

void record_measuring_call(PathClass c, std::size_t direct_keys, std::size_t partitioned_keys, double scratch_s) {
    const std::lock_guard lock(records_mutex);
    Record& p = records[c];
    ++p.calls;
    p.direct_keys += double(direct_keys);
    p.partitioned_keys += double(partitioned_keys);
    p.scratch_s += scratch_s;
}

BatchPathMeasurement path_measurement(PathClass c) {
    BatchPathMeasurement m;
    const std::lock_guard lock(records_mutex);
    const auto it = records.find(c);
    if (it == records.end() || it->second.pairs == 0) return m;
    const Record& p = it->second;
    // What the measurements decided, whatever BATCHBLOOM_BATCH_PATH says.
    const std::uint8_t decided = choices[c].load(std::memory_order_relaxed);
    m.chosen = decided == 0 ? BatchPath::automatic : static_cast<BatchPath>(decided - 1);
    m.calls = p.calls;
    m.pairs = p.pairs;
    const double direct = median(p.direct, p.pairs), partitioned = median(p.partitioned, p.pairs);
    m.direct_ns = direct * 1e9;
    m.partitioned_ns = partitioned * 1e9;
    // The keys run on the path that lost, at the difference of the two rates; while undecided,
    // against the faster so far. Scratch grown only to measure is a cost when direct wins (it
    // is given back); when partitioned wins, every process taking that path grows it once.
    const bool partitioned_chosen =
        m.chosen == BatchPath::automatic ? partitioned < direct : m.chosen == BatchPath::partitioned;
    const double lost_s = partitioned_chosen ? p.direct_keys * (direct - partitioned) : p.partitioned_keys * (partitioned - direct);
    m.cost_ms = (lost_s + (partitioned_chosen ? 0 : p.scratch_s)) * 1e3;
    return m;
}

void forget_path_times() {
    const std::lock_guard lock(records_mutex);
    records.clear();
    for (auto& c : choices) c.store(0, std::memory_order_relaxed);
}

}  // namespace batchbloom::detail
