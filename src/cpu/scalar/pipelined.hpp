#pragma once
// Key by key over a blocked filter, with the block of the key `pipeline_window` places ahead
// prefetched meanwhile, as the SIMD engines' pipelines do, for filters beyond the cache: the
// concurrent filter's atomic kernels go one key at a time, which no SIMD engine does (the
// scalable filter's measured insert, filters/scalable.cpp, writes the same loop out so that it
// compiles whole for the POPCNT instruction).
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "batchbloom/hash.hpp"
#include "batchbloom/layout.hpp"
#include "engine/engine.hpp"

namespace batchbloom::detail {

inline constexpr std::size_t pipeline_window = 16;

/// Calls visit(i, block of key i, low 32 bits of its hash) for each key, in order, with the
/// block of key i + pipeline_window prefetched meanwhile. A visit that returns bool stops the
/// walk at the first false; returns how many keys were visited before that (n if none).
template <Shape S, bool Write, class Visit>
std::size_t pipelined(const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode, Visit&& visit) {
    using T = layout::shape_traits<S>;
    using word = typename T::word_type;
    constexpr std::size_t window = pipeline_window;
    auto* const base = reinterpret_cast<word*>(f.data);
    std::uint64_t h[window];
    const auto hash_of = [&](std::size_t i) { return mode.kind == KeyMode::mix64 ? mix64(keys[i], mode.seed) : keys[i]; };
    const auto fill = [&](std::size_t i) {
        h[i % window] = hash_of(i);
        __builtin_prefetch(base + layout::block_index(h[i % window], f.blocks) * T::words, Write ? 1 : 0, 3);
    };
    for (std::size_t i = 0; i < n && i < window; ++i) fill(i);
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint64_t hi = h[i % window];
        if (i + window < n) fill(i + window);
        word* const block = base + layout::block_index(hi, f.blocks) * T::words;
        if constexpr (std::is_same_v<decltype(visit(i, block, std::uint32_t{})), bool>) {
            if (!visit(i, block, static_cast<std::uint32_t>(hi))) return i;
        } else {
            visit(i, block, static_cast<std::uint32_t>(hi));
        }
    }
    return n;
}

}  // namespace batchbloom::detail
