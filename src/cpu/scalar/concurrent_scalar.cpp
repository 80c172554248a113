// The kernels of ConcurrentFilter (include/batchbloom/concurrent.hpp, where the memory-ordering
// argument is): the blocked layout's patterns, each word set with a relaxed atomic OR (skipped
// where the word already holds the bits: no write, so no cache-line ownership taken, for repeated
// keys and full words) and read with a relaxed atomic load. Atomic operations are per word, so
// no SIMD engine has these; they prefetch the blocks of the keys ahead (pipelined.hpp), as the
// other engines' pipelines do, for filters beyond the cache.
#include <atomic>

#include "cpu/scalar/pipelined.hpp"
#include "engine/engine.hpp"

namespace batchbloom::detail {
namespace {

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
