// Eight keys per step: the positions of probe i for all eight lanes are computed in vector
// registers and their words fetched with one gather; lanes that already missed are masked out
// of later gathers, and the loop stops when every lane has missed.
// Only this file is compiled with AVX-512 flags, and its helpers are local to it: an inline
// function shared with scalar code could be linked from here and fault on older CPUs.
#include "cpu/classic_avx512.hpp"

#include <immintrin.h>

namespace batchbloom::detail {

namespace {

// High 64 bits of h * m for m < 2^32, exactly: (hi32(h) * m + ((lo32(h) * m) >> 32)) >> 32.
__m512i mulhi_u32m(__m512i h, __m512i m) {
    const __m512i lo = _mm512_mul_epu32(h, m);
    const __m512i hi = _mm512_mul_epu32(_mm512_srli_epi64(h, 32), m);
    return _mm512_srli_epi64(_mm512_add_epi64(hi, _mm512_srli_epi64(lo, 32)), 32);
}

__mmask8 probe8(const long long* words, __m512i m, unsigned k, __m512i h, __mmask8 alive) {
    const __m512i step = _mm512_rol_epi64(h, 32);
    const __m512i one = _mm512_set1_epi64(1);
    const __m512i low6 = _mm512_set1_epi64(63);
    for (unsigned i = 0; i < k && alive != 0; ++i) {
        const __m512i pos = mulhi_u32m(h, m);
        const __m512i w = _mm512_mask_i64gather_epi64(_mm512_setzero_si512(), alive, _mm512_srli_epi64(pos, 6),
                                                       words, 8);
        const __m512i bit = _mm512_and_si512(_mm512_srlv_epi64(w, _mm512_and_si512(pos, low6)), one);
        alive = _mm512_mask_test_epi64_mask(alive, bit, bit);
        h = _mm512_add_epi64(h, step);
    }
    return alive;
}

}  // namespace

void classic_probe_avx512(const std::uint64_t* words, std::uint64_t m, unsigned k, const std::uint64_t* hashes,
                          std::size_t n, std::uint8_t* out) {
    const auto* base = reinterpret_cast<const long long*>(words);
    const __m512i vm = _mm512_set1_epi64(static_cast<long long>(m));
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __mmask8 hit = probe8(base, vm, k, _mm512_loadu_si512(hashes + i), 0xFF);
        _mm_storel_epi64(reinterpret_cast<__m128i*>(out + i), _mm_maskz_set1_epi8(hit, 1));
    }
    if (i < n) {
        const auto tail = static_cast<__mmask8>((1u << (n - i)) - 1);
        const __mmask8 hit = probe8(base, vm, k, _mm512_maskz_loadu_epi64(tail, hashes + i), tail);
        for (std::size_t j = 0; i + j < n; ++j) out[i + j] = static_cast<std::uint8_t>((hit >> j) & 1);
    }
}

}  // namespace batchbloom::detail
