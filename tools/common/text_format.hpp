#pragma once
// Number formatting for the human-readable output of the subcommands.
#include <cstdint>
#include <string>
#include <string_view>

namespace batchbloom::cli {

/// Compact general notation (%g with `digits` significant digits): 0.01, 9.585, 1e-05.
std::string format_number(double v, int digits = 6);
/// Fixed notation with `decimals` digits after the point.
std::string format_fixed(double v, int decimals);
/// A probability in scientific notation with its "1 in N" form: "9.876e-03 (1 in 101)".
std::string format_fpr(double p);
/// "1048576 (1.00 MiB)".
std::string format_bytes(std::uint64_t bytes);

/// 'text', quoted for an error message.
std::string in_quotes(std::string_view text);

/// printf into a std::string.
std::string strprintf(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

}  // namespace batchbloom::cli
