#pragma once
// Per-key block operations with AVX2 (256-bit) instructions. Included by the AVX2 and the
// AVX-512 translation units only; the templates are instantiated separately in each, with
// that file's flags.
//
// A pattern is built in registers: broadcast low32(hash), multiply by the salts lane-wise,
// keep the top bits as a bit position, and shift a one into place with a variable shift.
// Lanes past k get a shift count >= the word width, which the variable shifts turn into an
// all-zero mask, so k needs no branches. A block matches when it covers the mask (vptest).
//
// Patterns of k > 8 bits take a second round of eight lanes. Whether there is one is a
// template parameter (Two), not a run-time test: compilers computed the second round under a
// mask for every key rather than branch, a third of the work of a k = 8 probe. Two = true is
// right for every k (the lanes past k set nothing); Two = false only for k <= 8.
#include <immintrin.h>

#include "cpu/simd/pipeline.hpp"

namespace batchbloom::detail::simd {

/// Salts i and 8 + i per lane, and shift-count offsets that zero lanes past k.
template <class Arch>
struct lanes8 {
    __m256i salt_lo, salt_hi, off_lo, off_hi;

    explicit lanes8(unsigned k) {
        alignas(32) std::uint32_t s[16], o[16];
        for (unsigned i = 0; i < 16; ++i) {
            s[i] = layout::salt(i);
            o[i] = i < k ? 0 : 0xFFFFFFFFu;  // a shift count >= the lane width makes sllv produce 0
        }
        salt_lo = _mm256_load_si256(reinterpret_cast<const __m256i*>(s));
        salt_hi = _mm256_load_si256(reinterpret_cast<const __m256i*>(s + 8));
        off_lo = _mm256_load_si256(reinterpret_cast<const __m256i*>(o));
        off_hi = _mm256_load_si256(reinterpret_cast<const __m256i*>(o + 8));
    }

    /// Per-lane positions (top `bits` bits of h32 * salt), or 0xFFFFFFFF for lanes past k.
    template <int bits>
    __m256i positions(__m256i h, bool hi) const {
        const __m256i p = _mm256_srli_epi32(_mm256_mullo_epi32(h, hi ? salt_hi : salt_lo), 32 - bits);
        return _mm256_or_si256(p, hi ? off_hi : off_lo);
    }
};

/// split256: 8 x 32-bit words, bit i in word i % 8 — one ymm register per block.
template <class Arch, bool Two = true>
struct split256_avx2 {
    lanes8<Arch> l;
    explicit split256_avx2(unsigned k) : l(k) {}

    __m256i mask(std::uint32_t h32) const {
        const __m256i h = _mm256_set1_epi32(static_cast<int>(h32));
        const __m256i one = _mm256_set1_epi32(1);
        __m256i m = _mm256_sllv_epi32(one, l.template positions<5>(h, false));
        if constexpr (Two) m = _mm256_or_si256(m, _mm256_sllv_epi32(one, l.template positions<5>(h, true)));
        return m;
    }
    bool test(const std::uint32_t* block, std::uint32_t h32) const {
        return _mm256_testc_si256(_mm256_load_si256(reinterpret_cast<const __m256i*>(block)), mask(h32));
    }
    void set(std::uint32_t* block, std::uint32_t h32) const {
        auto* p = reinterpret_cast<__m256i*>(block);
        _mm256_store_si256(p, _mm256_or_si256(_mm256_load_si256(p), mask(h32)));
    }
};

/// word512 with AVX2: 8 x 64-bit words as two ymm registers of four words each.
template <class Arch, bool Two = true>
struct word512_avx2 {
    lanes8<Arch> l;
    explicit word512_avx2(unsigned k) : l(k) {}

    void mask(std::uint32_t h32, __m256i& m0, __m256i& m1) const {
        const __m256i h = _mm256_set1_epi32(static_cast<int>(h32));
        const __m256i one = _mm256_set1_epi64x(1);
        auto add = [&](__m256i pos) {
            m0 = _mm256_or_si256(m0, _mm256_sllv_epi64(one, _mm256_cvtepu32_epi64(_mm256_castsi256_si128(pos))));
            m1 = _mm256_or_si256(m1, _mm256_sllv_epi64(one, _mm256_cvtepu32_epi64(_mm256_extracti128_si256(pos, 1))));
        };
        m0 = m1 = _mm256_setzero_si256();
        add(l.template positions<6>(h, false));
        if constexpr (Two) add(l.template positions<6>(h, true));
    }
    bool test(const std::uint64_t* block, std::uint32_t h32) const {
        __m256i m0, m1;
        mask(h32, m0, m1);
        const auto* p = reinterpret_cast<const __m256i*>(block);
        return _mm256_testc_si256(_mm256_load_si256(p), m0) & _mm256_testc_si256(_mm256_load_si256(p + 1), m1);
    }
    void set(std::uint64_t* block, std::uint32_t h32) const {
        __m256i m0, m1;
        mask(h32, m0, m1);
        auto* p = reinterpret_cast<__m256i*>(block);
        _mm256_store_si256(p, _mm256_or_si256(_mm256_load_si256(p), m0));
        _mm256_store_si256(p + 1, _mm256_or_si256(_mm256_load_si256(p + 1), m1));
    }
};

/// line512 with AVX2: k positions anywhere in the line. Probing gathers the 32-bit word of
/// each position from the line held in two registers (vpermd on each half, blend on the
/// position's top bit) and tests the bit there; inserting ORs the k bits in one by one.
template <class Arch, bool Two = true>
struct line512_avx2 {
    lanes8<Arch> l;
    unsigned k;
    explicit line512_avx2(unsigned k_) : l(k_), k(k_) {}

    static bool covers(__m256i lo, __m256i hi, __m256i pos, __m256i off) {
        const __m256i word = _mm256_srli_epi32(pos, 5);  // 0..15; vpermd reads its low 3 bits
        // Blend per 32-bit lane on bit 3 of the word index (moved to the lane's sign bit).
        const __m256i sel = _mm256_castps_si256(_mm256_blendv_ps(
            _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(lo, word)),
            _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(hi, word)), _mm256_castsi256_ps(_mm256_slli_epi32(word, 28))));
        const __m256i bit = _mm256_sllv_epi32(_mm256_set1_epi32(1), _mm256_and_si256(pos, _mm256_set1_epi32(0x1F)));
        return _mm256_testc_si256(sel, _mm256_andnot_si256(off, bit));  // lanes past k test nothing
    }
    bool test(const std::uint64_t* block, std::uint32_t h32) const {
        const auto* p = reinterpret_cast<const __m256i*>(block);
        const __m256i lo = _mm256_load_si256(p), hi = _mm256_load_si256(p + 1);
        const __m256i h = _mm256_set1_epi32(static_cast<int>(h32));
        bool ok = covers(lo, hi, l.template positions<9>(h, false), l.off_lo);
        if constexpr (Two) ok &= covers(lo, hi, l.template positions<9>(h, true), l.off_hi);
        return ok;
    }
    void set(std::uint64_t* block, std::uint32_t h32) const {
        for (unsigned i = 0; i < k; ++i) {
            const unsigned pos = layout::bit_position<Shape::line512>(h32, i);
            block[pos / 64] |= std::uint64_t(1) << (pos % 64);
        }
    }
};

}  // namespace batchbloom::detail::simd
