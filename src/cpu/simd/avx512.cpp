// The AVX-512 engine: the generic pipeline instantiated for xsimd::avx512bw. Compiled with
// AVX-512 F/CD/DQ/BW/VL flags; nothing here runs unless cpu_has_avx512() said yes.
#include "engine/cpu_features.hpp"
#include "cpu/simd/block_ops.hpp"
#include "cpu/simd/partition.hpp"

namespace batchbloom::detail {
namespace simd {

using avx512 = xsimd::avx512bw;

/// split256 probe with AVX-512VL: shift each word right by its bit position and test bit 0
/// under a mask of the lanes in use (vpsrlvd + vptestnmd), instead of building a mask first.
template <class Arch, bool Two>
struct split256_avx512 : split256_avx2<Arch, Two> {
    __mmask8 live_lo, live_hi;
    explicit split256_avx512(unsigned k)
        : split256_avx2<Arch, Two>(k), live_lo(static_cast<__mmask8>(k >= 8 ? 0xFF : (1u << k) - 1)),
          live_hi(static_cast<__mmask8>(k <= 8 ? 0 : (1u << (k - 8)) - 1)) {}

    bool test(const std::uint32_t* block, std::uint32_t h32) const {
        const __m256i b = _mm256_load_si256(reinterpret_cast<const __m256i*>(block));
        const __m256i h = _mm256_set1_epi32(static_cast<int>(h32));
        const __m256i one = _mm256_set1_epi32(1);
        auto missing = [&](__m256i salt, __mmask8 live) {
            const __m256i pos = _mm256_srli_epi32(_mm256_mullo_epi32(h, salt), 27);
            return _mm256_mask_testn_epi32_mask(live, _mm256_srlv_epi32(b, pos), one);
        };
        __mmask8 miss = missing(this->l.salt_lo, live_lo);
        if constexpr (Two) miss = static_cast<__mmask8>(miss | missing(this->l.salt_hi, live_hi));
        return miss == 0;
    }
};

/// word512: the whole cache line in one zmm register, one 64-bit word per lane. A lane's bit
/// position is bits 26..31 of low32(hash) * salt: vpmuludq forms the 64-bit product of the
/// lane's low halves in one instruction, and a variable *rotate* (which takes its count mod
/// 64) brings that bit to bit 0 — or, for inserts, a one to that bit — without masking the
/// count first. Lanes past k are switched off by the live masks.
template <class Arch, bool Two>
struct word512_avx512 {
    __m512i salt_lo, salt_hi;  // salt i (and 8 + i) in the low half of 64-bit lane i
    __mmask8 live_lo, live_hi;
    explicit word512_avx512(unsigned k) {
        const lanes8<Arch> l(k);
        salt_lo = _mm512_cvtepu32_epi64(l.salt_lo);
        salt_hi = _mm512_cvtepu32_epi64(l.salt_hi);
        live_lo = static_cast<__mmask8>(k >= 8 ? 0xFF : (1u << k) - 1);
        live_hi = static_cast<__mmask8>(k <= 8 ? 0 : (1u << (k - 8)) - 1);
    }

    /// Per lane: the rotate count whose low 6 bits are the bit position.
    static __m512i counts(__m512i h, __m512i salt) { return _mm512_srli_epi64(_mm512_mul_epu32(h, salt), 26); }

    __m512i mask(std::uint32_t h32) const {
        const __m512i h = _mm512_set1_epi32(static_cast<int>(h32));
        const __m512i one = _mm512_set1_epi64(1);
        __m512i m = _mm512_maskz_rolv_epi64(live_lo, one, counts(h, salt_lo));
        if constexpr (Two) m = _mm512_or_si512(m, _mm512_maskz_rolv_epi64(live_hi, one, counts(h, salt_hi)));
        return m;
    }
    bool test(const std::uint64_t* block, std::uint32_t h32) const {
        const __m512i b = _mm512_load_si512(block);
        const __m512i h = _mm512_set1_epi32(static_cast<int>(h32));
        const __m512i one = _mm512_set1_epi64(1);
        __mmask8 miss = _mm512_mask_testn_epi64_mask(live_lo, _mm512_rorv_epi64(b, counts(h, salt_lo)), one);
        if constexpr (Two)
            miss = static_cast<__mmask8>(
                miss | _mm512_mask_testn_epi64_mask(live_hi, _mm512_rorv_epi64(b, counts(h, salt_hi)), one));
        return miss == 0;
    }
    void set(std::uint64_t* block, std::uint32_t h32) const {
        _mm512_store_si512(block, _mm512_or_si512(_mm512_load_si512(block), mask(h32)));
    }
};

/// line512: up to 16 positions in one zmm; each lane fetches its 32-bit word of the line with
/// one vpermd and tests its bit. Inserting ORs the k bits in one by one.
template <class Arch, bool Two>
struct line512_avx512 : line512_avx2<Arch, Two> {
    __m512i salts;
    __mmask16 live;
    explicit line512_avx512(unsigned k_)
        : line512_avx2<Arch, Two>(k_),
          salts(_mm512_inserti64x4(_mm512_castsi256_si512(this->salt_lo), this->salt_hi, 1)),
          live(static_cast<__mmask16>((1u << k_) - 1)) {}

