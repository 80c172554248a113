#pragma once
// Building one column chunk's filter from the hashes of its values, sized for their distinct
// count, which is only known once every value has been seen.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "batchbloom/parquet.hpp"
#include "interop/parquet/column_values.hpp"

namespace batchbloom::parquet {

/// Collects the hashes and counts the distinct ones exactly, up to `exact_limit` of them
/// (deduplicating whenever the collection has doubled: memory about 16 bytes per distinct
/// value); past that, inserts into a filter sized for `max_values` (the chunk's value count,
/// an upper bound) and, at the end, estimates the distinct count from its fill and folds it to
/// the size that count asks for. Folding a power-of-two split-block filter is exact, so the
/// result is the filter built directly at that size; only the count is an estimate.
class ChunkFilterBuilder final : public HashSink {
public:
    static constexpr std::size_t default_exact_limit = std::size_t(1) << 24;

    /// fpp and ndv as AddOptions::validate() allows them; an fpp outside (0, 1) throws Error
    /// where a filter is sized (optimal_bytes).
    ChunkFilterBuilder(std::uint64_t max_values, double fpp, std::optional<std::uint64_t> ndv,
                       std::size_t exact_limit = default_exact_limit);

    void add(std::uint64_t hash) override;

    struct Result {
        SplitBlockFilter filter;
        std::int64_t distinct = 0;
        bool exact = true;  ///< distinct was counted, not estimated
    };
    Result finish();

private:
    void compact();

    std::uint64_t max_values_;
    double fpp_;
    std::optional<std::uint64_t> ndv_;
    std::size_t exact_limit_;
    std::size_t compact_at_;
    std::vector<std::uint64_t> hashes_;  // distinct up to the last compaction, then as they came
    std::vector<std::uint64_t> scratch_, table_;
    std::optional<SplitBlockFilter> wide_;  // past the limit; hashes_ then holds a batch for it
};

}  // namespace batchbloom::parquet
