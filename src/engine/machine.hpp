#pragma once
// Facts about the machine the library runs on, found at run time and cached for the process:
// never constants from the machine it was developed on. The batch layer uses them to decide
// whether to prefetch, how far ahead, and how large a partition region may be; the filters'
// storage, how much memory there is.
#include <cstdint>

namespace batchbloom::detail {

struct Machine {
    std::uint64_t l2_bytes;  ///< per core
    std::uint64_t l3_bytes;  ///< the last level, shared (0 where there is none)
    /// Keys hashed ahead of the one being processed, so that their blocks' cache lines are in
    /// flight: deep enough for memory systems that keep gaining up to 64+ lines in flight.
    std::uint32_t prefetch_distance;
    /// The memory this process may have: physical memory, or its container's limit if lower
    /// (cgroup v2 memory.max, v1 memory.limit_in_bytes); the maximum if neither is known.
    std::uint64_t memory_bytes;
};

/// Cache sizes from the operating system (Linux sysfs), else from CPUID, else conservative
/// guesses, and the memory; read once.
const Machine& machine();

}  // namespace batchbloom::detail
