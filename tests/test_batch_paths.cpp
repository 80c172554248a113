// Both batch paths (direct and partitioned) on every engine available here, against the scalar
// reference bit for bit on one or several threads, with skewed, odd and tiny batches; the
// partitioning scratch (kept, reused, capped, given back, shared); the automatic path's rule and
// its environment overrides. The engines' own kernels are checked in test_engines.cpp.
#include <gtest/gtest.h>

#include <batchbloom/classic.hpp>
#include <batchbloom/filter.hpp>
#include <batchbloom/parallel.hpp>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "batch/bulk_call.hpp"
#include "batch/path_choice.hpp"
#include "batch/scratch.hpp"
#include "batch/threads.hpp"
#include "engine/engine.hpp"
#include "engine/machine.hpp"
#include "support.hpp"

namespace bb = batchbloom;
using bb::BatchPath;
using bb::Filter;
using bb::Params;
using bb::Shape;

namespace {

class BatchPathTest : public ::testing::TestWithParam<std::string> {
protected:
    bb::Backend backend() const { return bb::parse_backend(GetParam()); }
    /// An empty filter of p on the engine under test, forced onto the partitioned path.
    Filter partitioned(const Params& p, unsigned threads) const {
        Filter f(p, {}, backend());
        f.set_threads(threads);
        f.set_batch_path(bb::BatchPath::partitioned);
        return f;
    }
};

std::string engine_name(const ::testing::TestParamInfo<std::string>& info) { return info.param; }

}  // namespace

INSTANTIATE_TEST_SUITE_P(Available, BatchPathTest, ::testing::ValuesIn(bb::available_backends()), engine_name);

TEST_P(BatchPathTest, ThreadCountAndPathNeverChangeResults) {
    // Large enough batches (> 32K keys per thread) that the threads really split the work.
    using bb::testing::ShapeK;
    for (const auto& [shape, k] : {ShapeK{Shape::word512, 8}, ShapeK{Shape::split256, 8}, ShapeK{Shape::line512, 7}}) {
        const Params p = Params::make(shape, 30011, k);
        Filter ref(p, {}, bb::Backend::scalar);
        ref.set_threads(1);
        const auto keys = bb::testing::random_keys(300001, 77, 0);
        ref.insert(keys);
        const auto queries = bb::testing::half_present(keys, 150001, 78);
        for (auto [threads, path] : {std::pair{1u, bb::BatchPath::direct}, std::pair{2u, bb::BatchPath::direct},
                                     std::pair{3u, bb::BatchPath::direct}, std::pair{0u, bb::BatchPath::automatic},
                                     std::pair{1u, bb::BatchPath::partitioned}, std::pair{2u, bb::BatchPath::partitioned},
                                     std::pair{3u, bb::BatchPath::partitioned}}) {
            SCOPED_TRACE(bb::testing::label(shape, k) + " threads=" + std::to_string(threads) +
                         " partitioned=" + std::to_string(path == bb::BatchPath::partitioned));
            Filter f(p, {}, backend());
            f.set_threads(threads);
            f.set_batch_path(path);
            f.insert(keys);
            ASSERT_TRUE(f == ref);
            Filter hashed(p, {}, backend());
            hashed.set_threads(threads);
            hashed.set_batch_path(path);
            std::vector<std::uint64_t> h(keys.size());
            for (std::size_t i = 0; i < keys.size(); ++i) h[i] = hashed.hash(keys[i]);
            hashed.insert_hashes(h);
            ASSERT_TRUE(hashed == ref);
            ASSERT_NO_FATAL_FAILURE(bb::testing::expect_same_probes(ref, f, queries));
        }
    }
}

