#pragma once
// What the processor and the operating system support, asked once at run time. Compiled
// without ISA flags: it runs on every x86-64 CPU (and answers "no" elsewhere).

namespace batchbloom::detail {

/// AVX2 instructions and OS-saved YMM state.
bool cpu_has_avx2();
/// AVX-512 F, CD, DQ, BW and VL instructions and OS-saved ZMM and opmask state.
bool cpu_has_avx512();

}  // namespace batchbloom::detail
