#include "filters/storage.hpp"

#include <limits>
#include <new>
#include <string>

#include "batchbloom/error.hpp"

namespace batchbloom::detail {

AlignedBuffer allocate_zeroed(std::uint64_t bytes, std::string_view what) {
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