TEST_P(BatchPathTest, PartitionedPathWithSkewedKeys) {
    // Buckets have room for 1.25x a region's fair share; repeated keys fill them, which ends
    // the round at that key. Answers must still land in the caller's order.
    const Params p = Params::make(Shape::word512, 100003, 8);
    Filter ref(p, {}, bb::Backend::scalar);
    ref.set_threads(1);
    auto keys = bb::testing::random_keys(200001, 5, 0);
    for (std::size_t i = 0; i < keys.size(); i += 3) keys[i] = 42;  // a third of the batch is one key
    for (std::size_t i = 1; i < keys.size(); i += 7) keys[i] = keys[i % 1000 + 2];
    ref.insert(keys);
    auto q = bb::testing::random_keys(keys.size(), 6, 1);
    for (std::size_t i = 0; i < q.size(); i += 2) q[i] = keys[i];
    for (std::size_t i = 1; i < q.size(); i += 5) q[i] = 42;
    const auto check = [&](const std::vector<std::uint64_t>& batch, const Filter& expect, unsigned threads) {
        SCOPED_TRACE("threads=" + std::to_string(threads));
        Filter f = partitioned(p, threads);
        f.insert(batch);
        ASSERT_TRUE(f == expect);
        ASSERT_NO_FATAL_FAILURE(bb::testing::expect_same_probes(expect, f, q));
        ASSERT_NO_FATAL_FAILURE(bb::testing::expect_same_probes(expect, f, batch));
    };
    for (unsigned threads : {1u, 2u, 3u}) ASSERT_NO_FATAL_FAILURE(check(keys, ref, threads));
    // Skew in the last part only: the threads of a round finish their shares after different
    // numbers of passes, and those done take nothing while the others go on.
    auto tail = bb::testing::random_keys(keys.size(), 7, 0);
    for (std::size_t i = tail.size() / 2; i < tail.size(); i += 2) tail[i] = 42;
    Filter tail_ref(p, {}, bb::Backend::scalar);
    tail_ref.set_threads(1);
    tail_ref.insert(tail);
    for (unsigned threads : {2u, 3u}) ASSERT_NO_FATAL_FAILURE(check(tail, tail_ref, threads));
}

TEST_P(BatchPathTest, PartitionedPathOnOddAndTinyBatches) {
    // Partitioning must also be right where it does not pay: tiny batches, one block, batches
    // that are not a multiple of 64, and more regions than keys.
    for (std::uint64_t blocks : {1ULL, 7ULL, 100003ULL}) {
        const Params p = Params::make(Shape::word512, blocks, 8);
        Filter ref(p, {}, bb::Backend::scalar), got(p, {}, backend());
        ref.set_threads(1);
        got.set_batch_path(bb::BatchPath::partitioned);
        for (std::size_t n : {0, 1, 63, 65, 1000, 70001}) {
            const auto keys = bb::testing::random_keys(n, n + blocks, 0);
            ref.insert(keys);
            got.insert(keys);
            ASSERT_TRUE(ref == got) << "blocks=" << blocks << " n=" << n;
            ASSERT_NO_FATAL_FAILURE(
                bb::testing::expect_same_probes(ref, got, bb::testing::random_keys(n, n + blocks + 1, 1)));
        }
    }
}

// The default cap follows the filter's size between 256 MiB and an eighth of the memory, so
// that a large filter's rounds still bring several keys to each of its lines.
TEST(PartitionScratch, DefaultCapFollowsTheFilterWithinBounds) {
    using bb::detail::BatchScratch;
    const std::uint64_t mib = std::uint64_t(1) << 20, floor = 256 * mib;
    const std::uint64_t eighth = bb::detail::machine().memory_bytes / 8;
    EXPECT_EQ(BatchScratch::default_limit(0), floor);
    EXPECT_EQ(BatchScratch::default_limit(mib), floor);
    EXPECT_EQ(BatchScratch::default_limit(floor + 64), std::max(floor, std::min(floor + 64, eighth)));
    EXPECT_EQ(BatchScratch::default_limit(std::uint64_t(1) << 40), std::max(floor, eighth));
    EXPECT_LE(BatchScratch::default_limit(std::uint64_t(1) << 62), std::max(floor, eighth));
    // A filter starts with its default, and its copy and fold() keep the cap it has.
    Filter f(Params::make(Shape::word512, 1000, 8), {}, bb::Backend::scalar);
    EXPECT_EQ(f.scratch_limit(), floor);
    f.set_scratch_limit(3 * mib);
    EXPECT_EQ(Filter(f).scratch_limit(), 3 * mib);
    EXPECT_EQ(f.fold().scratch_limit(), 3 * mib);
}

