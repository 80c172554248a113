#pragma once
// What `batchbloom bench` records about the machine it ran on, for the JSON report and the
// plot: CPU model, core count, cache sizes (from sysfs when readable), compiler.
#include <cstdint>
#include <string>

namespace batchbloom::cli {

struct MachineInfo {
    std::string cpu;              ///< "model name" of /proc/cpuinfo, or "unknown"
    unsigned cores = 0;           ///< logical CPUs (std::thread::hardware_concurrency)
    std::uint64_t l1d_bytes = 0;  ///< 0 where unknown
    std::uint64_t l2_bytes = 0;
    std::uint64_t l3_bytes = 0;
    std::uint64_t memory_bytes = 0;            ///< MemTotal of /proc/meminfo
    std::uint64_t available_memory_bytes = 0;  ///< MemAvailable of /proc/meminfo (0 if unknown)
    std::string compiler;                      ///< __VERSION__ of the compiler that built this program
    std::string transparent_hugepages;         ///< the selected mode of THP ("madvise", ...), or ""
};

MachineInfo machine_info();

}  // namespace batchbloom::cli
