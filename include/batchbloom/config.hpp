#pragma once
// Build-wide macros shared by host and device code. Kept free of any ISA or CUDA header so
// that users of the public API never pull in <immintrin.h> or <cuda_runtime.h>.

// Per-key layout and hash functions are compiled both as plain C++ and, under nvcc, as
// device code. One macro keeps the two builds on one definition.
#if defined(__CUDACC__)
#define BATCHBLOOM_HD __host__ __device__
#else
#define BATCHBLOOM_HD
#endif

#define BATCHBLOOM_VERSION_MAJOR 0
#define BATCHBLOOM_VERSION_MINOR 1
#define BATCHBLOOM_VERSION_PATCH 0

// Filters are stored and saved as little-endian words; the engines read them in place.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "batchbloom needs a little-endian target");
