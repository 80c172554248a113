#pragma once
// Memory the partitioned batch path works in, kept between calls. A large batch meets its
// filter region by region through buckets of hashes; allocating those buckets in every call
// would cost one page fault per page touched (and, on a VM that hands idle memory back to its
// host, the host's zeroing of it), as much as the partitioning saves. So each filter keeps its
// scratch once grown, up to a cap its owner sets, and gives it back on request or when the
// filter is destroyed. What a filter gives back when destroyed (and each classic insert's
// copies) is kept for the process's next arena, a few of them (spare arenas, below): a
// program that builds a filter per query on two threads had every copy's pages faulted in
// afresh (0.1-0.75 ms for a 1.2 MiB copy on a Zen 5 VM, as long as the insert itself). A
// filter's own storage goes the same way (filters/storage.hpp): zeroing a spare costs a
// twentieth of faulting fresh pages in.
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "batchbloom/aligned_buffer.hpp"

namespace batchbloom::detail {

/// One thread's scratch: one AlignedBuffer (huge pages when large), grown, never shrunk, on
/// demand. Its contents are never read before being written, so it is not zeroed, but each
/// page is touched when it grows (unless its user writes it all in address order at once, or
/// it grows into a spare arena, whose pages are in already). Destroyed, it leaves its memory
/// to the spare arenas.
class ScratchArena {
public:
    ScratchArena() = default;
    ScratchArena(ScratchArena&&) noexcept = default;
    ScratchArena& operator=(ScratchArena&& other) noexcept;
    ~ScratchArena();

    /// At least `bytes` of memory (its old contents lost if it has to grow), its new pages
    /// faulted in unless `touch` is false; growing, it takes a spare arena of `bytes` to
    /// `spare_most` bytes where one is held (by default exactly `bytes`: an owner that caps its
    /// scratch asks no more than the cap). Throws std::bad_alloc, leaving the arena empty, if
    /// it cannot be had.
    std::byte* get(std::size_t bytes, bool touch = true, std::size_t spare_most = 0);
    std::size_t bytes() const { return buf_.size(); }
    /// Frees the memory (not to the spares: a filter's release_scratch means give it back).
    void release() noexcept { buf_.reset(); }

private:
    AlignedBuffer buf_;
};

/// Spare arenas: memory of arenas gone, up to `spare_cap` bytes in all, for the next arena
/// that grows to a size it fits (ScratchArena::get). Freed once none was taken or left for
/// `spare_keep_time` (release_idle_spares, called by the pool's workers before they sleep
/// for good; a host's runner has none, and its process keeps at most spare_cap bytes).
constexpr std::size_t spare_cap = std::size_t(64) << 20;
constexpr std::chrono::milliseconds spare_keep_time{1000};
/// The most a private copy of `bytes` takes from the spares (ScratchArena::get's spare_most):
/// a copy has no cap, and one a quarter larger will do.
constexpr std::size_t copy_spare_most(std::size_t bytes) { return bytes + bytes / 4; }
/// Bytes the spare arenas hold now.
std::size_t spare_bytes() noexcept;
/// The smallest spare of `least` to `most` bytes (its old contents in it, its pages faulted
/// in), or an empty buffer where none fits.
AlignedBuffer take_spare(std::size_t least, std::size_t most);
/// Keeps `b` (moved from) among the spares where it fits under spare_cap; else `b` is left as
/// it was, for its owner to free. Mapped buffers are never kept.
void leave_spare(AlignedBuffer&& b) noexcept;
/// Frees the spares if none was taken or left for `idle`; whether any are still held.
bool release_idle_spares(std::chrono::steady_clock::duration idle) noexcept;

/// A filter's partitioning scratch: one arena per thread of a bulk call, all of them together
/// bounded by `limit` bytes. One bulk call uses it at a time; a call that finds it in use (a
/// concurrent call on the same filter) takes the direct path, which needs none.
class BatchScratch {
public:
    /// The cap a filter of `filter_bytes` starts with: as many bytes as the filter has (but no
    /// more than an eighth of the memory), and at least 256 MiB (a round of ~20 million keys).
    /// Each round streams every region its keys touch into the cache, so the rounds of a
    /// large batch must bring several keys to each filter line: scratch the size of the filter
    /// holds about 5 keys per line (12 bytes per key, 64 per line), where a fixed 256 MiB gave
    /// a 1 GiB filter 1.2 and ran slower (docs/design.md, "The batch code's constants").
    static std::size_t default_limit(std::uint64_t filter_bytes);

    explicit BatchScratch(std::size_t limit) : limit_(limit) {}

    std::size_t limit() const { return limit_; }
    /// Lowers or raises the cap; lowering it below what is held gives the excess back.
    void set_limit(std::size_t bytes);
    /// Bytes held as of the end of the last call that used the scratch (or of release()). It
    /// may be asked while a call runs (Filter::scratch_bytes is const), so it reads a copy the
    /// call publishes when it ends, never the arenas a running call may be growing.
    std::size_t held() const { return held_.load(std::memory_order_relaxed); }
    /// Gives every arena back (not while a call uses them: then nothing happens).
    void release();

    /// Exclusive use by one bulk call: the arenas of `threads` threads, or none if another
    /// call holds them. Held for the lifetime of the Lease.
    class Lease {
    public:
        explicit Lease(BatchScratch* s, unsigned threads);
        ~Lease();
        Lease(const Lease&) = delete;
        Lease& operator=(const Lease&) = delete;
        explicit operator bool() const { return s_ != nullptr; }
        ScratchArena& arena(unsigned thread) { return s_->arenas_[thread]; }
        /// The bytes each of the lease's threads may use.
        std::size_t per_thread() const { return s_->limit_ / threads_; }

    private:
        BatchScratch* s_;
        unsigned threads_;
    };

private:
    /// Sums the arenas into held_; only by the holder of busy_.
    void publish_held() noexcept;

    std::atomic<bool> busy_{false};
    std::atomic<std::size_t> held_{0};
    std::size_t limit_;
    std::vector<ScratchArena> arenas_;
};

}  // namespace batchbloom::detail
