#pragma once
// The engine interface. An engine (scalar, avx2, avx512, cuda) is one object that says whether
// this machine can run it and which kernels it has for which filter type: a table of bulk
// operations per filter type, or none. Every engine computes the same blocks, patterns and
// positions (layout.hpp, core/classic_scheme.hpp), so their results are interchangeable and
// the scalar engine, which has every kernel, is the oracle for the others.
//
// Which kernels run (docs/architecture.md, "Engines"): a filter asks for the kernels of its
// filter type under the backend it was given (`automatic` resolved first, see
// resolve_backend). The resolved engine's own kernels run if it has them; otherwise those of
// its fallback, the same rule for every filter type: the best CPU engine ranked below it that
// this machine supports and that has them (avx512 -> avx2 -> scalar; cuda -> the best CPU
// engine). Asking for an engine this machine cannot run is an Error, never a fallback.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "batchbloom/backend.hpp"
#include "batchbloom/layout.hpp"

namespace batchbloom {
enum class ClassicScheme : std::uint8_t;  // classic.hpp
enum class EraseResult : std::uint8_t;    // deletable.hpp
}  // namespace batchbloom

namespace batchbloom::detail {

/// The kernel tables an engine may have, one per filter type with kernels of its own. Not
/// FileKind (file_kind.hpp), which lists what a file can hold: a scalable filter has a file kind
/// but runs the blocked kernels (its stages are blocked filters, as a join filter is one), and
/// a concurrent filter has kernels (atomic word updates from caller threads) but saves as a
/// blocked file.
enum class KernelTable : std::uint8_t { blocked, concurrent, counting, deletable, classic };

// ---- blocked filters (Filter, and the scalable and join filters built on it) -------------

/// What the engine sees of a filter.
struct FilterRef {
    std::byte* data;  // 64-byte aligned
    std::uint64_t blocks;
    Shape shape;
    unsigned k;
    /// How many keys ahead of the one being processed the engine prefetches blocks; 0: none
    /// (cache-resident filters and regions, where prefetching only costs instructions). Set
    /// by the batch layer from what this machine needs (engine/machine.hpp).
    std::uint32_t prefetch = 0;
    /// With prefetch 0: whether the engine prefetches each key's block into L1 as soon as it has
    /// the key's hash, for a filter that fills more than half of L2 (whose lines the keys
    /// streaming through the call push out to L3) or that lives in L3 (docs/design.md, "The
    /// batch code's constants").
    bool prefetch_near = false;
    /// Inserts set only blocks in [first_block, end_block) and skip the keys of other blocks:
    /// how threads share a direct insert without two of them ever writing one block.
    std::uint64_t first_block = 0, end_block = ~std::uint64_t(0);

