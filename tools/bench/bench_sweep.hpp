#pragma once
// `batchbloom bench --sweep`: where each batch path wins on this machine, and whether the
// automatic path finds it. For filters in L2, in L3, of 4x L3 and of 1 GiB, batches of 0.1, 1
// and 10 keys per filter line, and each thread count, it times insert and probe (contains, one
// byte per key) on the direct, partitioned and automatic paths (median of the repeats, the
// paths taking turns within each repeat, each sample at least 2M keys in repeated calls), checks
// that every path built the same filter and gave the same answers, and prints a table with the
// automatic path's time over the faster path's (the automatic path is a rule,
// batch/path_choice.hpp: its first call is like any other). The partitioned path's first call, which faults its scratch in, is timed apart after
// the repeats (on scratch given back first), as its time beyond that path's median.
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <batchbloom/backend.hpp>

#include "bench/bench_machine.hpp"
#include "bench/memory_limit.hpp"

namespace batchbloom::cli {

struct SweepPoint {
    std::string filter;  ///< "L2", "L3", "4xL3", or a size ("1G")
    std::uint64_t filter_bytes = 0;
    double keys_per_line = 0;
    unsigned threads = 1;
    std::uint64_t keys = 0;
    double limit_at_size_ns = 0;  ///< random line reads at the filter's size on `threads` threads, ns per line
    /// ns per key: [insert, probe] x [direct, partitioned, automatic]
    double ns[2][3] = {};
    std::string chosen[2];  ///< what automatic took, per operation
    double first_use_ms[2] = {};  ///< the partitioned path's first call beyond its median (its scratch faulted in)
};

struct SweepSpec {
    std::vector<std::string> filters;  ///< L2, L3, 4xL3 or byte sizes (K, M, G: binary)
    std::vector<double> keys_per_line;
    std::vector<unsigned> threads;
    unsigned repeat = 5;
    std::uint64_t seed = 1;
    std::uint64_t scratch_limit = 0;  ///< Filter::set_scratch_limit for every filter; 0: the default
};

/// Runs the sweep on `backend`, printing each point's row as it is measured. Throws
/// std::runtime_error if two paths disagree.
std::vector<SweepPoint> run_sweep(const SweepSpec& spec, const MachineInfo& machine, Backend backend, std::FILE* out);

}  // namespace batchbloom::cli
