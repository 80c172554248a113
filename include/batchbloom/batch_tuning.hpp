#pragma once
// Tuning of the blocked filter's bulk calls: which batch path they take and the scratch memory the partitioned path keeps between calls. None of it
// changes a result: every path gives the same bits and answers. Filter derives from
// BatchTuning (filter.hpp), so these are Filter's members.
#include <cstddef>
#include <cstdint>
#include <memory>

namespace batchbloom {

namespace detail {
class BatchScratch;  // src/batch/scratch.hpp
}

/// How bulk operations walk a filter (results are the same on every path).
enum class BatchPath : std::uint8_t {
    automatic,    ///< a rule over this machine's caches and the call, the same in every
                  ///< process: partitioned only for inserts of a million keys or more, on
                  ///< several threads into a filter whose private copies the last-level cache
                  ///< cannot hold, on one thread into a filter over four times that cache; direct
                  ///< otherwise (docs/design.md, "Two batch paths").
                  ///< BATCHBLOOM_BATCH_PATH=direct|partitioned overrides it (environment.hpp).
    direct,       ///< keys in the caller's order, blocks prefetched far ahead
    partitioned,  ///< keys grouped by filter region, each region processed while cache-resident
};

/// The batch path setting and the partitioned path's scratch memory of a filter. A setting of
/// the object, like BulkSettings: never saved or compared. A copy has the same path and
/// scratch limit and scratch of its own (none held yet); a move takes the scratch along.
class BatchTuning {
public:
    /// Bulk-operation path; `automatic` by default. The results never depend on it.
    void set_batch_path(BatchPath path) noexcept { path_ = path; }
    BatchPath batch_path() const noexcept { return path_; }

    /// Memory the partitioned path may keep between calls (its buckets, about 12 bytes per key
    /// of a round, and private filter copies for small multi-threaded inserts), all threads
    /// together. The default is the filter's own size (but no more than an eighth of the
    /// machine's memory), and at least 256 MiB: a round then brings several keys to each filter
    /// line, which is what lets the partitioned path win. Only what a call's rounds use is
    /// allocated, by the first call that needs it; later calls reuse it (so they neither
    /// allocate nor fault in pages), and release_scratch() or the filter's destruction gives it
    /// back. Batches larger than fits run in several rounds;
    /// a limit too small for a useful round (or 0) means the direct path.
    void set_scratch_limit(std::size_t bytes);
    std::size_t scratch_limit() const noexcept;
    /// Bytes of scratch held, as of the end of the last bulk call that used it; like the probes,
    /// it may be asked while other threads probe the filter.
    std::size_t scratch_bytes() const noexcept;
    /// Gives the scratch memory back (the next partitioned call allocates it again).
    void release_scratch() noexcept;
    /// From now on this filter's bulk calls work in `other`'s scratch, under its limit (the
    /// filter's own is given back; a filter moved from shares nothing). Filters asked one after
    /// another, such as a scalable filter's stages, then hold one scratch between them rather
    /// than one each. One bulk call at a time uses a scratch: a call that finds it in use takes
    /// the direct path. Not while bulk calls run on this filter. A copy has scratch of its own.
    void share_scratch_with(const BatchTuning& other) noexcept;

protected:
    /// Scratch capped at the default for a filter of `filter_bytes`.
    explicit BatchTuning(std::uint64_t filter_bytes);
    BatchTuning(const BatchTuning& other);
    BatchTuning(BatchTuning&& other) noexcept;
    BatchTuning& operator=(const BatchTuning&) = delete;
    BatchTuning& operator=(BatchTuning&&) = delete;
    ~BatchTuning();

    /// What the bulk calls work in; null only when moved from.
    detail::BatchScratch* scratch() const noexcept { return scratch_.get(); }

private:
    BatchPath path_ = BatchPath::automatic;
    std::shared_ptr<detail::BatchScratch> scratch_;  // shared: share_scratch_with
};

}  // namespace batchbloom
