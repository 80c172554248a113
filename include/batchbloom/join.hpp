#pragma once
// The Bloom join: a semi-join pre-filter for hash joins.
//
// A query engine builds a JoinFilter over the join keys of the (small) build side, then runs
// the (large) probe side's key column through it before the hash join; only the rows that
// survive — the probe rows that may have a match — go on to probe the hash table. Every probe
// row whose key is among the build keys survives (no false negatives); a row whose key is not
// survives with about the filter's false-positive rate, so the join result is the same with
// and without the filter.
//
// Results come in the forms engines consume:
//   - a selection vector: the row indices that may match, ascending (select_chunk for one
//     chunk of a column with 32-bit chunk-local indices, select for a whole column);
//   - a packed bitmap, bit i = row i may match (bitmap);
//   - the number of rows that may match (count).
//
// Nulls are the caller's concern: the filter knows no null, so a null key must not be passed
// (SQL's `a = b` never matches a null, so leave null build rows out of the build and drop null
// probe rows, or pass them and discard their indices afterwards).
//
// Keys: 64- or 32-bit integers (a 32-bit key equals the same value as a 64-bit key) or byte
// strings (string_view or std::string, the same key either way); build and probe sides must
// use the same kind, as in the join's equality.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "backend.hpp"
#include "filter.hpp"
#include "hash.hpp"
#include "params.hpp"

namespace batchbloom {

struct JoinFilterOptions {
    /// Target false-positive rate of the filter, used when bits_per_key is 0.
    double fpr = 0.01;
    /// > 0: size the filter with this many bits per build key instead of a target FPR.
    double bits_per_key = 0;
    /// Build keys to size for; 0 (the default) counts the distinct build keys exactly (a sort of
    /// their hashes). Pass the build column's length to skip the count when keys are unique.
    std::uint64_t expected_keys = 0;
    Shape shape = Shape::word512;
    Hashing hashing = {};
    /// Engine for the build and the probes. Backend::cuda (builds with CUDA; throws Error where
    /// there is no GPU) builds on the best CPU engine, keeps a copy of the filter on the GPU and
    /// probes whole columns (select, bitmap, count) there in one call; select_chunk stays on
    /// the CPU, as a chunk is too small to pay for the transfers.
    Backend backend = Backend::automatic;
    /// Threads for the build and the whole-column probes; 0 = every core; at most max_threads
    /// (bulk_settings.hpp).
    unsigned threads = 0;
    /// Rows per chunk of a whole-column probe (rounded up to a multiple of 64); any value from
    /// the column's length up, SIZE_MAX included, means one chunk.
    std::size_t chunk_rows = std::size_t(1) << 16;
};

class JoinFilter {
public:
    /// Builds the filter over the build side's keys. Throws Error for invalid options (FPR
    /// outside (0, 1), negative bits per key, chunk_rows 0, threads above max_threads, an unavailable
    /// backend). An empty
    /// build side gives a filter that rejects every probe row.
    explicit JoinFilter(std::span<const std::uint64_t> build_keys, const JoinFilterOptions& options = {});
    explicit JoinFilter(std::span<const std::uint32_t> build_keys, const JoinFilterOptions& options = {});
    explicit JoinFilter(std::span<const std::string_view> build_keys, const JoinFilterOptions& options = {});
    explicit JoinFilter(std::span<const std::string> build_keys, const JoinFilterOptions& options = {});
    /// A join filter over a filter built elsewhere (loaded, received from another process, or
    /// merged from partitions) that holds the build keys; `sized_for` is the number of build
    /// keys it was sized for (predicted_fpr). The options' sizing fields are ignored; their shape
    /// and hashing become the filter's.
    JoinFilter(Filter filter, std::uint64_t sized_for, const JoinFilterOptions& options = {});

    /// A moved-from join filter holds a moved-from Filter (filter.hpp, "After a move"): it
    /// rejects every probe row, and predicted_fpr() is 0.
    JoinFilter(JoinFilter&&) noexcept;
    JoinFilter& operator=(JoinFilter&&) noexcept;
    ~JoinFilter();

