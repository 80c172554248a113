#pragma once
// The join plan: whether a JoinFilter pays in front of a hash join, and the per-batch call that
// applies the answer.
//
// A filter in front of a hash join saves a hash-table probe for every probe row it drops and
// costs a filter probe for every row. It pays where most probe rows have no match and a table
// probe that misses costs more than a filter probe (a table of the build side far out of cache,
// a filter in cache); where most rows match, it only adds work (0.85-0.88x of the plain hash
// join at 50% matching rows on TPC-H, docs/which-path.md). The plan decides, before the
// join's first batch, from:
//   - a cost model of this machine (JoinCosts): a filter probe's and a cache-missing table
//     probe's time per row, measured for each size class and key kind at up to three moments
//     of the process (measured_join_costs: a few milliseconds each, then cached), or given by the host,
//     which knows its own hash table's cost better than any model. The model's keys are 8-byte
//     integers, or strings of the sample's mean length (longer strings hash slower). A host can
//     add what the model cannot know: its own table's work per miss (its hash may be slower than
//     the filter's), timed with the filter's on the same keys in alternation (compute_costs),
//     so that both see the machine in the same state (on a shared VM a process's first
//     milliseconds run up to half again slower or faster than the next); each cost is then the
//     larger of the model's and the measured work (the work and the memory access overlap);
//   - a sample of the probe side (the first batch, or rows taken from across the column): the
//     fraction p of it that the filter passes;
//   - the fraction r of probe rows whose key is the previous row's (a column clustered by key:
//     TPC-H's lineitem holds an order's lines side by side, r = 0.75): such a row finds the
//     table's line it needs in cache, so dropping it saves only the table's compute (hashing,
//     compares), not a miss. Counted on the sample's adjacent rows unless the host gives it
//     (JoinPlanOptions::repeated_rows; a sample taken at a stride shows no runs).
//   A dropped row saves (1 - r) * table_miss_ns + r * (the table's compute), and a repeat's
//   filter probe finds its block in cache too: a row costs the filter (1 - r) * filter_ns + r *
//   (the filter's work timed in cache, filter_compute_ns, where the host gave it). The filter
//   pays by gain = (1 - p) * the saving / the filter's cost; the plan filters where gain >= min_gain. Where the
//   host gives no work of its own (table_compute_ns), what a repeat saves is the model's guess
//   and depends on more than its line (on one VM a join of lineitem at 50% matching rows lost
//   5-15% to its filter, on another it gained 10-25%), so the gain lies somewhere between that
//   and the gain where every dropped row misses; where that span meets the trial band (below),
//   the plan tries both ways. A host that times its work on probe rows in their order, repeats
//   included (compute_costs), has measured what a repeat costs it: its estimate stands alone.
// The filter's build is not in the gain: it is paid before the plan exists. A host that wants
// to skip the build where the filter cannot pay estimates the matched fraction with its own
// table and asks filter_may_pay() before building. Where that says no, the host may send its
// first batch straight to its table, time it and ask again with that time per row
// (JoinPlanOptions::table_row_ns): what the table really costs the join, which the model
// misses by up to 3x, may make a cheap build worth a trial on the join's batches.
//
// Then the host calls probe_batch() for every probe batch, on any of its threads: the plan
// either filters the batch into a selection vector (exactly the rows JoinFilter::select_chunk
// selects) or passes it through ("every row, the filter was skipped"), and the host probes its
// table with the rows it gets. The join result is the same either way.
//
// A model cannot know the host's table (its hashing, its key compares, where its keys live):
// on TPC-H string keys the model's table miss was a third of the host's, and its filter probe
// half the real one. So where the estimated gain is neither clearly above nor clearly below 1
// (JoinPlanOptions::trial_low .. trial_high, or a span of gains, where keys repeat, that meets
// the band), the plan compares both ways over the whole join if the host reports how long each
// batch took (report(): the filter and its own table probes together). Batches go the way
// ahead (the estimate's answer at first), and now and then one goes the way behind: every other
// batch until trial_batches pairs are in, then one in max(compare_every, 64 * (r - 1)), r the
// way behind's time per row over the way ahead's, so that the comparison costs about 1/64 of
// the join however far behind that way is. Where the host gives probe_rows, the way behind gets
// at most an eighth of the join's batches in all, and the first pairs are fewer than
// trial_batches where that eighth holds fewer (a join of 13 batches is decided by one pair):
// on a short join three pairs were the trial's whole cost. Each report of the way behind is paired with the
// faster of the way ahead's two latest reports (a batch that ran at the same moment, at the same
// warmth of the host's table), and the lead changes where the median of the last trial_batches
// pairs says the way behind took less per row, or at once where one pair says it took less than
// half. A trial over the first batches alone misread a cold table: the passed-through batches
// paid the misses that warmed it while the filtered ones rode on them. A host that reports
// nothing gets the estimate's answer after 4 * trial_batches batches.
//
// No threads of its own. Without reports, nothing is timed per join: given the same filter,
// sample, options and costs, the decision is the same; to make it independent of the machine
// too (tests, replays), pass JoinPlanOptions::costs. JoinPlanMode::always / never force the
// decision.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "join.hpp"

