#include "bench/bench_workload.hpp"

#include "common/splitmix64.hpp"

namespace batchbloom::cli {

Workload make_workload(std::uint64_t keys, std::uint64_t queries, std::uint64_t seed) {
    Workload w;
    SplitMix64 rng(seed);
    w.inserted.resize(keys);
    for (auto& k : w.inserted) k = rng.next() & ~std::uint64_t(1);
    w.absent.resize(queries);
    for (auto& k : w.absent) k = rng.next() | 1;
    w.mixed.resize(queries);
    for (std::uint64_t i = 0; i < queries; ++i) {
        if (rng.next() & 1) {
            w.mixed[i] = w.inserted[rng.below(keys)];
            ++w.mixed_present;
        } else {
            w.mixed[i] = w.absent[rng.below(queries)];
        }
    }
    return w;
}

}  // namespace batchbloom::cli
