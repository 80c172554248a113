#include "bench/memory_limit.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

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

LineReader::LineReader(std::uint64_t buffer_bytes, std::uint64_t seed) {
    // Like the library's filters: huge-page-aligned from 4 MiB, whole lines below.
    const std::uint64_t align = buffer_bytes >= 2 * huge_page ? huge_page : line_bytes;
    bytes_ = std::max(line_bytes, (buffer_bytes + align - 1) / align * align);
    lines_ = bytes_ / line_bytes;
    if (posix_memalign(&buffer_, align, bytes_) != 0 || buffer_ == nullptr) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
    advised_ = align == huge_page && madvise(buffer_, bytes_, MADV_HUGEPAGE) == 0;
#endif
    auto* buf = static_cast<std::uint64_t*>(buffer_);
    // Touch every page (and give every word a distinct value) before timing.
    for (std::uint64_t w = 0; w < lines_ * line_words; ++w) buf[w] = w;

    // Enough reads to dwarf the timer and the prefetch ramp, few enough to stay quick.
    idx_.resize(std::clamp<std::uint64_t>(lines_, std::uint64_t(1) << 20, std::uint64_t(1) << 24));
    SplitMix64 rng(seed ^ 0x6C696D6974ULL);
    for (auto& v : idx_) v = rng.below(lines_);
    // Every word holds its own index, so each pass's checksum is known in advance; checking it
    // keeps the reads observable (and proves they read the right lines).
    for (std::size_t i = 0; i < idx_.size(); ++i) expected_ += idx_[i] * line_words + (i & (line_words - 1));
}

LineReader::~LineReader() { std::free(buffer_); }

std::int64_t LineReader::huge_page_bytes() const { return huge_page_bytes_of(buffer_, bytes_); }

double LineReader::sample(const LineReadRate& scheme, unsigned threads) const {
    using clock = std::chrono::steady_clock;
    const auto* buf = static_cast<const std::uint64_t*>(buffer_);
    const std::size_t n = idx_.size(), t = std::clamp<std::size_t>(threads, 1, n);
    // Thread v reads the lines from about n * v / t, its part starting on a multiple of
    // line_words: a read's word is its index's low bits, so the parts' checksums add up to
    // the whole pass's.
    std::vector<std::uint64_t> sums(t);
    const auto start = [&](std::size_t v) { return v == t ? n : n * v / t / line_words * line_words; };
    auto read = [&](std::size_t v) {
        const std::size_t begin = start(v), len = start(v + 1) - begin;
        sums[v] = scheme.two_level ? read_lines_two_level(buf, idx_.data() + begin, len, scheme.distance)
                                   : read_lines(buf, idx_.data() + begin, len, scheme.distance);
    };
    // On the OpenMP threads the library's own calls run on: threads of this loop's own would
    // share the cores with the library's workers, which spin for a while after each call.
    // Without OpenMP the parts run one after the other, as the library's calls then do.
    const auto t0 = clock::now();
#ifdef _OPENMP
#pragma omp parallel for num_threads(t) schedule(static, 1)
#endif
    for (std::size_t v = 0; v < t; ++v) read(v);
    const auto t1 = clock::now();
    std::uint64_t sum = 0;
    for (const std::uint64_t s : sums) sum += s;
    if (sum != expected_) throw std::runtime_error("random line read check failed: wrong checksum");
    return static_cast<double>(n) / std::max(std::chrono::duration<double>(t1 - t0).count(), 1e-9);
}

LineReadLimit LineReader::measure(unsigned repeat) const {
    LineReadLimit out;
    out.buffer_bytes = bytes_;
    out.reads = idx_.size();
    out.repeat = std::max(repeat, 1u);
    out.huge_pages_advised = advised_;
    out.huge_page_bytes = huge_page_bytes();
    // One scheme's series: distances from `first`, doubling until two doublings in a row
    // gained too little over the best before them (one alone may be noise).
    auto series = [&](unsigned first, bool two_level, std::vector<LineReadRate>& rates) {
        double best_before = 0;
        unsigned flat = 0;
        for (unsigned d = first;; d = d == 0 ? first_distance : 2 * d) {
            LineReadRate rate{d, 0, two_level};
            for (unsigned r = 0; r < out.repeat; ++r) rate.lines_per_s = std::max(rate.lines_per_s, sample(rate));
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

LineReadLimit measure_line_read_limit(std::uint64_t buffer_bytes, unsigned repeat, std::uint64_t seed) {
    return LineReader(buffer_bytes, seed).measure(repeat);
}

}  // namespace batchbloom::cli
