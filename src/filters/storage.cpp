#include "filters/storage.hpp"

#include <unistd.h>

#include <limits>
#include <new>
#include <string>

#include "batchbloom/error.hpp"

namespace batchbloom::detail {

namespace {

/// This machine's physical memory in bytes (the maximum if the system does not say).
std::uint64_t physical_memory() {
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0) return std::numeric_limits<std::uint64_t>::max();
    return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page);
}

}  // namespace

AlignedBuffer allocate_zeroed(std::uint64_t bytes, std::string_view what) {
    // Zeroing touches every page. Where the kernel overcommits memory, an allocation larger
    // than the machine succeeds and the process is killed partway through the zeroing (seen:
    // 256 GiB on a 128 GiB machine), so such a size is refused before it is asked for.
    if (const std::uint64_t ram = physical_memory(); bytes > ram)
        throw Error("cannot allocate " + std::to_string(bytes) + " bytes for " + std::string(what) +
                    ": more than this machine's " + std::to_string(ram) + " bytes of memory");
    try {
        if (bytes > std::numeric_limits<std::size_t>::max()) throw std::bad_alloc();
        return AlignedBuffer(static_cast<std::size_t>(bytes), AlignedBuffer::Init::zeroed);
    } catch (const std::bad_alloc&) {
        throw Error("cannot allocate " + std::to_string(bytes) + " bytes for " + std::string(what));
    }
}

AlignedBuffer clone_storage(const AlignedBuffer& from, std::string_view what) {
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
