#pragma once
// Splitting a batch across OpenMP threads: how many threads a batch deserves, contiguous
// ranges of it, and a parallel phase that carries exceptions out. Shared by the blocked
// filter's bulk paths (batch.cpp) and the classic filter's.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <exception>

namespace batchbloom::detail {

/// Threads used for `requested` (0 = every core OpenMP offers), at most max_threads
/// (bulk_settings.hpp); 1 without OpenMP.
unsigned resolve_threads(unsigned requested);

/// Below this many keys per thread, starting threads costs more than it saves.
inline constexpr std::size_t min_keys_per_thread = std::size_t(1) << 15;

/// Throws Error unless an option struct's thread count is within [0, max_threads]
/// (bulk_settings.hpp), naming `owner`'s option.
void check_threads_option(unsigned threads, const char* owner);

/// Threads for a batch of n keys, at most `threads` (resolved).
inline unsigned threads_for(std::size_t n, unsigned threads) {
    return static_cast<unsigned>(std::clamp<std::size_t>(n / min_keys_per_thread, 1, std::max(threads, 1u)));
}

/// [begin, end) of a batch.
struct Range {
    std::size_t begin, end;
    std::size_t size() const { return end - begin; }
};

/// Part i of n split into t parts, with boundaries on multiples of `align`.
inline Range part(std::size_t n, unsigned t, unsigned i, std::size_t align) {
    const std::size_t units = (n + align - 1) / align;
    auto edge = [&](unsigned j) { return std::min(n, units * j / t * align); };
    return {edge(i), edge(i + 1)};
}

/// Runs body(v) for v in [0, t), in parallel. Each call is one phase: all of a phase's calls
/// finish before the next phase starts (the parallel loop's implicit barrier), however many
/// threads the OpenMP runtime really grants. An exception (say, scratch memory that cannot be
/// allocated) must not leave a parallel region: the first one is carried out and rethrown.
template <class Body>
void each_thread(unsigned t, Body&& body) {
#ifdef _OPENMP
    if (t > 1) {
        std::exception_ptr error;
#pragma omp parallel for num_threads(t) schedule(static, 1)
        for (int v = 0; v < static_cast<int>(t); ++v) {
            try {
                body(static_cast<unsigned>(v));
            } catch (...) {
#pragma omp critical(batchbloom_each_thread_error)
                if (!error) error = std::current_exception();
            }
        }
        if (error) std::rethrow_exception(error);
        return;
    }
#endif
    for (unsigned v = 0; v < t; ++v) body(v);
}

/// body(range) on t threads, for t contiguous ranges of [0, n) with boundaries on multiples
/// of `align` (64 keys: bitmap words are never shared).
template <class Body>
void each_part(std::size_t n, unsigned t, std::size_t align, Body&& body) {
    each_thread(t, [&](unsigned v) { body(part(n, t, v, align)); });
}

/// Whether t threads inserting n keys may each (but the first) get a private copy of a filter
/// of `bytes`: never more memory than 16 bytes per key (what partitioning would take) or
/// 64 MiB, whichever is larger.
inline bool copies_affordable(unsigned t, std::uint64_t bytes, std::size_t n) {
    return (t - 1) * bytes <= std::max<std::uint64_t>(16 * std::uint64_t(n), std::uint64_t(64) << 20);
}

/// dst[i] |= copy[i] for every copy (anything with data()), the words split across t threads:
/// how inserts into private copies of a filter are merged.
template <class Copies>
void or_copies_into(std::uint64_t* dst, std::size_t words, const Copies& copies, unsigned t) {
    each_thread(t, [&](unsigned v) {
        const Range r = part(words, t, v, 8);
        for (const auto& copy : copies)
            for (std::size_t i = r.begin; i < r.end; ++i) dst[i] |= copy.data()[i];
    });
}

}  // namespace batchbloom::detail