    bool test(const std::uint64_t* block, std::uint32_t h32) const {
        const __m512i pos = _mm512_srli_epi32(_mm512_mullo_epi32(_mm512_set1_epi32(static_cast<int>(h32)), salts), 23);
        const __m512i sel = _mm512_permutexvar_epi32(_mm512_srli_epi32(pos, 5), _mm512_load_si512(block));
        const __m512i bit = _mm512_sllv_epi32(_mm512_set1_epi32(1), _mm512_and_si512(pos, _mm512_set1_epi32(0x1F)));
        return _mm512_mask_testn_epi32_mask(live, sel, bit) == 0;
    }
};

template <>
struct isa<avx512> {
    using B = u64x<avx512>;
    static B mul64(B a, std::uint64_t c) {
        return _mm512_mullo_epi64(a, _mm512_set1_epi64(static_cast<long long>(c)));
    }
    /// In two 256-bit halves: a scalar load from the upper half of a 512-bit store waits for the
    /// store to commit instead of taking its value from the store (on a Xeon VM the kernels'
    /// hashes and block addresses, read back lane by lane, held the probe of a filter beyond L2
    /// at 5.5 ns a key against 3.6 stored so, 3.6 MiB filter, 3M keys; AVX2's 256-bit stores
    /// forward whole).
    static void store_lanes(B v, std::uint64_t* to) {
        const __m512i x = v;
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(to), _mm512_castsi512_si256(x));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(to + 4), _mm512_extracti64x4_epi64(x, 1));
    }
    static B scale32(B hi32, std::uint64_t blocks) {
        return _mm512_srli_epi64(_mm512_mul_epu32(hi32, _mm512_set1_epi64(static_cast<long long>(blocks))), 32);
    }
    /// The lanes of a group whose block b[j] - first < span, their hashes and blocks stored in
    /// order at hash_out and block_out (all 8 slots written: the slots past the kept ones hold
    /// `last`, the last kept block, which becomes the group's); returns how many were kept.
    /// For a direct insert that threads share by block range (pipeline.hpp, run_owned): one
    /// compare and two compresses instead of a test, two stores and a select per key.
    static unsigned keep(const std::uint64_t* h, const std::uint64_t* b, std::uint64_t first, std::uint64_t span,
                         std::uint64_t& last, std::uint64_t* hash_out, std::uint64_t* block_out) {
        const __m512i bv = _mm512_load_si512(b);
        const __mmask8 mine = _mm512_cmplt_epu64_mask(_mm512_sub_epi64(bv, _mm512_set1_epi64(static_cast<long long>(first))),
                                                      _mm512_set1_epi64(static_cast<long long>(span)));
        const unsigned kept = static_cast<unsigned>(__builtin_popcount(mine));
        const __m512i blocks = _mm512_mask_compress_epi64(_mm512_set1_epi64(static_cast<long long>(last)), mine, bv);
        store_lanes(_mm512_maskz_compress_epi64(mine, _mm512_load_si512(h)), hash_out);
        store_lanes(blocks, block_out);  // read back at once, below and by run_owned
        last = block_out[(kept + 7) % 8];  // the group's last kept block, or the old one
        return kept;
    }
    template <Shape S, bool Two>
    using block = std::conditional_t<S == Shape::split256, split256_avx512<avx512, Two>,
                                     std::conditional_t<S == Shape::word512, word512_avx512<avx512, Two>,
                                                        line512_avx512<avx512, Two>>>;
};

}  // namespace simd

// Constant-initialized data, no code: taking its address runs nothing compiled for AVX-512.
namespace {
constinit const PartitionKernels avx512_partition = simd::partition_table<simd::avx512>();
constinit const BlockedKernels avx512_blocked = simd::blocked_table<simd::avx512>(Backend::avx512, &avx512_partition);
}  // namespace

// Blocked kernels only: the other filter types fall back to the AVX2 engine's kernels (counting)
// or the scalar engine's (concurrent, deletable, classic).
constinit const Engine avx512_engine{Backend::avx512, "avx512", cpu_has_avx512, true, &avx512_blocked,
                                     nullptr,         nullptr,  nullptr,        nullptr};

}  // namespace batchbloom::detail