namespace batchbloom {

/// Time per probe row on one thread, in ns: what the plan weighs.
struct JoinCosts {
    /// A row through the join filter into a selection vector (JoinFilter::select_chunk).
    double filter_ns = 0;
    /// A row that probes the host's hash table and misses: a random read of a table of the
    /// build side's size.
    double table_miss_ns = 0;
    /// A build key into the filter (filter_may_pay counts the build).
    double insert_ns = 0;
};

/// This machine's costs for a join filter of `filter_bytes` in front of a hash table of
/// `build_keys` keys, integers or byte strings (`string_keys`) of `string_bytes` on average.
/// Measured on the calling thread at the first call for a size class (both sizes rounded up to
/// a power of two; tables above 32 MiB measured at 32 MiB, to keep the measurement within a few
/// milliseconds) and key class (integers, or strings of a multiple of 16 bytes up to 256), and
/// again at the first calls at least 50 ms after the class's last measurement until it has
/// three; each cost is the median of the class's measurements (a moment that another guest of
/// a shared machine slowed no longer decides for the whole process). Calls within 50 ms of a
/// measurement, and every call once three are in, return the same costs. The modelled
/// table is an open-addressing array of 16-byte slots at most half full, probed with keys it
/// lacks; a host whose table costs differently passes its own table_miss_ns or
/// table_compute_ns. The filter runs on `backend` and is measured per engine (scalar probes
/// cost several times AVX-512's); Backend::cuda is weighed as the best CPU engine. Thread-safe.
JoinCosts measured_join_costs(std::uint64_t build_keys, std::uint64_t filter_bytes, bool string_keys,
                              std::size_t string_bytes = 24, Backend backend = Backend::automatic);

/// Work per probe row with every line in cache, in ns on one thread (compute_costs).
struct ComputeCosts {
    /// A join filter probe of the keys into a selection vector: their hashing and block tests.
    double filter_ns = 0;
    /// The host's table probe of the keys: its hashing and compares.
    double table_ns = 0;
};

/// Times the host's table probe (`probe_table` over the keys it is given) and a small join
/// filter's probe of the same keys in alternation, five passes after a first that brings the
/// lines in (the filter called twice a pass, the second call timed), and returns the fastest
/// pass of each (a pass takes microseconds, and stalls of that order land in some of them). Give it probe rows the table lacks, in the
/// order the probe side holds them (e.g. short runs of rows taken across the column, less those
/// the table has): a key's repeats cost the table less than distinct keys do, and a dropped
/// repeat saves only that (TPC-H SF 1, strings at 50%: 14.7 ns a row timed on rows a stride
/// apart, 7.7 saved per row the filter dropped). It times the first 256. What it returns goes into
/// JoinPlanOptions' table_compute_ns and filter_compute_ns. The filter runs on `backend`, the
/// join filter's engine. 25-50 microseconds (Zen 3 VM, TPC-H keys; strings and the scalar
/// filter take the longest). All zeros for no keys.
ComputeCosts compute_costs(std::span<const std::uint64_t> keys,
                           const std::function<void(std::span<const std::uint64_t>)>& probe_table,
                           Backend backend = Backend::automatic);
ComputeCosts compute_costs(std::span<const std::uint32_t> keys,
                           const std::function<void(std::span<const std::uint32_t>)>& probe_table,
                           Backend backend = Backend::automatic);
ComputeCosts compute_costs(std::span<const std::string_view> keys,
                           const std::function<void(std::span<const std::string_view>)>& probe_table,
                           Backend backend = Backend::automatic);
ComputeCosts compute_costs(std::span<const std::string> keys,
                           const std::function<void(std::span<const std::string>)>& probe_table,
                           Backend backend = Backend::automatic);

/// The fraction of `rows` whose key equals the row before's (0 for fewer than two rows): what
/// JoinPlanOptions::repeated_rows takes, counted on a run of the probe side (e.g. its first
/// batch).
double repeated_fraction(std::span<const std::uint64_t> rows) noexcept;
double repeated_fraction(std::span<const std::uint32_t> rows) noexcept;
double repeated_fraction(std::span<const std::string_view> rows) noexcept;
double repeated_fraction(std::span<const std::string> rows) noexcept;

enum class JoinPlanMode {
    automatic,  ///< filter where the sample and the costs say the filter pays
    always,     ///< filter every batch (JoinFilter's behaviour without a plan)
    never,      ///< pass every batch through
};

struct JoinPlanOptions {
    JoinPlanMode mode = JoinPlanMode::automatic;
    /// The filter runs where gain >= min_gain. Above 1 because the cost model and a sample of a
    /// few thousand rows are only estimates (the benchmark's sample was up to a quarter off
    /// the real gain, either way): where the gain is borderline the plain join's cost is the
    /// safer one to pay.
    double min_gain = 1.25;
    /// The host's own time per probe row that misses its hash table (ns, one thread), where it
    /// knows it; 0 uses the model's (costs, or measured_join_costs).
    double table_miss_ns = 0;
    /// The host's time per probe row that misses its table with the table's lines in cache (ns,
    /// one thread): its hashing and compares (ComputeCosts::table_ns). The model's table has no
    /// such work (its keys' hash is the filter's); the host's may have much (a slower hash of
    /// long strings). Where table_miss_ns is 0, a miss costs the larger of this and the model's
    /// miss of a cold table of the build side's size. 0: the model's alone.
    double table_compute_ns = 0;
    /// The filter's work per probe row on the host's keys, timed beside table_compute_ns
    /// (ComputeCosts::filter_ns): a filter probe costs the larger of this and the model's.
    double filter_compute_ns = 0;
    /// The fraction of probe rows (in [0, 1]) whose key is the key of the row before: they find
    /// the table's line in cache, and a dropped one saves the table's compute (table_compute_ns,
    /// else the model's filter probe) rather than a miss. Unset: counted on the sample's
    /// adjacent rows (right for a sample that is a run of the probe side, e.g. its first batch;
    /// a host that samples at a stride counts it on a run of its own, repeated_fraction()).
    /// filter_may_pay, which has no sample, takes unset as 0.
    std::optional<double> repeated_rows;
    /// String keys: their mean length in bytes, the model's string length. 0: the sample's mean
    /// (a plan), or 24 (filter_may_pay, which has no sample).
    std::size_t string_bytes = 0;
    /// The whole cost model, instead of measured_join_costs (table_miss_ns > 0 still replaces
    /// its table_miss_ns). Makes the decision independent of the machine.
    std::optional<JoinCosts> costs;
    /// Estimated gains in [trial_low, trial_high) (or spans meeting it, where keys repeat) are
    /// tried: both ways compared on the join's batches where the host reports their times
    /// (report()); trial_low >= trial_high turns trials off.
    double trial_low = 0.5, trial_high = 2.0;
    /// Batches of each way on the join's first batches, and the pairs (a batch of the way
    /// behind, the way ahead's beside it) whose median ratio decides the lead. Three: one batch
    /// of 64K rows is a millisecond, which a busy shared machine can slow by more than the ways
    /// differ.
    unsigned trial_batches = 3;
    /// A filter whose build costs at most this share of the join's probe work (the probe side's
    /// rows, each through the host's table at the costs weighed, or at table_row_ns where that
    /// is more) is built and tried wherever the best case, every dropped row a table miss (or
    /// where the host gave table_row_ns, saving half of it), is a clear win (at least trial_high),
    /// whatever the estimate: such a build buys a comparison on the join's own batches for less
    /// than the estimate can tell apart (TPC-H SF 1, integers at 10% matching rows, Zen 3 VM:
    /// estimates of 0.9-1.6 from one process to the next, the filter built in 5-21 of 21 joins,
    /// which it sped up 1.13-1.21x). filter_may_pay weighs its probe_rows argument; a plan weighs
    /// probe_rows below (its filter's sized_for() keys the build). 0 turns it off.
    double cheap_build = 0.03;
    /// The host's time per probe row through its table with every row, in the order the join
    /// runs them (ns, one thread): e.g. its first batch sent straight to the table and timed,
    /// where filter_may_pay first said no (then asked again, the host's other threads passing
    /// their batches through meanwhile). What no model of the table sees: a join's table probes
    /// wait on more than lookups of distinct keys do (its branches on found / missing
    /// mispredict and hold back the next rows' misses). TPC-H SF 1,
    /// lineitem at 50% matching rows, Emerald Rapids VM, one thread: 20-23 ns a row, and each
    /// row the filter dropped saved 15, where the model put a dropped row's saving at 5-6 and
    /// skipped a filter that ran the join 1.24x faster. A cheap build (cheap_build, of the probe
    /// rows at this time) whose best case by it (each dropped row saving half a row's time: the
    /// other half may be the matching rows' work) is a clear win, at least trial_high, is built
    /// and tried on the join's batches whatever the estimate, so that those batches decide.
    /// Given, that best case replaces the model's (every dropped row a table miss), which moves
    /// with the moment the model was timed (a small string table's miss 12-31 ns between
    /// processes, where the rows took 14-27) and built filters a trial then passed by.
    /// 0: unknown.
    double table_row_ns = 0;
    /// The probe side's rows, where the host knows them before the join: the plan's cheap_build
    /// rule, and a trial's budget (the way behind gets at most an eighth of the join's batches,
    /// counted with the first batch's rows). 0: unknown, the rule and the budget off.
    std::uint64_t probe_rows = 0;
    /// After the first pairs, at least compare_every batches from one of the way behind to the
    /// next (more where it is further behind, see above), so that the comparison goes on as the
    /// host's table warms. 0: the first pairs decide for good. 1 is refused.
    unsigned compare_every = 8;
};

/// One probe batch's answer: filtered (the first `rows` entries of the selection vector are the
/// batch-local indices of the rows that may match, ascending) or passed through (every row of
/// the batch goes on to the table, rows == the batch's size, the selection vector untouched).
struct JoinBatch {
    bool filtered = false;
    std::size_t rows = 0;
    /// The batch's own rows (keys.size() of probe_batch), what report() counts per row.
    std::size_t batch_rows = 0;
};

class JoinPlan {
public:
    /// Decides whether `filter` pays in front of the host's hash join, from a sample of the probe
    /// side's keys (the same key kind as the probe batches; a few thousand rows suffice; the
    /// first batch will do unless the probe side is sorted by key) and the options. The plan
    /// refers to `filter`, which must outlive it. Throws Error for an empty sample (unless the
    /// mode is forced: always / never need none), a sample of 2^32 rows or more, min_gain or
    /// cost overrides that are negative or not finite.
    JoinPlan(const JoinFilter& filter, std::span<const std::uint64_t> sample, const JoinPlanOptions& options = {});
    JoinPlan(const JoinFilter& filter, std::span<const std::uint32_t> sample, const JoinPlanOptions& options = {});
    JoinPlan(const JoinFilter& filter, std::span<const std::string_view> sample, const JoinPlanOptions& options = {});
    JoinPlan(const JoinFilter& filter, std::span<const std::string> sample, const JoinPlanOptions& options = {});

