// Set algebra on filters: union, intersection, folding, and the similarity estimate.
#include <gtest/gtest.h>

#include <batchbloom/filter.hpp>
#include <string>
#include <utility>
#include <vector>

#include "support.hpp"

namespace bb = batchbloom;
using bb::Filter;
using bb::Params;
using bb::Shape;

namespace {

class AlgebraTest : public ::testing::TestWithParam<Shape> {};

/// Two filters of params p: `own` keys of their own each (seeds `seed` and seed + 1) and the
/// `shared` keys in both.
std::pair<Filter, Filter> sharing(const Params& p, const std::vector<std::uint64_t>& shared, std::size_t own,
                                  std::uint64_t seed) {
    Filter a(p), b(p);
    a.insert(bb::testing::random_keys(own, seed, 0));
    b.insert(bb::testing::random_keys(own, seed + 1, 0));
    a.insert(shared);
    b.insert(shared);
    return {std::move(a), std::move(b)};
}

}  // namespace

INSTANTIATE_TEST_SUITE_P(Shapes, AlgebraTest, ::testing::ValuesIn(bb::testing::all_shapes), bb::testing::shape_name);

TEST_P(AlgebraTest, UnionEqualsTheFilterOfBothKeySets) {
    const Params p = Params::make(GetParam(), 2001, 7);
    const auto a_keys = bb::testing::random_keys(20000, 1, 0), b_keys = bb::testing::random_keys(15000, 2, 0);
    Filter a(p), b(p), both(p);
    a.insert(a_keys);
    b.insert(b_keys);
    both.insert(a_keys);
    both.insert(b_keys);
    EXPECT_EQ(a | b, both);
    a |= b;
    EXPECT_EQ(a, both);
}

TEST_P(AlgebraTest, IntersectionKeepsCommonKeysAndOverApproximates) {
    const Params p = Params::make(GetParam(), 300, 7);  // dense: ~6 bits per key in each filter
    const auto common = bb::testing::random_keys(5000, 3, 0);
    const auto [a, b] = sharing(p, common, 20000, 4);
    Filter only_common(p);
    only_common.insert(common);
    const Filter meet = a & b;
    EXPECT_EQ(meet.count(common), common.size());  // no false negatives for keys in both
    // Bits set by different keys of the two sets survive: more bits and a higher FPR than the
    // filter built from the intersection itself.
    EXPECT_GT(meet.fill_ratio(), only_common.fill_ratio());
    EXPECT_GT(meet.current_fpr(), only_common.current_fpr());
    const auto absent = bb::testing::random_keys(200000, 6, 1);
    EXPECT_GT(meet.count(absent), only_common.count(absent));
}

TEST_P(AlgebraTest, FoldEqualsTheFilterBuiltAtHalfSize) {
    // With block = ((hash >> 32) * blocks) >> 32, halving the block count maps block b to b / 2,
    // so ORing blocks 2i and 2i + 1 gives exactly the half-size filter of the same keys.
    for (std::uint64_t blocks : {2ULL, 10ULL, 4096ULL, 100002ULL}) {
        const auto keys = bb::testing::random_keys(blocks * 5, blocks, 0);
        Filter full(Params::make(GetParam(), blocks, 8), {bb::HashKind::xxh3, 77});
        Filter half(Params::make(GetParam(), blocks / 2, 8), {bb::HashKind::xxh3, 77});
        full.insert(keys);
        half.insert(keys);
        EXPECT_EQ(full.fold(), half) << blocks << " blocks";
        EXPECT_EQ(full.fold().count(keys), keys.size());
    }
}

TEST_P(AlgebraTest, IncompatibleFiltersAreAClearError) {
    const Params p = Params::make(GetParam(), 100, 6);
    Filter a(p);
    for (const Filter& other : {Filter(Params::make(GetParam(), 101, 6)), Filter(Params::make(GetParam(), 100, 5)),
                                Filter(p, {bb::HashKind::xxh3, 1}), Filter(p, {bb::HashKind::murmur3, 0})}) {
        EXPECT_FALSE(a.compatible(other));
        EXPECT_THROW(a |= other, bb::Error);
        EXPECT_THROW(a &= other, bb::Error);
        EXPECT_THROW((void)bb::estimated_jaccard(a, other), bb::Error);
    }
    const Shape other_shape = GetParam() == Shape::split256 ? Shape::word512 : Shape::split256;
    EXPECT_THROW(a |= Filter(Params::make(other_shape, 100, 6)), bb::Error);
    try {
        a |= Filter(Params::make(GetParam(), 101, 6));
    } catch (const bb::Error& e) {
        EXPECT_NE(std::string(e.what()).find("incompatible"), std::string::npos) << e.what();
    }
    EXPECT_THROW((void)Filter(Params::make(GetParam(), 7, 6)).fold(), bb::Error);
}

TEST(Algebra, JaccardEstimate) {
    const Params p = Params::for_fpr(200000, 0.001);
    const auto [a, b] = sharing(p, bb::testing::random_keys(50000, 7, 0), 50000, 8);
    const Filter empty(p);
    // |A ∩ B| = 50000, |A ∪ B| = 150000.
    EXPECT_NEAR(bb::estimated_jaccard(a, b), 1.0 / 3.0, 0.02);
    EXPECT_NEAR(bb::estimated_jaccard(a, a), 1.0, 0.01);
    EXPECT_NEAR(bb::estimated_jaccard(a, empty), 0.0, 0.01);
    EXPECT_EQ(bb::estimated_jaccard(empty, empty), 1.0);  // J of two empty sets, by definition
}
