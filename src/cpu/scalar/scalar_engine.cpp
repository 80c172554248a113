// The reference engine: one key at a time, straight from layout.hpp. It is deliberately
// plain — every other engine is tested bit for bit against it — except that, like the others,
// it hashes keys `FilterRef::prefetch` ahead of the one it works on and prefetches their
// blocks, so that out of cache it waits for memory as little as they do. Its kernels for the
// other filter types are in the files beside this one.
#include <algorithm>
#include <utility>

#include "batchbloom/hash.hpp"
#include "cpu/partition_kernel.hpp"
#include "engine/engine.hpp"

namespace batchbloom::detail {
namespace {

std::uint64_t to_hash(std::uint64_t key, KeyMode mode) {
    return mode.kind == KeyMode::mix64 ? mix64(key, mode.seed) : key;
}

template <Shape S>
auto* block_of(const FilterRef& f, std::uint64_t h) {
    using T = layout::shape_traits<S>;
    auto* words = reinterpret_cast<typename T::word_type*>(f.data);
    return words + layout::block_index(h, f.blocks) * T::words;
}

/// Key h's k bits, one at a time from layout::bit_position (the definition the patterns of
/// layout.hpp are built from), with k a constant so the loop unrolls into straight-line code.
template <Shape S, unsigned K>
bool probe_one(const FilterRef& f, std::uint64_t h) {
    using T = layout::shape_traits<S>;
    const auto* b = block_of<S>(f, h);
    const auto h32 = static_cast<std::uint32_t>(h);
    typename T::word_type all = 1;
    for (unsigned i = 0; i < K; ++i) {
        const unsigned pos = layout::bit_position<S>(h32, i);
        if constexpr (T::one_bit_per_word)
            all &= b[i % T::words] >> pos;
        else
            all &= b[pos / T::word_bits] >> (pos % T::word_bits);
    }
    return all & 1;
}
template <Shape S, unsigned K>
void insert_one(const FilterRef& f, std::uint64_t h) {
    using T = layout::shape_traits<S>;
    using word = typename T::word_type;
    auto* b = block_of<S>(f, h);
    const auto h32 = static_cast<std::uint32_t>(h);
    for (unsigned i = 0; i < K; ++i) {
        const unsigned pos = layout::bit_position<S>(h32, i);
        if constexpr (T::one_bit_per_word)
            b[i % T::words] |= word(1) << pos;
        else
            b[pos / T::word_bits] |= word(1) << (pos % T::word_bits);
    }
}

/// body.template operator()<S, K>() for the filter's shape and k.
template <class Body>
void specialize(const FilterRef& f, Body&& body) {
    layout::visit_shape(f.shape, [&](auto tag) {
        constexpr Shape S = decltype(tag)::value;
        [&]<unsigned... K>(std::integer_sequence<unsigned, K...>) {
            (void)((f.k == K + 1 ? (body.template operator()<S, K + 1>(), true) : false) || ...);
        }(std::make_integer_sequence<unsigned, layout::max_k>{});
    });
}

/// Calls fn(i, hash of keys[i]) for every key in order. With f.prefetch, the block of the key
/// that far ahead is prefetched into L2, and that of the key `near` ahead into L1 (as the SIMD
/// engines do, simd/pipeline.hpp). A filter restricted to a block range (FilterRef::owns)
/// skips the keys outside it.
template <Shape S, class Fn>
void each_hash(const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode, Fn fn) {
    constexpr std::size_t ring = 1024, near = 4;
    const bool all = f.owns_all();
    if (f.prefetch == 0) {
        for (std::size_t i = 0; i < n; ++i) {
            const std::uint64_t h = to_hash(keys[i], mode);
            if (all || f.owns(layout::block_index(h, f.blocks))) fn(i, h);
        }
        return;
    }
    // A ring of the hashes of keys to be processed, with `ahead` of them in flight; a key
    // outside the block range is written to the ring and then overwritten, so that skipping
    // it costs no branch, and what is prefetched in its stead is the previous key's block.
    const std::size_t ahead = std::clamp<std::size_t>(f.prefetch, near, ring - 1);
    std::uint64_t hash[ring];
    std::size_t index[ring];
    std::size_t head = 0, tail = 0;  // ring positions written and processed
    const void* last = block_of<S>(f, 0);
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint64_t h = to_hash(keys[i], mode);
        const std::uint64_t b = layout::block_index(h, f.blocks);
        const bool mine = all || f.owns(b);
        hash[head % ring] = h;
        index[head % ring] = i;
        last = mine ? static_cast<const void*>(block_of<S>(f, h)) : last;
        __builtin_prefetch(last, 0, 1);
        head += mine;
        if (head - tail > ahead) {
            if (tail + near < head) __builtin_prefetch(block_of<S>(f, hash[(tail + near) % ring]), 0, 3);
            fn(index[tail % ring], hash[tail % ring]);
            ++tail;
        }
    }
    for (; tail < head; ++tail) fn(index[tail % ring], hash[tail % ring]);
}

void insert(const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode) {
    specialize(f, [&]<Shape S, unsigned K>() {
        each_hash<S>(f, keys, n, mode, [&](std::size_t, std::uint64_t h) { insert_one<S, K>(f, h); });
    });
}

void contains_bytes(const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode, std::uint8_t* out) {
    specialize(f, [&]<Shape S, unsigned K>() {
        each_hash<S>(f, keys, n, mode, [&](std::size_t i, std::uint64_t h) { out[i] = probe_one<S, K>(f, h); });
    });
}

void contains_bits(const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode, std::uint64_t* out) {
    specialize(f, [&]<Shape S, unsigned K>() {
        std::uint64_t bits = 0;
        each_hash<S>(f, keys, n, mode, [&](std::size_t i, std::uint64_t h) {
            bits |= std::uint64_t(probe_one<S, K>(f, h)) << (i % 64);
            if (i % 64 == 63 || i + 1 == n) {
                out[i / 64] = bits;
                bits = 0;
            }
        });
    });
}

std::size_t count(const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode) {
    std::size_t c = 0;
    specialize(f, [&]<Shape S, unsigned K>() {
        each_hash<S>(f, keys, n, mode, [&](std::size_t, std::uint64_t h) { c += probe_one<S, K>(f, h); });
    });
    return c;
}

void hash(const std::uint64_t* keys, std::size_t n, KeyMode mode, std::uint64_t* out) {
    for (std::size_t i = 0; i < n; ++i) out[i] = to_hash(keys[i], mode);
}

/// The partitioned path's kernels: the scatter one key at a time, and the plain kernels above
/// on hashes (the batch layer hands them regions with no prefetch distance).
struct partition_policy {
    static constexpr std::size_t group = 1;
    static void regions(const std::uint64_t* keys, KeyMode mode, const partition::Buckets& b, std::uint64_t* h,
                        partition::region_id* ids) {
        partition::region_of(*keys, mode, b, *h, *ids);
    }
    static void stream(std::uint64_t* dst, const std::uint64_t* src) { std::copy_n(src, partition::line, dst); }
    static void fence() {}
};
constexpr KeyMode hashed{KeyMode::hashed, 0};
std::size_t scatter(const partition::Buckets& b, const std::uint64_t* keys, std::size_t n, KeyMode mode) {
    return partition::scatter<partition_policy>(b, keys, n, mode);
}
void region_insert(const FilterRef& f, const std::uint64_t* h, std::size_t n) { insert(f, h, n, hashed); }
void region_contains(const FilterRef& f, const std::uint64_t* h, std::size_t n, std::uint64_t* out) {
    contains_bits(f, h, n, hashed, out);
}
std::size_t region_count(const FilterRef& f, const std::uint64_t* h, std::size_t n) { return count(f, h, n, hashed); }

bool always() { return true; }

constinit const PartitionKernels scalar_partition{scatter, region_insert, region_contains, region_count};

}  // namespace

constinit const BlockedKernels scalar_blocked{Backend::scalar, insert, contains_bytes, contains_bits, count, hash,
                                              &scalar_partition};

// Every kernel of every filter type: the oracle, and the end of every fallback chain.
constinit const Engine scalar_engine{Backend::scalar,   "scalar",         always,           true,
                                     &scalar_blocked,   &scalar_concurrent, &scalar_counting, &scalar_deletable,
                                     &scalar_classic};

}  // namespace batchbloom::detail