// share_scratch_with: a filter's calls then work in another's scratch, under its cap; a copy
// has scratch of its own.
TEST(PartitionScratch, SharedBetweenFiltersAskedOneAtATime) {
    const Params p = Params::make(Shape::word512, 20011, 8);
    Filter a(p, {}, bb::Backend::scalar), b(p, {}, bb::Backend::scalar);
    for (Filter* f : {&a, &b}) {
        f->set_threads(1);
        f->set_batch_path(bb::BatchPath::partitioned);
    }
    a.set_scratch_limit(std::size_t(64) << 20);
    b.share_scratch_with(a);
    EXPECT_EQ(b.scratch_limit(), a.scratch_limit());
    const auto keys = bb::testing::random_keys(200003, 33, 0);
    b.insert(keys);
    EXPECT_GT(a.scratch_bytes(), 0u);
    EXPECT_EQ(b.scratch_bytes(), a.scratch_bytes());
    const Filter c(b);
    EXPECT_EQ(c.scratch_bytes(), 0u);
    EXPECT_EQ(c.scratch_limit(), a.scratch_limit());
    a.release_scratch();
    EXPECT_EQ(b.scratch_bytes(), 0u);
    Filter direct(p, {}, bb::Backend::scalar);
    direct.set_batch_path(bb::BatchPath::direct);
    direct.insert(keys);
    EXPECT_TRUE(b == direct);
}

TEST_P(BatchPathTest, PartitionScratchIsKeptReusedCappedAndGivenBack) {
    const Params p = Params::make(Shape::word512, 20011, 8);
    Filter ref(p, {}, bb::Backend::scalar);
    ref.set_threads(1);
    const auto keys = bb::testing::random_keys(200003, 31, 0);
    ref.insert(keys);
    auto q = bb::testing::random_keys(keys.size(), 32, 1);
    for (std::size_t i = 0; i < q.size(); i += 2) q[i] = keys[i];

    for (unsigned threads : {1u, 2u}) {
        SCOPED_TRACE("threads=" + std::to_string(threads));
        Filter f(p, {}, backend());
        f.set_threads(threads);
        f.set_batch_path(bb::BatchPath::partitioned);
        EXPECT_EQ(f.scratch_bytes(), 0u);
        EXPECT_EQ(f.scratch_limit(), std::size_t(256) << 20);
        auto check = [&] {
            Filter g(p, {}, backend());
            g.set_threads(threads);
            g.set_batch_path(bb::BatchPath::partitioned);
            g.set_scratch_limit(f.scratch_limit());
            g.insert(keys);
            ASSERT_TRUE(g == ref);
            bb::testing::expect_same_probes(ref, f, q);
        };
        f.insert(keys);
        ASSERT_TRUE(f == ref);
        check();
        // Kept after the calls, within the cap, and not grown by the same calls again. An
        // engine without partition kernels (cuda) runs the direct path and holds none.
        const std::size_t held = f.scratch_bytes();
        if (bb::detail::blocked_kernels(backend()).partition != nullptr) {
            EXPECT_GT(held, 0u);
        } else {
            EXPECT_EQ(held, 0u);
        }
        EXPECT_LE(held, f.scratch_limit());
        check();
        EXPECT_EQ(f.scratch_bytes(), held);
        f.release_scratch();
        EXPECT_EQ(f.scratch_bytes(), 0u);
        check();
        EXPECT_EQ(f.scratch_bytes(), held);
        // A small cap: more, smaller rounds; same answers; never more memory than the cap.
        for (std::size_t cap : {std::size_t(1) << 20, std::size_t(300) << 10, std::size_t(40) << 10, std::size_t(0)}) {
            SCOPED_TRACE("cap=" + std::to_string(cap));
            f.set_scratch_limit(cap);
            EXPECT_LE(f.scratch_bytes(), cap);
            check();
            EXPECT_LE(f.scratch_bytes(), cap);
        }
        // Copies and moves: the copy has its own (empty) scratch and the same cap.
        f.set_scratch_limit(std::size_t(8) << 20);
        check();
        Filter copy(f);
        EXPECT_EQ(copy.scratch_bytes(), 0u);
        EXPECT_EQ(copy.scratch_limit(), f.scratch_limit());
        Filter moved(std::move(f));
        EXPECT_EQ(moved.scratch_limit(), std::size_t(8) << 20);
        std::vector<std::uint8_t> got(q.size()), expect(q.size());
        moved.contains(q, got);
        ref.contains(q, expect);
        ASSERT_EQ(got, expect);
        f.set_scratch_limit(1);  // a moved-from filter stays usable
        f.release_scratch();
        EXPECT_EQ(f.scratch_bytes(), 0u);
    }
}

