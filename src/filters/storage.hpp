#pragma once
// What every filter type shares about its storage: allocation through AlignedBuffer (failure
// reported as Error, as the constructors document) and the error of the moved-from rule
// (filter.hpp, "After a move").
#include <cstdint>
#include <string_view>

#include "batchbloom/aligned_buffer.hpp"

namespace batchbloom::detail {

/// `bytes` zeroed bytes for `what` (e.g. "the filter"); throws Error if they cannot be had.
AlignedBuffer allocate_zeroed(std::uint64_t bytes, std::string_view what);

/// Throws Error saying that `operation` needs the storage a moved-from filter no longer has.
[[noreturn]] void throw_moved_from(std::string_view operation);

}  // namespace batchbloom::detail
