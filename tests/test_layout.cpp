#include <gtest/gtest.h>

#include <batchbloom/layout.hpp>
#include <bit>
#include <cmath>

#include "support.hpp"

namespace bb = batchbloom;
namespace layout = batchbloom::layout;
using bb::Shape;
__extension__ typedef unsigned __int128 u128;  // reference arithmetic, wider than the layout's

// The per-key functions are usable in constant expressions (and so in device code).
static_assert(layout::block_index(0, 7) == 0);
static_assert(layout::block_index(~0ULL, layout::max_blocks) == layout::max_blocks - 1);
static_assert(layout::make_pattern<Shape::split256>(12345u, 8).w[7] != 0);

TEST(Layout, BlockIndexIsMultiplyShiftOnHighBits) {
    bb::testing::KeyGen g(1);
    for (std::uint64_t blocks : {1ULL, 2ULL, 3ULL, 1000ULL, 999983ULL, (1ULL << 32) - 1}) {
        for (int i = 0; i < 10000; ++i) {
            const std::uint64_t h = g.next();
            const std::uint64_t b = layout::block_index(h, blocks);
            ASSERT_LT(b, blocks);
            // Only the high 32 bits matter.
            ASSERT_EQ(b, layout::block_index(h ^ 0xFFFFFFFFULL, blocks));
            ASSERT_EQ(b, static_cast<std::uint64_t>((static_cast<u128>(h >> 32) * blocks) >> 32));
        }
    }
}

TEST(Layout, BlockIndexIsUniformForOddBlockCounts) {
    // No power-of-two restriction: 3 blocks each get about a third of the hashes.
    bb::testing::KeyGen g(2);
    std::uint64_t hits[3] = {};
    constexpr int n = 300000;
    for (int i = 0; i < n; ++i) ++hits[layout::block_index(g.next(), 3)];
    for (auto h : hits) EXPECT_NEAR(double(h), n / 3.0, 5 * std::sqrt(n * (1 / 3.0) * (2 / 3.0)));
}

template <Shape S>
void check_one_bit_per_word() {
    using T = layout::shape_traits<S>;
    bb::testing::KeyGen g(3);
    for (unsigned k = 1; k <= layout::max_k; ++k) {
        for (int i = 0; i < 2000; ++i) {
            const auto h32 = static_cast<std::uint32_t>(g.next());
            const auto p = layout::make_pattern<S>(h32, k);
            for (unsigned j = 0; j < T::words; ++j) {
                const unsigned bits_here = k / T::words + (j < k % T::words ? 1 : 0);
                const int ones = std::popcount(p.w[j]);
                if (bits_here == 1) {
                    ASSERT_EQ(ones, 1) << "k=" << k << " word " << j;
                }
                if (bits_here == 0) {
                    ASSERT_EQ(ones, 0) << "k=" << k << " word " << j;
                }
                if (bits_here == 2) {
                    ASSERT_TRUE(ones == 1 || ones == 2) << "k=" << k << " word " << j;
                }
            }
        }
    }
}

TEST(Layout, OneBitPerWordShapes) {
    check_one_bit_per_word<Shape::split256>();
    check_one_bit_per_word<Shape::word512>();
}

TEST(Layout, Line512PlacesKBitsAnywhere) {
    bb::testing::KeyGen g(4);
    std::uint64_t word_hits[8] = {};
    for (unsigned k = 1; k <= layout::max_k; ++k) {
        for (int i = 0; i < 2000; ++i) {
            const auto p = layout::make_pattern<Shape::line512>(static_cast<std::uint32_t>(g.next()), k);
            int ones = 0;
            for (unsigned j = 0; j < 8; ++j) {
                ones += std::popcount(p.w[j]);
                word_hits[j] += p.w[j] != 0;
            }
            ASSERT_GE(ones, 1);
            ASSERT_LE(ones, int(k));
        }
    }
    for (auto h : word_hits) EXPECT_GT(h, 0u);  // every word of the line is used
}

TEST(Layout, Split256WithEightBitsIsParquetSplitBlock) {
    // The Parquet split-block Bloom filter spec: mask word i has bit (key * salt[i]) >> 27,
    // with these salts, and the block is ((hash >> 32) * blocks) >> 32.
    constexpr std::uint32_t parquet_salt[8] = {0x47b6137bU, 0x44974d91U, 0x8824ad5bU, 0xa2b7289dU,
                                               0x705495c7U, 0x2df1424bU, 0x9efc4947U, 0x5c6bfb31U};
    bb::testing::KeyGen g(5);
    for (int i = 0; i < 10000; ++i) {
        const auto h32 = static_cast<std::uint32_t>(g.next());
        const auto p = layout::make_pattern<Shape::split256>(h32, 8);
        for (unsigned j = 0; j < 8; ++j) ASSERT_EQ(p.w[j], 1u << ((h32 * parquet_salt[j]) >> 27));
    }
}

TEST(Layout, SetThenTest) {
    bb::testing::KeyGen g(6);
    std::uint64_t block[8] = {};
    const auto a = layout::make_pattern<Shape::word512>(static_cast<std::uint32_t>(g.next()), 8);
    EXPECT_FALSE(layout::test_pattern<Shape::word512>(block, a));
    layout::set_pattern<Shape::word512>(block, a);
    EXPECT_TRUE(layout::test_pattern<Shape::word512>(block, a));
}

TEST(Layout, ShapeInfo) {
    EXPECT_EQ(layout::info(Shape::split256).block_bytes, 32u);
    EXPECT_EQ(layout::info(Shape::word512).block_bytes, 64u);
    EXPECT_EQ(layout::info(Shape::line512).block_bytes, 64u);
    EXPECT_FALSE(layout::is_known(static_cast<Shape>(0)));
    EXPECT_FALSE(layout::is_known(static_cast<Shape>(4)));
}
