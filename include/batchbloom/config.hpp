#pragma once
// Build-wide macros shared by host and device code. Kept free of any ISA or CUDA header so
// that users of the public API never pull in <immintrin.h> or <cuda_runtime.h>.

// Per-key layout and hash functions are compiled both as plain C++ and, under nvcc, as
// device code. One macro keeps the two builds on one definition.
// They are also forced inline: the SIMD engines compile them in translation units built with
// AVX2/AVX-512 flags, and an out-of-line copy from such a unit could be picked by the linker
// for the scalar code too (and fault on a CPU without those instructions).
#if defined(__CUDACC__)
#define BATCHBLOOM_HD __host__ __device__ __forceinline__
#else
#define BATCHBLOOM_HD [[gnu::always_inline]] inline
#endif

#include "version.hpp"

// Filters are stored and saved as little-endian words; the engines read them in place.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "batchbloom needs a little-endian target");