TEST_P(BatchPathTest, ConcurrentPartitionedCallsOnOneFilter) {
    // Const bulk calls may run concurrently; one of them holds the scratch and the others take
    // the direct path. Every answer must be right either way.
    const Params p = Params::make(Shape::word512, 20011, 8);
    Filter f(p, {}, backend());
    f.set_threads(1);
    f.set_batch_path(bb::BatchPath::partitioned);
    const auto keys = bb::testing::random_keys(100003, 41, 0);
    f.insert(keys);
    auto q = bb::testing::random_keys(keys.size(), 42, 1);
    for (std::size_t i = 0; i < q.size(); i += 3) q[i] = keys[i];
    Filter ref(f);
    ref.set_batch_path(bb::BatchPath::direct);
    std::vector<std::uint8_t> expect(q.size());
    ref.contains(q, expect);
    std::vector<std::vector<std::uint8_t>> got(4, std::vector<std::uint8_t>(q.size()));
    std::vector<std::thread> callers;
    for (auto& g : got)
        callers.emplace_back([&f, &q, &g] {
            for (int round = 0; round < 5; ++round) f.contains(q, g);
        });
    for (auto& c : callers) c.join();
    for (const auto& g : got) ASSERT_EQ(g, expect);
}

TEST_P(BatchPathTest, RoundsOfAFewKeysPerLineStayBitExact) {
    // A batch of many keys per filter line runs in several rounds of at most 32 keys per line
    // (round_keys, blocked_paths.cpp), whatever the scratch limit: every round but the last
    // ends on a whole word of a probe's answer bitmap, and every answer and bit matches the
    // scalar engine's direct path, on one to three threads.
    const Params p = Params::make(Shape::word512, 1024, 8);  // 64 KiB: 32768 keys per round
    const auto keys = bb::testing::random_keys(100003, 53, 0);
    auto q = bb::testing::random_keys(keys.size() + 29, 54, 1);
    for (std::size_t i = 0; i < keys.size(); i += 3) q[i] = keys[i];
    Filter ref(p, {}, bb::Backend::scalar);
    ref.set_batch_path(bb::BatchPath::direct);
    ref.insert(keys);
    for (const unsigned threads : {1u, 2u, 3u}) {
        SCOPED_TRACE("threads=" + std::to_string(threads));
        Filter f = partitioned(p, threads);
        f.insert(keys);
        ASSERT_TRUE(f == ref);
        ASSERT_NO_FATAL_FAILURE(bb::testing::expect_same_probes(ref, f, q));
        EXPECT_GT(f.scratch_bytes(), 0u);  // it ran partitioned, not on the fallback
    }
}

TEST_P(BatchPathTest, AutomaticPathIsARuleAndStaysBitExact) {
    // A filter beyond L2, batches of every path's interest, one to three threads and scratch
    // limits that make the partitioned path run several rounds: the automatic path is decided
    // before the first call (never "automatic"), the same for every filter object, and every
    // call's bytes and answers equal the scalar engine's on the direct path.
    const std::uint64_t blocks = 2 * bb::detail::machine().l2_bytes / 64 + 7;
    const Params p = Params::make(Shape::word512, blocks, 8);
    const auto keys = bb::testing::random_keys(300001, 51, 0);
    auto q = bb::testing::random_keys(keys.size(), 52, 1);
    for (std::size_t i = 0; i < q.size(); i += 2) q[i] = keys[i];
    Filter ref(p, {}, bb::Backend::scalar);
    ref.set_batch_path(bb::BatchPath::direct);
    ref.insert(keys);
    std::vector<std::uint8_t> expect(q.size());
    ref.contains(q, expect);
    std::vector<std::uint64_t> expect_bits((q.size() + 63) / 64);
    ref.contains_bitmap(q, expect_bits);
    const std::size_t expect_count = ref.count(q);
    for (const unsigned threads : {1u, 2u, 3u})
        for (const std::size_t scratch : {std::size_t(256) << 20, std::size_t(1) << 20, std::size_t(256) << 10})
            for (const auto path : {bb::BatchPath::automatic, bb::BatchPath::partitioned}) {
                SCOPED_TRACE("threads=" + std::to_string(threads) + " scratch=" + std::to_string(scratch) +
                             " partitioned=" + std::to_string(path == bb::BatchPath::partitioned));
                Filter f(p, {}, backend());
                f.set_threads(threads);
                f.set_scratch_limit(scratch);
                f.set_batch_path(path);
                const BatchPath first = f.batch_path_for(keys.size(), true);
                EXPECT_NE(first, bb::BatchPath::automatic);
                EXPECT_NE(f.batch_path_for(q.size(), false), bb::BatchPath::automatic);
                for (int call = 0; call < 2; ++call) {
                    f.clear();
                    f.insert(keys);
                    ASSERT_TRUE(f == ref);
                    EXPECT_EQ(f.batch_path_for(keys.size(), true), first);  // calls change nothing
                    std::vector<std::uint8_t> got(q.size());
                    f.contains(q, got);
                    ASSERT_EQ(got, expect);
                    std::vector<std::uint64_t> bits(expect_bits.size(), ~std::uint64_t(0));
                    f.contains_bitmap(q, bits);
                    ASSERT_EQ(bits, expect_bits);
                    ASSERT_EQ(f.count(q), expect_count);
                }
            }
}

