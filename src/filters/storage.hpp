#pragma once
// What every filter type shares about its storage: allocation and copies through AlignedBuffer
// (failure reported as Error, as the constructors document), the move and copy assignments,
// and the errors of the moved-from rule (filter.hpp, "After a move") and of mapped filters
// (filter.hpp, "Mapped filters").
#include <cstdint>
#include <memory>
#include <string_view>
#include <type_traits>
#include <utility>

#include "batchbloom/aligned_buffer.hpp"

namespace batchbloom::detail {

/// `bytes` zeroed bytes for `what` (e.g. "the filter"); throws Error if they cannot be had.
/// A spare of exactly that size (the storage of a filter gone, batch/scratch.hpp) is zeroed
/// rather than fresh pages faulted in: a program building a filter per query paid 2.6 us a
/// page for it (a 0.9 MiB filter: 230 faults, 0.6 ms, as long as inserting 750k keys on two
/// threads; Zen 3 VM).
AlignedBuffer allocate_zeroed(std::uint64_t bytes, std::string_view what);

/// A copy of `from` for `what` (into a spare of its size where one is held); throws Error if
/// the memory cannot be had.
AlignedBuffer clone_storage(const AlignedBuffer& from, std::string_view what);

/// What a filter's destructor does with its storage: left to the spares for the next
/// filter's (or arena's) allocation, or freed.
void release_storage(AlignedBuffer& storage) noexcept;

/// Every filter class's move assignment, written once: *this releases its storage and is
/// move-constructed from `other` in place, so the move constructor — which takes the storage
/// and leaves `other` empty — is the one place that says what a move does. A self-move
/// changes nothing.
template <class T>
T& move_assign(T& self, T&& other) noexcept {
    static_assert(std::is_nothrow_move_constructible_v<T> && !std::is_polymorphic_v<T>);
    if (&self != &other) {
        std::destroy_at(&self);
        std::construct_at(&self, std::move(other));
    }
    return self;
}

/// The copy assignment: a copy, then the move assignment, so that a copy that fails to
/// allocate leaves the target as it was.
template <class T>
T& copy_assign(T& self, const T& other) {
    if (&self != &other) self = T(other);
    return self;
}

/// Throws Error saying that `operation` needs the storage a moved-from filter no longer has.
[[noreturn]] void throw_moved_from(std::string_view operation);

/// Throws Error saying that `operation` would write a filter mapped read-only (Filter::map).
[[noreturn]] void throw_mapped(std::string_view operation);

}  // namespace batchbloom::detail
