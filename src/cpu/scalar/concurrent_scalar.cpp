// The kernels of ConcurrentFilter (include/batchbloom/concurrent.hpp, where the memory-ordering
// argument is): the blocked layout's patterns, each word set with a relaxed atomic OR (skipped
// where the word already holds the bits: no write, so no cache-line ownership taken, for repeated
// keys and full words) and read with a relaxed atomic load. Atomic operations are per word, so
// no SIMD engine has these; they prefetch the blocks of the keys `window` places ahead, as the
// other engines' pipelines do, for filters beyond the cache.
#include <atomic>

#include "batchbloom/hash.hpp"
#include "engine/engine.hpp"

namespace batchbloom::detail {
namespace {

constexpr std::size_t window = 16;

/// Calls visit(i, block of key i, low 32 bits of its hash) for each key, in order, with the
/// block of key i + window prefetched meanwhile.
template <Shape S, bool Write, class Visit>
void pipelined(const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode, Visit&& visit) {
    using T = layout::shape_traits<S>;
    using word = typename T::word_type;
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
        visit(i, base + layout::block_index(hi, f.blocks) * T::words, static_cast<std::uint32_t>(hi));
    }
}

void insert(const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode) {
    layout::visit_shape(f.shape, [&](auto tag) {
        constexpr Shape S = decltype(tag)::value;
        using word = typename layout::shape_traits<S>::word_type;
        pipelined<S, true>(f, keys, n, mode, [&](std::size_t, word* block, std::uint32_t h32) {
            const auto p = layout::make_pattern<S>(h32, f.k);
            for (unsigned j = 0; j < layout::shape_traits<S>::words; ++j) {
                if (p.w[j] == 0) continue;
                std::atomic_ref<word> w(block[j]);
                if ((w.load(std::memory_order_relaxed) & p.w[j]) != p.w[j]) w.fetch_or(p.w[j], std::memory_order_relaxed);
            }
        });
    });
}

void contains_bytes(const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode, std::uint8_t* out) {
    layout::visit_shape(f.shape, [&](auto tag) {
        constexpr Shape S = decltype(tag)::value;
        using word = typename layout::shape_traits<S>::word_type;
        pipelined<S, false>(f, keys, n, mode, [&](std::size_t i, word* block, std::uint32_t h32) {
            const auto p = layout::make_pattern<S>(h32, f.k);
            bool all = true;
            for (unsigned j = 0; j < layout::shape_traits<S>::words; ++j)
                all &= (std::atomic_ref<word>(block[j]).load(std::memory_order_relaxed) & p.w[j]) == p.w[j];
            out[i] = all;
        });
    });
}

}  // namespace

constinit const ConcurrentKernels scalar_concurrent{Backend::scalar, insert, contains_bytes};

}  // namespace batchbloom::detail