TEST(BatchPathChoice, TheRuleFollowsTheMachinesCaches) {
    // The rule of path_choice.hpp over this machine's cache sizes: partitioned only for inserts
    // of 1M keys or more, on several threads into a filter whose private copies do not fit the
    // last-level cache (whether or not the filter itself does), on one thread into a filter over
    // four times that cache; direct for everything else, probes included.
    using bb::detail::Op;
    ASSERT_EQ(unsetenv("BATCHBLOOM_BATCH_PATH"), 0);
    bb::reload_environment();
    const auto& m = bb::detail::machine();
    const std::uint64_t llc = bb::detail::shared_cache_bytes();
    EXPECT_LE(llc, std::max(m.l2_bytes, m.l3_bytes));
    const auto ref_of = [](std::uint64_t bytes) { return bb::detail::FilterRef{nullptr, bytes / 64, Shape::word512, 8}; };
    const auto choose = [](const bb::detail::FilterRef& f, std::size_t n, unsigned t, Op op) {
        return bb::detail::choose_path(f, n, t, bb::BatchPath::automatic, op);
    };
    const auto big = ref_of(4 * llc), cached = ref_of(llc / 2), l2 = ref_of(m.l2_bytes / 2);
    const auto no_copies = ref_of(llc / 4 * 3);  // held by the cache, but not twice
    const std::size_t n = std::size_t(64) << 20;  // copies of 4x the cache never pay for these
    EXPECT_EQ(choose(big, n, 2, Op::insert), BatchPath::partitioned);
    EXPECT_EQ(choose(big, n, 8, Op::insert), BatchPath::partitioned);
    EXPECT_EQ(choose(big, n, 1, Op::insert), BatchPath::direct);
    const auto huge = ref_of(4 * llc + (std::uint64_t(1) << 20));  // over four times the cache
    EXPECT_EQ(choose(huge, n, 1, Op::insert), BatchPath::partitioned);
    EXPECT_EQ(choose(huge, n, 1, Op::probe), BatchPath::direct);
    EXPECT_EQ(choose(huge, std::size_t(1) << 19, 1, Op::insert), BatchPath::direct);
    EXPECT_EQ(choose(big, n, 2, Op::probe), BatchPath::direct);
    EXPECT_EQ(choose(big, std::size_t(1) << 19, 2, Op::insert), BatchPath::direct);  // a small batch
    EXPECT_EQ(choose(cached, n, 2, Op::insert), BatchPath::direct);  // into two copies
    EXPECT_TRUE(bb::detail::private_copies_pay(cached, 2, n));
    EXPECT_EQ(choose(no_copies, n, 2, Op::insert), BatchPath::partitioned);
    EXPECT_EQ(choose(no_copies, n, 1, Op::insert), BatchPath::direct);
    EXPECT_EQ(choose(no_copies, std::size_t(1) << 19, 2, Op::insert), BatchPath::direct);
    EXPECT_EQ(choose(no_copies, n, 2, Op::probe), BatchPath::direct);
    EXPECT_EQ(choose(l2, n, 2, Op::insert), BatchPath::direct);
    EXPECT_EQ(choose(l2, n, 2, Op::probe), BatchPath::direct);
    // An explicit path is kept.
    EXPECT_EQ(bb::detail::choose_path(l2, n, 1, BatchPath::partitioned, Op::probe), BatchPath::partitioned);
    EXPECT_EQ(bb::detail::choose_path(big, n, 2, BatchPath::direct, Op::insert), BatchPath::direct);
}

