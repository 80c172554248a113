#pragma once
// The SIMD engine, written once and generic over the architecture. Included only by the
// per-ISA translation units (avx2.cpp, avx512.cpp), each compiled with its own ISA flags;
// everything here is a template on the architecture, so no instantiation can leak into code
// that runs on a CPU without that ISA.
//
// Bulk operations run as a two-stage software pipeline over windows of `window` keys:
//   stage 1: hash the next window with one key per SIMD lane, scale the hashes to block
//            indices, and (for filters larger than the cache) prefetch those blocks;
//   stage 2: test or set the current window's blocks, one key at a time, each block as one
//            or two vector registers and each pattern built in registers (see block_ops_*.hpp).
// While stage 2 works on window w, the cache lines of window w+1 are on their way.
#include <xsimd/xsimd.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "batchbloom/hash.hpp"
#include "batchbloom/layout.hpp"
#include "engine/engine.hpp"

namespace batchbloom::detail::simd {

/// Arch-specific pieces, specialized in block_ops_<isa>.hpp:
///   static batch mul64(batch, std::uint64_t)      low 64 bits of the product
///   static batch scale32(batch hi32, std::uint64_t blocks)   (hi32 * blocks) >> 32
///   template <Shape S> using block = ...;  block(k); bool test(const word*, std::uint32_t) const;
///                                          void set(word*, std::uint32_t) const
template <class Arch>
struct isa;

template <class Arch>
using u64x = xsimd::batch<std::uint64_t, Arch>;

/// mix64 (hash.hpp) on every lane.
template <class Arch>
inline u64x<Arch> mix(u64x<Arch> key, std::uint64_t seed) {
    using B = u64x<Arch>;
    B z = (key ^ B(seed)) + B(0x9E3779B97F4A7C15ULL);
    z = isa<Arch>::mul64(z ^ (z >> 30), 0xBF58476D1CE4E5B9ULL);
    z = isa<Arch>::mul64(z ^ (z >> 27), 0x94D049BB133111EBULL);
    return z ^ (z >> 31);
}

inline constexpr std::size_t window = 32;

/// Filters larger than this are prefetched; smaller ones stay in L2 (2 MiB per core on the
/// development machine), where prefetching only costs instructions (measured: ~12% of the
/// probe time at 1M keys with the threshold at 1 MiB).
inline constexpr std::uint64_t prefetch_above_bytes = std::uint64_t(4) << 20;

struct Window {
    alignas(64) std::uint64_t hash[window];
    alignas(64) std::uint64_t block[window];
};

template <class Arch, bool Mix>
inline void hash_window(const std::uint64_t* keys, std::size_t n, std::uint64_t seed, std::uint64_t blocks,
                        Window& w) {
    constexpr std::size_t lanes = u64x<Arch>::size;
    std::size_t i = 0;
    for (; i + lanes <= n; i += lanes) {
        u64x<Arch> h = u64x<Arch>::load_unaligned(keys + i);
        if constexpr (Mix) h = mix<Arch>(h, seed);
        h.store_aligned(w.hash + i);
        isa<Arch>::scale32(h >> 32, blocks).store_aligned(w.block + i);
    }
    for (; i < n; ++i) {  // the last few keys of a batch: the same math, one lane at a time
        const std::uint64_t h = Mix ? mix64(keys[i], seed) : keys[i];
        w.hash[i] = h;
        w.block[i] = layout::block_index(h, blocks);
    }
}

template <class Arch, Shape S, bool Mix, bool Prefetch, bool Write, class Visit>
inline void run(const FilterRef& f, const std::uint64_t* keys, std::size_t n, std::uint64_t seed, Visit visit) {
    // `visit` is taken by value: a local copy cannot be aliased by the byte stores of the
    // answers, so its captured pointers stay in registers instead of being reloaded per key.
    using T = layout::shape_traits<S>;
    using word = typename T::word_type;
    word* const base = reinterpret_cast<word*>(f.data);
    const typename isa<Arch>::template block<S> ops(f.k);
    Window win[2];

    auto stage1 = [&](std::size_t begin, Window& w) {
        const std::size_t len = n - begin < window ? n - begin : window;
        hash_window<Arch, Mix>(keys + begin, len, seed, f.blocks, w);
        if constexpr (Prefetch)
            for (std::size_t j = 0; j < len; ++j) __builtin_prefetch(base + w.block[j] * T::words, Write ? 1 : 0, 3);
    };
    if (n == 0) return;
    stage1(0, win[0]);
    for (std::size_t begin = 0, w = 0; begin < n; begin += window, w ^= 1) {
        if (begin + window < n) stage1(begin + window, win[w ^ 1]);
        const Window& cur = win[w];
        const std::size_t len = n - begin < window ? n - begin : window;
        for (std::size_t j = 0; j < len; ++j) {
            word* block = base + cur.block[j] * T::words;
            const auto h32 = static_cast<std::uint32_t>(cur.hash[j]);
            if constexpr (Write)
                ops.set(block, h32);
            else
                visit(begin + j, ops.test(block, h32));
        }
    }
}

/// Calls body.template operator()<S, Mix, Prefetch>() for the filter's run-time parameters.
template <class Body>
inline void specialize(const FilterRef& f, KeyMode mode, Body&& body) {
    layout::visit_shape(f.shape, [&](auto tag) {
        constexpr Shape S = decltype(tag)::value;
        const bool big = !f.region_local && f.blocks * layout::shape_traits<S>::block_bytes > prefetch_above_bytes;
        const bool mixed = mode.kind == KeyMode::mix64;
        if (mixed && big) body.template operator()<S, true, true>();
        else if (mixed) body.template operator()<S, true, false>();
        else if (big) body.template operator()<S, false, true>();
        else body.template operator()<S, false, false>();
    });
}

template <class Arch>
struct kernels {
    static void insert(const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode) {
        specialize(f, mode, [&]<Shape S, bool Mix, bool Pf>() {
            run<Arch, S, Mix, Pf, true>(f, keys, n, mode.seed, [](std::size_t, bool) {});
        });
    }

