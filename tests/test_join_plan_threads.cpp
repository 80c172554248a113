// The join plan from many host threads at once, as an engine's workers call it: every batch
// answered bit-exactly whichever way it goes, reports racing with the comparison's changes of
// lead, and one lead that every thread then sees. Runs under ThreadSanitizer in ./dev test.
#include <gtest/gtest.h>

#include <batchbloom/join_plan.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

namespace bb = batchbloom;

TEST(JoinPlanThreads, TrialReportsAndBatchesFromManyThreads) {
    std::vector<std::uint64_t> build(5000), probe(20'000);
    for (std::uint64_t i = 0; i < build.size(); ++i) build[i] = i * 11 + 1;
    for (std::uint64_t i = 0; i < probe.size(); ++i) probe[i] = i % 50 == 0 ? build[i % build.size()] : (1ULL << 41) + i;
    const bb::JoinFilter filter{std::span<const std::uint64_t>(build)};
    std::vector<std::uint32_t> want(probe.size());
    const std::size_t batch = 500;
    bb::JoinPlanOptions o;
    o.costs = bb::JoinCosts{4.0, 4.0, 5.0};  // borderline: a trial
    o.trial_batches = 3;
    const bb::JoinPlan plan(filter, std::span<const std::uint64_t>(probe).first(2000), o);
    ASSERT_TRUE(plan.trying());
    std::atomic<std::size_t> next{0}, filtered{0}, passed{0};
    std::atomic<bool> wrong{false};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&] {
            std::vector<std::uint32_t> sel(batch), expect(batch);
            for (std::size_t at; (at = next.fetch_add(batch)) < probe.size();) {
                const std::span<const std::uint64_t> keys(probe.data() + at, batch);
                const bb::JoinBatch b = plan.probe_batch(keys, sel);
                if (b.filtered) {
                    const std::size_t n = filter.select_chunk(keys, expect);
                    if (n != b.rows || !std::equal(sel.begin(), sel.begin() + n, expect.begin())) wrong = true;
                    ++filtered;
                } else {
                    if (b.rows != batch) wrong = true;
                    ++passed;
                }
                plan.report(b, b.filtered ? 100.0 : 400.0);  // filtering reported faster
            }
        });
    for (auto& t : threads) t.join();
    EXPECT_FALSE(wrong.load());
    EXPECT_TRUE(plan.trying());  // the comparison goes on over the join
    EXPECT_TRUE(plan.filters());
    EXPECT_EQ(filtered + passed, probe.size() / batch);
    EXPECT_GE(passed.load(), 1u);
}
