#pragma once
// Writing command output to stdout so that a failed write (a full disk, a closed pipe) is an
// error with a non-zero exit, not a silently short result.
#include <functional>
#include <iosfwd>
#include <string_view>

namespace batchbloom::cli {

/// Writes text to stdout; throws std::runtime_error naming the system error if it cannot.
void write_stdout(std::string_view text);

/// Flushes stdout; throws std::runtime_error if the buffered output cannot be written.
void finish_stdout();

/// Where a command writes a file (--out): "-" is stdout (refused on a terminal), anything
/// else goes through batchbloom::write_file (atomic replace; links followed; devices and
/// FIFOs written in place). Throws naming the output and the system's reason.
void write_output(std::string_view out, const std::function<void(std::ostream&)>& write);

}  // namespace batchbloom::cli
