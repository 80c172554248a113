// AlignedBuffer: alignment by size, zeroing, moves, the empty state, allocation failure.
#include <batchbloom/aligned_buffer.hpp>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <new>
#include <utility>

namespace {

using batchbloom::AlignedBuffer;
using Init = AlignedBuffer::Init;

bool aligned_to(const void* p, std::size_t a) { return reinterpret_cast<std::uintptr_t>(p) % a == 0; }

TEST(AlignedBuffer, EmptyByDefaultAndForZeroBytes) {
    AlignedBuffer buffers[] = {AlignedBuffer(), AlignedBuffer(0, Init::zeroed)};
    for (const AlignedBuffer& b : buffers) {
        EXPECT_TRUE(b.empty());
        EXPECT_EQ(b.data(), nullptr);
        EXPECT_EQ(b.size(), 0u);
        EXPECT_EQ(b.alignment(), 0u);
        EXPECT_TRUE(b.clone().empty());
    }
}

TEST(AlignedBuffer, SmallBuffersAreLineAlignedLargeOnesHugePageAligned) {
    for (std::size_t n : {std::size_t(1), std::size_t(63), std::size_t(4096), AlignedBuffer::huge_page_threshold - 1}) {
        AlignedBuffer b(n, Init::uninitialized);
        EXPECT_EQ(b.size(), n);
        EXPECT_EQ(b.alignment(), AlignedBuffer::line_alignment);
        EXPECT_TRUE(aligned_to(b.data(), 64));
    }
    AlignedBuffer big(AlignedBuffer::huge_page_threshold, Init::uninitialized);
    EXPECT_EQ(big.alignment(), AlignedBuffer::huge_page);
    EXPECT_TRUE(aligned_to(big.data(), AlignedBuffer::huge_page));
}

TEST(AlignedBuffer, ZeroedMeansZero) {
    for (std::size_t n : {std::size_t(100), AlignedBuffer::huge_page_threshold + 100}) {
        AlignedBuffer b(n, Init::zeroed);
        for (std::size_t i = 0; i < n; i += 97) ASSERT_EQ(b.data()[i], std::byte{0}) << i;
        EXPECT_EQ(b.data()[n - 1], std::byte{0});
    }
}

TEST(AlignedBuffer, MovesLeaveTheSourceEmpty) {
    AlignedBuffer a(256, Init::zeroed);
    a.data()[7] = std::byte{42};
    const std::byte* p = a.data();
    AlignedBuffer b(std::move(a));
    EXPECT_TRUE(a.empty());  // NOLINT(bugprone-use-after-move): the documented empty state
    EXPECT_EQ(a.data(), nullptr);
    EXPECT_EQ(b.data(), p);
    AlignedBuffer c(64, Init::zeroed);
    c = std::move(b);
    EXPECT_TRUE(b.empty());  // NOLINT(bugprone-use-after-move)
    EXPECT_EQ(c.data(), p);
    EXPECT_EQ(c.data()[7], std::byte{42});
    auto& alias = c;
    c = std::move(alias);  // self-move keeps the contents
    EXPECT_EQ(c.data(), p);
    EXPECT_EQ(c.size(), 256u);
}

TEST(AlignedBuffer, CloneCopiesTheBytes) {
    AlignedBuffer a(1000, Init::uninitialized);
    for (std::size_t i = 0; i < a.size(); ++i) a.data()[i] = std::byte(i * 7);
    const AlignedBuffer b = a.clone();
    ASSERT_EQ(b.size(), a.size());
    EXPECT_NE(b.data(), a.data());
    EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size()), 0);
    a.reset();
    EXPECT_TRUE(a.empty());
}

TEST(AlignedBuffer, ImpossibleSizesThrowBadAlloc) {
    EXPECT_THROW(AlignedBuffer(std::size_t(-1), Init::zeroed), std::bad_alloc);
    EXPECT_THROW(AlignedBuffer(std::size_t(1) << 62, Init::uninitialized), std::bad_alloc);
}

}  // namespace
