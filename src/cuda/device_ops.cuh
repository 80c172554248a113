#pragma once
// The per-key work of the CUDA engine, written once as __host__ __device__ functions.
//
// Blocks and patterns come from layout.hpp (block_index, make_pattern / bit_position,
// test_pattern) and key hashes from hash.hpp (mix64). The kernels in kernels.cuh are thin
// grid-stride loops around these functions, and the host tests (tests/cuda/) run the very same
// functions on the CPU against the scalar reference, on every build (CI has no GPU).
//
//   probe:  one thread per key reads the key's whole block with 128-bit loads (2 for a
//           256-bit block, 4 for a 512-bit one) into registers and tests the pattern there.
//   insert: a cooperative group of 8 threads per key, thread r owning word r of the block;
//           each thread ORs its word's share of the pattern in with a relaxed device-scope
//           atomic, and only when the word does not already hold those bits (a relaxed load
//           first), so hot or full blocks cost reads, not atomics. A group takes 8 keys per
//           step and issues all 8 loads before any atomic: 8 reads in flight per thread.
//
// k is a compile-time constant inside the loops (with_k dispatches the run-time k once per
// kernel): with the trip count known, pattern loops unroll fully and patterns stay in registers.
#include <cuda/atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "batchbloom/hash.hpp"
#include "batchbloom/layout.hpp"
#include "cuda/types.hpp"

