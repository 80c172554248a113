#pragma once
// The internal engine interface. An engine is a table of bulk operations over a filter's
// blocks; every engine computes the same blocks and patterns through layout.hpp, so their
// results are interchangeable and the scalar engine is the oracle for the others.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "batchbloom/backend.hpp"
#include "batchbloom/layout.hpp"

namespace batchbloom::detail {

/// What the engine sees of a filter.
struct FilterRef {
    std::byte* data;  // 64-byte aligned
    std::uint64_t blocks;
    Shape shape;
    unsigned k;
    /// Set by the partitioned path: this call's keys all fall in one cache-resident region,
    /// so engines that prefetch blocks skip it (prefetching L2-resident lines only costs).
    bool region_local = false;
};

/// How the engine turns an input value into a hash: the integer mixer with the filter's seed
/// (fused into the kernel), or none because the caller passes hashes.
struct KeyMode {
    enum Kind : std::uint8_t { hashed, mix64 } kind;
    std::uint64_t seed;
};

struct Engine {
    Backend backend;
    std::string_view name;
    bool (*supported)();
    void (*insert)(const FilterRef&, const std::uint64_t* keys, std::size_t n, KeyMode mode);
    /// out[i] = 0 or 1.
    void (*contains_bytes)(const FilterRef&, const std::uint64_t* keys, std::size_t n, KeyMode mode,
                           std::uint8_t* out);
    /// Packed bitmap, ceil(n/64) words; bits past n are zero.
    void (*contains_bits)(const FilterRef&, const std::uint64_t* keys, std::size_t n, KeyMode mode,
                          std::uint64_t* out);
    std::size_t (*count)(const FilterRef&, const std::uint64_t* keys, std::size_t n, KeyMode mode);
    /// out[i] = the hash of keys[i] under `mode` (for partitioning a batch before it is inserted).
    void (*hash)(const std::uint64_t* keys, std::size_t n, KeyMode mode, std::uint64_t* out);
};

/// The engine for a resolved backend (never `automatic`); throws Error if unavailable.
const Engine& engine_for(Backend resolved);

// The engines, as constant-initialized tables. The SIMD ones exist only in builds with
// BATCHBLOOM_SIMD (x86-64); their `supported` check runs before any of their code does.
extern const Engine scalar_engine;
#if BATCHBLOOM_HAVE_SIMD
extern const Engine avx2_engine;
extern const Engine avx512_engine;
#endif
#if BATCHBLOOM_HAVE_CUDA
extern const Engine cuda_engine;
#endif

}  // namespace batchbloom::detail
