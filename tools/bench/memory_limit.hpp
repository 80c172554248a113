#pragma once
// The machine's random cache-line read rate: the speed limit of an out-of-cache Bloom filter
// probe, which reads one random 64-byte line per key. `batchbloom bench` measures it in the
// same run as the filters and reports each engine's probe rate as a fraction of it.
//
// Method: a buffer much larger than the last-level cache (2 MiB-aligned, MADV_HUGEPAGE, as the
// library allocates large filters), touched first; an array of random line indices drawn in
// advance (as a probe's hashed block indices are); then one pass over the indices that
// prefetches line i+d and loads one word of line i into a checksum. Single thread; several
// prefetch distances d are tried (0: none, the core's own memory parallelism; then 8, 16, 32,
// ... doubling while the rate still rises) and the fastest
// counts. Then the direct path's own scheme (src/cpu/simd/pipeline.hpp): each line prefetched
// into L2 d lines ahead and into L1 8 lines ahead, d from 16 doubling the same way; the fastest
// of both series is the limit. `batchbloom bench` also measures it over a buffer the size of each filter it runs,
// which is the limit of a direct probe of that filter wherever it lives (L2, L3 or DRAM).
#include <cstdint>
#include <vector>

namespace batchbloom::cli {

struct LineReadRate {
    unsigned distance = 0;   ///< prefetch distance in lines (into L2 for the two-level scheme)
    double lines_per_s = 0;  ///< best of the repeats
    bool two_level = false;  ///< into L2 `distance` ahead, then into L1 8 ahead
};

struct LineReadLimit {
    std::uint64_t buffer_bytes = 0;
    std::uint64_t reads = 0;          ///< random lines read per timed pass
    unsigned repeat = 1;              ///< passes per distance; the fastest counts
    bool huge_pages_advised = false;  ///< madvise(MADV_HUGEPAGE) succeeded
    /// Bytes of the buffer backed by transparent huge pages (AnonHugePages of its mapping in
    /// /proc/self/smaps); -1 where that cannot be read.
    std::int64_t huge_page_bytes = -1;
    std::vector<LineReadRate> by_distance;     ///< one prefetch into L1, 0 (none), 8, 16, ...
    std::vector<LineReadRate> by_l2_distance;  ///< two-level, 16, 32, ...
    LineReadRate best;  ///< the limit: the fastest of both series
};

/// A buffer of random lines to read, kept for repeated samples: the sweep times one read pass
/// beside every timed call of the paths, so that the limit drifts with the machine as they do
/// (on a VM that shares its memory system with other guests, the rate moved by 30% within a
/// minute).
class LineReader {
public:
    /// `buffer_bytes` rounded up to 2 MiB from 4 MiB on (as the library's filters are), else to
    /// a line; touched before it returns. Throws std::bad_alloc if it cannot be allocated.
    LineReader(std::uint64_t buffer_bytes, std::uint64_t seed);
    ~LineReader();
    LineReader(const LineReader&) = delete;
    LineReader& operator=(const LineReader&) = delete;

    std::uint64_t buffer_bytes() const { return bytes_; }
    std::uint64_t reads() const { return idx_.size(); }
    bool huge_pages_advised() const { return advised_; }
    /// AnonHugePages of the buffer's mapping, or -1 where it cannot be read.
    std::int64_t huge_page_bytes() const;
    /// One timed pass over the random lines at this scheme and distance: lines per second.
    /// With `threads` > 1, that many threads share the pass, each reading its own part of the
    /// lines at once: the limit of a batch run on that many threads, which a one-thread rate
    /// is not (two threads of a VM read ~2x the lines of one).
    double sample(const LineReadRate& scheme, unsigned threads = 1) const;
    /// Both series, `repeat` passes per distance, the fastest of each counting.
    LineReadLimit measure(unsigned repeat) const;

private:
    void* buffer_ = nullptr;
    std::uint64_t bytes_ = 0, lines_ = 0;
    bool advised_ = false;
    std::vector<std::uint64_t> idx_;
    std::uint64_t expected_ = 0;  // the checksum every pass must produce
};

/// Default buffer: 1 GiB, about ten times a large server's last-level cache.
inline constexpr std::uint64_t default_limit_buffer_bytes = std::uint64_t(1) << 30;

/// Measures the random 64-byte line read rate over a buffer of `buffer_bytes` (rounded up to
/// 2 MiB from 4 MiB on, as the library's filters are, else to a line). Throws std::bad_alloc
/// if the buffer cannot be allocated.
LineReadLimit measure_line_read_limit(std::uint64_t buffer_bytes, unsigned repeat, std::uint64_t seed);

}  // namespace batchbloom::cli
