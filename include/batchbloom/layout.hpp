#pragma once
// The one definition of the filter layout. Every engine (scalar, AVX2, AVX-512, CUDA) maps a
// key's 64-bit hash to a block and a bit pattern through these functions and nothing else,
// which is what makes their filters byte-identical.
//
//   block   = ((hash >> 32) * blocks) >> 32          multiply-shift, any block count
//   bit i   = (uint32(hash) * salt(i)) >> (32 - log2(range)),  i < k
//
// For the one-bit-per-word shapes, bit i lands in word (i mod 8): with k = 8 every word gets
// exactly one bit (with k > 8 the first k-8 words get a second one). `split256` with k = 8 is
// bit-for-bit the Parquet split-block Bloom filter, so its first eight salts are Parquet's.
// `line512` places each of its k bits anywhere in the 512-bit line (9 bits of position),
// which costs speed but gets within a few percent of a classic filter's FPR.
#include <cstdint>
#include <type_traits>

#include "config.hpp"

namespace batchbloom {

/// Block shape of a filter. The numeric values are part of the file format.
enum class Shape : std::uint8_t {
    split256 = 1,  ///< 256-bit block, 8 x 32-bit words, bits spread one per word (Parquet SBBF)
    word512 = 2,   ///< 512-bit cache line, 8 x 64-bit words, bits spread one per word (default)
    line512 = 3,   ///< 512-bit cache line, k bits placed freely in the line ("precise")
};

namespace layout {

inline constexpr unsigned max_k = 16;
/// Block selection scales 32 bits of the hash by the block count with a 32 x 32-bit multiply
/// (one instruction in every SIMD ISA and on the GPU), so the count must fit in 32 bits.
inline constexpr std::uint64_t max_blocks = 0xFFFFFFFFULL;
inline constexpr unsigned words_per_block = 8;

/// Every shape is eight words; what differs is the word type, how many hash bits place each
/// pattern bit, and whether each bit gets a word of its own.
template <class Word, unsigned PositionBits, bool OneBitPerWord>
struct block_traits {
    using word_type = Word;
    static constexpr unsigned words = words_per_block, word_bits = 8 * sizeof(Word),
                              block_bytes = words_per_block * sizeof(Word);
    static constexpr unsigned position_bits = PositionBits;  // bits of position drawn per pattern bit
    static constexpr bool one_bit_per_word = OneBitPerWord;
};

template <Shape S>
struct shape_traits;
template <>
struct shape_traits<Shape::split256> : block_traits<std::uint32_t, 5, true> {};
template <>
struct shape_traits<Shape::word512> : block_traits<std::uint64_t, 6, true> {};
template <>
struct shape_traits<Shape::line512> : block_traits<std::uint64_t, 9, false> {};

/// Odd multipliers; the first eight are the Parquet split-block salts.
BATCHBLOOM_HD constexpr std::uint32_t salt(unsigned i) {
    switch (i) {
        case 0: return 0x47b6137bU;
        case 1: return 0x44974d91U;
        case 2: return 0x8824ad5bU;
        case 3: return 0xa2b7289dU;
        case 4: return 0x705495c7U;
        case 5: return 0x2df1424bU;
        case 6: return 0x9efc4947U;
        case 7: return 0x5c6bfb31U;
        case 8: return 0x23259b95U;
        case 9: return 0xd1024a5fU;
        case 10: return 0x11402f25U;
        case 11: return 0x19e7518dU;
        case 12: return 0x47784b99U;
        case 13: return 0xbba2aa67U;
        case 14: return 0x225ac33dU;
        default: return 0x230275d7U;
    }
}

/// Block of a hash: the high 32 bits scaled into [0, blocks) by multiply-shift.
/// Requires 1 <= blocks <= max_blocks.
BATCHBLOOM_HD constexpr std::uint64_t block_index(std::uint64_t hash, std::uint64_t blocks) {
    return ((hash >> 32) * blocks) >> 32;
}

/// Position of pattern bit i: the top `position_bits` bits of low32(hash) * salt(i).
template <Shape S>
BATCHBLOOM_HD constexpr unsigned bit_position(std::uint32_t h32, unsigned i) {
    return static_cast<unsigned>((h32 * salt(i)) >> (32 - shape_traits<S>::position_bits));
}

/// The k-bit pattern of one key inside its block, as one mask per word.
template <Shape S>
struct pattern {
    typename shape_traits<S>::word_type w[shape_traits<S>::words];
};

template <Shape S>
BATCHBLOOM_HD constexpr pattern<S> make_pattern(std::uint32_t h32, unsigned k) {
    using T = shape_traits<S>;
    using word = typename T::word_type;
    pattern<S> p{};
    for (unsigned i = 0; i < max_k; ++i) {
        if (i >= k) break;
        const unsigned pos = bit_position<S>(h32, i);
        if constexpr (T::one_bit_per_word) {
            p.w[i % T::words] |= word(1) << pos;
        } else {
            p.w[pos / T::word_bits] |= word(1) << (pos % T::word_bits);
        }
    }
    return p;
}

template <Shape S>
BATCHBLOOM_HD constexpr void set_pattern(typename shape_traits<S>::word_type* block, const pattern<S>& p) {
    for (unsigned j = 0; j < shape_traits<S>::words; ++j) block[j] |= p.w[j];
}

template <Shape S>
BATCHBLOOM_HD constexpr bool test_pattern(const typename shape_traits<S>::word_type* block,
                                          const pattern<S>& p) {
    bool all = true;
    for (unsigned j = 0; j < shape_traits<S>::words; ++j) all &= (block[j] & p.w[j]) == p.w[j];
    return all;
}

/// Shape facts for code that holds the shape as a run-time value.
struct shape_info {
    unsigned block_bytes, words, word_bits, position_bits;
    bool one_bit_per_word;
};

template <Shape S>
constexpr shape_info info_of() {
    using T = shape_traits<S>;
    return {T::block_bytes, T::words, T::word_bits, T::position_bits, T::one_bit_per_word};
}

/// True for the shapes this build knows; everything reading a shape from outside checks it.
constexpr bool is_known(Shape s) {
    return s == Shape::split256 || s == Shape::word512 || s == Shape::line512;
}

/// Calls f(std::integral_constant<Shape, S>{}) for the run-time shape s (which must be known),
/// so that one template serves every shape without a hand-written switch at each call site.
template <class F>
constexpr decltype(auto) visit_shape(Shape s, F&& f) {
    switch (s) {
        case Shape::split256: return f(std::integral_constant<Shape, Shape::split256>{});
        case Shape::word512: return f(std::integral_constant<Shape, Shape::word512>{});
        default: return f(std::integral_constant<Shape, Shape::line512>{});
    }
}

constexpr shape_info info(Shape s) {
    return visit_shape(s, [](auto tag) { return info_of<decltype(tag)::value>(); });
}

}  // namespace layout
}  // namespace batchbloom
