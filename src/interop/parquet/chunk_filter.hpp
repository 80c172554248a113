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

/// Collects the distinct hashes exactly, up to `exact_limit` of them (16 bytes each at most);
/// past that, inserts into a filter sized for `max_values` (the chunk's value count, an upper
/// bound) and, at the end, estimates the distinct count from its fill and folds it to the size
/// that count asks for. Folding a power-of-two split-block filter is exact, so the result is
/// the filter built directly at that size; only the count is an estimate.
class ChunkFilterBuilder final : public HashSink {
public:
    static constexpr std::size_t default_exact_limit = std::size_t(1) << 24;

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
    void grow();
    void spill();

    std::uint64_t max_values_;
    double fpp_;
    std::optional<std::uint64_t> ndv_;
    std::size_t exact_limit_;
    // The exact set: open addressing on the hash itself (already uniform); 0 marks an empty
    // slot, so a hash of 0 is kept aside.
    std::vector<std::uint64_t> slots_;
    std::size_t size_ = 0;
    bool zero_ = false;
    // Past the limit: the wide filter, fed in batches.
    std::optional<SplitBlockFilter> wide_;
    std::vector<std::uint64_t> pending_;
};

}  // namespace batchbloom::parquet