    /// Whether probe batches go through the filter: the way ahead in a trial (the estimate's
    /// answer until the reports say otherwise).
    bool filters() const noexcept;
    /// Whether the plan compares both ways and wants report()s: for the whole join where the
    /// estimate was borderline (until compare_every == 0's first batches decide, or 4 *
    /// trial_batches batches pass without reports).
    bool trying() const noexcept;
    /// The estimated gain: table work saved over filter probes paid (0 where the mode was
    /// forced and no sample was given).
    double gain() const noexcept { return gain_; }
    /// The fraction of probe rows taken to repeat the row before's key (options' repeated_rows,
    /// or the sample's).
    double repeated_rows() const noexcept { return repeated_; }
    /// The fraction of the sample's rows that the filter passes (matches and false positives).
    double sample_pass_fraction() const noexcept { return pass_fraction_; }
    /// The costs the decision used (zeros where the mode was forced).
    const JoinCosts& costs() const noexcept { return costs_; }
    const JoinPlanOptions& options() const noexcept { return options_; }
    const JoinFilter& filter() const noexcept { return *filter_; }

    /// One probe batch, on the calling thread (const: call it from every worker at once).
    /// `sel` must have at least keys.size() entries whatever the decision, so that a host's
    /// buffers do not depend on it, and a batch must have fewer than 2^32 rows (throws Error
    /// otherwise). An empty batch gives 0 rows.
    JoinBatch probe_batch(std::span<const std::uint64_t> keys, std::span<std::uint32_t> sel) const;
    JoinBatch probe_batch(std::span<const std::uint32_t> keys, std::span<std::uint32_t> sel) const;
    JoinBatch probe_batch(std::span<const std::string_view> keys, std::span<std::uint32_t> sel) const;
    JoinBatch probe_batch(std::span<const std::string> keys, std::span<std::uint32_t> sel) const;

