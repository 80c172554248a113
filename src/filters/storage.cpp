#include "filters/storage.hpp"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <limits>
#include <new>
#include <string>

#include "batchbloom/error.hpp"

namespace batchbloom::detail {

namespace {

/// A memory limit from a cgroup file (v2 memory.max, v1 memory.limit_in_bytes); the maximum
/// where the file is missing or says "max".
std::uint64_t cgroup_limit(const char* path) {
    std::ifstream in(path);
    std::uint64_t limit = 0;
    return in >> limit ? limit : std::numeric_limits<std::uint64_t>::max();
}

/// The memory this process may have: the machine's physical memory, or its container's limit
/// if lower (the maximum if neither is known). Read once per process: every filter's storage
/// asks, and small filters are made by the thousand (scalable stages, join chunks).
std::uint64_t memory_limit() {
    static const std::uint64_t limit = [] {
        const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
        const std::uint64_t ram = pages > 0 && page > 0
                                      ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page)
                                      : std::numeric_limits<std::uint64_t>::max();
        return std::min({ram, cgroup_limit("/sys/fs/cgroup/memory.max"),
                         cgroup_limit("/sys/fs/cgroup/memory/memory.limit_in_bytes")});
    }();
    return limit;
}

/// Storage is written whole (zeroed or copied) as soon as it is allocated. Where the kernel
/// overcommits memory, an allocation larger than the machine succeeds and the process is
/// killed partway through that write (seen: 256 GiB on a 128 GiB machine), so a size above
/// the memory limit is refused before it is asked for. (Swap does not count: a filter probed
/// at random from swap would be unusable.) Memory already in use is not counted either: a
/// size below the limit can still fail, as an Error or as the kernel decides.
void check_fits(std::uint64_t bytes, std::string_view what) {
    if (const std::uint64_t limit = memory_limit(); bytes > limit)
        throw Error("cannot allocate " + std::to_string(bytes) + " bytes for " + std::string(what) +
                    ": more than this machine's " + std::to_string(limit) + " bytes of memory");
}

}  // namespace

AlignedBuffer allocate_zeroed(std::uint64_t bytes, std::string_view what) {
    check_fits(bytes, what);
    try {
        if (bytes > std::numeric_limits<std::size_t>::max()) throw std::bad_alloc();
        return AlignedBuffer(static_cast<std::size_t>(bytes), AlignedBuffer::Init::zeroed);
    } catch (const std::bad_alloc&) {
        throw Error("cannot allocate " + std::to_string(bytes) + " bytes for " + std::string(what));
    }
}

AlignedBuffer clone_storage(const AlignedBuffer& from, std::string_view what) {
    check_fits(from.size(), what);  // a mapped filter's copy can be larger than memory
    try {
        return from.clone();
    } catch (const std::bad_alloc&) {
        throw Error("cannot allocate " + std::to_string(from.size()) + " bytes for " + std::string(what));
    }
}

void throw_moved_from(std::string_view operation) {
    throw Error(std::string(operation) +
                ": the filter was moved from and has no storage; assign a filter to it first");
}

void throw_mapped(std::string_view operation) {
    throw Error(std::string(operation) + ": the filter is mapped read-only; load() for a writable copy");
}

}  // namespace batchbloom::detail
