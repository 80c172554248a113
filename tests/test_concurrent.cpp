// ConcurrentFilter: several caller threads inserting at once build the filter a sequential
// build does, bit for bit; probes running meanwhile never miss a key whose insert returned
// before they started. Filter::scratch_bytes may be asked while probes run, and so may a
// scalable filter's, whose stage-by-stage probes share one scratch. Its own
// executable (batchbloom_concurrency_tests), so that the ThreadSanitizer stage of ./dev test
// builds and runs only this.
#include <gtest/gtest.h>

#include <batchbloom/concurrent.hpp>
#include <batchbloom/filter.hpp>
#include <batchbloom/scalable.hpp>
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <sstream>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "support.hpp"

namespace bb = batchbloom;
using bb::Filter;
using bb::Params;
using bb::Shape;

namespace {

constexpr unsigned threads = 4;

/// Runs body(t) on `threads` threads at once (released together) and joins them.
template <class Body>
void on_threads(Body&& body) {
    std::atomic<bool> go{false};
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
            while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
            body(t);
        });
    go.store(true, std::memory_order_release);
    for (auto& th : pool) th.join();
}

/// On `threads` threads at once: thread 0 calls ask() over and over while each of the others
/// calls probe(t) three times.
template <class Probe, class Ask>
void probe_while_asking(Probe&& probe, Ask&& ask) {
    std::atomic<unsigned> probing{threads - 1};
    on_threads([&](unsigned t) {
        if (t == 0) {
            while (probing.load(std::memory_order_acquire) != 0) ask();
            return;
        }
        for (int call = 0; call < 3; ++call) probe(t);
        probing.fetch_sub(1, std::memory_order_release);
    });
}

/// probe_while_asking where each probe asks f for `keys` and must get `expect`.
template <class F, class Ask>
void probe_while_asking(const F& f, const std::vector<std::uint64_t>& keys, const std::vector<std::uint8_t>& expect,
                        Ask&& ask) {
    probe_while_asking(
        [&](unsigned) {
            std::vector<std::uint8_t> got(keys.size());
            f.contains(keys, got);
            EXPECT_EQ(got, expect);
        },
        ask);
}

/// Thread t's morsel of keys: every threads-th key from t, so morsels interleave in the filter.
template <class T>
std::vector<T> morsel(const std::vector<T>& keys, unsigned t) {
    std::vector<T> out;
    for (std::size_t i = t; i < keys.size(); i += threads) out.push_back(keys[i]);
    return out;
}

struct Case {
    Shape shape;
    std::uint64_t keys;
    bb::Hashing hashing;
};

