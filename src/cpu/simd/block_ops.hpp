#pragma once
// Per-key block operations with AVX2 (256-bit) instructions. Included by the AVX2 and the
// AVX-512 translation units only; the templates are instantiated separately in each, with
// that file's flags.
//
// A pattern is built in registers: broadcast low32(hash), multiply by the salts lane-wise,
// keep the top bits as a bit position, and shift a one into place with a variable shift.
// k needs no branches: inserting shifts a vector of ones that holds 0 in the lanes past k
// (a zero shifted stays zero), and probing shifts the block's words right by the positions
// and tests bit 0, with the words of lanes past k read as all ones.
//
// Patterns of k > 8 bits take a second round of eight lanes. Whether there is one is a
// template parameter (Two), not a run-time test: compilers computed the second round under a
// mask for every key rather than branch, a third of the work of a k = 8 probe. Two = true is
// right for every k; Two = false only for k <= 8. A second-round lane past k repeats the
// first round's salt of its word: setting or testing a bit of the pattern twice changes
// nothing. (Where that word has no bit either, k < 8 with Two, as the counting kernels use
// the masks, the lane is switched off as in the first round.)
#include <immintrin.h>

#include "cpu/simd/pipeline.hpp"

namespace batchbloom::detail::simd {

/// The salts of pattern bits first + i in 32-bit lane i (8 lanes), and per lane whether that bit
/// is in the pattern (first + i < k). A lane past k holds salt(dup(i)): a bit the pattern
/// has anyway, for rounds that may repeat one (the one-bit-per-word shapes' second round:
/// bit 8 + i lands in word i, as bit i does).
struct salts8 {
    alignas(32) std::uint32_t salt[8];
    alignas(32) std::uint32_t live[8];  // 1 or 0
    template <class Dup>
    salts8(unsigned first, unsigned k, Dup dup) {
        for (unsigned i = 0; i < 8; ++i) {
            salt[i] = layout::salt(first + i < k ? first + i : dup(i));
            live[i] = first + i < k;
        }
    }
};

template <class Arch>
inline __m256i load8(const std::uint32_t* v) {
    return _mm256_load_si256(reinterpret_cast<const __m256i*>(v));
}
/// 64-bit lanes q*4 .. q*4 + 3 of v's 32-bit lanes, zero-extended.
template <class Arch>
inline __m256i widen4(const std::uint32_t* v, unsigned q) {
    return _mm256_cvtepu32_epi64(_mm_loadu_si128(reinterpret_cast<const __m128i*>(v + 4 * q)));
}

/// Salts i and 8 + i per lane (the second round's lanes past k repeat the first's), for the
/// AVX-512 block operations.
template <class Arch>
struct lanes8 {
    __m256i salt_lo, salt_hi;

    explicit lanes8(unsigned k) {
        const salts8 lo(0, k, [](unsigned i) { return i; }), hi(8, k, [](unsigned i) { return i; });
        salt_lo = load8<Arch>(lo.salt);
        salt_hi = load8<Arch>(hi.salt);
    }
};

/// split256: 8 x 32-bit words, bit i in word i % 8 — one ymm register per block.
template <class Arch, bool Two = true>
struct split256_avx2 {
    lanes8<Arch> l;
    __m256i live_one;  // 1 in the lanes of bits i < k
    __m256i past_k;  // all live_one in the lanes of bits i >= k (first round)
    explicit split256_avx2(unsigned k) : l(k) {
        const salts8 lo(0, k, [](unsigned i) { return i; });
        live_one = load8<Arch>(lo.live);
        past_k = _mm256_cmpeq_epi32(live_one, _mm256_setzero_si256());
    }

    __m256i positions(__m256i h, __m256i salt) const { return _mm256_srli_epi32(_mm256_mullo_epi32(h, salt), 27); }
    __m256i mask(std::uint32_t h32) const {
        const __m256i h = _mm256_set1_epi32(static_cast<int>(h32));
        __m256i m = _mm256_sllv_epi32(live_one, positions(h, l.salt_lo));
        if constexpr (Two) m = _mm256_or_si256(m, _mm256_sllv_epi32(live_one, positions(h, l.salt_hi)));
        return m;
    }
    bool test(const std::uint32_t* block, std::uint32_t h32) const {
        const __m256i h = _mm256_set1_epi32(static_cast<int>(h32));
        const __m256i b = _mm256_or_si256(past_k, _mm256_load_si256(reinterpret_cast<const __m256i*>(block)));
        __m256i t = _mm256_srlv_epi32(b, positions(h, l.salt_lo));
        if constexpr (Two) t = _mm256_and_si256(t, _mm256_srlv_epi32(b, positions(h, l.salt_hi)));
        return _mm256_testc_si256(t, _mm256_set1_epi32(1));
    }
    void set(std::uint32_t* block, std::uint32_t h32) const {
        auto* p = reinterpret_cast<__m256i*>(block);
        _mm256_store_si256(p, _mm256_or_si256(_mm256_load_si256(p), mask(h32)));
    }
};

/// word512 with AVX2: 8 x 64-bit words as two ymm registers of four words each. A 64-bit
/// lane's salt sits in its low 32-bit half, the high half 0, so one 32-bit multiply leaves
/// low32(hash) * salt zero-extended in each 64-bit lane: a 64-bit shift then gives the
/// position, without widening eight 32-bit positions into two vectors.
template <class Arch, bool Two = true>
struct word512_avx2 {
    __m256i salt[4];  // words 0-3 and 4-7 of the first round, then of the second
    __m256i live_one[2];  // 1 in the 64-bit lanes of bits i < k
    __m256i past_k[2];  // all live_one in the 64-bit lanes of bits i >= k (first round)
    explicit word512_avx2(unsigned k) {
        const salts8 lo(0, k, [](unsigned i) { return i; }), hi(8, k, [](unsigned i) { return i; });
        for (unsigned q = 0; q < 2; ++q) {
            salt[q] = widen4<Arch>(lo.salt, q);
            salt[2 + q] = widen4<Arch>(hi.salt, q);
            live_one[q] = widen4<Arch>(lo.live, q);
            past_k[q] = _mm256_cmpeq_epi64(live_one[q], _mm256_setzero_si256());
        }
    }

