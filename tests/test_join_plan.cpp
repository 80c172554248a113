// The join plan: the decision (filter for a low-match probe side, pass-through for an all-match
// one, forced modes), bit-exact batches against JoinFilter::select_chunk, the cost model's
// once-per-process cache, and errors for bad input.
#include <gtest/gtest.h>

#include <batchbloom/join_plan.hpp>

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

TEST(JoinPlanCosts, MeasuredOncePerSizeClass) {
    const JoinCosts a = bb::measured_join_costs(100'000, 120'000, false);
    const JoinCosts b = bb::measured_join_costs(100'001, 120'001, false);  // the same classes
    EXPECT_EQ(a.filter_ns, b.filter_ns);
    EXPECT_EQ(a.table_miss_ns, b.table_miss_ns);
    EXPECT_EQ(a.insert_ns, b.insert_ns);
    EXPECT_TRUE(std::isfinite(a.filter_ns) && a.filter_ns > 0);
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
    // A build side as large as the probe side: 5 ns per insert eats the saving.
    EXPECT_FALSE(JoinPlan::filter_may_pay(1'000'000, 1 << 20, false, 1'000'000, 0.5, o));
    EXPECT_FALSE(JoinPlan::filter_may_pay(1000, 16'384, false, 0, 0.0, o));
}

}  // namespace