// A bulk call's context (batch/bulk_call.hpp) is resolved once, from the settings and the call's
// key count: `automatic` is the engine the registry picks here, and the threads are the setting
// (0: every CPU this process may use, at most max_threads) fitted to the keys, one per
// min_keys_per_thread and at least one; a part of the call never gets more than the call.
TEST(BulkCall, ResolvesTheEngineAndTheThreadsOnceForTheCallsKeys) {
    namespace d = bb::detail;
    ASSERT_EQ(unsetenv("BATCHBLOOM_BACKEND"), 0);
    bb::reload_environment();
    Filter f(Params::for_fpr(1000, 0.01));
    const d::BulkCall none = d::bulk_call(f, 0);
    EXPECT_NE(none.backend, bb::Backend::automatic);
    EXPECT_EQ(none.backend, bb::resolve_backend(bb::Backend::automatic));
    EXPECT_EQ(&d::blocked_kernels(none.backend), &d::blocked_kernels(bb::Backend::automatic));
    EXPECT_EQ(none.threads, 1u);
    EXPECT_EQ(none.path, BatchPath::automatic);
    EXPECT_EQ(none.scratch, nullptr);

    const std::size_t per = d::min_keys_per_thread;
    const unsigned every = std::min(bb::hardware_threads(), bb::max_threads);
    for (const std::size_t n : {std::size_t{1}, per - 1, per, 2 * per + 1, 7 * per, 1000 * per, std::size_t(1) << 45})
        EXPECT_EQ(d::bulk_call(f, n).threads, std::clamp<std::size_t>(n / per, 1, every)) << n << " keys";
    f.set_threads(3);
    EXPECT_EQ(d::bulk_call(f, 1000 * per).threads, 3u);
    EXPECT_EQ(d::bulk_call(f, 2 * per).threads, 2u);
    EXPECT_EQ(d::bulk_call(f, per / 2).threads, 1u);
    f.set_threads(bb::max_threads + 1000);  // set_threads cannot refuse it: a call runs on max_threads
    EXPECT_EQ(d::bulk_call(f, std::size_t(4) * bb::max_threads * per).threads, bb::max_threads);

    f.set_threads(4);
    const d::BulkCall call = d::bulk_call(f, 1000 * per);
    EXPECT_EQ(call.threads_for(1000 * per), 4u);
    EXPECT_EQ(call.threads_for(3 * per), 3u);
    EXPECT_EQ(call.threads_for(2048), 1u);  // a chunk of hashed keys
    EXPECT_EQ(d::bulk_call(f, 2 * per).threads_for(1000 * per), 2u);  // never more than the call's

    // A set engine is the call's; the path and scratch are carried as given.
    f.set_backend(bb::Backend::scalar);
    d::BatchScratch scratch(0);
    const d::BulkCall set = d::bulk_call(f, 10, BatchPath::partitioned, &scratch);
    EXPECT_EQ(set.backend, bb::Backend::scalar);
    EXPECT_EQ(set.path, BatchPath::partitioned);
    EXPECT_EQ(set.scratch, &scratch);

    // BATCHBLOOM_BACKEND names the engine of `automatic`, as last read.
    Filter automatic(Params::for_fpr(1000, 0.01));
    ASSERT_EQ(setenv("BATCHBLOOM_BACKEND", "scalar", 1), 0);
    bb::reload_environment();
    EXPECT_EQ(d::bulk_call(automatic, 10).backend, bb::Backend::scalar);
    ASSERT_EQ(unsetenv("BATCHBLOOM_BACKEND"), 0);
    bb::reload_environment();
    EXPECT_EQ(d::bulk_call(automatic, 10).backend, none.backend);
}

