#include "filters/storage.hpp"

#include <cstring>
#include <limits>
#include <new>
#include <string>

#include "batch/scratch.hpp"
#include "batchbloom/error.hpp"
#include "engine/machine.hpp"

namespace batchbloom::detail {

namespace {

/// Storage is written whole (zeroed or copied) as soon as it is allocated. Where the kernel
/// overcommits memory, an allocation larger than the machine succeeds and the process is
/// killed partway through that write (seen: 256 GiB on a 128 GiB machine), so a size above
/// the memory limit is refused before it is asked for. (Swap does not count: a filter probed
/// at random from swap would be unusable.) Memory already in use is not counted either: a
/// size below the limit can still fail, as an Error or as the kernel decides.
void check_fits(std::uint64_t bytes, std::string_view what) {
    if (const std::uint64_t limit = machine().memory_bytes; bytes > limit)
        throw Error("cannot allocate " + std::to_string(bytes) + " bytes for " + std::string(what) +
                    ": more than this machine's " + std::to_string(limit) + " bytes of memory");
}

}  // namespace

AlignedBuffer allocate_zeroed(std::uint64_t bytes, std::string_view what) {
    check_fits(bytes, what);
    try {
        if (bytes > std::numeric_limits<std::size_t>::max()) throw std::bad_alloc();
        const auto size = static_cast<std::size_t>(bytes);
        if (AlignedBuffer spare = take_spare(size, size); !spare.empty()) {
            std::memset(spare.data(), 0, size);
            return spare;
        }
        return AlignedBuffer(size, AlignedBuffer::Init::zeroed);
    } catch (const std::bad_alloc&) {
        throw Error("cannot allocate " + std::to_string(bytes) + " bytes for " + std::string(what));
    }
}

AlignedBuffer clone_storage(const AlignedBuffer& from, std::string_view what) {
    check_fits(from.size(), what);  // a mapped filter's copy can be larger than memory
    try {
        if (AlignedBuffer spare = take_spare(from.size(), from.size()); !from.empty() && !spare.empty()) {
            std::memcpy(spare.data(), from.data(), from.size());
            return spare;
        }
        return from.clone();
    } catch (const std::bad_alloc&) {
        throw Error("cannot allocate " + std::to_string(from.size()) + " bytes for " + std::string(what));
    }
}

void release_storage(AlignedBuffer& storage) noexcept {
    leave_spare(std::move(storage));
    storage.reset();  // what the spares did not keep
}

void throw_moved_from(std::string_view operation) {
    throw Error(std::string(operation) +
                ": the filter was moved from and has no storage; assign a filter to it first");
}

void throw_mapped(std::string_view operation) {
    throw Error(std::string(operation) + ": the filter is mapped read-only; load() for a writable copy");
}

}  // namespace batchbloom::detail
