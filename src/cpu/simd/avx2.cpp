// The AVX2 engine: the generic pipeline instantiated for xsimd::avx2. Compiled with AVX2
// flags; nothing here runs unless cpu_has_avx2() said yes.
#include "engine/cpu_features.hpp"
#include "cpu/simd/block_ops.hpp"
#include "cpu/simd/partition.hpp"

namespace batchbloom::detail {
namespace simd {

template <>
struct isa<xsimd::avx2> {
    using B = u64x<xsimd::avx2>;
    // AVX2 has no 64-bit multiply: lo*lo + ((hi*lo + lo*hi) << 32). The two cross products
    // need only their low 32 bits, so one 32-bit multiply forms both (a by c with c's halves
    // swapped), and their sum lands in the high half as (x << 32) + (x & high halves): six
    // instructions instead of seven (three multiplies and their shifts).
    static B mul64(B a, std::uint64_t c) {
        const __m256i b = _mm256_set1_epi64x(static_cast<long long>(c));
        const __m256i cross = _mm256_mullo_epi32(a, _mm256_set1_epi64x(static_cast<long long>((c << 32) | (c >> 32))));
        const __m256i high = _mm256_add_epi64(_mm256_slli_epi64(cross, 32),
                                              _mm256_and_si256(cross, _mm256_set1_epi64x(static_cast<long long>(0xFFFFFFFF00000000ULL))));
        return _mm256_add_epi64(_mm256_mul_epu32(a, b), high);
    }
    static B scale32(B hi32, std::uint64_t blocks) {
        return _mm256_srli_epi64(_mm256_mul_epu32(hi32, _mm256_set1_epi64x(static_cast<long long>(blocks))), 32);
    }
    template <Shape S, bool Two>
    using block = std::conditional_t<S == Shape::split256, split256_avx2<xsimd::avx2, Two>,
                                     std::conditional_t<S == Shape::word512, word512_avx2<xsimd::avx2, Two>,
                                                        line512_avx2<xsimd::avx2, Two>>>;
};

}  // namespace simd

// Constant-initialized data, no code: taking its address runs nothing compiled for AVX2.
namespace {
constinit const PartitionKernels avx2_partition = simd::partition_table<xsimd::avx2>();
constinit const BlockedKernels avx2_blocked = simd::blocked_table<xsimd::avx2>(Backend::avx2, &avx2_partition);
}  // namespace

// Blocked and counting kernels (counting_avx2.cpp); the other filter types fall back to the
// scalar engine's.
constinit const Engine avx2_engine{Backend::avx2, "avx2",  cpu_has_avx2,   true,   &avx2_blocked,
                                   nullptr,       &avx2_counting, nullptr, nullptr};

}  // namespace batchbloom::detail