TEST(BatchPathEnvironment, OverridesAutomaticButNotAnExplicitPath) {
    const Params p = Params::make(Shape::word512, 2 * bb::detail::machine().l2_bytes / 64 + 7, 8);
    Filter f(p, {}, bb::Backend::scalar);
    const auto keys = bb::testing::random_keys(300000, 61, 0);
    ASSERT_EQ(setenv("BATCHBLOOM_BATCH_PATH", "partitioned", 1), 0);
    bb::reload_environment();
    EXPECT_EQ(f.batch_path_for(keys.size(), true), bb::BatchPath::partitioned);
    f.set_batch_path(bb::BatchPath::direct);
    EXPECT_EQ(f.batch_path_for(keys.size(), true), bb::BatchPath::direct);
    f.set_batch_path(bb::BatchPath::automatic);
    ASSERT_EQ(setenv("BATCHBLOOM_BATCH_PATH", "direct", 1), 0);
    bb::reload_environment();
    EXPECT_EQ(f.batch_path_for(keys.size(), false), bb::BatchPath::direct);
    // Read once and kept: a change is followed after reload_environment(), not before.
    ASSERT_EQ(setenv("BATCHBLOOM_BATCH_PATH", "partitioned", 1), 0);
    EXPECT_EQ(f.batch_path_for(keys.size(), false), bb::BatchPath::direct);
    bb::reload_environment();
    EXPECT_EQ(f.batch_path_for(keys.size(), false), bb::BatchPath::partitioned);
    ASSERT_EQ(setenv("BATCHBLOOM_BATCH_PATH", "fastest", 1), 0);
    bb::reload_environment();
    EXPECT_THROW(f.insert(keys), bb::Error);  // a misspelt setting is an error, not ignored
    ASSERT_EQ(unsetenv("BATCHBLOOM_BATCH_PATH"), 0);
    bb::reload_environment();
    f.insert(keys);
    EXPECT_EQ(f.count(keys), keys.size());
}

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define BB_ENGINES_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define BB_ENGINES_SANITIZED 1
#endif
#endif

#ifndef BB_ENGINES_SANITIZED
/// Child process of the test below: exits 0 if partitioned calls under a tight address-space
/// cap give the same answers and filter as unconstrained direct ones.
[[noreturn]] void partitioned_calls_without_scratch_memory() {
    const Params p = Params::for_bits_per_key(1'000'000, 10);
    Filter ref(p);
    ref.set_threads(1);
    const auto keys = bb::testing::random_keys(4'000'000, 21, 0);
    ref.insert(std::span(keys).first(1'000'000));
    std::vector<std::uint8_t> expect(keys.size()), got(keys.size());
    ref.contains(keys, expect);
    std::vector<std::uint64_t> expect_bits((keys.size() + 63) / 64), bits(expect_bits.size());
    ref.contains_bitmap(keys, expect_bits);
    const std::size_t expect_count = ref.count(keys);
    Filter inserted(p), expect_inserted(p);
    expect_inserted.insert(keys);
    long pages = 0;
    if (std::FILE* statm = std::fopen("/proc/self/statm", "r")) {
        if (std::fscanf(statm, "%ld", &pages) != 1) pages = 0;
        std::fclose(statm);
    }
    const rlim_t cap = static_cast<rlim_t>(pages) * static_cast<rlim_t>(::sysconf(_SC_PAGESIZE)) + (rlim_t{16} << 20);
    const rlimit lim{cap, cap};
    if (pages == 0 || ::setrlimit(RLIMIT_AS, &lim) != 0) std::exit(3);
    for (Filter* f : {&ref, &inserted}) {
        f->set_threads(1);
        f->set_batch_path(bb::BatchPath::partitioned);
    }
    ref.contains(keys, got);
    ref.contains_bitmap(keys, bits);
    inserted.insert(keys);
    std::exit(got == expect && bits == expect_bits && ref.count(keys) == expect_count &&
                      inserted == expect_inserted
                  ? 0
                  : 1);
}
#endif

TEST(BatchPath, PartitionedPathFallsBackToDirectWithoutScratchMemory) {
    // The partitioned path allocates scratch (~12 bytes per key of a round); when it cannot,
    // the same call must still give every answer, on the direct path. A child process caps its
    // address space a little above what it already uses and runs partitioned calls whose
    // scratch cannot fit. (Sanitizers reserve address space of their own: skipped there.)
#ifdef BB_ENGINES_SANITIZED
    GTEST_SKIP() << "RLIMIT_AS cannot be used under a sanitizer";
#else
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(partitioned_calls_without_scratch_memory(), ::testing::ExitedWithCode(0), "");
#endif
}


