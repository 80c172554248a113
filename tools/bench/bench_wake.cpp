#include "bench/bench_wake.hpp"

#include <batchbloom/filter.hpp>
#include <batchbloom/parallel.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <span>
#include <thread>
#include <vector>

namespace batchbloom::cli {

namespace {

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

}  // namespace

WakeCost measure_wake_cost(unsigned threads, unsigned rounds) {
    using Clock = std::chrono::steady_clock;
    // 32768 keys per thread: the fewest for which a bulk call takes that many threads.
    const std::size_t n = std::size_t(32768) * threads;
    std::vector<std::uint64_t> keys(n);
    for (std::size_t i = 0; i < n; ++i) keys[i] = mix64(i, 0x77616b65);
    std::vector<std::uint8_t> out(n);
    Filter f(Params::for_bits_per_key(200'000, 10.0));
    f.insert(std::span<const std::uint64_t>(keys).first(n / 2));
    const auto timed = [&](unsigned t) {
        f.set_threads(t);
        const auto t0 = Clock::now();
        f.contains(std::span<const std::uint64_t>(keys), std::span<std::uint8_t>(out));
        return std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
    };
    std::vector<double> busy, idle, one, empty;
    rounds = std::max(rounds, 1u);
    timed(threads);  // the workers started
    for (unsigned r = 0; r < rounds; ++r) {
        one.push_back(timed(1));
        timed(threads);  // so that the next call finds the workers awake
        busy.push_back(timed(threads));
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        idle.push_back(timed(threads));
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        const auto t0 = Clock::now();
        run_parallel(threads, threads, [](unsigned) {});
        empty.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
    }
    return {threads, rounds, median(busy), median(idle), median(one), median(empty)};
}

void print_wake_cost(std::FILE* out, const WakeCost& w) {
    std::fprintf(out,
                 "# thread wake-up: a %u-thread probe of %u keys (256 KiB filter) took %.0f us right after another "
                 "call, %.0f us after 50 ms idle; on 1 thread %.0f us; %u empty tasks on %u threads after 50 ms idle "
                 "%.1f us (medians of %u)\n",
                 w.threads, 32768 * w.threads, w.busy_us, w.idle_us, w.one_thread_us, w.threads, w.threads, w.empty_idle_us,
                 w.rounds);
}

}  // namespace batchbloom::cli
