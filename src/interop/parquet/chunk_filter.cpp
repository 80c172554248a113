#include "interop/parquet/chunk_filter.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>

namespace batchbloom::parquet {

namespace {

constexpr std::size_t batch = 4096;
// Hashes collected before the first deduplication; after one, twice what survived it.
constexpr std::size_t first_compaction = std::size_t(1) << 20;
// Deduplication partitions hashes by their top bits, so that each part's table stays in cache
// (a table over a whole chunk's values, tens of MB, missed the cache on nearly every insert).
constexpr unsigned partition_bits = 8;

// Sorts nothing: moves v's distinct values to its front (in partition order) and returns how
// many there are. `scratch` is reused between calls.
std::size_t dedupe(std::vector<std::uint64_t>& v, std::vector<std::uint64_t>& scratch,
                   std::vector<std::uint64_t>& table) {
    constexpr std::size_t parts = std::size_t(1) << partition_bits;
    std::array<std::size_t, parts + 1> start{};
    for (const std::uint64_t h : v) ++start[(h >> (64 - partition_bits)) + 1];
    for (std::size_t p = 0; p < parts; ++p) start[p + 1] += start[p];
    scratch.resize(v.size());
    auto fill = start;
    for (const std::uint64_t h : v) scratch[fill[h >> (64 - partition_bits)]++] = h;
    std::size_t out = 0;
    bool zero = false;  // 0 marks an empty table slot, so it is kept aside
    for (std::size_t p = 0; p < parts; ++p) {
        const std::size_t n = start[p + 1] - start[p];
        if (n == 0) continue;
        table.assign(std::bit_ceil(2 * n), 0);
        const std::size_t mask = table.size() - 1;
        for (std::size_t i = start[p]; i < start[p + 1]; ++i) {
            const std::uint64_t h = scratch[i];
            if (h == 0) {
                zero = true;
                continue;
            }
            // The partition took the top bits; the low bits pick the slot.
            for (std::size_t s = static_cast<std::size_t>(h) & mask;; s = (s + 1) & mask) {
                if (table[s] == h) break;
                if (table[s] == 0) {
                    table[s] = h;
                    v[out++] = h;
                    break;
                }
            }
        }
    }
    if (zero) v[out++] = 0;
    v.resize(out);
    return out;
}

}  // namespace

ChunkFilterBuilder::ChunkFilterBuilder(std::uint64_t max_values, double fpp, std::optional<std::uint64_t> ndv,
                                       std::size_t exact_limit)
    : max_values_(max_values), fpp_(fpp), ndv_(ndv), exact_limit_(exact_limit), compact_at_(first_compaction) {}

void ChunkFilterBuilder::add(std::uint64_t hash) {
    if (wide_) {
        hashes_.push_back(hash);
        if (hashes_.size() == batch) {
            wide_->insert_hashes(hashes_);
            hashes_.clear();
        }
        return;
    }
    hashes_.push_back(hash);
    if (hashes_.size() >= compact_at_) compact();
}

void ChunkFilterBuilder::compact() {
    const std::size_t distinct = dedupe(hashes_, scratch_, table_);
    if (distinct >= exact_limit_) {
        // Too many to keep: from here on, a filter sized for every value takes them.
        wide_.emplace(optimal_bytes(std::max(max_values_, ndv_.value_or(0)), fpp_));
        wide_->insert_hashes(hashes_);
        hashes_ = {};
        scratch_ = {};
        table_ = {};
        return;
    }
    compact_at_ = std::max(first_compaction, 2 * distinct);
}

ChunkFilterBuilder::Result ChunkFilterBuilder::finish() {
    if (!wide_) compact();
    if (!wide_) {
        const std::uint64_t distinct = hashes_.size();
        SplitBlockFilter filter(optimal_bytes(ndv_.value_or(distinct), fpp_));
        filter.insert_hashes(hashes_);
        return {std::move(filter), static_cast<std::int64_t>(distinct), true};
    }
    wide_->insert_hashes(hashes_);
    hashes_.clear();
    // At least the exact count reached, at most the values there were (a saturated filter
    // estimates infinity).
    const double most = double(std::max<std::uint64_t>(max_values_, exact_limit_));
    const double estimate = wide_->filter().estimated_cardinality();
    const auto distinct = static_cast<std::uint64_t>(
        std::isnan(estimate) ? most : std::clamp(std::round(estimate), double(exact_limit_), most));
    const std::uint32_t bytes = optimal_bytes(ndv_.value_or(distinct), fpp_);
    return {wide_->fold(std::min(bytes, wide_->bytes())), static_cast<std::int64_t>(distinct), false};
}

}  // namespace batchbloom::parquet
