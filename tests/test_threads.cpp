// The thread pool under every multi-threaded bulk call (src/batch/threads.cpp): each task runs
// exactly once whatever the thread count, exceptions come out, calls nest (a bulk call inside a
// task runs on its thread) and come from several threads at once, a host's runner takes the
// work, every filter type's calls run on its own thread setting, and a thread the system will
// not start leaves the call running on fewer instead of ending the process.
#include <batchbloom/classic.hpp>
#include <batchbloom/counting.hpp>
#include <batchbloom/deletable.hpp>
#include <batchbloom/filter.hpp>
#include <batchbloom/parallel.hpp>
#include <batchbloom/scalable.hpp>
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <functional>
#include <numeric>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "batch/threads.hpp"

namespace {

using batchbloom::detail::each_chunk;
using batchbloom::detail::each_thread;

TEST(Threads, EveryTaskRunsExactlyOnceForAnyThreadCount) {
    for (unsigned t : {1u, 2u, 3u, 7u, 64u, 1024u}) {
        std::vector<std::atomic<int>> runs(t);
        each_thread(t, [&](unsigned v) { runs[v].fetch_add(1); });
        for (unsigned v = 0; v < t; ++v) EXPECT_EQ(runs[v].load(), 1) << "t=" << t << " v=" << v;
    }
    std::vector<std::atomic<int>> chunks(10000);
    each_chunk(chunks.size(), 8, [&](std::size_t c) { chunks[c].fetch_add(1); });
    for (auto& c : chunks) EXPECT_EQ(c.load(), 1);
}

// Slots name the threads of one call: each in [0, threads), and no two tasks of a slot at once
// (a slot's scratch, such as an insert's private copy, needs no lock).
TEST(Threads, SlotsNameTheCallsThreadsAndNeverRunTwoTasksAtOnce) {
    for (unsigned threads : {1u, 2u, 3u, 8u}) {
        for (unsigned tasks : {0u, 1u, 5u, 200u}) {
            std::vector<std::atomic<int>> runs(tasks), busy(threads);
            std::atomic<int> overlaps{0}, out_of_range{0};
            auto body = [&](unsigned i, unsigned slot) {
                runs[i].fetch_add(1);
                if (slot >= threads) return void(out_of_range.fetch_add(1));
                if (busy[slot].fetch_add(1) != 0) overlaps.fetch_add(1);
                std::this_thread::yield();  // room for a second task of the slot to start, were there one
                busy[slot].fetch_sub(1);
            };
            batchbloom::detail::run_slotted(tasks, threads, body);
            for (unsigned i = 0; i < tasks; ++i) EXPECT_EQ(runs[i].load(), 1) << threads << " threads, task " << i;
            EXPECT_EQ(out_of_range.load(), 0) << threads << " threads";
            EXPECT_EQ(overlaps.load(), 0) << threads << " threads";
        }
    }
}

TEST(Threads, TheFirstExceptionComesOutAfterEveryTaskFinished) {
    std::atomic<int> ran{0};
    EXPECT_THROW(each_thread(16,
                             [&](unsigned v) {
                                 ran.fetch_add(1);
                                 if (v % 5 == 3) throw std::runtime_error("task " + std::to_string(v));
                             }),
                 std::runtime_error);
    EXPECT_EQ(ran.load(), 16);
}

TEST(Threads, NestedCallsRunOnTheirTasksThread) {
    std::atomic<int> inner{0};
    each_thread(4, [&](unsigned) {
        const auto id = std::this_thread::get_id();
        each_thread(4, [&](unsigned) {
            EXPECT_EQ(std::this_thread::get_id(), id);
            inner.fetch_add(1);
        });
    });
    EXPECT_EQ(inner.load(), 16);
}

TEST(Threads, RunParallelRunsEveryTaskOnceOnTheBulkCallsThreads) {
    for (unsigned threads : {0u, 1u, 2u, 5u}) {
        for (unsigned tasks : {0u, 1u, 3u, 64u}) {
            std::vector<std::atomic<int>> runs(tasks);
            batchbloom::run_parallel(tasks, threads, [&](unsigned i) { runs[i].fetch_add(1); });
            for (unsigned i = 0; i < tasks; ++i) EXPECT_EQ(runs[i].load(), 1) << threads << " threads, task " << i;
        }
    }
    std::atomic<int> ran{0};
    EXPECT_THROW(batchbloom::run_parallel(8, 2,
                                          [&](unsigned i) {
                                              ran.fetch_add(1);
                                              if (i == 5) throw std::runtime_error("task 5");
                                          }),
                 std::runtime_error);
    EXPECT_EQ(ran.load(), 8);
    // Inside one of the library's tasks, every task runs on that task's thread.
    each_thread(2, [&](unsigned) {
        const auto id = std::this_thread::get_id();
        batchbloom::run_parallel(4, 2, [&](unsigned) { EXPECT_EQ(std::this_thread::get_id(), id); });
    });
}

TEST(Threads, CallsFromSeveralThreadsAtOnce) {
    std::vector<std::thread> callers;
    std::atomic<long> total{0};
    for (int c = 0; c < 4; ++c)
        callers.emplace_back([&] {
            for (int round = 0; round < 200; ++round) each_thread(3, [&](unsigned v) { total.fetch_add(v + 1); });
        });
    for (auto& t : callers) t.join();
    EXPECT_EQ(total.load(), 4L * 200 * 6);
}

std::vector<std::uint64_t> test_keys(std::size_t n) {
    std::vector<std::uint64_t> keys(n);
    std::uint64_t x = 0x9e3779b97f4a7c15u;
    for (auto& k : keys) k = (x += 0x9e3779b97f4a7c15u) * 0xbf58476d1ce4e5b9u;
    return keys;
}

/// While it lives, a host runner (parallel.hpp) takes the library's parallel work, each task but
/// the first on a thread of its own, and counts the calls that reach it.
class HostRunner {
public:
    HostRunner() {
        batchbloom::set_parallel_runner([this](unsigned tasks, const std::function<void(unsigned)>& task) {
            calls_.fetch_add(1);
            std::vector<std::thread> threads;
            for (unsigned i = 1; i < tasks; ++i) threads.emplace_back([&, i] { task(i); });
            task(0);
            for (auto& t : threads) t.join();
        });
    }
    ~HostRunner() { batchbloom::set_parallel_runner(nullptr); }
    HostRunner(const HostRunner&) = delete;
    HostRunner& operator=(const HostRunner&) = delete;