// Arenas that die leave their memory for the next arena of the process that fits it (a
// filter built per query on two threads then finds its copies' pages in); what they held is
// overwritten before it is read, so a copies insert into a spare full of ones, blocked or
// classic, gives one thread's bits; the pool's workers free the spares once the process
// has been idle for spare_keep_time.
TEST(SpareArenas, AreReusedOverwrittenAndFreedWhenIdle) {
    namespace d = bb::detail;
    d::release_idle_spares(std::chrono::milliseconds(0));
    ASSERT_EQ(d::spare_bytes(), 0u);
    constexpr std::size_t odd = (std::size_t(3) << 20) + 5 * 4096;
    std::byte* first = nullptr;
    {
        d::ScratchArena a;
        first = a.get(odd, false);
    }
    EXPECT_EQ(d::spare_bytes(), odd);
    {
        d::ScratchArena smaller;  // by default a spare of exactly the size asked
        EXPECT_NE(smaller.get(odd - 4096), first);
        d::ScratchArena b;
        EXPECT_EQ(b.get(odd - 4096, true, odd), first);
        EXPECT_EQ(d::spare_bytes(), 0u);
    }
    EXPECT_EQ(d::spare_bytes(), 2 * odd - 4096);
    EXPECT_TRUE(d::release_idle_spares(std::chrono::hours(1)));  // just used: kept
    EXPECT_FALSE(d::release_idle_spares(std::chrono::milliseconds(0)));
    EXPECT_EQ(d::spare_bytes(), 0u);

    const auto keys = bb::testing::random_keys(600001, 41, 0);
    const auto part = std::span(keys).subspan(3, keys.size() - 10);
    auto spare_of_ones = [](std::size_t bytes) {
        d::ScratchArena a;
        std::fill_n(a.get(bytes, false), bytes, std::byte{0xff});
    };
    Filter one(Params::for_fpr(keys.size(), 0.01), {}, bb::Backend::scalar);
    one.set_threads(1);
    one.insert(part);
    bb::ClassicFilter classic_one(bb::ClassicParams::for_fpr(keys.size(), 0.01));
    classic_one.set_threads(1);
    classic_one.insert(part);
    for (int round = 0; round < 3; ++round) {  // the second and third take the first's copies
        SCOPED_TRACE(round);
        spare_of_ones(one.params().bytes());
        spare_of_ones(classic_one.params().bytes());
        Filter many(one.params());
        many.set_threads(2);
        many.set_batch_path(BatchPath::direct);
        many.insert(part);
        EXPECT_TRUE(many == one);
        bb::ClassicFilter classic_many(classic_one.params());
        classic_many.set_threads(2);
        classic_many.insert(part);
        EXPECT_TRUE(classic_many == classic_one);
    }
    // A filter's storage: left to the spares when it dies, taken (zeroed) by the next filter of
    // its size, and by a copy (copied over).
    d::release_idle_spares(std::chrono::milliseconds(0));
    const std::byte* storage = nullptr;
    {
        Filter gone(one);
        storage = gone.bytes().data();
    }
    EXPECT_EQ(d::spare_bytes(), one.params().bytes());
    {
        Filter fresh(one.params());
        EXPECT_EQ(fresh.bytes().data(), storage);
        EXPECT_EQ(d::spare_bytes(), 0u);
        EXPECT_TRUE(std::all_of(fresh.bytes().begin(), fresh.bytes().end(), [](std::byte b) { return b == std::byte{0}; }));
        EXPECT_EQ(fresh.count(part), 0u);
    }
    {
        const Filter copy(one);
        EXPECT_EQ(copy.bytes().data(), storage);
        EXPECT_TRUE(copy == one);
        bb::ClassicFilter classic_gone(classic_one);
    }
    EXPECT_EQ(d::spare_bytes(), one.params().bytes() + classic_one.params().bytes());
    {
        const bb::ClassicFilter classic_fresh(classic_one.params());
        EXPECT_EQ(classic_fresh.count(part), 0u);
        const bb::ClassicFilter classic_copy(classic_one);
        EXPECT_TRUE(classic_copy == classic_one);
    }
    if (bb::hardware_threads() < 2) GTEST_SKIP() << "no pool worker on one CPU to free the spares";
    bb::detail::each_thread(2, [](unsigned) {});  // the workers' last call: they sleep after it
    EXPECT_GT(d::spare_bytes(), 0u);
    std::this_thread::sleep_for(d::spare_keep_time + std::chrono::milliseconds(500));
    EXPECT_EQ(d::spare_bytes(), 0u);
}
