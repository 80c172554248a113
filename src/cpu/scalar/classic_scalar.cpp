// The classic filter's kernels: k positions over the whole bit array per key (the scheme's
// rule, core/classic_scheme.hpp). Out of cache a key costs k cache misses, so the kernels run
// a software pipeline: while key i is handled, the positions of key i + window are computed
// and their words prefetched, so that window * k misses are in flight instead of one.
//
// These are the only classic kernels. An AVX-512 probe that gathered the k words of eight keys
// at a time was tried and removed: every gather waits for its misses, so it measured slower
// than this pipeline on every machine tried (Zen 4: 22.9 vs 13.7 ns/key at 1M keys, 166 vs 26
// at 10M; Zen 5: 107 vs 14.5).
#include <algorithm>
#include <atomic>
#include <vector>

#include "core/classic_scheme.hpp"
#include "engine/engine.hpp"

namespace batchbloom::detail {
namespace {

constexpr std::size_t window = 8;

/// Calls visit(i, positions of key i) for each start in order, the positions of the keys
/// `window` ahead computed and prefetched meanwhile.
template <class Scheme, class Visit>
void pipelined(const ClassicRef& f, const std::uint64_t* starts, std::size_t n, Visit&& visit) {
    std::vector<std::uint64_t> pos(window * f.k);
    const auto fill = [&](std::size_t i) {
        auto probe = Scheme::begin(starts[i]);
        std::uint64_t* slot = pos.data() + (i % window) * f.k;
        for (unsigned j = 0; j < f.k; ++j) {
            slot[j] = Scheme::next(probe, f.bits);
            __builtin_prefetch(f.words + (slot[j] >> 6));
        }
    };
    for (std::size_t i = 0; i < std::min(window, n); ++i) fill(i);
    for (std::size_t i = 0; i < n; ++i) {
        visit(i, static_cast<const std::uint64_t*>(pos.data() + (i % window) * f.k));
        if (i + window < n) fill(i + window);
    }
}

/// Sets the keys' bits; `Shared`: other threads set bits in the same words at the same time,
/// so each word is ORed atomically (relaxed: OR commutes, so the bits are the same).
template <bool Shared>
void insert_as(const ClassicRef& f, const std::uint64_t* starts, std::size_t n) {
    with_scheme(f.scheme, [&]<class Scheme>(Scheme) {
        pipelined<Scheme>(f, starts, n, [&](std::size_t, const std::uint64_t* pos) {
            for (unsigned j = 0; j < f.k; ++j) {
                const std::uint64_t bit = std::uint64_t(1) << (pos[j] & 63);
                if constexpr (Shared)
                    std::atomic_ref<std::uint64_t>(f.words[pos[j] >> 6]).fetch_or(bit, std::memory_order_relaxed);
                else
                    f.words[pos[j] >> 6] |= bit;
            }
        });
    });
}

void insert(const ClassicRef& f, const std::uint64_t* starts, std::size_t n, bool shared) {
    if (shared) return insert_as<true>(f, starts, n);
    insert_as<false>(f, starts, n);
}

void contains(const ClassicRef& f, const std::uint64_t* starts, std::size_t n, std::uint8_t* out) {
    with_scheme(f.scheme, [&]<class Scheme>(Scheme) {
        pipelined<Scheme>(f, starts, n, [&](std::size_t i, const std::uint64_t* pos) {
            std::uint64_t all = 1;
            for (unsigned j = 0; j < f.k; ++j) all &= f.words[pos[j] >> 6] >> (pos[j] & 63);
            out[i] = static_cast<std::uint8_t>(all & 1);
        });
    });
}

}  // namespace

constinit const ClassicKernels scalar_classic{Backend::scalar, insert, contains};

}  // namespace batchbloom::detail
