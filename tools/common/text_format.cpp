#include "common/text_format.hpp"

#include <cmath>
#include <cstdarg>
#include <cstdio>

namespace batchbloom::cli {

std::string strprintf(const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    va_list ap2;
    va_copy(ap2, ap);
    const int len = std::vsnprintf(nullptr, 0, fmt, ap);
    va_end(ap);
    std::string s;
    if (len > 0) {
        s.resize(static_cast<std::size_t>(len) + 1);
        std::vsnprintf(s.data(), s.size(), fmt, ap2);
        s.resize(static_cast<std::size_t>(len));
    }
    va_end(ap2);
    return s;
}

std::string format_number(double v, int digits) { return strprintf("%.*g", digits, v); }

std::string format_fixed(double v, int decimals) { return strprintf("%.*f", decimals, v); }

std::string format_fpr(double p) {
    if (!(p > 0.0)) return strprintf("%.3e", p);
    if (!std::isfinite(p)) return "n/a";
    return strprintf("%.3e (1 in %.4g)", p, 1.0 / p);
}

std::string format_bytes(std::uint64_t bytes) {
    return strprintf("%llu (%.2f MiB)", static_cast<unsigned long long>(bytes),
                     static_cast<double>(bytes) / (1024.0 * 1024.0));
}

std::string in_quotes(std::string_view text) {
    std::string q;
    q.reserve(text.size() + 2);
    q += '\'';
    q += text;
    q += '\'';
    return q;
}

}  // namespace batchbloom::cli
