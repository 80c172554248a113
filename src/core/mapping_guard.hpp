#pragma once
// Mapped filters whose file shrinks under them (another process truncates it in place): on
// Linux a read of a page past the new end raises SIGBUS. A guarded mapping turns that into an
// error the caller can see: a SIGBUS handler, installed with the first guard, puts a zero page
// over the faulting page of a guarded mapping (the read then sees zeros and goes on) and marks
// the mapping as lost; the filter checks the mark after each probe and throws. Faults outside
// guarded mappings go to the handler that was there before (or the default: the process dies).
#include <cstddef>

namespace batchbloom::detail {

/// Guards [base, base + length); returns the guard's slot, or -1 if every slot is taken (the
/// mapping then stays unguarded: a truncation is a SIGBUS, as without guards).
int guard_mapping(const void* base, std::size_t length) noexcept;

/// Stops guarding slot `slot` (before the mapping is unmapped). -1: nothing.
void unguard_mapping(int slot) noexcept;

/// Whether a read of slot `slot`'s mapping faulted past the end of its file (it read zeros).
bool mapping_lost(int slot) noexcept;

}  // namespace batchbloom::detail
