#pragma once
// Splitting a bulk call across OpenMP threads: how many threads a batch deserves, contiguous
// ranges of it, parallel phases that carry exceptions out, and inserts into private copies of
// a filter. The only code that starts threads for a bulk call: every filter type describes its
// work per range (or per thread, or per chunk) and these helpers run it.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <vector>

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

/// Threads for a bulk call of n keys on a filter whose thread setting is `setting`
/// (BulkSettings::threads: 0 every core).
inline unsigned call_threads(std::size_t n, unsigned setting) { return threads_for(n, resolve_threads(setting)); }

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

#ifdef _OPENMP
/// The first exception thrown inside a parallel region, kept to be rethrown after it.
class FirstError {
public:
    template <class Call>
    void run(Call&& call) noexcept {
        try {
            call();
        } catch (...) {
#pragma omp critical(batchbloom_first_error)
            if (!error_) error_ = std::current_exception();
        }
    }
    void rethrow() const {
        if (error_) std::rethrow_exception(error_);
    }

private:
    std::exception_ptr error_;
};
#endif

/// Runs body(v) for v in [0, t), in parallel. Each call is one phase: all of a phase's calls
/// finish before the next phase starts (the parallel loop's implicit barrier), however many
/// threads the OpenMP runtime really grants. An exception (say, scratch memory that cannot be
/// allocated) must not leave a parallel region: the first one is carried out and rethrown.
template <class Body>
void each_thread(unsigned t, Body&& body) {
#ifdef _OPENMP
    if (t > 1) {
        FirstError error;
#pragma omp parallel for num_threads(t) schedule(static, 1)
        for (int v = 0; v < static_cast<int>(t); ++v) error.run([&] { body(static_cast<unsigned>(v)); });
        error.rethrow();
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

/// The sum of body(range) (a count) over t contiguous ranges of [0, n), each on its thread,
/// with boundaries on multiples of `align`.
template <class Body>
std::size_t sum_parts(std::size_t n, unsigned t, std::size_t align, Body&& body) {
    std::atomic<std::size_t> total{0};
    each_part(n, t, align, [&](Range r) { total += body(r); });
    return total;
}

/// body(c) for every chunk c in [0, chunks), on up to `threads` threads, each taking the next
/// chunk as it finishes one (chunks of uneven cost: a join's whole-column probe, its selection).
/// The first exception is carried out, as each_thread's.
template <class Body>
void each_chunk(std::size_t chunks, unsigned threads, Body&& body) {
#ifdef _OPENMP
    if (threads > 1 && chunks > 1) {
        const auto n = static_cast<std::ptrdiff_t>(chunks);
        FirstError error;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
        for (std::ptrdiff_t c = 0; c < n; ++c) error.run([&] { body(static_cast<std::size_t>(c)); });
        error.rethrow();
        return;
    }
#else
    (void)threads;
#endif
    for (std::size_t c = 0; c < chunks; ++c) body(c);
}

/// Whether t threads inserting n keys may each (but the first) get a private copy of a filter
/// of `bytes`: never more memory than 16 bytes per key (what partitioning would take) or
/// 64 MiB, whichever is larger.
inline bool copies_affordable(unsigned t, std::uint64_t bytes, std::size_t n) {
    return (t - 1) * bytes <= std::max<std::uint64_t>(16 * std::uint64_t(n), std::uint64_t(64) << 20);
}

/// A multi-threaded insert of n keys into private copies of a filter of `words` words: thread
/// v inserts part v of the batch (boundaries on multiples of `align`) by insert(into, range),
/// thread 0 into `dst` and thread v > 0 into copies[v - 1] (zeroed first by that thread when
/// `zero`); then the copies are ORed into dst, each thread merging one range of words. OR is
/// commutative, so dst ends up with the bits one thread would have set.
template <class Insert>
void insert_into_copies(std::uint64_t* dst, std::size_t words, const std::vector<std::uint64_t*>& copies, bool zero,
                        std::size_t n, std::size_t align, Insert&& insert) {
    const auto t = static_cast<unsigned>(copies.size() + 1);
    each_thread(t, [&](unsigned v) {
        std::uint64_t* into = v == 0 ? dst : copies[v - 1];
        if (v > 0 && zero) std::fill_n(into, words, 0);
        insert(into, part(n, t, v, align));
    });
    each_thread(t, [&](unsigned v) {
        const Range r = part(words, t, v, 8);
        for (const std::uint64_t* copy : copies)
            for (std::size_t i = r.begin; i < r.end; ++i) dst[i] |= copy[i];
    });
}

}  // namespace batchbloom::detail