    /// The filter (params, hashing, bits); it can be saved and probed like any other. It is set
    /// to one thread: the join filter spreads its own threads over chunks.
    const Filter& filter() const noexcept { return filter_; }
    /// The kind of the build keys (key_kinds.hpp): integers or byte strings; none if empty.
    KeyKinds key_kinds() const noexcept { return filter_.key_kinds(); }
    /// The number of build keys the filter was sized for (distinct keys unless given).
    std::uint64_t sized_for() const noexcept { return sized_for_; }
    /// The FPR the sizing model predicts for a probe key that is not among the build keys.
    double predicted_fpr() const;
    const JoinFilterOptions& options() const noexcept { return options_; }

    /// One chunk of a probe column, on the calling thread (engines call this from their own
    /// workers): writes the chunk-local indices of the rows that may match, ascending, to the
    /// front of `sel` and returns how many. sel.size() must be >= keys.size(), and a chunk
    /// must have fewer than 2^32 rows (throws Error otherwise).
    std::size_t select_chunk(std::span<const std::uint64_t> keys, std::span<std::uint32_t> sel) const;
    std::size_t select_chunk(std::span<const std::uint32_t> keys, std::span<std::uint32_t> sel) const;
    std::size_t select_chunk(std::span<const std::string_view> keys, std::span<std::uint32_t> sel) const;
    std::size_t select_chunk(std::span<const std::string> keys, std::span<std::uint32_t> sel) const;

    /// A whole probe column, in chunks of options().chunk_rows on options().threads threads:
    /// the 0-based indices of the rows that may match, ascending.
    std::vector<std::uint64_t> select(std::span<const std::uint64_t> keys) const;
    std::vector<std::uint64_t> select(std::span<const std::uint32_t> keys) const;
    std::vector<std::uint64_t> select(std::span<const std::string_view> keys) const;
    std::vector<std::uint64_t> select(std::span<const std::string> keys) const;

    /// Packed bitmap of a whole column: bit i (word i/64, bit i%64) = row i may match; bits past
    /// keys.size() in the last word are zero. bitmap.size() must be >= ceil(n/64).
    void bitmap(std::span<const std::uint64_t> keys, std::span<std::uint64_t> bitmap) const;
    void bitmap(std::span<const std::uint32_t> keys, std::span<std::uint64_t> bitmap) const;
    void bitmap(std::span<const std::string_view> keys, std::span<std::uint64_t> bitmap) const;
    void bitmap(std::span<const std::string> keys, std::span<std::uint64_t> bitmap) const;

    /// Number of rows of a whole column that may match.
    std::size_t count(std::span<const std::uint64_t> keys) const;
    std::size_t count(std::span<const std::uint32_t> keys) const;
    std::size_t count(std::span<const std::string_view> keys) const;
    std::size_t count(std::span<const std::string> keys) const;

private:
    struct Device;  // the filter's copy on the GPU (Backend::cuda only)

    // distinct_hashes: the build keys' distinct hashes when they were counted to size the
    // filter (options.expected_keys == 0), which are then inserted instead of the keys.
    template <class Key>
    JoinFilter(std::span<const Key> keys, const JoinFilterOptions& o, std::vector<std::uint64_t> distinct_hashes);
    /// Sets the filter to one thread and, for Backend::cuda, copies it to the GPU.
    void prepare_probes();
    template <class Key>
    std::size_t select_chunk_keys(std::span<const Key> keys, std::span<std::uint32_t> sel) const;
    template <class Key>
    void bitmap_keys(std::span<const Key> keys, std::span<std::uint64_t> bitmap) const;
    template <class Key>
    std::vector<std::uint64_t> select_keys(std::span<const Key> keys) const;
    template <class Key>
    std::size_t count_keys(std::span<const Key> keys) const;

    JoinFilterOptions options_;
    std::uint64_t sized_for_ = 0;
    Filter filter_;
    std::unique_ptr<Device> device_;
};

/// Appends base + i for every set bit i of the first n bits of `bitmap`, ascending: the
/// selection vector of a packed bitmap.
void bitmap_to_selection(std::span<const std::uint64_t> bitmap, std::size_t n, std::uint64_t base,
                         std::vector<std::uint64_t>& out);

}  // namespace batchbloom