    bool owns_all() const { return first_block == 0 && end_block >= blocks; }
    bool owns(std::uint64_t block) const { return block - first_block < end_block - first_block; }
};

/// How the engine turns an input value into a hash: the integer mixer with the filter's seed
/// (fused into the kernel), or none because the caller passes hashes.
struct KeyMode {
    enum Kind : std::uint8_t { hashed, mix64 } kind;
    std::uint64_t seed;
};

namespace partition {
struct Buckets;  // engine/buckets.hpp
}

/// The partitioned batch path's kernels (batch/blocked_paths.cpp): the scatter of a round of keys into
/// one bucket per filter region (engine/buckets.hpp), and the kernels that then insert or
/// test a bucket's hashes, whose blocks all lie in one region already brought into the cache
/// (so they prefetch nothing).
struct PartitionKernels {
    std::size_t (*scatter)(const partition::Buckets& b, const std::uint64_t* keys, std::size_t n, KeyMode mode);
    void (*insert)(const FilterRef&, const std::uint64_t* hashes, std::size_t n);
    /// Packed bitmap, as BlockedKernels::contains_bits.
    void (*contains)(const FilterRef&, const std::uint64_t* hashes, std::size_t n, std::uint64_t* out);
    std::size_t (*count)(const FilterRef&, const std::uint64_t* hashes, std::size_t n);
};

struct BlockedKernels {
    Backend backend;  // the engine whose code this is
    void (*insert)(const FilterRef&, const std::uint64_t* keys, std::size_t n, KeyMode mode);
    /// out[i] = 0 or 1.
    void (*contains_bytes)(const FilterRef&, const std::uint64_t* keys, std::size_t n, KeyMode mode,
                           std::uint8_t* out);
    /// Packed bitmap, ceil(n/64) words; bits past n are zero.
    void (*contains_bits)(const FilterRef&, const std::uint64_t* keys, std::size_t n, KeyMode mode,
                          std::uint64_t* out);
    std::size_t (*count)(const FilterRef&, const std::uint64_t* keys, std::size_t n, KeyMode mode);
    /// out[i] = the hash of keys[i] under `mode` (a scalable filter hashes a batch once for all its stages).
    void (*hash)(const std::uint64_t* keys, std::size_t n, KeyMode mode, std::uint64_t* out);
    /// Null for an engine that only runs the direct path (CUDA: it moves each call's data to
    /// the device itself).
    const PartitionKernels* partition;
};

/// ConcurrentFilter's kernels (concurrent.hpp): relaxed atomic ORs and loads on whole words,
/// safe from any number of caller threads at once.
struct ConcurrentKernels {
    Backend backend;
    void (*insert)(const FilterRef&, const std::uint64_t* keys, std::size_t n, KeyMode mode);
    void (*contains_bytes)(const FilterRef&, const std::uint64_t* keys, std::size_t n, KeyMode mode,
                           std::uint8_t* out);
};

// ---- counting filters ---------------------------------------------------------------------

struct CountingRef {
    std::byte* data;  // 64-byte aligned; 4 planes per block (counting.hpp)
    std::uint64_t blocks;
    Shape shape;
    unsigned k;
};

struct CountingKernels {
    Backend backend;
    void (*insert)(const CountingRef&, const std::uint64_t* hashes, std::size_t n);
    /// out (may be null): 1 erased / 0 refused per key. Returns the number erased.
    std::size_t (*erase)(const CountingRef&, const std::uint64_t* hashes, std::size_t n, std::uint8_t* out);
    void (*contains)(const CountingRef&, const std::uint64_t* hashes, std::size_t n, std::uint8_t* out);
};

// ---- deletable filters ----------------------------------------------------------------------

/// The bits (a blocked filter) and the collision bitmap, one bit per region of region_bits.
struct DeletableRef {
    FilterRef bits;
    std::uint64_t* collisions;
    unsigned region_bits;
};

struct DeletableKernels {
    Backend backend;
    /// Sets the keys' bits, marking the regions of bits that were set already as collided.
    void (*insert)(const DeletableRef&, const std::uint64_t* hashes, std::size_t n);
    /// Clears each key's bits that lie in collision-free regions, in order; out[i] = what
    /// happened to key i (out may be null). Returns the number erased.
    std::size_t (*erase)(const DeletableRef&, const std::uint64_t* hashes, std::size_t n, EraseResult* out);
};

// ---- classic filters ------------------------------------------------------------------------

struct ClassicRef {
    std::uint64_t* words;
    std::uint64_t bits;  // m
    unsigned k;
    ClassicScheme scheme;
};

/// Classic kernels take each key's start, the 64 bits its k positions follow from
/// (core/classic_scheme.hpp: the hash for double hashing, Spark's two 32-bit hashes).
struct ClassicKernels {
    Backend backend;
    /// `shared`: other threads set bits in the same words at the same time (atomic ORs).
    void (*insert)(const ClassicRef&, const std::uint64_t* starts, std::size_t n, bool shared);
    void (*contains)(const ClassicRef&, const std::uint64_t* starts, std::size_t n, std::uint8_t* out);
};

// ---- engines --------------------------------------------------------------------------------

struct Engine {
    Backend backend;
    std::string_view name;
    bool (*supported)();
    /// Runs on the host CPU: `automatic` may choose it, and other engines may fall back to it.
    bool cpu;
    // The engine's kernels per filter type; null where it has none (the fallback runs).
    const BlockedKernels* blocked;
    const ConcurrentKernels* concurrent;
    const CountingKernels* counting;
    const DeletableKernels* deletable;
    const ClassicKernels* classic;
};

/// Every engine of this build, best first (supported here or not).
std::span<const Engine* const> engines();

/// The engine for a resolved backend (never `automatic`); throws Error if unavailable.
const Engine& engine_for(Backend resolved);

/// The kernels that run for a filter type when `requested` is asked for: `automatic` is
/// resolved (resolve_backend), then the rule at the top of this file applies. Throws Error if
/// the resolved engine is not available here.
const BlockedKernels& blocked_kernels(Backend requested);
const ConcurrentKernels& concurrent_kernels(Backend requested);
const CountingKernels& counting_kernels(Backend requested);
const DeletableKernels& deletable_kernels(Backend requested);
const ClassicKernels& classic_kernels(Backend requested);

/// The engine whose kernels run for `type` under `requested` (for tests, docs and tools).
Backend kernels_engine(KernelTable type, Backend requested);

// The engines, as constant-initialized objects. The SIMD ones exist only in builds with
// BATCHBLOOM_SIMD (x86-64), the CUDA one only in builds with it: only the registry names them,
// under the same conditions. Declared in every build, so that this header reads the same in
// all of them (a compiler cache shares the objects of a build with and one without CUDA).
// Their `supported` check runs before any of their code does.
extern const Engine scalar_engine;
extern const BlockedKernels scalar_blocked;
extern const ConcurrentKernels scalar_concurrent;
extern const CountingKernels scalar_counting;
extern const DeletableKernels scalar_deletable;
extern const ClassicKernels scalar_classic;
extern const Engine avx2_engine;
extern const Engine avx512_engine;
extern const CountingKernels avx2_counting;
extern const Engine cuda_engine;

}  // namespace batchbloom::detail
