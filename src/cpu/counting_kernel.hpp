#pragma once
// The counting filter's kernels, written once over a "lanes" policy that says how a plane of
// a counter block is held in registers and how a key's pattern mask is built:
//
//   using V = ...;                  a register type with built-in & | ^ ~ (an unsigned word,
//                                   or a GCC vector such as __m256i)
//   static constexpr unsigned G;    registers per plane (a plane is shaped like a plain block)
//   static constexpr unsigned block_bytes;   bytes of a plain block = bytes of one plane
//   void mask(std::uint32_t h32, V* m) const;   the key's pattern, as G registers
//   static bool covers(V x, V m);                (x & m) == m
//
// A counter block is four planes; plane j holds bit j of every counter (counting.hpp).
// Counters are added to and subtracted from as bit-sliced 4-bit numbers: for the lanes of
// the mask, a ripple carry (or borrow) through the planes, skipping saturated counters.
#include <cstddef>
#include <cstdint>

#include "batchbloom/layout.hpp"
#include "engine/engine.hpp"

namespace batchbloom::detail::counting {

/// Scalar lanes: one plane word per register.
template <Shape S>
struct ScalarLanes {
    using T = layout::shape_traits<S>;
    using V = typename T::word_type;
    static constexpr unsigned G = T::words;
    static constexpr unsigned block_bytes = T::block_bytes;
    unsigned k;
    explicit ScalarLanes(unsigned k_) : k(k_) {}
    void mask(std::uint32_t h32, V* m) const {
        const auto p = layout::make_pattern<S>(h32, k);
        for (unsigned g = 0; g < G; ++g) m[g] = p.w[g];
    }
    static bool covers(V x, V m) { return (x & m) == m; }
};

template <class L>
inline bool all_positive(const typename L::V* b, const typename L::V* m) {
    constexpr unsigned G = L::G;
    bool ok = true;
    for (unsigned g = 0; g < G; ++g) ok &= L::covers(b[g] | b[G + g] | b[2 * G + g] | b[3 * G + g], m[g]);
    return ok;
}

/// +1 (Up) or -1 on the mask's counters that are below 15 (saturated ones stay), as a
/// bit-sliced add or subtract across the four planes: a plane bit flips where the carry (or
/// borrow) arrives, which then moves on where the bit was 1 (or 0). For -1 the caller has
/// checked the counters are all > 0, so every borrow ends inside the four planes.
template <bool Up, class L>
inline void step(typename L::V* b, const typename L::V* m) {
    using V = typename L::V;
    constexpr unsigned G = L::G;
    for (unsigned g = 0; g < G; ++g) {
        V carry = m[g] & ~(b[g] & b[G + g] & b[2 * G + g] & b[3 * G + g]);
        for (unsigned j = 0; j < 4; ++j) {
            V& plane = b[j * G + g];
            const V next = (Up ? plane : ~plane) & carry;
            plane ^= carry;
            carry = next;
        }
    }
}

/// Counter arrays larger than this are prefetched a few keys ahead (the plain filter's
/// threshold, src/cpu/simd/pipeline.hpp).
inline constexpr std::uint64_t prefetch_above_bytes = std::uint64_t(4) << 20;
inline constexpr std::size_t prefetch_distance = 16;

/// Calls op(i, counter block of key i, mask of key i) for each hash in order, prefetching the
/// counter blocks (4 planes) of the keys `prefetch_distance` ahead.
template <class L, bool Prefetch, bool Write, class Op>
inline void run(const CountingRef& f, const std::uint64_t* hashes, std::size_t n, const L& lanes, Op op) {
    constexpr std::size_t counter_block = 4 * L::block_bytes;
    auto block_of = [&](std::uint64_t h) { return f.data + layout::block_index(h, f.blocks) * counter_block; };
    for (std::size_t i = 0; i < n; ++i) {
        if constexpr (Prefetch) {
            if (i + prefetch_distance < n) {
                const std::byte* ahead = block_of(hashes[i + prefetch_distance]);
                for (std::size_t line = 0; line < counter_block; line += 64)
                    __builtin_prefetch(ahead + line, Write ? 1 : 0, 3);
            }
        }
        alignas(64) typename L::V m[L::G];
        lanes.mask(static_cast<std::uint32_t>(hashes[i]), m);
        op(i, reinterpret_cast<typename L::V*>(block_of(hashes[i])), m);
    }
}

/// The three bulk operations for lanes policies Lanes<S> (one per shape S).
template <template <Shape> class Lanes>
struct kernels {
    template <class Body>
    static void dispatch(const CountingRef& f, Body&& body) {
        layout::visit_shape(f.shape, [&](auto tag) {
            constexpr Shape S = decltype(tag)::value;
            const Lanes<S> lanes(f.k);
            const bool big = f.blocks * 4 * Lanes<S>::block_bytes > prefetch_above_bytes;
            if (big) body.template operator()<Lanes<S>, true>(lanes);
            else body.template operator()<Lanes<S>, false>(lanes);
        });
    }

    static void insert(const CountingRef& f, const std::uint64_t* hashes, std::size_t n) {
        dispatch(f, [&]<class L, bool Pf>(const L& lanes) {
            run<L, Pf, true>(f, hashes, n, lanes,
                             [](std::size_t, typename L::V* b, const typename L::V* m) { step<true, L>(b, m); });
        });
    }

    static std::size_t erase(const CountingRef& f, const std::uint64_t* hashes, std::size_t n, std::uint8_t* out) {
        std::size_t erased = 0;
        dispatch(f, [&]<class L, bool Pf>(const L& lanes) {
            run<L, Pf, true>(f, hashes, n, lanes, [&erased, out](std::size_t i, typename L::V* b, const typename L::V* m) {
                const bool ok = all_positive<L>(b, m);
                if (ok) step<false, L>(b, m);
                erased += ok;
                if (out != nullptr) out[i] = ok;
            });
        });
        return erased;
    }

    static void contains(const CountingRef& f, const std::uint64_t* hashes, std::size_t n, std::uint8_t* out) {
        dispatch(f, [&]<class L, bool Pf>(const L& lanes) {
            run<L, Pf, false>(f, hashes, n, lanes, [out](std::size_t i, typename L::V* b, const typename L::V* m) {
                out[i] = all_positive<L>(b, m);
            });
        });
    }
};

}  // namespace batchbloom::detail::counting
