#pragma once
// The SIMD engines' kernels for the partitioned batch path (batch/blocked_paths.cpp), generic over the
// architecture like pipeline.hpp: a group of keys is hashed and its regions found in vector
// registers for the scatter (cpu/partition_kernel.hpp), and a bucket's hashes, whose blocks
// lie in a region already in cache, are tested or set with the engine's block operations and
// no prefetching, their block indices computed a vector at a time.
#include <immintrin.h>

#include <type_traits>

#include "cpu/partition_kernel.hpp"
#include "cpu/simd/pipeline.hpp"

namespace batchbloom::detail::simd {

template <class Arch>
struct partition_kernels {
    using B = u64x<Arch>;
    static constexpr bool wide = std::is_same_v<Arch, xsimd::avx512bw>;

    // ---- the scatter's policy (partition_kernel.hpp) ----
    static constexpr std::size_t group = 8;
    static void regions(const std::uint64_t* keys, KeyMode mode, const partition::Buckets& b, std::uint64_t* h,
                        partition::region_id* ids) {
        alignas(64) std::uint64_t r[group];
        for (std::size_t i = 0; i < group; i += B::size) {
            B x = B::load_unaligned(keys + i);
            if (mode.kind == KeyMode::mix64) x = mix<Arch>(x, mode.seed);
            store_lanes<Arch>(x, h + i);
            const B region = isa<Arch>::scale32(x >> 32, b.blocks) >> b.shift;
            if constexpr (wide)
                _mm_storeu_si128(reinterpret_cast<__m128i*>(ids), _mm512_cvtepi64_epi16(region));
            else
                region.store_aligned(r + i);
        }
        if constexpr (!wide)
            for (std::size_t i = 0; i < group; ++i) ids[i] = static_cast<partition::region_id>(r[i]);
    }
    static void stream(std::uint64_t* dst, const std::uint64_t* src) {
        if constexpr (wide) {
            _mm512_stream_si512(reinterpret_cast<__m512i*>(dst), _mm512_load_si512(src));
        } else {
            auto* d = reinterpret_cast<__m256i*>(dst);
            const auto* s = reinterpret_cast<const __m256i*>(src);
            _mm256_stream_si256(d, _mm256_load_si256(s));
            _mm256_stream_si256(d + 1, _mm256_load_si256(s + 1));
        }
    }
    static void fence() { _mm_sfence(); }

    static std::size_t scatter(const partition::Buckets& b, const std::uint64_t* keys, std::size_t n, KeyMode mode) {
        return partition::scatter<partition_kernels>(b, keys, n, mode);
    }

    // ---- the in-region kernels ----
    template <Shape S, bool Two, Out O>
    static std::size_t run(const FilterRef& f, const std::uint64_t* hashes, std::size_t n, std::uint64_t* out) {
        using T = layout::shape_traits<S>;
        using word = typename T::word_type;
        constexpr std::size_t lanes = B::size;
        word* const base = reinterpret_cast<word*>(f.data);
        const typename isa<Arch>::template block<S, Two> ops(f.k);
        // Block indices a vector at a time, `ahead` groups before their keys are processed,
        // when their lines are prefetched: the region is in L2 (or L3), and the loads of
        // the few keys in flight alone would not cover even that latency.
        constexpr std::size_t ahead = 2, slots = 4;
        alignas(64) std::uint64_t blk[slots * lanes];
        const std::size_t groups = n / lanes;
        auto prepare = [&](std::size_t g) {
            std::uint64_t* const b = blk + g % slots * lanes;
            store_lanes<Arch>(isa<Arch>::scale32(B::load_unaligned(hashes + g * lanes) >> 32, f.blocks), b);
            for (std::size_t j = 0; j < lanes; ++j) __builtin_prefetch(base + b[j] * T::words, 0, 3);
        };
        std::size_t found = 0;
        BitmapOut bitmap{out};
        auto one = [&](std::size_t i, std::uint64_t block) {
            word* const p = base + block * T::words;
            const auto h32 = static_cast<std::uint32_t>(hashes[i]);
            if constexpr (O == Out::insert) {
                ops.set(p, h32);
            } else {
                const bool hit = ops.test(p, h32);
                if constexpr (O == Out::bits) bitmap.add(i, hit);
                if constexpr (O == Out::count) found += hit;
            }
        };
        for (std::size_t g = 0; g < ahead && g < groups; ++g) prepare(g);
        for (std::size_t g = 0; g < groups; ++g) {
            if (g + ahead < groups) prepare(g + ahead);
            const std::uint64_t* const b = blk + g % slots * lanes;
            for (std::size_t j = 0; j < lanes; ++j) one(g * lanes + j, b[j]);
            if constexpr (O == Out::bits) bitmap.group_done(g * lanes, lanes);
        }
        for (std::size_t i = groups * lanes; i < n; ++i) one(i, layout::block_index(hashes[i], f.blocks));
        if constexpr (O == Out::bits) bitmap.finish(n);
        return found;
    }
    template <Out O>
    static std::size_t pass(const FilterRef& f, const std::uint64_t* hashes, std::size_t n, std::uint64_t* out) {
        return with_blocks(f, [&]<Shape S, bool Two>() { return run<S, Two, O>(f, hashes, n, out); });
    }
    static void insert(const FilterRef& f, const std::uint64_t* hashes, std::size_t n) {
        pass<Out::insert>(f, hashes, n, nullptr);
    }
    static void contains(const FilterRef& f, const std::uint64_t* hashes, std::size_t n, std::uint64_t* out) {
        pass<Out::bits>(f, hashes, n, out);
    }
    static std::size_t count(const FilterRef& f, const std::uint64_t* hashes, std::size_t n) {
        return pass<Out::count>(f, hashes, n, nullptr);
    }
};

/// The blocked-filter kernel tables of the engine built for Arch, for the constinit objects of
/// its translation unit (constant data: taking the kernels' addresses runs nothing).
template <class Arch>
constexpr PartitionKernels partition_table() {
    using P = partition_kernels<Arch>;
    return {P::scatter, P::insert, P::contains, P::count};
}
template <class Arch>
constexpr BlockedKernels blocked_table(Backend backend, const PartitionKernels* partition) {
    using K = kernels<Arch>;
    return {backend, K::insert, K::contains_bytes, K::contains_bits, K::count, K::hash, partition};
}

}  // namespace batchbloom::detail::simd