    static __m256i positions(__m256i h, __m256i salt) { return _mm256_srli_epi64(_mm256_mullo_epi32(h, salt), 26); }
    __m256i mask(__m256i h, unsigned q) const {  // of words 4q .. 4q + 3
        __m256i m = _mm256_sllv_epi64(live_one[q], positions(h, salt[q]));
        if constexpr (Two) m = _mm256_or_si256(m, _mm256_sllv_epi64(live_one[q], positions(h, salt[2 + q])));
        return m;
    }
    void mask(std::uint32_t h32, __m256i& m0, __m256i& m1) const {  // the whole pattern (counting_avx2.cpp)
        const __m256i h = _mm256_set1_epi32(static_cast<int>(h32));
        m0 = mask(h, 0);
        m1 = mask(h, 1);
    }
    bool test(const std::uint64_t* block, std::uint32_t h32) const {
        const __m256i h = _mm256_set1_epi32(static_cast<int>(h32));
        const auto* p = reinterpret_cast<const __m256i*>(block);
        const __m256i b0 = _mm256_or_si256(past_k[0], _mm256_load_si256(p));
        const __m256i b1 = _mm256_or_si256(past_k[1], _mm256_load_si256(p + 1));
        __m256i t = _mm256_and_si256(_mm256_srlv_epi64(b0, positions(h, salt[0])), _mm256_srlv_epi64(b1, positions(h, salt[1])));
        if constexpr (Two)
            t = _mm256_and_si256(t, _mm256_and_si256(_mm256_srlv_epi64(b0, positions(h, salt[2])),
                                                     _mm256_srlv_epi64(b1, positions(h, salt[3]))));
        return _mm256_testc_si256(t, _mm256_set1_epi64x(1));
    }
    void set(std::uint64_t* block, std::uint32_t h32) const {
        __m256i m0, m1;
        mask(h32, m0, m1);
        auto* p = reinterpret_cast<__m256i*>(block);
        _mm256_store_si256(p, _mm256_or_si256(_mm256_load_si256(p), m0));
        _mm256_store_si256(p + 1, _mm256_or_si256(_mm256_load_si256(p + 1), m1));
    }
};

/// line512 with AVX2: k positions anywhere in the line. Lanes past k repeat bit 0's salt
/// (any bit of the pattern may be set or tested twice), so no lane is ever switched off.
/// Probing fetches the 32-bit word of each position from the line held in two registers
/// (vpermd on each half, blend on the position's top bit) and tests the bit there; inserting
/// ORs the bits in one by one, their positions computed a vector at a time.
template <class Arch, bool Two = true>
struct line512_avx2 {
    static constexpr unsigned rounds = Two ? 2 : 1;
    __m256i salt_lo, salt_hi;
    explicit line512_avx2(unsigned k) {
        const salts8 lo(0, k, [](unsigned) { return 0u; }), hi(8, k, [](unsigned) { return 0u; });
        salt_lo = load8<Arch>(lo.salt);
        salt_hi = load8<Arch>(hi.salt);
    }

    /// Per lane, bit 0 = whether the line has the lane's bit: the product's top 4 bits are the
    /// word (its sign bit picks the half), the 5 below them the bit in that word.
    static __m256i bits(__m256i lo, __m256i hi, __m256i h, __m256i salt) {
        const __m256i prod = _mm256_mullo_epi32(h, salt);
        const __m256i word = _mm256_srli_epi32(prod, 28);  // vpermd reads its low 3 bits
        const __m256i sel = _mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(_mm256_permutevar8x32_epi32(lo, word)),
                                                                 _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(hi, word)),
                                                                 _mm256_castsi256_ps(prod)));
        return _mm256_srlv_epi32(sel, _mm256_and_si256(_mm256_srli_epi32(prod, 23), _mm256_set1_epi32(0x1F)));
    }
    bool test(const std::uint64_t* block, std::uint32_t h32) const {
        const auto* p = reinterpret_cast<const __m256i*>(block);
        const __m256i lo = _mm256_load_si256(p), hi = _mm256_load_si256(p + 1);
        const __m256i h = _mm256_set1_epi32(static_cast<int>(h32));
        __m256i t = bits(lo, hi, h, salt_lo);
        if constexpr (Two) t = _mm256_and_si256(t, bits(lo, hi, h, salt_hi));
        return _mm256_testc_si256(t, _mm256_set1_epi32(1));
    }
    void set(std::uint64_t* block, std::uint32_t h32) const {
        const __m256i h = _mm256_set1_epi32(static_cast<int>(h32));
        alignas(32) std::uint32_t pos[8 * rounds];
        _mm256_store_si256(reinterpret_cast<__m256i*>(pos), _mm256_srli_epi32(_mm256_mullo_epi32(h, salt_lo), 23));
        if constexpr (Two)
            _mm256_store_si256(reinterpret_cast<__m256i*>(pos + 8), _mm256_srli_epi32(_mm256_mullo_epi32(h, salt_hi), 23));
        for (unsigned i = 0; i < 8 * rounds; ++i) block[pos[i] / 64] |= std::uint64_t(1) << (pos[i] % 64);
    }
};

}  // namespace batchbloom::detail::simd
