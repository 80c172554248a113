// The counting filter's AVX2 kernels: each plane in ymm registers, the pattern mask built in
// registers by the plain engine's block operations (src/cpu/simd/block_ops.hpp).
// Compiled with AVX2 flags; nothing here runs unless cpu_has_avx2() said yes.
#include "cpu/simd/block_ops.hpp"
#include "cpu/counting_kernel.hpp"

namespace batchbloom::detail::counting {

namespace {

struct Avx2Base {
    using V = __m256i;
    static bool covers(V x, V m) { return _mm256_testc_si256(x, m); }
};

template <Shape S>
struct Avx2Lanes;

template <>
struct Avx2Lanes<Shape::split256> : Avx2Base {
    static constexpr unsigned G = 1, block_bytes = 32;
    simd::split256_avx2<xsimd::avx2> ops;
    explicit Avx2Lanes(unsigned k) : ops(k) {}
    void mask(std::uint32_t h32, V* m) const { m[0] = ops.mask(h32); }
};

template <>
struct Avx2Lanes<Shape::word512> : Avx2Base {
    static constexpr unsigned G = 2, block_bytes = 64;
    simd::word512_avx2<xsimd::avx2> ops;
    explicit Avx2Lanes(unsigned k) : ops(k) {}
    void mask(std::uint32_t h32, V* m) const { ops.mask(h32, m[0], m[1]); }
};

// line512 has no in-register mask builder (its bits go anywhere in the line): the pattern
// comes from layout.hpp and only the counter arithmetic is vectorized.
template <>
struct Avx2Lanes<Shape::line512> : Avx2Base {
    static constexpr unsigned G = 2, block_bytes = 64;
    unsigned k;
    explicit Avx2Lanes(unsigned k_) : k(k_) {}
    void mask(std::uint32_t h32, V* m) const {
        const auto p = layout::make_pattern<Shape::line512>(h32, k);
        m[0] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p.w));
        m[1] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p.w + 4));
    }
};

}  // namespace

}  // namespace batchbloom::detail::counting

namespace batchbloom::detail {

constinit const CountingKernels avx2_counting{Backend::avx2, counting::kernels<counting::Avx2Lanes>::insert,
                                              counting::kernels<counting::Avx2Lanes>::erase,
                                              counting::kernels<counting::Avx2Lanes>::contains};

}  // namespace batchbloom::detail
