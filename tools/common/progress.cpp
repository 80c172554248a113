#include "common/progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "common/text_format.hpp"

namespace batchbloom::cli {

namespace {

constexpr auto redraw_every = std::chrono::milliseconds(250);

std::string count(double v) {
    if (v >= 1e9) return format_fixed(v / 1e9, 2) + "G";
    if (v >= 1e6) return format_fixed(v / 1e6, 2) + "M";
    if (v >= 1e3) return format_fixed(v / 1e3, 1) + "k";
    return format_fixed(v, 0);
}

std::string mib(std::uint64_t bytes) { return format_fixed(double(bytes) / double(1 << 20), 1) + " MiB"; }

std::string duration(double seconds) {
    const auto s = static_cast<unsigned long long>(seconds + 0.5);
    return s >= 3600 ? strprintf("%llu:%02llu:%02llu", s / 3600, s / 60 % 60, s % 60)
                     : strprintf("%llu:%02llu", s / 60, s % 60);
}

}  // namespace

OptionSpec quiet_option() { return {"quiet", "", "no progress line or summary on stderr (warnings still appear)"}; }

Progress::Progress(const KeyReader& reader, const ParsedArgs& args)
    : reader_(reader), enabled_(!args.has("quiet") && isatty(STDERR_FILENO) == 1) {
    start_ = last_ = std::chrono::steady_clock::now();
}

Progress::~Progress() { finish(); }

void Progress::update() {
    if (!enabled_) return;
    const auto now = std::chrono::steady_clock::now();
    if (drawn_ && now - last_ < redraw_every) return;  // the first batch draws at once
    last_ = now;
    const double elapsed = std::max(std::chrono::duration<double>(now - start_).count(), 1e-6);
    const std::uint64_t bytes = reader_.bytes_read();
    std::string line = "batchbloom: " + count(double(reader_.keys_read())) + " keys, " + mib(bytes);
    if (const auto total = reader_.total_bytes(); total && *total > 0)
        line += " of " + mib(*total) + " (" + format_fixed(100.0 * double(bytes) / double(*total), 0) + "%)";
    line += ", " + count(double(reader_.keys_read()) / elapsed) + " keys/s";
    if (const auto total = reader_.total_bytes(); total && bytes > 0 && bytes < *total)
        line += ", ETA " + duration(elapsed * double(*total - bytes) / double(bytes));
    std::fprintf(stderr, "\r\033[K%s", line.c_str());
    std::fflush(stderr);
    drawn_ = true;
}

void Progress::finish() {
    if (!drawn_) return;
    std::fputs("\r\033[K", stderr);
    std::fflush(stderr);
    drawn_ = false;
}

}  // namespace batchbloom::cli
