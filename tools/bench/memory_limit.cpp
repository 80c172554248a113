#include "bench/memory_limit.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>

#include "common/splitmix64.hpp"

namespace batchbloom::cli {

namespace {

constexpr std::uint64_t line_bytes = 64;
constexpr std::uint64_t line_words = line_bytes / sizeof(std::uint64_t);
constexpr std::uint64_t huge_page = std::uint64_t(2) << 20;
// Distances tried: 0 (no prefetch, the core's own parallelism), then 8, 16, 32, ... doubling
// for as long as the rate still rises by more than `gain` (memory systems differ by 4x and more
// in the lines they can keep in flight), up to `max_distance`.
constexpr unsigned first_distance = 8, max_distance = 4096;
constexpr double gain = 1.02;
// The two-level scheme: into L1 one AVX-512 group (8 keys) ahead, as the pipeline does; into L2
// from 16 lines ahead, doubling the same way.
constexpr std::size_t two_level_near = 8;
constexpr unsigned first_far = 16;

struct FreeDeleter {
    void operator()(void* p) const noexcept { std::free(p); }
};

/// One timed pass: for each i, prefetch the line of idx[i + distance] (distance 0: none), then
/// fold one word of the line of idx[i] into the checksum (the word depends on i, so every load
/// is needed).
[[gnu::noinline]] std::uint64_t read_lines(const std::uint64_t* buf, const std::uint64_t* idx, std::size_t n,
                                           std::size_t distance) {
    std::uint64_t sum = 0;
    const std::size_t head = distance == 0 ? 0 : n > distance ? n - distance : 0;
    std::size_t i = 0;
    for (; i < std::min(distance, n); ++i) __builtin_prefetch(buf + idx[i] * line_words, 0, 3);
    for (i = 0; i < head; ++i) {  // with distance 0, head is 0 and the last loop reads everything
        __builtin_prefetch(buf + idx[i + distance] * line_words, 0, 3);
        sum += buf[idx[i] * line_words + (i & (line_words - 1))];
    }
    for (; i < n; ++i) sum += buf[idx[i] * line_words + (i & (line_words - 1))];
    return sum;
}

/// The same with the direct path's two-level prefetch (src/cpu/simd/pipeline.hpp): line
/// idx[i + far] into L2 (where it waits without holding one of the few L1 miss buffers), line
/// idx[i + near] from there into L1, then the read of line idx[i].
[[gnu::noinline]] std::uint64_t read_lines_two_level(const std::uint64_t* buf, const std::uint64_t* idx, std::size_t n,
                                                     std::size_t far) {
    std::uint64_t sum = 0;
    const std::size_t head = n > far ? n - far : 0;
    std::size_t i = 0;
    for (; i < std::min(far, n); ++i) __builtin_prefetch(buf + idx[i] * line_words, 0, 1);
    for (i = 0; i < head; ++i) {
        __builtin_prefetch(buf + idx[i + far] * line_words, 0, 1);
        __builtin_prefetch(buf + idx[i + two_level_near] * line_words, 0, 3);
        sum += buf[idx[i] * line_words + (i & (line_words - 1))];
    }
    for (; i < n; ++i) sum += buf[idx[i] * line_words + (i & (line_words - 1))];
    return sum;
}

/// AnonHugePages of the mappings of /proc/self/smaps that overlap [p, p + bytes), or -1.
std::int64_t huge_page_bytes_of(const void* p, std::uint64_t bytes) {
    std::ifstream in("/proc/self/smaps");
    if (!in) return -1;
    const auto lo = reinterpret_cast<std::uintptr_t>(p), hi = lo + bytes;
    std::int64_t total = 0;
    bool inside = false, found = false;
    std::string line;
    while (std::getline(in, line)) {
        unsigned long long a = 0, b = 0;
        // A mapping's first line: "start-end perms offset dev inode path".
        if (std::sscanf(line.c_str(), "%llx-%llx ", &a, &b) == 2 && line.find(':') > line.find(' ')) {
            inside = a < hi && b > lo;
            continue;
        }
        unsigned long long kb = 0;
        if (inside && std::sscanf(line.c_str(), "AnonHugePages: %llu kB", &kb) == 1) {
            total += static_cast<std::int64_t>(kb) * 1024;
            found = true;
        }
    }
    return found ? total : -1;
}

}  // namespace

LineReadLimit measure_line_read_limit(std::uint64_t buffer_bytes, unsigned repeat, std::uint64_t seed) {
    LineReadLimit out;
    // Like the library's filters: huge-page-aligned from 4 MiB, whole lines below.
    const std::uint64_t align = buffer_bytes >= 2 * huge_page ? huge_page : line_bytes;
    out.buffer_bytes = std::max(line_bytes, (buffer_bytes + align - 1) / align * align);
    out.repeat = std::max(repeat, 1u);
    const std::uint64_t lines = out.buffer_bytes / line_bytes;
    // Enough reads to dwarf the timer and the prefetch ramp, few enough to stay quick.
    out.reads = std::clamp<std::uint64_t>(lines, std::uint64_t(1) << 20, std::uint64_t(1) << 24);

    void* raw = nullptr;
    if (posix_memalign(&raw, align, out.buffer_bytes) != 0 || raw == nullptr) throw std::bad_alloc();
    const std::unique_ptr<void, FreeDeleter> owner(raw);
#ifdef MADV_HUGEPAGE
    out.huge_pages_advised = align == huge_page && madvise(raw, out.buffer_bytes, MADV_HUGEPAGE) == 0;
#endif
    auto* buf = static_cast<std::uint64_t*>(raw);
    // Touch every page (and give every word a distinct value) before timing.
    for (std::uint64_t w = 0; w < lines * line_words; ++w) buf[w] = w;

    out.huge_page_bytes = huge_page_bytes_of(raw, out.buffer_bytes);

    SplitMix64 rng(seed ^ 0x6C696D6974ULL);
    std::vector<std::uint64_t> idx(out.reads);
    for (auto& v : idx) v = rng.below(lines);

    // Every word holds its own index, so each pass's checksum is known in advance; checking it
    // keeps the reads observable (and proves they read the right lines).
    std::uint64_t expected = 0;
    for (std::size_t i = 0; i < idx.size(); ++i) expected += idx[i] * line_words + (i & (line_words - 1));

    using clock = std::chrono::steady_clock;
    // One scheme's series: distances from `first`, doubling until two doublings in a row
    // gained too little over the best before them (one alone may be noise).
    auto series = [&](unsigned first, bool two_level, std::vector<LineReadRate>& rates) {
        double best_before = 0;
        unsigned flat = 0;
        for (unsigned d = first;; d = d == 0 ? first_distance : 2 * d) {
            double best = std::numeric_limits<double>::infinity();
            for (unsigned r = 0; r < out.repeat; ++r) {
                const auto t0 = clock::now();
                const std::uint64_t sum = two_level ? read_lines_two_level(buf, idx.data(), idx.size(), d)
                                                    : read_lines(buf, idx.data(), idx.size(), d);
                const auto t1 = clock::now();
                if (sum != expected) throw std::runtime_error("random line read check failed: wrong checksum");
                best = std::min(best, std::chrono::duration<double>(t1 - t0).count());
            }
            const LineReadRate rate{d, static_cast<double>(out.reads) / std::max(best, 1e-9), two_level};
            rates.push_back(rate);
            if (rate.lines_per_s > out.best.lines_per_s) out.best = rate;
            if (d == 0) continue;
            flat = rate.lines_per_s < gain * best_before ? flat + 1 : 0;
            best_before = std::max(best_before, rate.lines_per_s);
            if (flat >= 2 || d >= max_distance) break;
        }
    };
    series(0, false, out.by_distance);
    series(first_far, true, out.by_l2_distance);
    return out;
}

}  // namespace batchbloom::cli