namespace batchbloom::cuda_impl {

/// Threads that cooperate on one inserted key: one per word of the block (every shape has 8).
inline constexpr unsigned insert_group = layout::words_per_block;
static_assert(layout::shape_traits<Shape::split256>::words == insert_group);
static_assert(layout::shape_traits<Shape::word512>::words == insert_group);
static_assert(layout::shape_traits<Shape::line512>::words == insert_group);

template <Shape S>
using word_t = typename layout::shape_traits<S>::word_type;

/// A DeviceRef (types.hpp) with its shape as a type.
template <Shape S>
struct View {
    word_t<S>* data;       // block `base`
    std::uint64_t blocks;  // of the whole filter
    std::uint64_t base;
    unsigned k;
};

template <Shape S>
BATCHBLOOM_HD View<S> view_of(const DeviceRef& f) {
    return {static_cast<word_t<S>*>(f.data), f.blocks, f.base, f.k};
}

/// Word offset of a hash's block inside the resident range.
template <Shape S>
BATCHBLOOM_HD std::uint64_t block_offset(const View<S>& f, std::uint64_t hash) {
    return (layout::block_index(hash, f.blocks) - f.base) * layout::shape_traits<S>::words;
}

// ---- patterns -------------------------------------------------------------------------------

template <unsigned K>
struct k_tag {
    static constexpr unsigned value = K;
};

/// Calls f(k_tag<K>{}) with K = k, for k in 1..16: a run-time k turned into a compile-time
/// one. (With a run-time k nvcc unrolls make_pattern's loop only partly, indexes the pattern
/// with run-time values, and puts it in local memory: 64 bytes of stack per thread.)
/// The pragma lets host code, such as the tests, pass host-only callables: nvcc then checks
/// the execution space of f's call per instantiation instead of rejecting the template.
#if defined(__CUDACC__)
#pragma nv_exec_check_disable
#endif
template <class F>
BATCHBLOOM_HD decltype(auto) with_k(unsigned k, F&& f) {
    switch (k) {
        case 1: return f(k_tag<1>{});
        case 2: return f(k_tag<2>{});
        case 3: return f(k_tag<3>{});
        case 4: return f(k_tag<4>{});
        case 5: return f(k_tag<5>{});
        case 6: return f(k_tag<6>{});
        case 7: return f(k_tag<7>{});
        case 8: return f(k_tag<8>{});
        case 9: return f(k_tag<9>{});
        case 10: return f(k_tag<10>{});
        case 11: return f(k_tag<11>{});
        case 12: return f(k_tag<12>{});
        case 13: return f(k_tag<13>{});
        case 14: return f(k_tag<14>{});
        case 15: return f(k_tag<15>{});
        default: return f(k_tag<layout::max_k>{});
    }
}

/// Pattern bit `pos` of a line512 block as a mask on word j: zero unless the bit lies in
/// word j. make_pattern sets w[pos / word_bits] |= 1 << (pos % word_bits); this is the same
/// bit written with a compare instead of an array index, because an array indexed by a
/// data-dependent value lives in local memory on the GPU.
template <Shape S>
BATCHBLOOM_HD word_t<S> free_bit_in_word(unsigned pos, unsigned j) {
    using T = layout::shape_traits<S>;
    return (pos / T::word_bits == j ? word_t<S>(1) : word_t<S>(0)) << (pos % T::word_bits);
}

/// The pattern of a hash, for a compile-time k. The one-bit-per-word shapes use make_pattern
/// itself (once unrolled, its word index i % 8 is a constant); line512 places the same
/// layout::bit_position bits word by word with free_bit_in_word. Equal to make_pattern<S>(h32, K)
/// for every shape and k: the host tests check it.
template <Shape S, unsigned K>
BATCHBLOOM_HD layout::pattern<S> pattern_k(std::uint32_t h32) {
    using T = layout::shape_traits<S>;
    if constexpr (T::one_bit_per_word) {
        return layout::make_pattern<S>(h32, K);
    } else {
        layout::pattern<S> p{};
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
        for (unsigned i = 0; i < K; ++i) {
            const unsigned pos = layout::bit_position<S>(h32, i);
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
            for (unsigned j = 0; j < T::words; ++j) p.w[j] |= free_bit_in_word<S>(pos, j);
        }
        return p;
    }
}

/// Word j (a run-time value) of pattern_k<S, K>(h32): the share of insert lane j. Built bit by
/// bit, each layout::bit_position bit kept when make_pattern puts it in word j (word i % 8 for
/// the one-bit-per-word shapes, pos / word_bits for line512), rather than by selecting from a
/// whole pattern: inside the insert's unrolled 8-key step nvcc then left make_pattern's loop
/// partly rolled and the pattern in local memory.
template <Shape S, unsigned K>
BATCHBLOOM_HD word_t<S> pattern_word_k(std::uint32_t h32, unsigned j) {
    using T = layout::shape_traits<S>;
    word_t<S> m = 0;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (unsigned i = 0; i < K; ++i) {
        const unsigned pos = layout::bit_position<S>(h32, i);
        if constexpr (T::one_bit_per_word) {
            m |= (i % T::words == j ? word_t<S>(1) : word_t<S>(0)) << pos;
        } else {
            m |= free_bit_in_word<S>(pos, j);
        }
    }
    return m;
}

// ---- word updates ---------------------------------------------------------------------------
// Relaxed, device-scope atomics: the filter is a set of independent words and OR commutes, so
// no ordering is needed, and the result is the same whatever the order or the concurrency of
// the updates. On the host they are cuda::atomic_ref operations (the host tests run them from
// several threads at once); on the GPU the same two operations in their global-memory PTX
// form, because cuda::atomic_ref uses generic addresses there and compiles to an ATOM with
// a returned value plus a compare-and-swap loop for the case that the word is in shared
// memory, where `red.global` is one fire-and-forget instruction (checked in the SASS).

/// Relaxed load of a filter word.
template <class W>
BATCHBLOOM_HD W load_word(const W* word) {
    static_assert(sizeof(W) == 4 || sizeof(W) == 8);
#if defined(__CUDA_ARCH__)
    const std::size_t global = __cvta_generic_to_global(word);
    W v;
    if constexpr (sizeof(W) == 8) {
        asm volatile("ld.relaxed.gpu.global.b64 %0, [%1];" : "=l"(v) : "l"(global));
    } else {
        asm volatile("ld.relaxed.gpu.global.b32 %0, [%1];" : "=r"(v) : "l"(global));
    }
    return v;
#else
    return ::cuda::atomic_ref<W, ::cuda::thread_scope_device>(*const_cast<W*>(word))
        .load(::cuda::std::memory_order_relaxed);
#endif
}

/// ORs `mask` into *word unless `seen` (an earlier load of *word) already holds all of it.
/// A stale `seen` only costs an atomic that was not needed, never a lost bit, since bits are
/// never cleared. Returns whether an atomic was issued.
template <class W>
BATCHBLOOM_HD bool or_word(W* word, W mask, W seen) {
    static_assert(sizeof(W) == 4 || sizeof(W) == 8);
    if ((seen & mask) == mask) return false;
#if defined(__CUDA_ARCH__)
    const std::size_t global = __cvta_generic_to_global(word);
    if constexpr (sizeof(W) == 8) {
        asm volatile("red.relaxed.gpu.global.or.b64 [%0], %1;" ::"l"(global), "l"(mask) : "memory");
    } else {
        asm volatile("red.relaxed.gpu.global.or.b32 [%0], %1;" ::"l"(global), "r"(mask) : "memory");
    }
#else
    ::cuda::atomic_ref<W, ::cuda::thread_scope_device>(*word).fetch_or(mask, ::cuda::std::memory_order_relaxed);
#endif
    return true;
}

// ---- insert ---------------------------------------------------------------------------------

/// One step of the cooperative insert, as run by lane `rank` (0..7) of a group of 8 threads.
/// The group holds up to 8 keys: hash_of(j) is key j's hash (a shuffle from lane j on the
/// GPU; every lane calls it for every j), and keys j >= count are absent. Lane r updates word r
/// of every key's block; the 8 lanes together set exactly make_pattern's bits. All loads are
/// issued before any atomic, so each lane has up to 8 reads in flight.
#if defined(__CUDACC__)
#pragma nv_exec_check_disable
#endif
template <Shape S, unsigned K, class HashOf>
BATCHBLOOM_HD void insert_step(const View<S>& f, unsigned rank, unsigned count, HashOf&& hash_of) {
    word_t<S>* where[insert_group];
    word_t<S> mask[insert_group];
    word_t<S> seen[insert_group];
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (unsigned j = 0; j < insert_group; ++j) {
        const std::uint64_t hash = hash_of(j);
        mask[j] = j < count ? pattern_word_k<S, K>(static_cast<std::uint32_t>(hash), rank) : word_t<S>(0);
        where[j] = j < count ? f.data + block_offset(f, hash) + rank : f.data;  // (never used without a mask)
    }
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (unsigned j = 0; j < insert_group; ++j) seen[j] = mask[j] != 0 ? load_word(where[j]) : word_t<S>(0);
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (unsigned j = 0; j < insert_group; ++j)
        if (mask[j] != 0) or_word(where[j], mask[j], seen[j]);
}

// ---- probe ----------------------------------------------------------------------------------

/// The whole block at `block`, copied into registers: on the GPU with 128-bit loads through
/// the read-only data path, on the host word by word.
template <Shape S>
BATCHBLOOM_HD void load_block(const word_t<S>* block, word_t<S> (&out)[layout::shape_traits<S>::words]) {
    using T = layout::shape_traits<S>;
#if defined(__CUDA_ARCH__)
    // Each 16-byte load fills 16 / sizeof(word) words; the copy stays in registers once unrolled.
    const auto* v = reinterpret_cast<const uint4*>(block);
#pragma unroll
    for (unsigned i = 0; i < T::block_bytes / 16; ++i) {
        const uint4 x = __ldg(v + i);
        memcpy(out + i * (16 / sizeof(word_t<S>)), &x, 16);
    }
#else
    for (unsigned j = 0; j < T::words; ++j) out[j] = block[j];
#endif
}

/// Probe for a compile-time k: true if every bit of the hash's pattern is set in its block.
template <Shape S, unsigned K>
BATCHBLOOM_HD bool probe_k(const View<S>& f, std::uint64_t hash) {
    word_t<S> block[layout::shape_traits<S>::words];
    load_block<S>(f.data + block_offset(f, hash), block);
    return layout::test_pattern<S>(block, pattern_k<S, K>(static_cast<std::uint32_t>(hash)));
}

// ---- run-time k forms (tests, and anything outside the hot loops) -------------------------

template <Shape S>
BATCHBLOOM_HD layout::pattern<S> pattern_of(std::uint32_t h32, unsigned k) {
    return with_k(k, [&](auto tag) { return pattern_k<S, decltype(tag)::value>(h32); });
}

template <Shape S>
BATCHBLOOM_HD word_t<S> pattern_word_of(std::uint32_t h32, unsigned k, unsigned j) {
    return with_k(k, [&](auto tag) { return pattern_word_k<S, decltype(tag)::value>(h32, j); });
}

template <Shape S>
BATCHBLOOM_HD bool probe(const View<S>& f, std::uint64_t hash) {
    return with_k(f.k, [&](auto tag) { return probe_k<S, decltype(tag)::value>(f, hash); });
}

}  // namespace batchbloom::cuda_impl
