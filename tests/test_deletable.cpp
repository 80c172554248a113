// Deletable Bloom filter: erase outcomes, no false negatives for the keys that stay,
// deletability against the model, and the file format.
#include <gtest/gtest.h>

#include <algorithm>
#include <batchbloom/deletable.hpp>
#include <batchbloom/file_kind.hpp>
#include <cmath>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "support.hpp"

namespace bb = batchbloom;
using bb::DeletableFilter;
using bb::EraseResult;
using bb::Params;
using bb::Shape;

namespace {

class DeletableTest : public ::testing::TestWithParam<Shape> {};

}  // namespace

INSTANTIATE_TEST_SUITE_P(Shapes, DeletableTest, ::testing::ValuesIn(bb::testing::all_shapes), bb::testing::shape_name);

TEST_P(DeletableTest, BitsAreTheBlockedFilterAndEraseKeepsTheRest) {
    const Params p = Params::for_fpr(10000, 0.01, GetParam());
    const auto kept = bb::testing::random_keys(10000, 1, 0), gone = bb::testing::random_keys(4000, 2, 0);
    DeletableFilter d(p);
    d.insert(kept);
    d.insert(gone);
    bb::Filter blocked(p);
    blocked.insert(kept);
    blocked.insert(gone);
    EXPECT_EQ(d.filter(), blocked);

    std::vector<EraseResult> results(gone.size());
    const std::size_t erased = d.erase(gone, results);
    EXPECT_EQ(erased, std::size_t(std::count(results.begin(), results.end(), EraseResult::erased)));
    EXPECT_EQ(std::count(results.begin(), results.end(), EraseResult::absent), 0);
    // Crowded (14000 keys in a filter sized for 10000): about a fifth of the keys deletable.
    EXPECT_GT(erased, 0u);
    EXPECT_NEAR(double(erased) / double(gone.size()), bb::predicted_deletability(p, d.region_bits(), 14000), 0.06);
    EXPECT_EQ(d.count(kept), kept.size());  // no false negatives for keys still present
    for (std::size_t i = 0; i < gone.size(); ++i) {
        // An erased key lost at least one bit, so it tests negative; the others still test positive.
        EXPECT_EQ(d.contains(gone[i]), results[i] != EraseResult::erased) << i;
    }
}

TEST_P(DeletableTest, AbsentKeysAndRepeatedKeys) {
    const Params p = Params::make(GetParam(), 200, 8);
    DeletableFilter d(p);
    d.insert(bb::testing::random_keys(1000, 3, 0));
    const auto before = d;
    std::size_t absent_seen = 0;
    for (auto key : bb::testing::random_keys(2000, 4, 1)) {
        if (d.contains(key)) continue;
        EXPECT_EQ(d.erase(key), EraseResult::absent);
        ++absent_seen;
    }
    EXPECT_GT(absent_seen, 1000u);
    EXPECT_EQ(d, before);

    // A key inserted twice collides with itself in every region: never deletable.
    DeletableFilter twice(p);
    twice.insert(std::uint64_t{77});
    twice.insert(std::uint64_t{77});
    EXPECT_EQ(twice.erase(std::uint64_t{77}), EraseResult::not_deletable);
    EXPECT_TRUE(twice.contains(std::uint64_t{77}));
    // Alone in an empty filter, a key is erased and the filter is empty again.
    DeletableFilter once(p);
    once.insert(std::string_view("solo"));
    EXPECT_EQ(once.erase(std::string_view("solo")), EraseResult::erased);
    EXPECT_EQ(once.filter().fill_ratio(), 0.0);
    EXPECT_EQ(once.erase(std::string_view("solo")), EraseResult::absent);
}

// clear() takes the collision bits with the keys: afterwards the filter is a new one, and keys
// inserted into it are as deletable as in a new filter.
TEST_P(DeletableTest, ClearEmptiesBitsAndCollisions) {
    const Params p = Params::for_fpr(2000, 0.01, GetParam());
    const bb::Hashing hashing{bb::HashKind::murmur3, 5};
    const auto keys = bb::testing::random_keys(4000, 6, 0);  // twice the keys it is sized for
    DeletableFilter d(p, 4, hashing);
    d.insert(keys);
    ASSERT_GT(d.collided_regions(), 0u);
    d.clear();
    const DeletableFilter fresh(p, 4, hashing);
    EXPECT_EQ(d, fresh);
    EXPECT_EQ(d.collided_regions(), 0u);
    EXPECT_EQ(d.filter().fill_ratio(), 0.0);
    EXPECT_EQ(d.count(keys), 0u);
    EXPECT_EQ(d.key_kinds(), bb::KeyKinds::only_integers());  // kept, as Filter::clear keeps them

    DeletableFilter again = fresh;
    const auto some = std::span(keys).first(1000);
    d.insert(some);
    again.insert(some);
    EXPECT_EQ(d, again);
    std::vector<EraseResult> after_clear(some.size()), in_fresh(some.size());
    EXPECT_EQ(d.erase(some, after_clear), again.erase(some, in_fresh));
    EXPECT_EQ(after_clear, in_fresh);
    EXPECT_EQ(d, again);
}

TEST(DeletableModel, MeasuredDeletabilityMatchesTheModel) {
    // Every key inserted is erased; whether a key is deletable depends only on the collision
    // bitmap, which erasing does not change, so the erased fraction is the deletability right
    // after the inserts. Tolerance: 5 binomial sigmas over the n keys plus 1.5% for the
    // model's independence assumptions (largest gap seen for the one-bit-per-word shapes over
    // region sizes 4-32 and 5-20 bits/key: 1.2%); line512, whose k bits can share a region
    // (which the model ignores), gets 6%.
    const std::size_t n = 20000;
    const auto keys = bb::testing::random_keys(n, 5, 0);
    for (Shape shape : {Shape::split256, Shape::word512, Shape::line512}) {
        for (unsigned region_bits : {4u, 8u, 16u}) {
            for (double bits_per_key : {10.0, 20.0}) {
                Params p = Params::for_bits_per_key(n, bits_per_key, shape);
                if (shape != Shape::line512) p = Params::make(shape, p.blocks, 8);
                DeletableFilter d(p, region_bits);
                d.insert(keys);
                const double measured = double(d.erase(keys)) / double(n);
                const double model = bb::predicted_deletability(p, region_bits, n);
                const double sigma = std::sqrt(model * (1 - model) / double(n));
                const double slack = shape == Shape::line512 ? 0.06 : 0.015;
                EXPECT_NEAR(measured, model, 5 * sigma + slack)
                    << bb::to_string(shape) << " region " << region_bits << " bits/key " << bits_per_key;
            }
        }
    }
}

TEST(DeletableApi, BadArgumentsThrow) {
    const Params p = Params::make(Shape::split256, 10, 8);
    EXPECT_THROW(DeletableFilter(p, 0), bb::Error);
    EXPECT_THROW(DeletableFilter(p, 12), bb::Error);
    EXPECT_THROW(DeletableFilter(p, 512), bb::Error);  // larger than a 256-bit block
    EXPECT_NO_THROW(DeletableFilter(p, 256));
    EXPECT_THROW(bb::predicted_deletability(p, 8, 0), bb::Error);
    DeletableFilter d(p);
    std::vector<std::uint64_t> keys(3);
    std::vector<EraseResult> results(2);
    EXPECT_THROW(d.erase(keys, results), bb::Error);
}

