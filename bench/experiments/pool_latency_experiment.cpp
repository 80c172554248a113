// What the library's thread pool (src/batch/threads.cpp) costs a caller: the time of an empty
// two-thread parallel call right after another one, and after the whole process idled 50 ms
// (the workers asleep; on a VM the idle vCPU may be parked by the host), and the CPU the
// process uses in the second after its last call (the workers' spin, then nothing).
//
//   batchbloom_pool_latency [rounds]      (default 41; prints medians and 90th percentiles)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <thread>
#include <vector>

#include "batch/threads.hpp"

namespace {

double now_us() {
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double cpu_ms() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) * 1e-6;
}

void empty_call() {
    batchbloom::detail::each_thread(2, [](unsigned) {});
}

void report(const char* what, std::vector<double> v) {
    std::sort(v.begin(), v.end());
    std::printf("%-44s median %8.1f us   p90 %8.1f us   max %8.1f us\n", what, v[v.size() / 2], v[v.size() * 9 / 10],
                v.back());
}

}  // namespace

int main(int argc, char** argv) {
    const int rounds = argc > 1 ? std::max(3, std::atoi(argv[1])) : 41;
    empty_call();  // the pool's worker started
    std::vector<double> busy, idle;
    for (int r = 0; r < rounds; ++r) {
        double t0 = now_us();
        empty_call();
        busy.push_back(now_us() - t0);
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        t0 = now_us();
        empty_call();
        idle.push_back(now_us() - t0);
    }
    report("empty 2-thread call, right after another", busy);
    report("empty 2-thread call, after 50 ms idle", idle);
    empty_call();
    const double c0 = cpu_ms();
    std::this_thread::sleep_for(std::chrono::seconds(1));
    std::printf("CPU used in the second after the last call: %.2f ms (%.3f%% of a core)\n", cpu_ms() - c0,
                (cpu_ms() - c0) / 10.0);
    return 0;
}