    static void contains_bytes(const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode,
                               std::uint8_t* out) {
        specialize(f, mode, [&]<Shape S, bool Mix, bool Pf>() {
            run<Arch, S, Mix, Pf, false>(f, keys, n, mode.seed, [out](std::size_t i, bool r) { out[i] = r; });
        });
    }

    // Bitmaps and counts go through byte answers in L1-sized chunks: accumulating bits or a
    // count per key would chain every key through one register or memory word.
    static constexpr std::size_t chunk = 2048;

    static void contains_bits(const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode,
                              std::uint64_t* out) {
        alignas(64) std::uint8_t bytes[chunk];
        for (std::size_t begin = 0; begin < n; begin += chunk) {
            const std::size_t len = n - begin < chunk ? n - begin : chunk;
            contains_bytes(f, keys + begin, len, mode, bytes);
            for (std::size_t w = 0; w * 64 < len; ++w) {
                std::uint64_t bits = 0;
                const std::size_t end = len - w * 64 < 64 ? len - w * 64 : 64;
                for (std::size_t j = 0; j < end; ++j) bits |= std::uint64_t(bytes[w * 64 + j]) << j;
                out[begin / 64 + w] = bits;
            }
        }
    }

    static std::size_t count(const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode) {
        alignas(64) std::uint8_t bytes[chunk];
        std::size_t c = 0;
        for (std::size_t begin = 0; begin < n; begin += chunk) {
            const std::size_t len = n - begin < chunk ? n - begin : chunk;
            contains_bytes(f, keys + begin, len, mode, bytes);
            for (std::size_t j = 0; j < len; ++j) c += bytes[j];
        }
        return c;
    }

    static void hash(const std::uint64_t* keys, std::size_t n, KeyMode mode, std::uint64_t* out) {
        constexpr std::size_t lanes = u64x<Arch>::size;
        if (mode.kind != KeyMode::mix64) {
            if (n != 0) std::memcpy(out, keys, n * sizeof(std::uint64_t));
            return;
        }
        std::size_t i = 0;
        for (; i + lanes <= n; i += lanes) mix<Arch>(u64x<Arch>::load_unaligned(keys + i), mode.seed).store_unaligned(out + i);
        for (; i < n; ++i) out[i] = mix64(keys[i], mode.seed);
    }
};

}  // namespace batchbloom::detail::simd