// Small (in cache), and past the kernels' prefetch threshold; both hash kinds.
const Case cases[] = {{Shape::word512, 20'000, {}},
                      {Shape::split256, 20'000, {bb::HashKind::murmur3, 7}},
                      {Shape::line512, 20'000, {bb::HashKind::xxh3, 3}},
                      {Shape::word512, 400'000, {}}};

}  // namespace

TEST(ConcurrentFilter, ThreadsBuildTheSequentialFilterBitForBit) {
    for (const Case& c : cases) {
        SCOPED_TRACE(std::string(bb::to_string(c.shape)) + " " + std::to_string(c.keys));
        const Params p = Params::for_fpr(c.keys, 0.01, c.shape);
        const auto keys = bb::testing::random_keys(c.keys, 1, 0);
        std::vector<std::string> strings;
        for (std::size_t i = 0; i < c.keys / 8; ++i) strings.push_back("key-" + std::to_string(keys[i]));
        std::vector<std::uint32_t> small;
        for (std::size_t i = 0; i < c.keys / 8; ++i) small.push_back(static_cast<std::uint32_t>(keys[i] >> 7));

        Filter sequential(p, c.hashing);
        sequential.insert(keys);
        sequential.insert(std::span<const std::string>(strings));
        sequential.insert(std::span<const std::uint32_t>(small));

        Filter shared(p, c.hashing);
        bb::ConcurrentFilter view(shared);
        on_threads([&](unsigned t) {
            const auto mine = morsel(keys, t);
            const auto my_strings = morsel(strings, t);
            const auto my_small = morsel(small, t);
            std::vector<std::string_view> views(my_strings.begin(), my_strings.end());
            // Every input form: 64-bit keys in two halves, hashes, strings, views, 32-bit keys.
            const std::span<const std::uint64_t> all(mine);
            view.insert(all.first(all.size() / 2));
            std::vector<std::uint64_t> hashes;
            for (const auto k : all.subspan(all.size() / 2)) hashes.push_back(shared.hash(k));
            view.insert_hashes(hashes);
            if (t % 2 == 0) {
                view.insert(std::span<const std::string>(my_strings));
            } else {
                view.insert(std::span<const std::string_view>(views));
            }
            view.insert(std::span<const std::uint32_t>(my_small));
            if (!my_strings.empty()) view.insert(std::string_view(my_strings[0]));  // single keys, again
            if (!mine.empty()) view.insert(mine[0]);
        });
        EXPECT_TRUE(shared == sequential);

        // The view's probes answer as the filter's.
        const auto queries = bb::testing::random_keys(5'000, 1, 0);
        const auto absent = bb::testing::random_keys(5'000, 2, 1);
        for (const auto* q : {&queries, &absent}) {
            std::vector<std::uint8_t> a(q->size()), b(q->size());
            view.contains(*q, a);
            sequential.contains(*q, b);
            EXPECT_EQ(a, b);
            EXPECT_EQ(view.count(*q), sequential.count(*q));
        }
        EXPECT_EQ(view.count(std::span<const std::uint32_t>(small)), small.size());
        EXPECT_TRUE(view.contains(std::string_view(strings.back())));
        EXPECT_TRUE(view.contains(keys.back()));
    }
}

// Probing threads run while inserting threads insert; each inserter publishes (release) how
// many of its keys it has inserted, and a prober that reads that count (acquire) probes those
// keys: none may be missing.
TEST(ConcurrentFilter, ProbesNeverMissKeysInsertedBeforeThem) {
    for (const Shape shape : {Shape::word512, Shape::split256, Shape::line512}) {
        const std::size_t n = 200'000;
        Filter f(Params::for_fpr(n, 0.01, shape));
        bb::ConcurrentFilter view(f);
        const auto keys = bb::testing::random_keys(n, 9, 0);
        constexpr unsigned inserters = threads / 2;
        constexpr std::size_t step = 1'000;
        std::atomic<std::size_t> published[inserters] = {};
        std::atomic<std::size_t> misses{0}, probed{0};
        on_threads([&](unsigned t) {
            if (t < inserters) {
                const auto mine = morsel(keys, t);  // morsels of `threads`; inserters take the first ones
                for (std::size_t at = 0; at < mine.size(); at += step) {
                    const std::size_t len = std::min(step, mine.size() - at);
                    view.insert(std::span<const std::uint64_t>(mine).subspan(at, len));
                    published[t].store(at + len, std::memory_order_release);
                }
                return;
            }
            const unsigned source = t - inserters;
            const auto theirs = morsel(keys, source);
            std::vector<std::uint8_t> out;
            for (std::size_t checked = 0; checked < theirs.size();) {
                const std::size_t done = published[source].load(std::memory_order_acquire);
                if (done == checked) {
                    std::this_thread::yield();
                    continue;
                }
                out.resize(done - checked);
                view.contains(std::span<const std::uint64_t>(theirs).subspan(checked, done - checked), out);
                for (const auto hit : out) misses += hit == 0;
                // The earliest keys again, while the inserter is still adding others.
                misses += view.count(std::span<const std::uint64_t>(theirs).first(std::min<std::size_t>(done, 64))) !=
                          std::min<std::size_t>(done, 64);
                probed += done - checked;
                checked = done;
            }
        });
        EXPECT_EQ(misses.load(), 0u) << bb::to_string(shape);
        EXPECT_EQ(probed.load(), inserters * (n / threads));
        // The inserters' keys are all there (the other morsels were never inserted).
        std::size_t inserted = 0;
        for (unsigned t = 0; t < inserters; ++t) {
            const auto mine = morsel(keys, t);
            EXPECT_EQ(f.count(mine), mine.size());
            inserted += mine.size();
        }
        EXPECT_GT(inserted, 0u);
    }
}

// Issue 45, row 3: Filter::save while view inserts ran checksummed one state of the words and
// wrote a later one, and most such files did not load. Every snapshot the view takes loads and
// holds every key inserted before the save began.
TEST(ConcurrentFilter, SnapshotsTakenWhileThreadsInsertLoadAndHoldEarlierKeys) {
    const std::size_t n = 400'000;
    Filter f(Params::for_fpr(n, 0.01));
    bb::ConcurrentFilter view(f);
    const auto keys = bb::testing::random_keys(n, 21, 0);
    constexpr unsigned inserters = threads - 1;
    constexpr std::size_t step = 2'000;
    std::atomic<std::size_t> published[inserters] = {};
    std::atomic<unsigned> running{inserters};
    const auto path = bb::testing::process_temp_path("concurrent_snapshot.bbf");
    unsigned saves = 0, changed_during = 0;
    on_threads([&](unsigned t) {
        if (t != 0) {
            const auto mine = morsel(keys, t - 1);
            for (std::size_t at = 0; at < mine.size(); at += step) {
                const std::size_t len = std::min(step, mine.size() - at);
                view.insert(std::span<const std::uint64_t>(mine).subspan(at, len));
                published[t - 1].store(at + len, std::memory_order_release);
            }
            running.fetch_sub(1, std::memory_order_release);
            return;
        }
        for (unsigned round = 0; running.load(std::memory_order_acquire) != 0 || round < 4; ++round) {
            std::size_t before[inserters];
            for (unsigned i = 0; i < inserters; ++i) before[i] = published[i].load(std::memory_order_acquire);
            Filter loaded(Params::for_fpr(1, 0.5));
            switch (round % 4) {
                case 0: {  // into caller memory (Python's to_bytes and pickling)
                    std::string bytes(view.saved_size(), '\0');
                    view.save(std::as_writable_bytes(std::span<char>(bytes)));
                    std::istringstream in(bytes);
                    loaded = Filter::load(in);
                    break;
                }
                case 1: {
                    std::stringstream out;
                    view.save(out, bb::SaveOptions{bb::Compression::zstd, 1});
                    loaded = Filter::load(out);
                    break;
                }
                case 2:
                    view.save(path);
                    loaded = Filter::load(path);
                    break;
                default: loaded = view.snapshot();
            }
            ++saves;
            if (running.load(std::memory_order_acquire) != 0) ++changed_during;
            for (unsigned i = 0; i < inserters; ++i) {
                const auto mine = morsel(keys, i);
                const auto earlier = std::span<const std::uint64_t>(mine).first(before[i]);
                ASSERT_EQ(loaded.count(earlier), earlier.size()) << "round " << round << ", inserter " << i;
            }
        }
    });
    EXPECT_GE(saves, 4u);
    EXPECT_GT(changed_during, 0u) << "no save overlapped the inserts: the test proved nothing";
    // After the inserts, a snapshot is the filter itself.
    EXPECT_EQ(view.snapshot(), f);
    std::string bytes(view.saved_size(), '\0');
    view.save(std::as_writable_bytes(std::span<char>(bytes)));
    std::stringstream plain;
    f.save(plain);
    EXPECT_EQ(bytes, plain.str());
}

TEST(ConcurrentFilter, SnapshotOfTheWrongSizeOrOfAMovedFromFilterIsAnError) {
    Filter f(Params::for_fpr(100, 0.01));
    const bb::ConcurrentFilter view(f);
    std::string small(view.saved_size() - 1, '\0');
    EXPECT_THROW(view.save(std::as_writable_bytes(std::span<char>(small))), bb::Error);
    Filter gone = std::move(f);
    std::string none(64, '\0');
    EXPECT_THROW(view.save(std::as_writable_bytes(std::span<char>(none))), bb::Error);
    std::stringstream out;
    EXPECT_THROW(view.save(out), bb::Error);
}

TEST(ConcurrentFilter, OutputSizeMismatchIsAnError) {
    Filter f(Params::for_fpr(100, 0.01));
    bb::ConcurrentFilter view(f);
    const std::vector<std::uint64_t> keys(3);
    std::vector<std::uint8_t> out(2);
    EXPECT_THROW(view.contains(keys, out), bb::Error);
    EXPECT_THROW(view.contains_hashes(keys, out), bb::Error);
    EXPECT_EQ(&view.filter(), &f);
}

TEST(FilterScratch, ScratchBytesMayBeAskedWhileProbesRun) {
    // Const probes may share a filter; so may scratch_bytes(), which must not read the scratch
    // a partitioned probe is growing. Probes on the partitioned path (one of them at a time
    // holds the scratch, the others run direct) give the direct path's answers throughout.
    const Params p = Params::make(Shape::word512, (std::uint64_t(8) << 20) / 64, 8);
    Filter f(p);
    const auto keys = bb::testing::random_keys(200'000, 71, 0);
    f.insert(keys);
    std::vector<std::uint8_t> expect(keys.size());
    f.set_batch_path(bb::BatchPath::direct);
    f.contains(keys, expect);
    f.set_batch_path(bb::BatchPath::partitioned);
    f.set_threads(1);
    probe_while_asking(f, keys, expect, [&] { EXPECT_LE(f.scratch_bytes(), f.scratch_limit()); });
    EXPECT_GT(f.scratch_bytes(), 0u);
    f.release_scratch();
    EXPECT_EQ(f.scratch_bytes(), 0u);
}

namespace {

/// A scalable filter grown from 20K keys by 400K of seed `seed` (5 stages), probing on one
/// thread.
bb::ScalableFilter grown_scalable(std::uint64_t seed) {
    bb::ScalableParams sp;
    sp.initial_capacity = 20'000;
    bb::ScalableFilter f(sp);
    f.insert(bb::testing::random_keys(400'000, seed, 0));
    f.set_threads(1);
    return f;
}

}  // namespace

TEST(ScalableScratch, ProbesShareItAndScratchBytesMayBeAskedMeanwhile) {
    // Large batches go stage by stage (BATCHBLOOM_BATCH_PATH=partitioned says no stage runs
    // direct): one probe at a time holds the filter's scratch, the others go chunk by chunk,
    // and all give the chunked probe's answers.
    bb::ScalableFilter f = grown_scalable(72);
    auto keys = bb::testing::random_keys(200'000, 72, 0);
    const auto absent = bb::testing::random_keys(100'000, 73, 1);
    std::copy(absent.begin(), absent.end(), keys.begin() + 100'000);
    std::vector<std::uint8_t> expect(keys.size());
    ASSERT_EQ(setenv("BATCHBLOOM_BATCH_PATH", "direct", 1), 0);
    bb::reload_environment();
    f.contains(keys, expect);
    ASSERT_EQ(setenv("BATCHBLOOM_BATCH_PATH", "partitioned", 1), 0);
    bb::reload_environment();
    probe_while_asking(f, keys, expect, [&] { (void)f.scratch_bytes(); });
    ASSERT_EQ(unsetenv("BATCHBLOOM_BATCH_PATH"), 0);
    bb::reload_environment();
    EXPECT_GE(f.scratch_bytes(), keys.size() * 13);
    f.release_scratch();
    EXPECT_EQ(f.scratch_bytes(), 0u);
}

TEST(ScalableScratch, ItsStagesProbedAtOnceShareOnePartitioningScratch) {
    // A scalable filter's stages partition in one scratch. Probed at once, each caller thread
    // asking its own stage on the partitioned path, one of them at a time holds it and the
    // others run direct, all with the direct path's answers.
    const bb::ScalableFilter f = grown_scalable(74);
    ASSERT_GE(f.stages().size(), threads);
    const auto keys = bb::testing::random_keys(200'000, 74, 0);
    const auto stage = [&](unsigned t) -> const Filter& { return f.stages()[f.stages().size() - t]; };
    std::vector<std::vector<std::uint8_t>> expect(threads, std::vector<std::uint8_t>(keys.size()));
    ASSERT_EQ(setenv("BATCHBLOOM_BATCH_PATH", "direct", 1), 0);
    bb::reload_environment();
    for (unsigned t = 1; t < threads; ++t) stage(t).contains(keys, expect[t]);
    ASSERT_EQ(setenv("BATCHBLOOM_BATCH_PATH", "partitioned", 1), 0);
    bb::reload_environment();
    probe_while_asking(
        [&](unsigned t) {
            std::vector<std::uint8_t> got(keys.size());
            stage(t).contains(keys, got);
            EXPECT_EQ(got, expect[t]);
        },
        [&] { EXPECT_LE(f.scratch_bytes(), f.scratch_limit()); });
    ASSERT_EQ(unsetenv("BATCHBLOOM_BATCH_PATH"), 0);
    bb::reload_environment();
    const std::size_t shared = f.stages().front().scratch_bytes();
    EXPECT_GT(shared, 0u);
    for (const Filter& s : f.stages()) EXPECT_EQ(s.scratch_bytes(), shared);
}

TEST(Environment, ReloadedWhileBulkCallsReadIt) {
    // Every bulk call reads the kept environment (the engine of Backend::automatic, the batch
    // path); reload_environment() on another thread meanwhile must be safe, and the answers
    // are the same whatever the calls read.
    Filter f(Params::for_fpr(100'000, 0.01, Shape::word512));
    const auto keys = bb::testing::random_keys(50'000, 75, 0);
    f.insert(keys);
    const std::vector<std::uint8_t> expect(keys.size(), 1);
    probe_while_asking(f, keys, expect, [] { bb::reload_environment(); });
}
