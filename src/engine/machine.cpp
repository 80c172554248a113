#include "engine/machine.hpp"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <limits>
#include <string>
#include <string_view>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace batchbloom::detail {

namespace {

/// "1024K" / "32M" -> bytes; 0 if unreadable.
std::uint64_t parse_size(std::string_view s) {
    std::uint64_t v = 0;
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc{}) return 0;
    switch (ptr == s.data() + s.size() ? ' ' : *ptr) {
        case 'K': return v << 10;
        case 'M': return v << 20;
        case 'G': return v << 30;
        case ' ':
        case '\n': return v;
        default: return 0;
    }
}

std::string first_line(const std::string& path) {
    std::ifstream in(path);
    std::string line;
    if (in) std::getline(in, line);
    return line;
}

/// Unified or data cache of `level` as seen by CPU 0, from sysfs; 0 if unknown.
std::uint64_t sysfs_cache(int level) {
    for (int i = 0; i < 16; ++i) {
        const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
        const std::string lv = first_line(dir + "level");
        if (lv.empty()) break;
        if (lv != std::to_string(level) || first_line(dir + "type") == "Instruction") continue;
        return parse_size(first_line(dir + "size"));
    }
    return 0;
}

/// The same from CPUID's deterministic cache parameters (leaf 4 on Intel, 0x8000001D on AMD).
std::uint64_t cpuid_cache([[maybe_unused]] int level) {
#if defined(__x86_64__) || defined(__i386__)
    unsigned a, b, c, d;
    for (const unsigned leaf : {4u, 0x8000001Du}) {
        // unsigned in GCC's cpuid.h, int in clang's
        if (leaf > static_cast<unsigned>(__get_cpuid_max(leaf & 0x80000000u, nullptr))) continue;
        for (unsigned i = 0; i < 16; ++i) {
            __cpuid_count(leaf, i, a, b, c, d);
            const unsigned type = a & 0x1F;  // 0: no more caches, 2: instruction
            if (type == 0) break;
            if (type == 2 || static_cast<int>((a >> 5) & 7) != level) continue;
            const std::uint64_t ways = ((b >> 22) & 0x3FF) + 1, parts = ((b >> 12) & 0x3FF) + 1,
                                line = (b & 0xFFF) + 1, sets = std::uint64_t(c) + 1;
            return ways * parts * line * sets;
        }
    }
#endif
    return 0;
}

std::uint64_t cache_bytes(int level) {
    const std::uint64_t s = sysfs_cache(level);
    return s != 0 ? s : cpuid_cache(level);
}

/// A memory limit from a cgroup file; the maximum where the file is missing or says "max".
std::uint64_t cgroup_limit(const char* path) {
    std::ifstream in(path);
    std::uint64_t limit = 0;
    return in >> limit ? limit : std::numeric_limits<std::uint64_t>::max();
}

std::uint64_t memory_bytes() {
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    const std::uint64_t ram = pages > 0 && page > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page)
                                                    : std::numeric_limits<std::uint64_t>::max();
    return std::min({ram, cgroup_limit("/sys/fs/cgroup/memory.max"),
                     cgroup_limit("/sys/fs/cgroup/memory/memory.limit_in_bytes")});
}

Machine detect() {
    Machine m{};
    m.l2_bytes = cache_bytes(2);
    m.l3_bytes = cache_bytes(3);
    // Unknown caches: the smallest L2 of current x86 server cores; no L3 (partitioning then
    // works in L2-sized regions, which is right whatever the L3).
    if (m.l2_bytes == 0) m.l2_bytes = std::uint64_t(256) << 10;
    // Not measured per process but deep enough for all: memory systems seen so far keep
    // gaining up to 64 lines in flight, and `batchbloom bench`'s two-level limit row (the
    // pipeline's scheme) was flat from 64 to 256 lines ahead (docs/design.md, "The batch
    // code's constants"), so 128 sits inside the plateau with room on both sides; a line
    // prefetched into L2 that early is still there when its key comes. Filters of up to four
    // L2s take the in-cache kernel instead, so this costs in-cache calls nothing.
    m.prefetch_distance = 128;
    m.memory_bytes = memory_bytes();
    return m;
}

}  // namespace

const Machine& machine() {
    static const Machine m = detect();
    return m;
}

}  // namespace batchbloom::detail
