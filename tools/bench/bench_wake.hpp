#pragma once
// What waking the library's threads costs a bulk call: the same small multi-thread probe right
// after another call and after the process idled (its workers asleep; on a VM, their vCPUs
// perhaps parked by the host), beside the same probe on one thread; and a parallel call of
// empty tasks after idle (the fork/join's own cost).
#include <cstdio>

namespace batchbloom::cli {

struct WakeCost {
    unsigned threads = 0, rounds = 0;
    double busy_us = 0, idle_us = 0, one_thread_us = 0, empty_idle_us = 0;  // medians
};

/// `threads` threads probing 32768 keys each of a 256 KiB filter, and run_parallel of `threads`
/// empty tasks; medians of `rounds` calls, the idle ones each after 50 ms of sleep.
WakeCost measure_wake_cost(unsigned threads, unsigned rounds = 15);

void print_wake_cost(std::FILE* out, const WakeCost& w);

}  // namespace batchbloom::cli
