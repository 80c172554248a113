// The join plan: the decision (filter for a low-match probe side, pass-through for an all-match
// one, forced modes, a trial of both ways where the estimate is borderline), bit-exact batches against JoinFilter::select_chunk, the cost model's
// once-per-process cache, the host's own costs (its table's work, the filter's on its sample keys), and errors for bad input.
#include <gtest/gtest.h>

#include <batchbloom/join_plan.hpp>

#include <algorithm>
#include <chrono>
#include <thread>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace bb = batchbloom;
using bb::JoinBatch;
using bb::JoinCosts;
using bb::JoinFilter;
using bb::JoinPlan;
using bb::JoinPlanMode;
using bb::JoinPlanOptions;

namespace {

constexpr std::uint64_t build_rows = 10'000;

std::vector<std::uint64_t> build_keys() {
    std::vector<std::uint64_t> k(build_rows);
    for (std::uint64_t i = 0; i < build_rows; ++i) k[i] = i * 7 + 3;
    return k;
}

/// `n` probe keys of which every `match_every`-th is a build key (0: none).
std::vector<std::uint64_t> probe_keys(std::size_t n, std::size_t match_every) {
    std::vector<std::uint64_t> k(n);
    for (std::size_t i = 0; i < n; ++i)
        k[i] = match_every != 0 && i % match_every == 0 ? (i % build_rows) * 7 + 3 : (std::uint64_t(1) << 40) + i;
    return k;
}

/// Costs where a dropped row saves four times a filter probe: a 1% match filters, an all-match
/// side does not, on any machine.
JoinPlanOptions fixed_costs() {
    JoinPlanOptions o;
    o.costs = JoinCosts{2.0, 8.0, 5.0};
    return o;
}

/// Costs where a dropped row saves what a filter probe costs: at 1% matching rows the estimate
/// (gain 0.98) is borderline, so the plan tries both ways.
JoinPlanOptions borderline_costs() {
    JoinPlanOptions o;
    o.costs = JoinCosts{4.0, 4.0, 5.0};
    return o;
}

/// Fixed costs (no machine timed), the host's compute per repeat, three of four probe rows
/// repeating the row before's key, and a trial band: the cheap-build tests' set-up.
JoinPlanOptions repeating_rows(JoinCosts costs, double compute_ns, double trial_low, double trial_high) {
    JoinPlanOptions o;
    o.costs = costs;
    o.table_compute_ns = compute_ns;
    o.repeated_rows = 0.75;
    o.trial_low = trial_low;
    o.trial_high = trial_high;
    return o;
}

class JoinPlanTest : public ::testing::Test {
protected:
    std::vector<std::uint64_t> build = build_keys();
    JoinFilter filter{std::span<const std::uint64_t>(build)};
};

TEST_F(JoinPlanTest, FiltersALowMatchProbeSide) {
    const auto sample = probe_keys(4096, 100);
    const JoinPlan plan(filter, std::span<const std::uint64_t>(sample), fixed_costs());
    EXPECT_TRUE(plan.filters());
    EXPECT_LT(plan.sample_pass_fraction(), 0.05);
    EXPECT_GT(plan.gain(), 3.5);
    EXPECT_EQ(plan.costs().filter_ns, 2.0);
}

TEST_F(JoinPlanTest, PassesAnAllMatchProbeSideThrough) {
    const auto sample = probe_keys(4096, 1);
    const JoinPlan plan(filter, std::span<const std::uint64_t>(sample), fixed_costs());
    EXPECT_FALSE(plan.filters());
    EXPECT_EQ(plan.sample_pass_fraction(), 1.0);
    EXPECT_EQ(plan.gain(), 0.0);
}

TEST_F(JoinPlanTest, DecidesTheSameWithTheMeasuredModel) {
    // With this machine's costs: an all-match side never pays; the decision repeats exactly.
    const auto all = probe_keys(4096, 1);
    const JoinPlan plan(filter, std::span<const std::uint64_t>(all));
    EXPECT_FALSE(plan.filters());
    EXPECT_GT(plan.costs().filter_ns, 0.0);
    EXPECT_GT(plan.costs().table_miss_ns, 0.0);
    const auto few = probe_keys(4096, 100);
    const JoinPlan a(filter, std::span<const std::uint64_t>(few)), b(filter, std::span<const std::uint64_t>(few));
    EXPECT_EQ(a.filters(), b.filters());
    EXPECT_EQ(a.gain(), b.gain());
}

TEST_F(JoinPlanTest, HostCostReplacesTheModelsTableMiss) {
    const auto sample = probe_keys(4096, 100);
    JoinPlanOptions o = fixed_costs();
    o.table_miss_ns = 1.0;  // a host whose table is in cache: a miss costs less than a filter probe
    const JoinPlan plan(filter, std::span<const std::uint64_t>(sample), o);
    EXPECT_FALSE(plan.filters());
    EXPECT_EQ(plan.costs().table_miss_ns, 1.0);
}

TEST(JoinPlanCosts, MeasuredAtThreeMomentsPerSizeClassThenFixed) {
    const auto same = [](const JoinCosts& x, const JoinCosts& y) {
        return x.filter_ns == y.filter_ns && x.table_miss_ns == y.table_miss_ns && x.insert_ns == y.insert_ns;
    };
    const JoinCosts a = bb::measured_join_costs(100'000, 120'000, false);
    const JoinCosts b = bb::measured_join_costs(100'001, 120'001, false);  // the same classes, at once
    EXPECT_TRUE(same(a, b));
    EXPECT_TRUE(std::isfinite(a.filter_ns) && a.filter_ns > 0);
    for (int i = 0; i < 2; ++i) {  // two more moments
        std::this_thread::sleep_for(std::chrono::milliseconds(60));
        const JoinCosts c = bb::measured_join_costs(100'000, 120'000, false);
        EXPECT_TRUE(std::isfinite(c.filter_ns) && c.filter_ns > 0 && c.table_miss_ns > 0);
    }
    const JoinCosts fixed = bb::measured_join_costs(100'000, 120'000, false);
    std::this_thread::sleep_for(std::chrono::milliseconds(60));
    EXPECT_TRUE(same(fixed, bb::measured_join_costs(100'000, 120'000, false)));
    const JoinCosts s = bb::measured_join_costs(100'000, 120'000, true);
    EXPECT_TRUE(std::isfinite(s.table_miss_ns) && s.table_miss_ns > 0);
}

TEST_F(JoinPlanTest, ForcedModes) {
    const auto all = probe_keys(4096, 1), few = probe_keys(4096, 100);
    JoinPlanOptions o = fixed_costs();
    o.mode = JoinPlanMode::always;
    EXPECT_TRUE(JoinPlan(filter, std::span<const std::uint64_t>(all), o).filters());
    EXPECT_TRUE(JoinPlan(filter, std::span<const std::uint64_t>(), o).filters());  // no sample needed
    o.mode = JoinPlanMode::never;
    EXPECT_FALSE(JoinPlan(filter, std::span<const std::uint64_t>(few), o).filters());
    EXPECT_FALSE(JoinPlan(filter, std::span<const std::uint64_t>(), o).filters());
    EXPECT_FALSE(JoinPlan::filter_may_pay(build_rows, 16'384, false, 1'000'000, 0.0, o));
    o.mode = JoinPlanMode::always;
    EXPECT_TRUE(JoinPlan::filter_may_pay(build_rows, 16'384, false, 1'000'000, 1.0, o));
}

TEST_F(JoinPlanTest, BatchesAreBitExact) {
    const auto probe = probe_keys(10'000, 3);
    std::vector<std::uint32_t> expected(probe.size()), sel(probe.size());
    const std::size_t n = filter.select_chunk(std::span<const std::uint64_t>(probe), expected);
    expected.resize(n);
    JoinPlanOptions o;
    o.mode = JoinPlanMode::always;
    const JoinPlan filtering(filter, std::span<const std::uint64_t>(probe), o);
    const JoinBatch b = filtering.probe_batch(std::span<const std::uint64_t>(probe), sel);
    ASSERT_TRUE(b.filtered);
    EXPECT_EQ(std::vector<std::uint32_t>(sel.begin(), sel.begin() + static_cast<std::ptrdiff_t>(b.rows)), expected);

    o.mode = JoinPlanMode::never;
    const JoinPlan passing(filter, std::span<const std::uint64_t>(probe), o);
    std::vector<std::uint32_t> untouched(probe.size(), 7);
    const JoinBatch p = passing.probe_batch(std::span<const std::uint64_t>(probe), untouched);
    EXPECT_FALSE(p.filtered);
    EXPECT_EQ(p.rows, probe.size());
    EXPECT_EQ(untouched, std::vector<std::uint32_t>(probe.size(), 7));
}

TEST(JoinPlanStrings, BitExactAndDecidesOnStrings) {
    std::vector<std::string> build, probe;
    for (int i = 0; i < 2000; ++i) build.push_back("customer#" + std::to_string(i));
    for (int i = 0; i < 5000; ++i) probe.push_back("customer#" + std::to_string(i % 100 == 0 ? i % 2000 : 100'000 + i));
    const JoinFilter filter{std::span<const std::string>(build)};
    const JoinPlan plan(filter, std::span<const std::string>(probe), fixed_costs());
    EXPECT_TRUE(plan.filters());
    std::vector<std::uint32_t> sel(probe.size()), expected(probe.size());
    const JoinBatch b = plan.probe_batch(std::span<const std::string>(probe), sel);
    const std::size_t n = filter.select_chunk(std::span<const std::string>(probe), expected);
    ASSERT_EQ(b.rows, n);
    EXPECT_TRUE(std::equal(sel.begin(), sel.begin() + static_cast<std::ptrdiff_t>(n), expected.begin()));
    const std::vector<std::string_view> views(probe.begin(), probe.end());
    EXPECT_EQ(plan.probe_batch(std::span<const std::string_view>(views), sel).rows, n);
}

TEST_F(JoinPlanTest, BadInputThrows) {
    const auto sample = probe_keys(64, 100);
    EXPECT_THROW((void)JoinPlan(filter, std::span<const std::uint64_t>(), fixed_costs()), bb::Error);
    for (const double bad : {-1.0, std::nan(""), std::numeric_limits<double>::infinity()}) {
        JoinPlanOptions o = fixed_costs();
        o.min_gain = bad;
        EXPECT_THROW((void)JoinPlan(filter, std::span<const std::uint64_t>(sample), o), bb::Error);
        o = fixed_costs();
        o.table_miss_ns = bad;
        EXPECT_THROW((void)JoinPlan(filter, std::span<const std::uint64_t>(sample), o), bb::Error);
        o = fixed_costs();
        o.costs->filter_ns = bad;
        EXPECT_THROW((void)JoinPlan(filter, std::span<const std::uint64_t>(sample), o), bb::Error);
    }
    const JoinPlan plan(filter, std::span<const std::uint64_t>(sample), fixed_costs());
    std::vector<std::uint32_t> small(sample.size() - 1);
    EXPECT_THROW((void)plan.probe_batch(std::span<const std::uint64_t>(sample), small), bb::Error);
    JoinPlanOptions never;
    never.mode = JoinPlanMode::never;
    const JoinPlan passing(filter, std::span<const std::uint64_t>(sample), never);
    EXPECT_THROW((void)passing.probe_batch(std::span<const std::uint64_t>(sample), small), bb::Error);
    // An empty batch is no error: nothing goes on to the table.
    EXPECT_EQ(plan.probe_batch(std::span<const std::uint64_t>(), std::span<std::uint32_t>()).rows, 0u);
    for (const double bad : {-0.1, 1.5, std::nan("")})
        EXPECT_THROW((void)JoinPlan::filter_may_pay(build_rows, 16'384, false, 1000, bad, fixed_costs()), bb::Error);
}

TEST(JoinPlanBuild, FilterMayPayCountsTheBuild) {
    const JoinPlanOptions o = fixed_costs();
    EXPECT_TRUE(JoinPlan::filter_may_pay(1000, 16'384, false, 1'000'000, 0.01, o));
    EXPECT_FALSE(JoinPlan::filter_may_pay(1000, 16'384, false, 1'000'000, 0.9, o));
    // A build side as large as the probe side: 5 ns per insert eats the saving (gain 0.57)...
    JoinPlanOptions no_trial = o;
    no_trial.trial_low = no_trial.trial_high = 0;
    EXPECT_FALSE(JoinPlan::filter_may_pay(1'000'000, 1 << 20, false, 1'000'000, 0.5, no_trial));
    // ...by the estimate, which is borderline: the plan's trial would decide, so build.
    EXPECT_TRUE(JoinPlan::filter_may_pay(1'000'000, 1 << 20, false, 1'000'000, 0.5, o));
    EXPECT_FALSE(JoinPlan::filter_may_pay(1000, 16'384, false, 0, 0.0, o));
}

TEST_F(JoinPlanTest, ABorderlineEstimateIsComparedOverTheJoinAndTheFasterWayLeads) {
    const auto sample = probe_keys(4096, 100), keys = probe_keys(1000, 100);
    std::vector<std::uint32_t> sel(keys.size()), want(keys.size());
    const std::size_t selected = filter.select_chunk(std::span<const std::uint64_t>(keys), want);
    for (const bool filter_faster : {true, false}) {
        SCOPED_TRACE(filter_faster ? "filtering faster" : "passing through faster");
        const JoinPlan plan(filter, std::span<const std::uint64_t>(sample), borderline_costs());
        ASSERT_TRUE(plan.trying());
        EXPECT_FALSE(plan.filters());  // the estimate's answer (gain < min_gain) until the reports say otherwise
        std::vector<JoinBatch> first;
        for (int i = 0; i < 6; ++i) {  // trial_batches (3) of each way, alternating, the way behind first
            const JoinBatch b = plan.probe_batch(std::span<const std::uint64_t>(keys), sel);
            ASSERT_EQ(b.filtered, i % 2 == 0);
            EXPECT_EQ(b.batch_rows, keys.size());
            if (b.filtered) {
                EXPECT_EQ(b.rows, selected);
                EXPECT_TRUE(std::equal(sel.begin(), sel.begin() + b.rows, want.begin()));
            } else {
                EXPECT_EQ(b.rows, keys.size());
            }
            first.push_back(b);
        }
        // Filtering 3x faster decides at the first pair; 1.67x slower, at the median of three.
        for (const JoinBatch& b : first) plan.report(b, !b.filtered ? 3000.0 : filter_faster ? 1000.0 : 5000.0);
        EXPECT_EQ(plan.filters(), filter_faster);
        EXPECT_TRUE(plan.trying());  // the comparison goes on
        for (int i = 0; i < 16; ++i)
            EXPECT_EQ(plan.probe_batch(std::span<const std::uint64_t>(keys), sel).filtered, filter_faster);
    }
}

TEST_F(JoinPlanTest, TheWayBehindGetsFewerBatchesTheFurtherBehindItIs) {
    const auto sample = probe_keys(4096, 100), keys = probe_keys(100, 100);
    std::vector<std::uint32_t> sel(keys.size());
    // The way behind (filtering) at 1.1x, 1.5x and 1.9x the way ahead's time per row: one batch
    // in compare_every (8), in 32 and in 57 goes its way.
    for (const auto& [slower, gap] : {std::pair{1.1, 8}, std::pair{1.5, 32}, std::pair{1.9, 57}}) {
        SCOPED_TRACE(slower);
        const JoinPlan plan(filter, std::span<const std::uint64_t>(sample), borderline_costs());
        std::vector<int> behind;
        for (int i = 0; i < 200; ++i) {
            const JoinBatch b = plan.probe_batch(std::span<const std::uint64_t>(keys), sel);
            if (b.filtered) behind.push_back(i);
            plan.report(b, b.filtered ? 1000.0 * slower : 1000.0);
        }
        EXPECT_FALSE(plan.filters());
        ASSERT_GE(behind.size(), 5u);
        EXPECT_EQ(std::vector<int>(behind.begin(), behind.begin() + 3), (std::vector<int>{0, 2, 4}));
        for (std::size_t j = 4; j < behind.size(); ++j) EXPECT_EQ(behind[j] - behind[j - 1], gap);
    }
}

TEST_F(JoinPlanTest, TheLeadFollowsTheBatchesAsTheHostsTableWarms) {
    // The first batches run while the host's table is cold: the passed-through ones pay the
    // misses that warm it, and filtering looks faster. Once it is warm, passing through is
    // faster; a later pair (a batch the way behind, beside the way ahead's) moves the lead back.
    const auto sample = probe_keys(4096, 100), keys = probe_keys(100, 100);
    std::vector<std::uint32_t> sel(keys.size());
    const JoinPlan plan(filter, std::span<const std::uint64_t>(sample), borderline_costs());
    std::vector<bool> lead;
    for (int i = 0; i < 48; ++i) {
        const JoinBatch b = plan.probe_batch(std::span<const std::uint64_t>(keys), sel);
        const bool cold = i < 6;
        plan.report(b, cold ? (b.filtered ? 2000.0 : 2500.0) : (b.filtered ? 3000.0 : 1400.0));
        lead.push_back(plan.filters());
    }
    EXPECT_FALSE(lead[3]);   // two pairs: not yet the median of three
    EXPECT_TRUE(lead[4]);    // the cold batches' answer, 1.25x: the way behind every 16th batch
    EXPECT_TRUE(lead[19]);
    EXPECT_FALSE(lead[20]);  // the warm table's, 2.1x: decisive at once
    EXPECT_TRUE(std::none_of(lead.begin() + 20, lead.end(), [](bool f) { return f; }));
    EXPECT_TRUE(plan.trying());
}

TEST_F(JoinPlanTest, OneSlowedBatchDoesNotDecide) {
    const auto sample = probe_keys(4096, 100), keys = probe_keys(1000, 100);
    std::vector<std::uint32_t> sel(keys.size());
    const JoinPlan plan(filter, std::span<const std::uint64_t>(sample), borderline_costs());
    std::vector<JoinBatch> batches;
    for (int i = 0; i < 6; ++i) batches.push_back(plan.probe_batch(std::span<const std::uint64_t>(keys), sel));
    // The filtered way's second batch was slowed (a busy machine): two of the three pairs say
    // filtering is faster, and the median of the three decides.
    const double ns[] = {2000, 2500, 3000, 2500, 2000, 2500};
    for (int i = 0; i < 4; ++i) plan.report(batches[i], ns[i]);
    EXPECT_FALSE(plan.filters());
    plan.report(batches[4], ns[4]);
    EXPECT_TRUE(plan.filters());
    plan.report(batches[5], ns[5]);  // paired with the filter's faster latest batch: 1.25x slower
    EXPECT_TRUE(plan.filters());
}

TEST_F(JoinPlanTest, WithoutReportsTheTrialEndsOnTheEstimate) {
    const auto sample = probe_keys(4096, 100), keys = probe_keys(100, 100);
    std::vector<std::uint32_t> sel(keys.size());
    const JoinPlan plan(filter, std::span<const std::uint64_t>(sample), borderline_costs());
    const JoinPlan copy = plan;  // copies share the trial
    // The way behind's trial_batches (3) batches, then the way ahead while their reports are due.
    for (int i = 0; i < 12; ++i)
        EXPECT_EQ(copy.probe_batch(std::span<const std::uint64_t>(keys), sel).filtered, i < 6 && i % 2 == 0);
    EXPECT_TRUE(plan.trying());
    EXPECT_FALSE(plan.probe_batch(std::span<const std::uint64_t>(keys), sel).filtered);  // gain 0.98 < min_gain
    EXPECT_FALSE(plan.trying());
    EXPECT_FALSE(copy.trying());
    for (int i = 0; i < 16; ++i) EXPECT_FALSE(plan.probe_batch(std::span<const std::uint64_t>(keys), sel).filtered);
    // Reports of nonsense times are ignored, as are any after the end.
    const JoinPlan other(filter, std::span<const std::uint64_t>(sample), borderline_costs());
    const JoinBatch a = other.probe_batch(std::span<const std::uint64_t>(keys), sel);
    other.report(a, std::numeric_limits<double>::quiet_NaN());
    other.report(a, -1.0);
    other.report(JoinBatch{true, 0, 0}, 5.0);
    const JoinBatch b = other.probe_batch(std::span<const std::uint64_t>(keys), sel);
    other.report(b, 10.0);
    EXPECT_TRUE(other.trying());  // no valid report of the filtered way yet
}

TEST_F(JoinPlanTest, WithoutLaterComparisonsTheFirstBatchesDecide) {
    const auto sample = probe_keys(4096, 100), keys = probe_keys(1000, 100);
    std::vector<std::uint32_t> sel(keys.size());
    JoinPlanOptions o = borderline_costs();
    o.compare_every = 0;
    o.trial_batches = 1;
    const JoinPlan plan(filter, std::span<const std::uint64_t>(sample), o);
    const JoinBatch a = plan.probe_batch(std::span<const std::uint64_t>(keys), sel);
    const JoinBatch b = plan.probe_batch(std::span<const std::uint64_t>(keys), sel);
    ASSERT_TRUE(a.filtered && !b.filtered);
    plan.report(a, 2000.0);
    EXPECT_TRUE(plan.trying());  // one way reported
    plan.report(b, 2500.0);
    ASSERT_FALSE(plan.trying());
    EXPECT_TRUE(plan.filters());
    for (int i = 0; i < 20; ++i) EXPECT_TRUE(plan.probe_batch(std::span<const std::uint64_t>(keys), sel).filtered);
    plan.report(b, 0.0);  // after the decision: ignored
    EXPECT_TRUE(plan.filters());
}

TEST_F(JoinPlanTest, AShortJoinsTrialSpendsAnEighthOfItsBatchesOnTheWayBehind) {
    const auto sample = probe_keys(4096, 100), keys = probe_keys(1000, 100);
    std::vector<std::uint32_t> sel(keys.size());
    for (const bool filter_faster : {true, false}) {
        SCOPED_TRACE(filter_faster ? "filtering faster" : "passing through faster");
        // 13 batches: one pair decides (13 / 8), and nothing goes the way behind after it.
        JoinPlanOptions o = borderline_costs();
        o.probe_rows = 13 * keys.size();
        const JoinPlan plan(filter, std::span<const std::uint64_t>(sample), o);
        ASSERT_TRUE(plan.trying());
        std::vector<JoinBatch> first;  // two host threads: three batches out before any report
        for (int i = 0; i < 3; ++i) first.push_back(plan.probe_batch(std::span<const std::uint64_t>(keys), sel));
        EXPECT_TRUE(first[0].filtered);  // the way behind
        EXPECT_FALSE(first[1].filtered);
        EXPECT_FALSE(first[2].filtered);  // the first pair's reports are due
        plan.report(first[0], filter_faster ? 2000.0 : 3000.0);
        plan.report(first[1], 2500.0);  // not decisive: the one pair's ratio decides
        EXPECT_FALSE(plan.trying());
        EXPECT_EQ(plan.filters(), filter_faster);
        for (int i = 3; i < 13; ++i)
            EXPECT_EQ(plan.probe_batch(std::span<const std::uint64_t>(keys), sel).filtered, filter_faster);
    }
    // 200 batches: three pairs first, and 25 batches of the way behind in all.
    JoinPlanOptions o = borderline_costs();
    o.probe_rows = 200 * keys.size();
    const JoinPlan plan(filter, std::span<const std::uint64_t>(sample), o);
    std::vector<int> behind;
    for (int i = 0; i < 200; ++i) {
        const JoinBatch b = plan.probe_batch(std::span<const std::uint64_t>(keys), sel);
        if (b.filtered) behind.push_back(i);
        plan.report(b, b.filtered ? 1100.0 : 1000.0);  // one in compare_every (8) after the first pairs
    }
    EXPECT_FALSE(plan.filters());
    ASSERT_EQ(behind.size(), 25u);
    EXPECT_EQ(std::vector<int>(behind.begin(), behind.begin() + 4), (std::vector<int>{0, 2, 4, 12}));
    EXPECT_FALSE(plan.trying());
}

TEST_F(JoinPlanTest, TrialsCanBeTurnedOffAndTheirOptionsAreChecked) {
    const auto sample = probe_keys(4096, 100);
    JoinPlanOptions o = borderline_costs();
    o.trial_low = o.trial_high = 1.0;
    EXPECT_FALSE(JoinPlan(filter, std::span<const std::uint64_t>(sample), o).trying());
    o = borderline_costs();
    o.trial_batches = 0;
    EXPECT_THROW(JoinPlan(filter, std::span<const std::uint64_t>(sample), o), bb::Error);
    o = borderline_costs();
    o.compare_every = 1;
    EXPECT_THROW(JoinPlan(filter, std::span<const std::uint64_t>(sample), o), bb::Error);
    o = borderline_costs();
    o.trial_low = -1;
    EXPECT_THROW(JoinPlan(filter, std::span<const std::uint64_t>(sample), o), bb::Error);
    o = borderline_costs();
    o.trial_high = std::numeric_limits<double>::infinity();
    EXPECT_THROW(JoinPlan(filter, std::span<const std::uint64_t>(sample), o), bb::Error);
}

TEST_F(JoinPlanTest, RepeatedKeysFindTheFiltersBlockInCacheToo) {
    // Each key four times in a row; a filter probe of a distinct key costs the model's 8 ns, a
    // repeat's what the host timed in cache (2 ns): a row costs the filter (1 - r) * 8 + r * 2.
    const auto distinct = probe_keys(4096, 0);
    std::vector<std::uint64_t> runs;
    for (std::size_t i = 0; i < 4096; ++i) runs.push_back(distinct[i / 4]);
    JoinPlanOptions o;
    o.costs = JoinCosts{8.0, 20.0, 5.0};
    o.table_compute_ns = 1.0;
    const JoinPlan model_only(filter, std::span<const std::uint64_t>(runs), o);
    const double r = model_only.repeated_rows(), p = model_only.sample_pass_fraction();
    const double saved = (1 - p) * ((1 - r) * 20.0 + r * 1.0);
    EXPECT_NEAR(model_only.gain(), saved / 8.0, 1e-9);  // no timing of the filter: the model's cost
    EXPECT_FALSE(model_only.filters());
    o.filter_compute_ns = 2.0;
    const JoinPlan timed(filter, std::span<const std::uint64_t>(runs), o);
    EXPECT_NEAR(timed.gain(), saved / ((1 - r) * 8.0 + r * 2.0), 1e-9);
    EXPECT_TRUE(timed.filters());
    EXPECT_EQ(timed.costs().filter_ns, 8.0);  // the distinct key's cost, as weighed
    // filter_may_pay weighs the same per row, the build on top.
    JoinPlanOptions ask = o;
    ask.repeated_rows = 0.75;
    const double row = 0.25 * 8.0 + 0.75 * 2.0, save = 0.25 * 20.0 + 0.75 * 1.0;
    EXPECT_GT(save / row, ask.min_gain);
    EXPECT_TRUE(JoinPlan::filter_may_pay(1000, 4096, false, 1'000'000, 0.0, ask));
    ask.filter_compute_ns = 0;
    ask.cheap_build = 0;  // else its best case, every row a miss, has it tried
    ask.trial_low = 0.9;  // and a gain of 0.72 is in the default trial band
    ask.trial_high = 1.25;
    EXPECT_FALSE(JoinPlan::filter_may_pay(1000, 4096, false, 1'000'000, 0.0, ask));
}

TEST_F(JoinPlanTest, CheapBuildsAreTriedWhereTheBestCaseIsAClearWin) {
    // 1M probe rows, none matching, 3 of 4 repeating the row before's key; a filter probe 2 ns,
    // a miss 20, the host's compute 0.5: a dropped row saves 0.25 * 20 + 0.75 * 0.5 = 5.375 ns,
    // so the probe work is 5.4 ms. The estimate (about 2.7, build aside) is below a band of
    // [4, 8); the best case, every dropped row a miss, 10 (a clear win, at least trial_high).
    JoinPlanOptions o = repeating_rows(JoinCosts{2.0, 20.0, 5.0}, 0.5, 4.0, 8.0);
    o.min_gain = 4.0;
    // 1,000 inserts cost 5 us, within 3% of the probe work: built, the trial decides.
    EXPECT_TRUE(JoinPlan::filter_may_pay(1000, 16'384, false, 1'000'000, 0.0, o));
    // 100,000 cost 0.5 ms, a tenth of it: the estimate alone.
    EXPECT_FALSE(JoinPlan::filter_may_pay(100'000, 1 << 20, false, 1'000'000, 0.0, o));
    // A best case only in the band, not beyond it, is no reason to build.
    JoinPlanOptions wide = o;
    wide.trial_high = 12.0;
    EXPECT_FALSE(JoinPlan::filter_may_pay(1000, 16'384, false, 1'000'000, 0.0, wide));
    JoinPlanOptions off = o;
    off.cheap_build = 0;
    EXPECT_FALSE(JoinPlan::filter_may_pay(1000, 16'384, false, 1'000'000, 0.0, off));

    // The plan, built, tries both ways under the same rule where it knows the probe side's
    // rows (its build: the filter's sized_for() keys, 10,000 here, 50 us), and otherwise
    // follows the estimate.
    const auto sample = probe_keys(4096, 0);
    const JoinPlan unknown(filter, std::span<const std::uint64_t>(sample), o);
    EXPECT_LT(unknown.gain(), o.trial_low);
    EXPECT_FALSE(unknown.filters());
    EXPECT_FALSE(unknown.trying());
    o.probe_rows = 1'000'000;
    const JoinPlan known(filter, std::span<const std::uint64_t>(sample), o);
    EXPECT_FALSE(known.filters());
    EXPECT_TRUE(known.trying());
    o.probe_rows = 10'000;  // the build is then 93% of the probe work
    EXPECT_FALSE(JoinPlan(filter, std::span<const std::uint64_t>(sample), o).trying());

    o.cheap_build = -1;
    EXPECT_THROW(JoinPlan::filter_may_pay(1000, 16'384, false, 1'000'000, 0.0, o), bb::Error);
}

TEST_F(JoinPlanTest, TheHostsTimePerRowHasACheapBuildTried) {
    // 1M probe rows, half matching, 3 of 4 repeating the row before's key; a filter probe 2 ns,
    // a miss 2.4, the host's compute 1: a dropped row saves 0.25 * 2.4 + 0.75 * 1 = 1.35 ns, an
    // estimate of 0.34 (build aside), and every dropped row a miss is 0.6: not built.
    JoinPlanOptions o = repeating_rows(JoinCosts{2.0, 2.4, 5.0}, 1.0, 0.9, 1.25);
    EXPECT_FALSE(JoinPlan::filter_may_pay(1000, 16'384, false, 1'000'000, 0.5, o));
    // The host timed its rows at 20 ns each: a dropped row may save half of that, 10 ns, a best
    // case of 2.5 (a clear win), and 1,000 inserts (5 us) are within 3% of the probe work at
    // that time (20 ms): built, the trial decides.
    o.table_row_ns = 20.0;
    EXPECT_TRUE(JoinPlan::filter_may_pay(1000, 16'384, false, 1'000'000, 0.5, o));
    EXPECT_TRUE(JoinPlan::filter_may_pay(100'000, 1 << 20, false, 1'000'000, 0.5, o));  // 0.5 ms
    EXPECT_FALSE(JoinPlan::filter_may_pay(200'000, 1 << 20, false, 1'000'000, 0.5, o));  // 1 ms, 5%
    JoinPlanOptions off = o;
    off.cheap_build = 0;
    EXPECT_FALSE(JoinPlan::filter_may_pay(1000, 16'384, false, 1'000'000, 0.5, off));
    o.table_row_ns = 4.0;  // half of it, 2 ns a dropped row: a best case of 0.5
    EXPECT_FALSE(JoinPlan::filter_may_pay(1000, 16'384, false, 1'000'000, 0.5, o));

    // A miss the model puts at 8 ns (an estimate of 0.69) makes every dropped row a miss a best
    // case of 2: tried while the host's row time is unknown; once the host timed its rows, the
    // best case is half their time saved per dropped row, whatever the model's miss.
    o.costs = JoinCosts{2.0, 8.0, 5.0};
    o.table_row_ns = 0;
    EXPECT_TRUE(JoinPlan::filter_may_pay(1000, 16'384, false, 1'000'000, 0.5, o));
    o.table_row_ns = 6.0;  // a best case of 0.75
    EXPECT_FALSE(JoinPlan::filter_may_pay(1000, 16'384, false, 1'000'000, 0.5, o));
    o.table_row_ns = 12.0;  // 1.5: a clear win again
    EXPECT_TRUE(JoinPlan::filter_may_pay(1000, 16'384, false, 1'000'000, 0.5, o));
    o.costs = JoinCosts{2.0, 2.4, 5.0};

    // The plan (none of the sample in the filter: an estimate of 0.68, below the band, and every
    // dropped row a miss 1.2, no clear win) tries both ways under the same rule where it knows
    // the probe side's rows.
    const auto sample = probe_keys(4096, 0);
    o.table_row_ns = 20.0;
    const JoinPlan unknown(filter, std::span<const std::uint64_t>(sample), o);
    EXPECT_LT(unknown.gain(), o.trial_low);
    EXPECT_FALSE(unknown.trying());
    o.probe_rows = 1'000'000;
    const JoinPlan known(filter, std::span<const std::uint64_t>(sample), o);
    EXPECT_FALSE(known.filters());
    EXPECT_TRUE(known.trying());
    o.table_row_ns = 0;
    EXPECT_FALSE(JoinPlan(filter, std::span<const std::uint64_t>(sample), o).trying());

    for (const double bad : {-1.0, std::numeric_limits<double>::infinity(), std::nan("")}) {
        o.table_row_ns = bad;
        EXPECT_THROW(JoinPlan::filter_may_pay(1000, 16'384, false, 1'000'000, 0.5, o), bb::Error);
        EXPECT_THROW(JoinPlan(filter, std::span<const std::uint64_t>(sample), o), bb::Error);
    }
}

TEST_F(JoinPlanTest, RepeatedKeysSaveOnlyTheTablesCompute) {
    // Probe rows that never match; costs where a miss saves 10 filter probes.
    const auto distinct = probe_keys(4096, 0);
    JoinPlanOptions o;
    o.costs = JoinCosts{2.0, 20.0, 5.0};
    o.table_compute_ns = 1.0;
    const JoinPlan cold(filter, std::span<const std::uint64_t>(distinct), o);
    EXPECT_EQ(cold.repeated_rows(), 0.0);
    const double pass = cold.sample_pass_fraction();
    EXPECT_NEAR(cold.gain(), (1 - pass) * 20.0 / 2.0, 1e-9);
    // Each key four times in a row (a column clustered by key): 3 of 4 rows find the table's
    // line in cache and save only its compute.
    std::vector<std::uint64_t> runs;
    for (std::size_t i = 0; i < 4096; ++i) runs.push_back(distinct[i / 4]);
    EXPECT_NEAR(bb::repeated_fraction(std::span<const std::uint64_t>(runs)), 3072.0 / 4095.0, 1e-12);
    const JoinPlan clustered(filter, std::span<const std::uint64_t>(runs), o);
    EXPECT_NEAR(clustered.repeated_rows(), 3072.0 / 4095.0, 1e-12);
    const double r = clustered.repeated_rows(), p = clustered.sample_pass_fraction();
    EXPECT_NEAR(clustered.gain(), (1 - p) * ((1 - r) * 20.0 + r * 1.0) / 2.0, 1e-9);
    // Given, it replaces the sample's count; without the host's compute, a cached table probe
    // costs what the model's filter probe does.
    o.repeated_rows = 0.9;
    o.table_compute_ns = 0;
    const JoinPlan given(filter, std::span<const std::uint64_t>(distinct), o);
    EXPECT_EQ(given.repeated_rows(), 0.9);
    EXPECT_NEAR(given.gain(), (1 - pass) * (0.1 * 20.0 + 0.9 * 2.0) / 2.0, 1e-9);
    // Without the host's compute, what a repeat saves is the model's guess: where the estimate
    // is below the trial band but the gain were every dropped row to miss is in it, the plan
    // tries both ways (the span's low end need not be in the band).
    JoinPlanOptions span = o;
    span.repeated_rows = 0.97;  // saved: 0.03 * 20 + 0.97 * 2 = 2.54 ns, gain about 1.27
    span.min_gain = 1.5;
    span.trial_low = 1.5;
    span.trial_high = 2.0;
    // The plan under `span`: its gain below `most`, not filtering at first, and whether it tries.
    auto expect_plan = [&](double most, bool trying) {
        const JoinPlan plan(filter, std::span<const std::uint64_t>(distinct), span);
        EXPECT_LT(plan.gain(), most);
        EXPECT_FALSE(plan.filters());
        EXPECT_EQ(plan.trying(), trying);
    };
    expect_plan(1.3, true);
    // ...but where the host timed its own work on rows in their order, repeats included, the
    // estimate stands alone: 0.03 * 20 + 0.97 * 1 = 1.57 ns saved, gain about 0.78.
    span.table_compute_ns = 1.0;
    span.trial_low = 1.0;
    span.trial_high = 1.25;
    expect_plan(0.8, false);
    span.trial_low = 0.7;  // the estimate itself in the band: tried
    EXPECT_TRUE(JoinPlan(filter, std::span<const std::uint64_t>(distinct), span).trying());
    span.table_compute_ns = 0;
    span.trial_low = span.trial_high = 0;
    EXPECT_FALSE(JoinPlan(filter, std::span<const std::uint64_t>(distinct), span).trying());
    // filter_may_pay weighs the same saving: 1M rows, none matching, 1,000 build keys.
    const double saved = 0.1 * 20.0 + 0.9 * 2.0;  // 3.8 ns against 2 ns paid: gain 1.9
    o.min_gain = 1.8;
    o.trial_low = o.trial_high = 0;
    EXPECT_TRUE(JoinPlan::filter_may_pay(1000, 16'384, false, 1'000'000, 0.0, o));
    o.min_gain = saved / 2.0 + 0.05;
    EXPECT_FALSE(JoinPlan::filter_may_pay(1000, 16'384, false, 1'000'000, 0.0, o));
    o.trial_low = 5.0;  // ...but a miss saves 20 ns (gain 10): the span meets a band of [5, 6)
    o.trial_high = 6.0;
    EXPECT_TRUE(JoinPlan::filter_may_pay(1000, 16'384, false, 1'000'000, 0.0, o));
    o.table_compute_ns = 0.5;  // the host's own work: no span, the estimate (gain 1.2) alone...
    o.cheap_build = 0;
    EXPECT_FALSE(JoinPlan::filter_may_pay(1000, 16'384, false, 1'000'000, 0.0, o));
    o.cheap_build = 0.03;  // ...unless the build is cheap (CheapBuildsAreTriedWhereTheBestCaseIsAClearWin)
    EXPECT_TRUE(JoinPlan::filter_may_pay(1000, 16'384, false, 1'000'000, 0.0, o));
    o.table_compute_ns = 0;
    o.trial_low = 10.5;
    o.trial_high = 11.0;
    EXPECT_FALSE(JoinPlan::filter_may_pay(1000, 16'384, false, 1'000'000, 0.0, o));
    o.trial_low = o.trial_high = 0;
    for (const double bad : {-0.1, 1.5, std::numeric_limits<double>::quiet_NaN()}) {
        o.repeated_rows = bad;
        EXPECT_THROW(JoinPlan(filter, std::span<const std::uint64_t>(distinct), o), bb::Error);
        EXPECT_THROW((void)JoinPlan::filter_may_pay(1000, 16'384, false, 1'000'000, 0.0, o), bb::Error);
    }
    // Every key kind counts the same runs; fewer than two rows have none.
    std::vector<std::string> strings;
    for (const std::uint64_t k : runs) strings.push_back(std::to_string(k));
    const std::vector<std::string_view> views(strings.begin(), strings.end());
    std::vector<std::uint32_t> narrow(runs.begin(), runs.end());
    EXPECT_EQ(bb::repeated_fraction(std::span<const std::string>(strings)), clustered.repeated_rows());
    EXPECT_EQ(bb::repeated_fraction(std::span<const std::string_view>(views)), clustered.repeated_rows());
    EXPECT_EQ(bb::repeated_fraction(std::span<const std::uint32_t>(narrow)), clustered.repeated_rows());
    EXPECT_EQ(bb::repeated_fraction(std::span<const std::uint64_t>(runs).first(1)), 0.0);
    EXPECT_EQ(bb::repeated_fraction(std::span<const std::uint64_t>()), 0.0);
}

}  // namespace

TEST(JoinPlanCosts, TheHostsTableWorkRaisesTheModelsMiss) {
    const std::vector<std::uint64_t> build = build_keys();
    const JoinFilter filter{std::span<const std::uint64_t>(build)};
    const auto sample = probe_keys(2048, 100);
    JoinPlanOptions o = fixed_costs();  // table_miss_ns 8
    o.table_compute_ns = 100;
    EXPECT_EQ(JoinPlan(filter, std::span<const std::uint64_t>(sample), o).costs().table_miss_ns, 100.0);
    o.table_compute_ns = 1;  // less than the model's: the memory access is the cost
    EXPECT_EQ(JoinPlan(filter, std::span<const std::uint64_t>(sample), o).costs().table_miss_ns, 8.0);
    o.table_miss_ns = 3;  // the host's whole miss replaces both
    EXPECT_EQ(JoinPlan(filter, std::span<const std::uint64_t>(sample), o).costs().table_miss_ns, 3.0);
    o.table_compute_ns = std::nan("");
    EXPECT_THROW(JoinPlan(filter, std::span<const std::uint64_t>(sample), o), bb::Error);
}

TEST(JoinPlanCosts, StringKeysAreModelledAtTheSamplesLength) {
    // Classes of 16 bytes: 20- and 30-byte keys share one measurement, 200-byte keys have their own.
    const JoinCosts a = bb::measured_join_costs(100'000, 120'000, true, 20);
    const JoinCosts b = bb::measured_join_costs(100'000, 120'000, true, 30);
    EXPECT_EQ(a.filter_ns, b.filter_ns);
    EXPECT_EQ(a.table_miss_ns, b.table_miss_ns);
    const JoinCosts c = bb::measured_join_costs(100'000, 120'000, true, 200);
    EXPECT_TRUE(std::isfinite(c.filter_ns) && c.filter_ns > 0);
    EXPECT_EQ(bb::measured_join_costs(100'000, 120'000, true, 200).filter_ns, c.filter_ns);
    // A plan of a string sample decides from its own class, the same way every time.
    std::vector<std::string> build, sample;
    for (int i = 0; i < 1000; ++i) build.push_back(std::string(40, 'b') + std::to_string(i));
    for (int i = 0; i < 2000; ++i) sample.push_back(std::string(40, 'p') + std::to_string(i));
    const JoinFilter filter{std::span<const std::string>(build)};
    const JoinPlan x(filter, std::span<const std::string>(sample)), y(filter, std::span<const std::string>(sample));
    EXPECT_EQ(x.gain(), y.gain());
    EXPECT_EQ(x.costs().filter_ns, bb::measured_join_costs(filter.sized_for(), filter.filter().params().bytes(), true, 44).filter_ns);
    // Each engine's filter is measured on its own (scalar probes cost 2-3x AVX-512's, and a plan
    // weighing the best engine's kept a scalar filter that ran at 0.4x of the plain join); a
    // plan weighs its filter's engine, and a CUDA filter the best CPU engine's.
    bb::JoinFilterOptions scalar;
    scalar.backend = bb::Backend::scalar;
    const JoinFilter slow(std::span<const std::string>(build), scalar);
    EXPECT_EQ(JoinPlan(slow, std::span<const std::string>(sample)).costs().filter_ns,
              bb::measured_join_costs(slow.sized_for(), slow.filter().params().bytes(), true, 44, bb::Backend::scalar)
                  .filter_ns);
    EXPECT_EQ(bb::measured_join_costs(1000, 4096, false, 24, bb::Backend::cuda).filter_ns,
              bb::measured_join_costs(1000, 4096, false, 24, bb::Backend::automatic).filter_ns);
}

TEST(JoinPlanCosts, ComputeCostsTimeTheHostsProbeAndTheFiltersOnTheSameKeys) {
    std::vector<std::string> keys;
    for (int i = 0; i < 700; ++i) keys.push_back("absent key " + std::to_string(i));
    std::size_t probed = 0, calls = 0;
    const bb::ComputeCosts c = bb::compute_costs(std::span<const std::string>(keys), [&](std::span<const std::string> k) {
        probed += k.size();
        ++calls;
    });
    EXPECT_EQ(probed, 256 * calls);  // every pass probes the first 256 keys once
    EXPECT_EQ(calls, 6u);            // a pass that brings the lines in, then five timed
    EXPECT_TRUE(std::isfinite(c.filter_ns) && c.filter_ns > 0);
    EXPECT_TRUE(std::isfinite(c.table_ns) && c.table_ns >= 0);
    const std::vector<std::uint64_t> none;
    const bb::ComputeCosts z = bb::compute_costs(std::span<const std::uint64_t>(none), [&](std::span<const std::uint64_t>) {
        ADD_FAILURE() << "no keys: nothing to time";
    });
    EXPECT_EQ(z.filter_ns, 0.0);
    EXPECT_EQ(z.table_ns, 0.0);
    // What it gives raises the model's costs in the plan, never lowers them.
    const std::vector<std::uint64_t> build = build_keys();
    const JoinFilter filter{std::span<const std::uint64_t>(build)};
    const auto sample = probe_keys(2048, 100);
    JoinPlanOptions o = fixed_costs();  // filter_ns 2, table_miss_ns 8
    o.filter_compute_ns = 50;
    EXPECT_EQ(JoinPlan(filter, std::span<const std::uint64_t>(sample), o).costs().filter_ns, 50.0);
    o.filter_compute_ns = 1;
    EXPECT_EQ(JoinPlan(filter, std::span<const std::uint64_t>(sample), o).costs().filter_ns, 2.0);
    o.filter_compute_ns = -1;
    EXPECT_THROW(JoinPlan(filter, std::span<const std::uint64_t>(sample), o), bb::Error);
}

TEST(JoinPlanBuild, FilterMayPayModelsStringsAtTheLengthGiven) {
    // A given model is the whole model: the length changes nothing.
    JoinPlanOptions o = fixed_costs();
    o.string_bytes = 200;
    for (const double matched : {0.0, 0.01, 0.5, 0.9, 1.0})
        EXPECT_EQ(JoinPlan::filter_may_pay(1000, 16'384, true, 1'000'000, matched, o),
                  JoinPlan::filter_may_pay(1000, 16'384, true, 1'000'000, matched, fixed_costs()));
    // Measured: every row matching saves nothing; a miss the host says costs a millisecond pays.
    JoinPlanOptions measured;
    measured.string_bytes = 200;
    EXPECT_FALSE(JoinPlan::filter_may_pay(1000, 16'384, true, 1'000'000, 1.0, measured));
    measured.table_compute_ns = 1e6;
    EXPECT_TRUE(JoinPlan::filter_may_pay(1000, 16'384, true, 1'000'000, 0.0, measured));
    // The plan takes the length given over its sample's mean.
    std::vector<std::string> build, sample;
    for (int i = 0; i < 1000; ++i) build.push_back(std::to_string(i));
    for (int i = 0; i < 2000; ++i) sample.push_back(std::to_string(i) + " probe");
    const JoinFilter filter{std::span<const std::string>(build)};
    JoinPlanOptions long_keys;
    long_keys.string_bytes = 200;
    EXPECT_EQ(JoinPlan(filter, std::span<const std::string>(sample), long_keys).costs().filter_ns,
              bb::measured_join_costs(filter.sized_for(), filter.filter().params().bytes(), true, 200).filter_ns);
}

TEST(JoinPlanBuild, WeighedCostsAreWhatTheDecisionsUse) {
    JoinPlanOptions o = fixed_costs();  // filter_ns 2, table_miss_ns 8, insert_ns 5
    o.table_compute_ns = 100;
    o.filter_compute_ns = 1;
    const JoinCosts c = JoinPlan::weighed_costs(1000, 16'384, false, o);
    EXPECT_EQ(c.table_miss_ns, 100.0);
    EXPECT_EQ(c.filter_ns, 2.0);
    EXPECT_EQ(c.insert_ns, 5.0);
    const std::vector<std::uint64_t> build = build_keys();
    const JoinFilter filter{std::span<const std::uint64_t>(build)};
    const auto sample = probe_keys(2048, 100);
    const JoinPlan plan(filter, std::span<const std::uint64_t>(sample), o);
    EXPECT_EQ(plan.costs().table_miss_ns, c.table_miss_ns);
    EXPECT_EQ(plan.costs().filter_ns, c.filter_ns);
    o.filter_compute_ns = -1;
    EXPECT_THROW((void)JoinPlan::weighed_costs(1000, 16'384, false, o), bb::Error);
}