    /// Whether the next probe batch goes through the filter: filters(), or during a trial the
    /// way whose turn it is (each call takes a turn: the first batches alternate, later the way
    /// behind gets one now and then). probe_batch calls it once per batch; a
    /// binding that probes a batch by other means calls it instead, then report()s.
    bool route_batch() const noexcept;

    /// The time the host spent on a batch that probe_batch answered: the plan's call and the
    /// host's table probes of the rows it got, in ns. Feeds a trial (see above); ignored once
    /// the plan stopped comparing, and where it never tried. Thread-safe.
    void report(const JoinBatch& batch, double ns) const;

    /// Whether a filter is worth building at all, before building it: the rows it would drop
    /// (those without a match, `matched_fraction` of `probe_rows` having one, the host's
    /// estimate from its own table, e.g. of the first batch) save a table miss each (its
    /// compute where they repeat the row before's key: options' repeated_rows), against
    /// the filter probe per row plus the build (`build_keys` inserts). The same min_gain and
    /// forced modes as the plan; costs from options or measured_join_costs for a filter of
    /// `filter_bytes`. An estimate within the trial band (or a span of estimates meeting it:
    /// repeats cached or missing, as for the plan above) counts as "may pay" (the plan's trial
    /// then decides), and so does a cheap build (options' cheap_build) whose best case does.
    /// `backend`: the engine the filter will run on (its JoinFilterOptions'; a
    /// plan weighs its filter's own). Throws Error for a matched_fraction outside [0, 1].
    static bool filter_may_pay(std::uint64_t build_keys, std::uint64_t filter_bytes, bool string_keys,
                               std::uint64_t probe_rows, double matched_fraction, const JoinPlanOptions& options = {},
                               Backend backend = Backend::automatic);
    /// The costs filter_may_pay weighs for these arguments: options.costs or the model's
    /// (measured_join_costs, strings of options.string_bytes or 24), then the host's
    /// table_miss_ns, table_compute_ns and filter_compute_ns applied. Throws as filter_may_pay.
    static JoinCosts weighed_costs(std::uint64_t build_keys, std::uint64_t filter_bytes, bool string_keys,
                                   const JoinPlanOptions& options = {}, Backend backend = Backend::automatic);

private:
    template <class Key>
    JoinPlan(const JoinFilter& filter, std::span<const Key> sample, const JoinPlanOptions& options, int);
    template <class Key>
    JoinBatch probe(std::span<const Key> keys, std::span<std::uint32_t> sel) const;
    bool route(std::size_t batch_rows) const noexcept;  // route_batch, told the batch's rows where known

    struct Trial;
    const JoinFilter* filter_;
    JoinPlanOptions options_;
    JoinCosts costs_;
    double pass_fraction_ = 0;
    double repeated_ = 0;
    double gain_ = 0;
    bool filters_ = true;            // the estimate's answer
    std::shared_ptr<Trial> trial_;  // null where the estimate decided; copies share it
};

}  // namespace batchbloom
