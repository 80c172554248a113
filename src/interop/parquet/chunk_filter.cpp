#include "interop/parquet/chunk_filter.hpp"

#include <algorithm>
#include <cmath>

namespace batchbloom::parquet {

namespace {

constexpr std::size_t batch = 4096;

}  // namespace

ChunkFilterBuilder::ChunkFilterBuilder(std::uint64_t max_values, double fpp, std::optional<std::uint64_t> ndv,
                                       std::size_t exact_limit)
    : max_values_(max_values), fpp_(fpp), ndv_(ndv), exact_limit_(exact_limit) {
    (void)optimal_bytes(1, fpp);  // rejects an fpp outside (0, 1)
}

void ChunkFilterBuilder::add(std::uint64_t hash) {
    if (wide_) {
        pending_.push_back(hash);
        if (pending_.size() == batch) {
            wide_->insert_hashes(pending_);
            pending_.clear();
        }
        return;
    }
    if (hash == 0) {
        zero_ = true;
        return;
    }
    if (2 * (size_ + 1) > slots_.size()) grow();
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = static_cast<std::size_t>(hash) & mask;; i = (i + 1) & mask) {
        if (slots_[i] == hash) return;
        if (slots_[i] == 0) {
            slots_[i] = hash;
            if (++size_ >= exact_limit_) spill();
            return;
        }
    }
}

void ChunkFilterBuilder::grow() {
    std::vector<std::uint64_t> old(std::max<std::size_t>(1024, 2 * slots_.size()));
    old.swap(slots_);
    const std::size_t mask = slots_.size() - 1;
    for (const std::uint64_t h : old) {
        if (h == 0) continue;
        std::size_t i = static_cast<std::size_t>(h) & mask;
        while (slots_[i] != 0) i = (i + 1) & mask;
        slots_[i] = h;
    }
}

void ChunkFilterBuilder::spill() {
    wide_.emplace(optimal_bytes(std::max(max_values_, ndv_.value_or(0)), fpp_));
    for (const std::uint64_t h : slots_)
        if (h != 0) add(h);
    if (zero_) add(0);
    slots_ = {};
    size_ = 0;
}

ChunkFilterBuilder::Result ChunkFilterBuilder::finish() {
    if (!wide_) {
        const std::uint64_t distinct = size_ + (zero_ ? 1 : 0);
        SplitBlockFilter filter(optimal_bytes(ndv_.value_or(distinct), fpp_));
        for (const std::uint64_t h : slots_) {
            if (h == 0) continue;
            pending_.push_back(h);
            if (pending_.size() == batch) filter.insert_hashes(pending_), pending_.clear();
        }
        if (zero_) pending_.push_back(0);
        filter.insert_hashes(pending_);
        pending_.clear();
        return {std::move(filter), static_cast<std::int64_t>(distinct), true};
    }
    wide_->insert_hashes(pending_);
    pending_.clear();
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
