#pragma once
// Splitting a bulk call across threads: how many threads a batch deserves (a call's own come
// from bulk_call.hpp, resolved once), contiguous ranges of it, parallel phases that carry
// exceptions out, and inserts into private copies of a filter. The only code that starts
// threads for a bulk call (the pool in threads.cpp): every filter type describes its work per
// range (or per thread, or per chunk) and these helpers run it.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace batchbloom::detail {

/// Threads used for `requested` (0 = every CPU this process may run on, hardware_threads()),
/// at most max_threads (bulk_settings.hpp). A bulk call's threads come from bulk_call
/// (bulk_call.hpp), which also fits them to the call's keys; this is for options that set the
/// threads of other parallel work (a join's chunks, a Parquet add's files).
unsigned resolve_threads(unsigned requested);

/// Below this many keys per thread, starting threads costs more than it saves.
inline constexpr std::size_t min_keys_per_thread = std::size_t(1) << 15;

/// Throws Error unless an option struct's thread count is within [0, max_threads]
/// (bulk_settings.hpp), naming `owner`'s option.
void check_threads_option(unsigned threads, const char* owner);

/// Threads for a batch of n keys, at most `threads` (resolved): one per min_keys_per_thread keys,
/// at least 1.
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

/// The engine under each_thread, each_share and each_chunk: runs body(i, slot) for i in [0, tasks)
/// on the calling thread and up to `threads` - 1 others (the library's pool, or the host's
/// runner: include/batchbloom/parallel.hpp), and returns when all are done. `slot`, in
/// [0, threads), names the thread that runs the task for this call: tasks of one slot run one
/// after another, never at once (a slot's scratch needs no lock). Tasks are claimed one at a
/// time, so a worker that wakes late takes fewer and a pool that could not start every thread
/// runs them all the same; a call made from inside a task runs its tasks on its own thread.
/// The first exception a task throws is rethrown here once every task has finished.
void run_tasks(unsigned tasks, unsigned threads, void* body, void (*call)(void*, unsigned, unsigned));

/// run_tasks with body(i, slot).
template <class Body>
void run_slotted(unsigned tasks, unsigned threads, Body& body) {
    run_tasks(tasks, threads, &body, [](void* b, unsigned i, unsigned slot) { (*static_cast<Body*>(b))(i, slot); });
}

/// run_tasks with body(i).
template <class Body>
void run_tasks(unsigned tasks, unsigned threads, Body& body) {
    run_tasks(tasks, threads, &body, [](void* b, unsigned i, unsigned) { (*static_cast<Body*>(b))(i); });
}

/// Runs body(v) for v in [0, t), on up to t threads. Each call is one phase: all of a phase's
/// calls finish before the next phase starts. Two calls may run one after the other on one
/// thread (a body never waits for another). An exception (say, scratch memory that cannot be
/// allocated) is carried out and rethrown after the phase.
template <class Body>
void each_thread(unsigned t, Body&& body) {
    if (t <= 1) {
        for (unsigned v = 0; v < t; ++v) body(v);
        return;
    }
    run_tasks(t, t, body);
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
    if (threads <= 1 || chunks <= 1) {
        for (std::size_t c = 0; c < chunks; ++c) body(c);
        return;
    }
    // Chunk counts beyond 2^32 run as rounds of 2^32 (a task is an unsigned index).
    for (std::size_t base = 0; base < chunks;) {
        const auto n = static_cast<unsigned>(std::min<std::size_t>(chunks - base, 0xffffffffu));
        auto task = [&](unsigned i) { body(base + i); };
        run_tasks(n, threads, task);
        base += n;
    }
}

/// How many pieces t threads share n keys in: about eight per thread, each at least
/// min_keys_per_thread / 2 keys, so a thread that starts late (a worker whose vCPU the host
/// had parked) takes fewer pieces instead of leaving its whole share to wait for it.
inline unsigned shared_pieces(std::size_t n, unsigned t) {
    if (t <= 1) return 1;
    return static_cast<unsigned>(std::clamp<std::size_t>(n / (min_keys_per_thread / 2), t, std::size_t(8) * t));
}

/// body(range) over [0, n) on up to t threads, in shared_pieces with boundaries on multiples of
/// `align` (64 keys: bitmap words are never shared), each piece claimed by whichever thread is
/// free.
template <class Body>
void each_share(std::size_t n, unsigned t, std::size_t align, Body&& body) {
    const unsigned pieces = shared_pieces(n, t);
    if (pieces <= 1) return body(Range{0, n});
    auto task = [&](unsigned i) { body(part(n, pieces, i, align)); };
    run_tasks(pieces, t, task);
}

/// Whether t threads inserting n keys may each (but the first) get a private copy of a filter
/// of `bytes`: never more memory than 16 bytes per key (what partitioning would take) or
/// 64 MiB, whichever is larger.
inline bool copies_affordable(unsigned t, std::uint64_t bytes, std::size_t n) {
    return (t - 1) * bytes <= std::max<std::uint64_t>(16 * std::uint64_t(n), std::uint64_t(64) << 20);
}

/// A multi-threaded insert of n keys into private copies of a filter of `words` words, in
/// shared_pieces (boundaries on multiples of `align`) claimed by whichever of the t threads is
/// free: the thread in slot 0 inserts by insert(into, range) into `dst`, the one in slot v > 0
/// into copy(v), which that thread asks for on its first piece (and zeroes when `zero`). Then
/// the copies used are ORed into dst, each thread merging one range of words. OR is commutative,
/// so dst ends up with the bits one thread would have set.
///
/// Why pieces, and copies had by their own threads: with a piece per thread, as this was first,
/// a worker that woke late left its whole half to wait for it, and the caller first faulted in
/// every copy's pages (0.5-0.9 ms for a 1.2 MiB copy on a Zen 5 VM, as long as the insert;
/// docs/design.md, "The batch code's constants").
template <class Copy, class Insert>
void insert_into_copies(std::uint64_t* dst, std::size_t words, unsigned t, Copy&& copy, bool zero, std::size_t n,
                        std::size_t align, Insert&& insert) {
    const unsigned pieces = shared_pieces(n, t);
    std::vector<std::uint64_t*> into(t, nullptr);  // each set by its slot's thread only, read after the phase
    into[0] = dst;
    auto piece = [&](unsigned i, unsigned slot) {
        if (into[slot] == nullptr) {
            std::uint64_t* mine = copy(slot);
            if (zero) std::fill_n(mine, words, 0);
            into[slot] = mine;
        }
        insert(into[slot], part(n, pieces, i, align));
    };
    run_slotted(pieces, t, piece);
    std::vector<const std::uint64_t*> merged;
    for (unsigned v = 1; v < t; ++v)
        if (into[v] != nullptr) merged.push_back(into[v]);
    if (merged.empty()) return;
    const auto m = static_cast<unsigned>(merged.size() + 1);
    each_thread(m, [&](unsigned v) {
        const Range r = part(words, m, v, 8);
        for (const std::uint64_t* c : merged)
            for (std::size_t i = r.begin; i < r.end; ++i) dst[i] |= c[i];
    });
}

}  // namespace batchbloom::detail
