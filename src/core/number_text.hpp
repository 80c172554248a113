#pragma once
// Numbers in error messages as the user wrote them: the shortest text that reads back as the
// same double (0.9999999999999999 stays that, where six significant digits print "1").
#include <charconv>
#include <string>

namespace batchbloom::detail {

inline std::string exact_text(double v) {
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, r.ptr);
}

}  // namespace batchbloom::detail
