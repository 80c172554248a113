#pragma once
// The per-key work of the CUDA engine, written once as __host__ __device__ functions.
//
// Everything here maps a hash to a block and a pattern through layout.hpp (block_index,
// make_pattern, test_pattern) and hashes keys through hash.hpp (mix64): the kernels in
// kernels.cu are thin loops around these functions, and the host tests (tests/cuda/) run the
// very same functions on the CPU against the scalar reference, since this project has no GPU.
//
//   probe:  one thread per key reads the key's whole block with 128-bit loads (2 for a
//           256-bit block, 4 for a 512-bit one) into registers and tests the pattern there.
//   insert: a cooperative group of 8 threads per key, thread r owning word r of the block;
//           each thread ORs its word's mask in with a relaxed device-scope atomic, and only
//           when the word does not already hold those bits (a plain load first), so hot or
//           full blocks cost reads, not atomics.
//
// Word updates go through cuda::atomic_ref (libcu++), which compiles for the host too: the
// host tests exercise the same update code, from several threads at once.
#include <cuda/atomic>
#include <cstddef>
#include <cstdint>

#include "batchbloom/hash.hpp"
#include "batchbloom/layout.hpp"

namespace batchbloom::cuda_impl {

/// Threads that cooperate on one inserted key: one per word of the block (every shape has 8).
inline constexpr unsigned insert_group = layout::words_per_block;
static_assert(layout::shape_traits<Shape::split256>::words == insert_group);
static_assert(layout::shape_traits<Shape::word512>::words == insert_group);
static_assert(layout::shape_traits<Shape::line512>::words == insert_group);

template <Shape S>
using word_t = typename layout::shape_traits<S>::word_type;

/// A filter as the kernels see it. `data` holds the resident blocks [base, base + resident):
/// DeviceFilter keeps the whole filter (base 0); the engine path uploads only the range of
/// blocks a batch of inserts touches. `blocks` is always the whole filter's block count, the
/// scale of block_index.
template <Shape S>
struct View {
    word_t<S>* data;
    std::uint64_t blocks;
    std::uint64_t base;
    unsigned k;
};

/// How a kernel turns its input into a hash: the seeded integer mixer of HashKind::xxh3
/// (fused into the kernel) or nothing, for inputs that already are hashes.
struct Hasher {
    bool mix;
    std::uint64_t seed;
    BATCHBLOOM_HD std::uint64_t operator()(std::uint64_t key) const { return mix ? mix64(key, seed) : key; }
};

/// Word offset of a hash's block inside the resident range.
template <Shape S>
BATCHBLOOM_HD std::uint64_t block_offset(const View<S>& f, std::uint64_t hash) {
    return (layout::block_index(hash, f.blocks) - f.base) * layout::shape_traits<S>::words;
}

/// make_pattern for a run-time k, dispatched to a compile-time k: with the trip count known
/// the compiler unrolls make_pattern's loop fully and keeps the pattern in registers (with a
/// run-time k nvcc unrolls it only partly, and the pattern then lives in local memory).
template <Shape S>
BATCHBLOOM_HD layout::pattern<S> pattern_of(std::uint32_t h32, unsigned k) {
    switch (k) {
        case 1: return layout::make_pattern<S>(h32, 1);
        case 2: return layout::make_pattern<S>(h32, 2);
        case 3: return layout::make_pattern<S>(h32, 3);
        case 4: return layout::make_pattern<S>(h32, 4);
        case 5: return layout::make_pattern<S>(h32, 5);
        case 6: return layout::make_pattern<S>(h32, 6);
        case 7: return layout::make_pattern<S>(h32, 7);
        case 8: return layout::make_pattern<S>(h32, 8);
        case 9: return layout::make_pattern<S>(h32, 9);
        case 10: return layout::make_pattern<S>(h32, 10);
        case 11: return layout::make_pattern<S>(h32, 11);
        case 12: return layout::make_pattern<S>(h32, 12);
        case 13: return layout::make_pattern<S>(h32, 13);
        case 14: return layout::make_pattern<S>(h32, 14);
        case 15: return layout::make_pattern<S>(h32, 15);
        default: return layout::make_pattern<S>(h32, 16);
    }
}

/// Word j of a pattern, for a run-time j, as a chain of selects: indexing the pattern's
/// array with a run-time value would put it in local memory on the GPU.
template <Shape S>
BATCHBLOOM_HD word_t<S> pattern_word(const layout::pattern<S>& p, unsigned j) {
    word_t<S> m = 0;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (unsigned i = 0; i < insert_group; ++i) m = i == j ? p.w[i] : m;
    return m;
}

/// ORs `mask` into *word unless every bit of it is already set. Relaxed, device scope: the
/// filter is a set of independent words and OR commutes, so no ordering is needed, and the
/// result is the same whatever the order or the concurrency of the updates. Returns whether
/// an atomic was issued.
template <class W>
BATCHBLOOM_HD bool or_word(W* word, W mask) {
#if defined(__CUDA_ARCH__)
    __builtin_assume(__isGlobal(word));
#endif
    ::cuda::atomic_ref<W, ::cuda::thread_scope_device> ref(*word);
    if ((ref.load(::cuda::std::memory_order_relaxed) & mask) == mask) return false;
    ref.fetch_or(mask, ::cuda::std::memory_order_relaxed);
    return true;
}

/// Insert, lane `rank` (0..7) of the cooperative group working on `hash`: updates word `rank`
/// of the key's block. The 8 lanes together set exactly make_pattern's bits.
template <Shape S>
BATCHBLOOM_HD void insert_lane(const View<S>& f, std::uint64_t hash, unsigned rank) {
    const word_t<S> m = pattern_word<S>(pattern_of<S>(static_cast<std::uint32_t>(hash), f.k), rank);
    if (m != 0) or_word(f.data + block_offset(f, hash) + rank, m);
}

/// The whole block of a hash, copied into registers: on the GPU with 128-bit loads through
/// the read-only data path, on the host word by word.
template <Shape S>
BATCHBLOOM_HD void load_block(const word_t<S>* block, word_t<S> (&out)[layout::shape_traits<S>::words]) {
    using T = layout::shape_traits<S>;
#if defined(__CUDA_ARCH__)
    if constexpr (sizeof(word_t<S>) == 4) {
        const auto* v = reinterpret_cast<const uint4*>(block);
#pragma unroll
        for (unsigned i = 0; i < T::block_bytes / 16; ++i) {
            const uint4 x = __ldg(v + i);
            out[4 * i + 0] = x.x;
            out[4 * i + 1] = x.y;
            out[4 * i + 2] = x.z;
            out[4 * i + 3] = x.w;
        }
    } else {
        const auto* v = reinterpret_cast<const ulonglong2*>(block);
#pragma unroll
        for (unsigned i = 0; i < T::block_bytes / 16; ++i) {
            const ulonglong2 x = __ldg(v + i);
            out[2 * i + 0] = x.x;
            out[2 * i + 1] = x.y;
        }
    }
#else
    for (unsigned j = 0; j < T::words; ++j) out[j] = block[j];
#endif
}

/// Probe: true if every bit of the hash's pattern is set in its block.
template <Shape S>
BATCHBLOOM_HD bool probe(const View<S>& f, std::uint64_t hash) {
    word_t<S> block[layout::shape_traits<S>::words];
    load_block<S>(f.data + block_offset(f, hash), block);
    return layout::test_pattern<S>(block, pattern_of<S>(static_cast<std::uint32_t>(hash), f.k));
}

}  // namespace batchbloom::cuda_impl
