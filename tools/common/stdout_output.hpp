#pragma once
// Writing command output to stdout so that a failed write (a full disk, a closed pipe) is an
// error with a non-zero exit, not a silently short result.
#include <string_view>

namespace batchbloom::cli {

/// Writes text to stdout; throws std::runtime_error naming the system error if it cannot.
void write_stdout(std::string_view text);

/// Flushes stdout; throws std::runtime_error if the buffered output cannot be written.
void finish_stdout();

}  // namespace batchbloom::cli