    int calls() const { return calls_.load(); }

private:
    std::atomic<int> calls_{0};
};

TEST(Threads, AHostRunnerTakesTheWorkAndTheResultIsTheSame) {
    const auto keys = test_keys(300000);
    batchbloom::Filter one(batchbloom::Params::for_fpr(keys.size(), 0.01));
    one.set_threads(1);
    one.insert(keys);

    batchbloom::Filter hosted(one.params());
    int calls = 0;
    {
        const HostRunner runner;
        hosted.set_threads(4);
        hosted.insert(keys);
        calls = runner.calls();
    }
    EXPECT_GT(calls, 0);
    EXPECT_TRUE(hosted == one);
    EXPECT_EQ(hosted.count(keys), keys.size());
}

// A multi-threaded insert into private copies gives one thread's bits whichever threads turn
// up: a runner that runs every task on its caller (a worker that never wakes: no copy is used,
// none is merged), and one whose other threads start late (they take what is left).
TEST(Threads, CopiesInsertGivesOneThreadsBitsHoweverLateTheWorkersAre) {
    namespace bb = batchbloom;
    const auto keys = test_keys(600001);  // many pieces, an odd tail
    const auto part = std::span(keys).subspan(3, keys.size() - 10);  // unaligned
    for (bool late : {false, true}) {
        bb::Filter one(bb::Params::for_fpr(keys.size(), 0.01), {}, bb::Backend::scalar);
        one.set_threads(1);
        one.insert(part);
        bb::Filter many(one.params());
        many.set_threads(4);
        bb::set_parallel_runner([late](unsigned tasks, const std::function<void(unsigned)>& task) {
            if (!late) {
                for (unsigned i = 0; i < tasks; ++i) task(i);
                return;
            }
            std::vector<std::thread> threads;
            for (unsigned i = 1; i < tasks; ++i)
                threads.emplace_back([&, i] {
                    std::this_thread::sleep_for(std::chrono::milliseconds(2));
                    task(i);
                });
            task(0);
            for (auto& t : threads) t.join();
        });
        many.insert(part);
        bb::set_parallel_runner(nullptr);
        EXPECT_TRUE(many == one) << (late ? "late workers" : "every task on the caller");
        EXPECT_EQ(many.count(part), part.size());
    }
}

// Keys the filter hashes itself (strings, 32-bit keys, Murmur3 integers) are hashed on the
// call's threads and then inserted and probed there: the bits and every answer are one
// thread's, for odd batch sizes and unaligned spans, on the pool and on a host's runner.
TEST(Threads, KeysTheFilterHashesRunOnTheCallsThreadsWithOneThreadsResults) {
    namespace bb = batchbloom;
    const auto ints = test_keys(300001);
    std::vector<std::string> text;
    for (std::size_t i = 0; i < ints.size(); ++i) text.push_back("row-" + std::to_string(ints[i] % 1000003) + "-" + std::to_string(i));
    const std::vector<std::string_view> views(text.begin(), text.end());
    std::vector<std::uint32_t> narrow(ints.size());
    for (std::size_t i = 0; i < ints.size(); ++i) narrow[i] = static_cast<std::uint32_t>(ints[i] >> 7);
    const std::size_t half = ints.size() / 2;
    auto same = [&](auto keys, bb::Hashing hashing, const char* what) {
        keys = keys.subspan(1);  // unaligned, odd
        const auto inserted = keys.first(half);
        bb::Filter one(bb::Params::for_fpr(half, 0.01), hashing, bb::Backend::scalar);
        one.set_threads(1);
        one.insert(inserted);
        std::vector<std::uint8_t> want(keys.size()), got(keys.size());
        one.contains(keys, std::span(want));
        std::vector<std::uint64_t> want_bits((keys.size() + 63) / 64), got_bits(want_bits.size());
        one.contains_bitmap(keys, std::span(want_bits));
        for (bool hosted : {false, true}) {
            if (hosted) bb::set_parallel_runner([](unsigned tasks, const std::function<void(unsigned)>& task) {
                    std::vector<std::thread> threads;
                    for (unsigned i = 1; i < tasks; ++i) threads.emplace_back([&, i] { task(i); });
                    task(0);
                    for (auto& t : threads) t.join();
                });
            bb::Filter many(one.params(), hashing);
            many.set_threads(4);
            many.insert(inserted);
            many.contains(keys, std::span(got));
            many.contains_bitmap(keys, std::span(got_bits));
            const std::size_t counted = many.count(keys);
            bb::set_parallel_runner(nullptr);
            SCOPED_TRACE(std::string(what) + (hosted ? ", a host's runner" : ", the pool"));
            EXPECT_TRUE(many == one);
            EXPECT_EQ(got, want);
            EXPECT_EQ(got_bits, want_bits);
            EXPECT_EQ(counted, static_cast<std::size_t>(std::count(want.begin(), want.end(), 1)));
        }
    };
    same(std::span<const std::string_view>(views), bb::Hashing{}, "strings");
    same(std::span<const std::string>(text), bb::Hashing{}, "std::string");
    same(std::span<const std::uint32_t>(narrow), bb::Hashing{}, "32-bit keys");
    same(std::span<const std::uint64_t>(ints), bb::Hashing{bb::HashKind::murmur3, 7}, "Murmur3 integers");
}

// A bulk call made inside a task of the library's parallel work (as a Parquet add's chunks make
// theirs) runs all of its work on that task's thread: it hands nothing to the runner however
// many threads its filter is set to, and its bits and answers are the scalar engine's on one
// thread. The same calls outside a task do hand their work on.
TEST(Threads, ABulkCallInsideTheLibrarysParallelWorkRunsOnItsTasksThread) {
    namespace bb = batchbloom;
    const auto keys = test_keys(4 * bb::detail::min_keys_per_thread);  // four threads' worth
    const auto half = std::span(keys).first(keys.size() / 2);
    const bb::Params p = bb::Params::for_fpr(keys.size(), 0.01);
    const bb::ClassicParams cp = bb::ClassicParams::for_fpr(keys.size(), 0.01);
    bb::Filter blocked(p, {}, bb::Backend::scalar);
    bb::CountingFilter counting(p, {}, bb::Backend::scalar);
    bb::ClassicFilter classic(cp, {}, bb::Backend::scalar);
    blocked.set_threads(1);
    counting.set_threads(1);
    classic.set_threads(1);
    blocked.insert(keys);
    counting.insert(keys);
    counting.erase(half);
    classic.insert(keys);
    const std::size_t counted = counting.count(keys);

    constexpr unsigned tasks = 3;
    std::vector<int> same(tasks, 0);
    const HostRunner runner;
    bb::detail::each_thread(tasks, [&](unsigned v) {
        bb::Filter f(p);
        bb::CountingFilter c(p);
        bb::ClassicFilter cl(cp);
        f.set_threads(4);
        c.set_threads(4);
        cl.set_threads(4);
        f.insert(keys);
        c.insert(keys);
        c.erase(half);
        cl.insert(keys);
        same[v] = f == blocked && f.count(keys) == keys.size() && c == counting && c.count(keys) == counted &&
                  cl == classic && cl.count(keys) == keys.size();
    });
    EXPECT_EQ(runner.calls(), 1);  // the phase above, none of the calls in it
    EXPECT_EQ(same, std::vector<int>(tasks, 1));

    bb::Filter outside(p);
    outside.set_threads(4);
    outside.insert(keys);
    EXPECT_GT(runner.calls(), 1);
    EXPECT_TRUE(outside == blocked);
}

// A scalable and a deletable filter hold their settings as every type does (BulkSettings), and
// their calls run on them: probes hand their work to the runner on four threads, not on one;
// inserts run on the calling thread whatever the setting (scalable.hpp, deletable.hpp). A copy
// runs on the setting it took along.
TEST(Threads, ScalableAndDeletableCallsRunOnTheirOwnThreadSetting) {
    namespace bb = batchbloom;
    const auto keys = test_keys(4 * bb::detail::min_keys_per_thread);
    bb::ScalableParams sp;
    sp.initial_capacity = keys.size() / 4;  // several stages
    bb::ScalableFilter scalable(sp);
    bb::DeletableFilter deletable(bb::Params::for_fpr(keys.size(), 0.01));
    const HostRunner runner;
    scalable.set_threads(4);
    deletable.set_threads(4);
    scalable.insert(keys);
    deletable.insert(keys);
    EXPECT_EQ(runner.calls(), 0);
    ASSERT_GT(scalable.stages().size(), 1u);

    scalable.set_threads(1);
    deletable.set_threads(1);
    EXPECT_EQ(scalable.count(keys), keys.size());
    EXPECT_EQ(deletable.count(keys), keys.size());
    EXPECT_EQ(runner.calls(), 0);

    scalable.set_threads(4);
    EXPECT_EQ(scalable.count(keys), keys.size());
    const int after_scalable = runner.calls();
    EXPECT_GT(after_scalable, 0);
    deletable.set_threads(4);
    const bb::DeletableFilter copy(deletable);
    deletable.set_threads(1);
    EXPECT_EQ(copy.threads(), 4u);
    EXPECT_EQ(copy.count(keys), keys.size());
    EXPECT_GT(runner.calls(), after_scalable);
}

std::uint64_t address_space_bytes() {
    std::ifstream statm("/proc/self/statm");
    std::uint64_t pages = 0;
    statm >> pages;
    return pages * std::uint64_t(::sysconf(_SC_PAGESIZE));
}

// Under an address-space limit (as containers and batch schedulers set) that leaves no room for
// a new thread's stack, a call asking for the most threads runs, on the threads it can start.
TEST(Threads, ThreadsTheSystemRefusesLeaveTheCallOnFewer) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    GTEST_SKIP() << "sanitizers reserve address space of their own: RLIMIT_AS cannot be used under them";
#endif
    const auto keys = test_keys(100000);  // 3 tasks: two private copies of a 120 KB filter
    batchbloom::Filter reference(batchbloom::Params::for_fpr(keys.size(), 0.01));
    reference.set_threads(1);
    reference.insert(keys);
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        batchbloom::Filter f(reference.params());
        f.set_threads(batchbloom::max_threads);
        // Room for the copies, none for a thread's stack (8 MiB by default).
        const std::uint64_t room = address_space_bytes() + (std::uint64_t(4) << 20);
        const rlimit limit{room, room};
        ::setrlimit(RLIMIT_AS, &limit);
        f.insert(keys);
        const bool same = f == reference && f.count(keys) == keys.size();
        ::_exit(same ? 0 : 3);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status)) << "the child died of signal " << WTERMSIG(status);
    EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
