// What this machine's second CPU can give a bulk call, apart from the library: the same work on
// one thread and split over two, for the three kinds of work a filter call is bound by.
//   alu     mix64 over keys held in L1 (hashing, building patterns: an in-cache filter);
//   L3      random 64-byte line reads over 16 MiB, within the L3s seen (a filter the L3 holds);
//   memory  random line reads over a buffer far beyond the L3, 128 prefetched ahead (a filter
//           beyond the caches).
// A VM's two vCPUs may be two hyperthreads of one core, and two cores may share one memory
// channel's slots: the speedup printed is the most a second thread can give each kind of call
// here, to set beside `batchbloom bench --threads 1,2`.
//
//   batchbloom_second_cpu [rounds]      (default 7; medians of the rounds, the two widths alternating)
#include <batchbloom/hash.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

namespace {

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

std::uint64_t alu(std::size_t steps, std::uint64_t seed) {
    // Eight independent chains: as much instruction-level parallelism as a kernel's group.
    std::uint64_t h[8];
    for (unsigned j = 0; j < 8; ++j) h[j] = seed + j;
    for (std::size_t i = 0; i < steps; ++i)
        for (unsigned j = 0; j < 8; ++j) h[j] = batchbloom::mix64(h[j], 1);
    std::uint64_t r = 0;
    for (unsigned j = 0; j < 8; ++j) r ^= h[j];
    return r;
}

/// A line in [0, lines), as a filter picks a block (multiply and shift, no division).
std::uint64_t line_of(std::uint64_t x, std::size_t lines) { return (batchbloom::mix64(x, 2) >> 32) * lines >> 32; }

std::uint64_t reads(const std::vector<std::uint64_t>& buf, std::size_t lines, std::size_t count, std::uint64_t seed) {
    constexpr std::size_t ahead = 128;  // deep enough for one thread to reach its own limit (bench: 128)
    std::uint64_t at[ahead], sum = 0;
    for (std::size_t j = 0; j < ahead; ++j) at[j] = line_of(seed + j, lines);
    for (std::size_t i = 0; i < count; ++i) {
        const std::size_t s = i % ahead;
        sum += buf[at[s] * 8];
        at[s] = line_of(seed + i + ahead, lines);
        __builtin_prefetch(&buf[at[s] * 8]);
    }
    return sum;
}

/// Seconds for `work` done once on one thread, or split in two halves on two threads.
template <class Work>
double timed(unsigned threads, Work&& work) {
    std::uint64_t sink[2] = {};
    const double t0 = now_s();
    if (threads == 1) {
        sink[0] = work(0, 1);
    } else {
        std::thread other([&] { sink[1] = work(1, 2); });
        sink[0] = work(0, 2);
        other.join();
    }
    const double t = now_s() - t0;
    if ((sink[0] ^ sink[1]) == 42) std::puts("");  // keeps the work
    return t;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    const int rounds = argc > 1 ? std::max(1, std::atoi(argv[1])) : 7;
    const std::size_t l3_bytes = std::size_t(16) << 20, memory_bytes = std::size_t(1) << 30;
    std::vector<std::uint64_t> small(l3_bytes / 8, 1), large(memory_bytes / 8, 1);  // touched: no first-touch faults timed
    struct Kind {
        const char* name;
        std::size_t units;  // of work in all, split between the threads
        std::uint64_t (*run)(std::size_t part, std::size_t parts, std::size_t units, const std::vector<std::uint64_t>& buf);
        const std::vector<std::uint64_t>* buf;
    };
    const Kind kinds[] = {
        {"alu (mix64, 8 chains)", 20'000'000,
         [](std::size_t p, std::size_t parts, std::size_t u, const std::vector<std::uint64_t>&) { return alu(u / parts, p); },
         &small},
        {"L3 (random lines over 16 MiB)", 40'000'000,
         [](std::size_t p, std::size_t parts, std::size_t u, const std::vector<std::uint64_t>& b) {
             return reads(b, b.size() / 8, u / parts, p << 40);
         },
         &small},
        {"memory (random lines over 1 GiB)", 40'000'000,
         [](std::size_t p, std::size_t parts, std::size_t u, const std::vector<std::uint64_t>& b) {
             return reads(b, b.size() / 8, u / parts, p << 40);
         },
         &large},
    };
    std::printf("%-36s %12s %12s %9s\n", "work", "1 thread s", "2 threads s", "speedup");
    for (const Kind& k : kinds) {
        std::vector<double> one, two;
        for (int r = 0; r < rounds; ++r) {
            one.push_back(timed(1, [&](std::size_t p, std::size_t parts) { return k.run(p, parts, k.units, *k.buf); }));
            two.push_back(timed(2, [&](std::size_t p, std::size_t parts) { return k.run(p, parts, k.units, *k.buf); }));
        }
        const double a = median(one), b = median(two);
        std::printf("%-36s %12.4f %12.4f %8.2fx\n", k.name, a, b, a / b);
    }
}
