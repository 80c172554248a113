#include "engine/cpu_features.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include <cstdint>

namespace batchbloom::detail {

#if defined(__x86_64__) || defined(__i386__)
namespace {

struct Features {
    bool avx2 = false, avx512 = false;
};

// XCR0: which register state the OS saves on context switch. Executing xgetbv through asm
// keeps this file free of ISA flags.
std::uint64_t xcr0() {
    std::uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return (std::uint64_t(hi) << 32) | lo;
}

Features detect() {
    Features f;
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return f;
    const bool osxsave = (c >> 27) & 1, avx = (c >> 28) & 1, fma = (c >> 12) & 1;
    if (!osxsave || !avx) return f;
    const std::uint64_t x = xcr0();
    const bool ymm_state = (x & 0x6) == 0x6;                 // SSE + AVX
    const bool zmm_state = ymm_state && (x & 0xE0) == 0xE0;  // opmask, ZMM_Hi256, Hi16_ZMM
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return f;
    const bool avx2 = (b >> 5) & 1, bmi2 = (b >> 8) & 1;
    const bool avx512f = (b >> 16) & 1, avx512dq = (b >> 17) & 1, avx512cd = (b >> 28) & 1,
               avx512bw = (b >> 30) & 1, avx512vl = (b >> 31) & 1;
    f.avx2 = ymm_state && avx2 && fma && bmi2;
    f.avx512 = f.avx2 && zmm_state && avx512f && avx512dq && avx512cd && avx512bw && avx512vl;
    return f;
}

const Features& features() {
    static const Features f = detect();
    return f;
}

}  // namespace

bool cpu_has_avx2() { return features().avx2; }
bool cpu_has_avx512() { return features().avx512; }
#else
bool cpu_has_avx2() { return false; }
bool cpu_has_avx512() { return false; }
#endif

}  // namespace batchbloom::detail
