#pragma once
// The SIMD engine, written once and generic over the architecture. Included only by the
// per-ISA translation units (avx2.cpp, avx512.cpp), each compiled with its own ISA flags;
// everything here is a template on the architecture, so no instantiation can leak into code
// that runs on a CPU without that ISA.
//
// Bulk operations on filters larger than the cache (FilterRef::prefetch != 0) run as a
// two-stage software pipeline over groups of one key per SIMD lane:
//   stage 1: hash a group with one key per lane, scale the hashes to block indices, and
//            prefetch those blocks;
//   stage 2: test or set the blocks of the group `prefetch` keys behind, one key at a time,
//            each block as one or two vector registers and each pattern built in registers
//            (block_ops.hpp, avx512.cpp).
// The distance comes from the caller (FilterRef::prefetch): it is how many cache lines the
// machine needs in flight, which differs between machines by 4x and more.
// On filters the cache holds (prefetch == 0) there is nothing to wait for but instructions,
// and run_cached does the least per key: groups are hashed in registers a little ahead into a
// buffer of two groups, with no ring and no prefetching.
#include <xsimd/xsimd.hpp>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "batchbloom/hash.hpp"
#include "batchbloom/layout.hpp"
#include "engine/engine.hpp"

namespace batchbloom::detail::simd {

/// Arch-specific pieces, specialized per instruction set in block_ops.hpp:
///   static batch mul64(batch, std::uint64_t)      low 64 bits of the product
///   static batch scale32(batch hi32, std::uint64_t blocks)   (hi32 * blocks) >> 32
///   template <Shape S, bool Two> using block = ...;  block(k); bool test(const word*, std::uint32_t) const;
///                                          void set(word*, std::uint32_t) const
///   (Two: patterns of more than 8 bits, which take a second round of lanes; see with_blocks)
///   optionally, static void store_lanes(batch, std::uint64_t*)   an aligned store that scalar
///                                          loads read back soon after (store_lanes below)
///   optionally, static unsigned keep(...)   a group's lanes of a block range, compressed (run_owned)
template <class Arch>
struct isa;

template <class Arch>
using u64x = xsimd::batch<std::uint64_t, Arch>;

/// Stores a vector of hashes or block addresses that scalar loads read back soon after: where
/// the engine stores it in halves (isa::store_lanes), as it says.
template <class Arch>
[[gnu::always_inline]] inline void store_lanes(u64x<Arch> v, std::uint64_t* to) {
    if constexpr (requires { isa<Arch>::store_lanes(v, to); })
        isa<Arch>::store_lanes(v, to);
    else
        v.store_aligned(to);
}

/// mix64 (hash.hpp) on every lane.
/// Always inlined: compilers left it a call in some kernels, which then spilled the group's
/// registers around it (a third more instructions per key in an in-cache probe).
template <class Arch>
[[gnu::always_inline]] inline u64x<Arch> mix(u64x<Arch> key, std::uint64_t seed) {
    using B = u64x<Arch>;
    B z = (key ^ B(seed)) + B(0x9E3779B97F4A7C15ULL);
    z = isa<Arch>::mul64(z ^ (z >> 30), 0xBF58476D1CE4E5B9ULL);
    z = isa<Arch>::mul64(z ^ (z >> 27), 0x94D049BB133111EBULL);
    return z ^ (z >> 31);
}

/// Hashes of keys not yet tested live in a ring of this many entries (two L1-resident arrays),
/// which bounds the prefetch distance.
inline constexpr std::size_t ring = 1024;

/// f(std::bool_constant<b>{}) : a run-time flag as a compile-time one.
template <class F>
inline decltype(auto) with_bool(bool b, F&& f) {
    return b ? f(std::true_type{}) : f(std::false_type{});
}

/// body.template operator()<S, Two>() for the filter's shape and whether its patterns take a
/// second round of lanes (k > 8): kernels are compiled for both, so a k <= 8 filter never
/// computes the second round.
template <class Body>
inline decltype(auto) with_blocks(const FilterRef& f, Body&& body) {
    return layout::visit_shape(f.shape, [&](auto tag) -> decltype(auto) {
        return with_bool(f.k > 8, [&](auto two) -> decltype(auto) {
            return body.template operator()<decltype(tag)::value, decltype(two)::value>();
        });
    });
}

/// The keys `key_ahead` ahead of the group being hashed into L1, a line for each line hashed,
/// wherever blocks are prefetched. The keys are read in order, yet beside the random block
/// prefetches the hardware's own prefetcher left their loads missing: on a Xeon VM, 28% of a
/// two-thread direct insert's samples sat on the key load, and with this line the direct
/// path ran faster out of cache (docs/design.md, "The batch code's constants"). `at` counts keys from the batch's first.
inline constexpr std::size_t key_ahead = 256;
inline void prefetch_keys(const std::uint64_t* keys, std::size_t at, std::size_t n) {
    if (at % 8 == 0 && at + key_ahead < n) __builtin_prefetch(keys + at + key_ahead, 0, 3);
}

/// What a pass over the keys produces.
enum class Out : std::uint8_t { insert, bytes, bits, count };

/// Answers packed into a bitmap (out: uint64_t[ceil(n/64)], bits past n zero) as a pass
/// produces them in order, in groups of `lanes` keys (lanes divides 64, so a word is whole
/// groups): add() each answer, group_done() after each whole group, finish() at the end.
struct BitmapOut {
    std::uint64_t* out;
    std::uint64_t bits = 0;
    void add(std::size_t i, bool hit) { bits |= std::uint64_t(hit) << (i % 64); }
    void group_done(std::size_t first, std::size_t lanes) {  // the group of keys [first, first + lanes)
        if ((first + lanes) % 64 == 0) {
            out[first / 64] = bits;
            bits = 0;
        }
    }
    void finish(std::size_t n) const {
        if (n % 64 != 0) out[n / 64] = bits;
    }
};

/// Calls one(i, hash, block) for keys[i], i in [0, n) with n < the lanes of one vector: the
/// last few keys of a batch, one lane at a time with the same math as
/// the vectors.
template <bool Mix, class One>
inline void each_tail_key(const std::uint64_t* keys, std::size_t n, std::uint64_t seed, std::uint64_t blocks, One&& one) {
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint64_t h = Mix ? mix64(keys[i], seed) : keys[i];
        one(i, h, layout::block_index(h, blocks));
    }
}

/// Hashes keys[0, n) (n <= the lanes of one vector) into hash[0, n) and their blocks into block[0, n).
template <class Arch, bool Mix>
inline void hash_group(const std::uint64_t* keys, std::size_t n, std::uint64_t seed, std::uint64_t blocks,
                       std::uint64_t* hash, std::uint64_t* block) {
    if (n == u64x<Arch>::size) {
        u64x<Arch> h = u64x<Arch>::load_unaligned(keys);
        if constexpr (Mix) h = mix<Arch>(h, seed);
        store_lanes<Arch>(h, hash);
        store_lanes<Arch>(isa<Arch>::scale32(h >> 32, blocks), block);
        return;
    }
    each_tail_key<Mix>(keys, n, seed, blocks, [&](std::size_t i, std::uint64_t h, std::uint64_t b) {
        hash[i] = h;
        block[i] = b;
    });
}

/// Sets or tests key i's block, by what the pass produces (see run).
template <Out O, class Ops, class Word>
inline void apply(const Ops& ops, Word* block, std::uint32_t h32, std::size_t i, void* out, std::size_t& found,
                  BitmapOut& bitmap) {
    if constexpr (O == Out::insert) {
        ops.set(block, h32);
    } else {
        const bool hit = ops.test(block, h32);
        if constexpr (O == Out::bytes) static_cast<std::uint8_t*>(out)[i] = hit;
        if constexpr (O == Out::count) found += hit;
        if constexpr (O == Out::bits) bitmap.add(i, hit);
    }
}

/// One pass over keys[0, n) of a filter larger than the cache: inserts them, or writes their
/// answers as bytes (out: uint8_t[n]), as a bitmap (out: uint64_t[ceil(n/64)], bits past n
/// zero), or returns how many are present. A key's block is prefetched into L2 f.prefetch
/// keys ahead (where its line waits without holding one of the few L1 miss buffers) and into
/// L1 `near` keys ahead.
template <class Arch, Shape S, bool Two, bool Mix, Out O>
inline std::size_t run(const FilterRef& f, const std::uint64_t* keys, std::size_t n, std::uint64_t seed, void* out) {
    using T = layout::shape_traits<S>;
    using word = typename T::word_type;
    constexpr std::size_t lanes = u64x<Arch>::size;
    word* const base = reinterpret_cast<word*>(f.data);
    const typename isa<Arch>::template block<S, Two> ops(f.k);
    // Distances are whole groups, so a group never wraps around the ring.
    constexpr std::size_t near = lanes;
    const std::size_t ahead = std::max(near, (std::min<std::size_t>(f.prefetch, ring - 2 * lanes) + lanes - 1) / lanes * lanes);
    alignas(64) std::uint64_t hash[ring];
    alignas(64) std::uint64_t block[ring];
    std::size_t found = 0;
    BitmapOut bitmap{static_cast<std::uint64_t*>(out)};

    // A group's blocks are prefetched when the next group is hashed: prefetched as they were
    // hashed, each prefetch waited on the group's mix64 and on its store to the ring (Xeon VM,
    // AVX2 probes of 10M and 30M keys: 3.9 and 5.1 ns a key, against 3.7 and 4.55).
    auto stage1 = [&](std::size_t at) {
        const std::size_t s = at % ring, len = n - at < lanes ? n - at : lanes;
        prefetch_keys(keys, at, n);
        hash_group<Arch, Mix>(keys + at, len, seed, f.blocks, hash + s, block + s);
        if (at >= lanes) {  // the group before, always whole
            const std::size_t p = (at - lanes) % ring;
            for (std::size_t j = 0; j < lanes; ++j) __builtin_prefetch(base + block[p + j] * T::words, 0, 1);
        }
    };
    auto stage2 = [&](std::size_t i, std::size_t len) {
        const std::size_t s = i % ring;
        for (std::size_t j = 0; j < len; ++j)
            apply<O>(ops, base + block[s + j] * T::words, static_cast<std::uint32_t>(hash[s + j]), i + j, out, found, bitmap);
    };

    std::size_t next = 0;  // first key not hashed yet; after the prologue, the group `ahead` past i
    for (; next < n && next <= ahead; next += lanes) stage1(next);
    const std::size_t full = n - n % lanes;
    std::size_t i = 0;
    for (; i < full; i += lanes) {
        if (next < n) {
            stage1(next);
            next += lanes;
        }
        if (i + near + lanes <= n) {
            const std::size_t s = (i + near) % ring;
            for (std::size_t j = 0; j < lanes; ++j) __builtin_prefetch(base + block[s + j] * T::words, 0, 3);
        }
        stage2(i, lanes);
        if constexpr (O == Out::bits) bitmap.group_done(i, lanes);
    }
    if (i < n) stage2(i, n - i);
    if constexpr (O == Out::bits) bitmap.finish(n);
    return found;
}

/// Groups run_cached hashes ahead of the one being processed: a group's hashes come out of
/// mix64's two dependent 64-bit multiplies some 45 cycles after its keys are loaded on Intel
/// cores (vpmullq), longer than processing a group takes, so hashing only the next group left
/// every test waiting on it. On a Xeon (AVX-512), hashing 2 to 9 groups ahead ran 15-25%
/// faster than 1, with filters in L1 and in L2 alike.
inline constexpr std::size_t cached_ahead = 2;

/// Keys run_cached prefetches ahead of those it loads, one prefetch per line of keys. A filter
/// the cache holds leaves the keys' own stream as the memory that run_cached waits on, and the
/// hardware's prefetchers did not keep up with it: on a Xeon VM, 64K-key batches through a
/// 19 KiB join filter, keys streamed from memory, AVX2 took 6.1-6.4 ns a key against 2.2 with
/// the same keys in cache, AVX-512 2.4 against 1.4; prefetched 128, 256 and 512 keys ahead,
/// 2.5 / 2.2 / 2.4 and 1.7 / 1.5 / 1.6 (docs/design.md, "The limit a probe runs against").
inline constexpr std::size_t keys_ahead = 256;

/// The lanes of a slot, read from memory at each use (one load each, folded into the address
/// of what uses it), rather than each kept in a register of its own from the vector they were
/// stored from: for two groups that took eight registers, and a probe then spilled its answers.
inline const volatile std::uint64_t* in_memory(const std::uint64_t* slot) { return slot; }

/// run() for a filter the cache holds (prefetch == 0), at the fewest instructions per key
/// (with Near, f.prefetch_near, two more: each block prefetched into L1 as its address is
/// stored; a template parameter, since a test of the flag per group cost half an instruction per key):
/// groups of keys are hashed in registers cached_ahead groups before they are processed, and
/// each group's hashes and its blocks' addresses are stored to its slot of a buffer of that
/// many groups, which a later iteration reads: each key broadcasts its hash and addresses its
/// block straight from there, one instruction each. The loop is unrolled by the slots, so no
/// instruction computes one. (Read in the iteration that wrote them, compilers took the lanes
/// out of the registers instead, with a shuffle and an add per key: AVX2, word512, hashes
/// given, 16.25 instead of 14.75 instructions per key, bench/callgrind_ipk.sh.) The first and
/// last groups are unrolled by the slots too, and the lambdas forced inline: a tail loop over
/// slots by a run-time index left the per-key lambda a call, which put the pattern's salts on
/// the stack for the whole loop (AVX2, word512, 200k keys: 15.51 instructions per prehashed
/// insert, against 14.39 now; the probe 16.63 against 15.38).
template <class Arch, Shape S, bool Two, bool Mix, bool Near, Out O>
inline std::size_t run_cached(const FilterRef& f, const std::uint64_t* keys, std::size_t n, std::uint64_t seed, void* out) {
    using T = layout::shape_traits<S>;
    using word = typename T::word_type;
    using B = u64x<Arch>;
    constexpr std::size_t lanes = B::size, depth = cached_ahead;
    constexpr std::size_t groups_per_line = std::max<std::size_t>(1, 64 / (lanes * sizeof(std::uint64_t)));
    static_assert(depth % groups_per_line == 0, "each unrolled iteration starts a line of keys");
    constexpr unsigned block_shift = std::countr_zero(T::block_bytes);
    // Copies: the blocks written below could alias f, which would be read again for every group.
    word* const base = reinterpret_cast<word*>(f.data);
    const std::uint64_t blocks = f.blocks;
    const B base_address(reinterpret_cast<std::uint64_t>(base));
    const typename isa<Arch>::template block<S, Two> ops(f.k);
    // Per slot: the hashes (with Mix; without, the hashes are the keys, read where they are)
    // and the address of each key's block.
    alignas(64) std::uint64_t hash[depth][lanes];
    alignas(64) std::uint64_t block[depth][lanes];
    std::size_t found = 0;
    BitmapOut bitmap{static_cast<std::uint64_t*>(out)};

    auto hashed = [&](std::size_t g) __attribute__((always_inline)) {  // of group g (keys g * lanes ...)
        B h = B::load_unaligned(keys + g * lanes);
        if constexpr (Mix) h = mix<Arch>(h, seed);
        return h;
    };
    auto stage = [&](B h, std::size_t slot) __attribute__((always_inline)) {
        if constexpr (Mix) store_lanes<Arch>(h, hash[slot]);
        store_lanes<Arch>((isa<Arch>::scale32(h >> 32, blocks) << block_shift) + base_address, block[slot]);
        if constexpr (Near)
            for (std::size_t j = 0; j < lanes; ++j) __builtin_prefetch(reinterpret_cast<const void*>(in_memory(block[slot])[j]), 0, 3);
    };
    auto process = [&](std::size_t g, std::size_t slot) __attribute__((always_inline)) {
        const std::size_t i = g * lanes;
        const std::uint64_t* const hs = Mix ? hash[slot] : keys + i;
        for (std::size_t j = 0; j < lanes; ++j)
            apply<O>(ops, reinterpret_cast<word*>(in_memory(block[slot])[j]), static_cast<std::uint32_t>(hs[j]), i + j, out,
                     found, bitmap);
        if constexpr (O == Out::bits) bitmap.group_done(i, lanes);
    };
    // body(std::integral_constant<std::size_t, d>{}) for each slot d, unrolled.
    auto each_slot = [&](auto&& body) __attribute__((always_inline)) {
        [&]<std::size_t... d>(std::index_sequence<d...>) __attribute__((always_inline)) { (body(std::integral_constant<std::size_t, d>{}), ...); }(
            std::make_index_sequence<depth>{});
    };

    // Group g uses slot g % depth; g counts the groups hashed.
    const std::size_t groups = n / lanes;
    each_slot([&](auto d) {
        if (d < groups) stage(hashed(d), d);
    });
    std::size_t g = std::min(depth, groups);
    for (; g + depth <= groups; g += depth) {
        each_slot([&](auto d) {
            if constexpr (d % groups_per_line == 0)  // an address past the keys' end is never read
                __builtin_prefetch(reinterpret_cast<const void*>(reinterpret_cast<std::uintptr_t>(keys + (g + d) * lanes) +
                                                                 keys_ahead * sizeof(std::uint64_t)),
                                   0, 3);
            const B next = hashed(g + d);
            process(g + d - depth, d);
            stage(next, d);
        });
    }
    // The groups hashed and not processed (from `first`, a multiple of depth, so group p is in
    // slot p % depth), each slot refilled with a group left to hash; then those.
    const std::size_t first = g - std::min(depth, g);
    each_slot([&](auto d) {
        const std::size_t p = first + d;
        if (p >= groups) return;
        process(p, d);
        if (p + depth < groups) stage(hashed(p + depth), d);
    });
    each_slot([&](auto d) {
        if (first + depth + d < groups) process(first + depth + d, d);
    });
    const std::size_t i = groups * lanes;
    each_tail_key<Mix>(keys + i, n - i, seed, blocks, [&](std::size_t j, std::uint64_t h, std::uint64_t b) {
        apply<O>(ops, base + b * T::words, static_cast<std::uint32_t>(h), i + j, out, found, bitmap);
    });
    if constexpr (O == Out::bits) bitmap.finish(n);
    return found;
}

/// Inserts the keys of keys[0, n) whose blocks lie in [f.first_block, f.end_block) and skips
/// the others, as run() does for all (how threads share a direct insert). Kept keys are
/// appended to the ring without a branch, and set once `ahead` of them are in flight. Where
/// the engine compresses a vector's lanes (isa::keep), a group is appended at once; else key
/// by key, a skipped key's slot overwritten by the next key. Either way, what a skipped key
/// prefetches in its stead is the last kept block. Key by key, the skipped keys cost as much
/// as the kept ones' line reads: on a Xeon, inserting the keys of half the filter took 10.4-11.2
/// ns per key read, against 6.4-7.9 with AVX-512's compress (and 6.4-6.9 for a batch of only
/// that half's keys; docs/design.md, "The batch code's constants").
template <class Arch, Shape S, bool Two, bool Mix>
inline void run_owned(const FilterRef& f, const std::uint64_t* keys, std::size_t n, std::uint64_t seed) {
    using T = layout::shape_traits<S>;
    using word = typename T::word_type;
    constexpr std::size_t lanes = u64x<Arch>::size, near = lanes;
    word* const base = reinterpret_cast<word*>(f.data);
    const typename isa<Arch>::template block<S, Two> ops(f.k);
    const std::size_t ahead = std::clamp<std::size_t>(f.prefetch, near + 1, ring - 2 * lanes);
    // A group appended at once may run past the ring's end; what does is moved to its start.
    alignas(64) std::uint64_t hash[ring + lanes];
    alignas(64) std::uint64_t block[ring + lanes];
    alignas(64) std::uint64_t h[lanes];
    alignas(64) std::uint64_t b[lanes];
    std::size_t head = 0, tail = 0;  // keys appended to and set from the ring
    std::uint64_t last = f.first_block;
    auto set = [&](std::size_t at) {
        if (at + near < head) __builtin_prefetch(base + block[(at + near) % ring] * T::words, 0, 3);
        ops.set(base + block[at % ring] * T::words, static_cast<std::uint32_t>(hash[at % ring]));
    };
    // The group in h and b (len keys): its kept keys onto the ring, their blocks prefetched.
    auto append = [&](std::size_t len) {
        if constexpr (requires { isa<Arch>::keep; }) {
            if (len == lanes) {
                const std::size_t at = head % ring;
                const unsigned kept = isa<Arch>::keep(h, b, f.first_block, f.end_block - f.first_block, last, hash + at, block + at);
                for (std::size_t j = 0; j < lanes; ++j) __builtin_prefetch(base + block[at + j] * T::words, 0, 1);
                if (at + kept > ring) [[unlikely]]
                    for (std::size_t j = ring; j < at + kept; ++j) {
                        hash[j - ring] = hash[j];
                        block[j - ring] = block[j];
                    }
                head += kept;
                return;
            }
        }
        for (std::size_t j = 0; j < len; ++j) {
            const bool mine = f.owns(b[j]);
            hash[head % ring] = h[j];
            block[head % ring] = b[j];
            last = mine ? b[j] : last;
            __builtin_prefetch(base + last * T::words, 0, 1);
            head += mine;
        }
    };
    for (std::size_t i = 0; i < n; i += lanes) {
        const std::size_t len = n - i < lanes ? n - i : lanes;
        prefetch_keys(keys, i, n);
        hash_group<Arch, Mix>(keys + i, len, seed, f.blocks, h, b);
        append(len);
        while (head - tail > ahead) set(tail++);
    }
    while (tail < head) set(tail++);
}

/// Calls body.template operator()<S, Two, Mix>() for the filter's run-time parameters.
template <class Body>
inline void specialize(const FilterRef& f, KeyMode mode, Body&& body) {
    with_blocks(f, [&]<Shape S, bool Two>() {
        with_bool(mode.kind == KeyMode::mix64, [&](auto mix) { body.template operator()<S, Two, mix()>(); });
    });
}

template <class Arch>
struct kernels {
    template <Out O>
    static std::size_t pass(const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode, void* out) {
        std::size_t r = 0;
        specialize(f, mode, [&]<Shape S, bool Two, bool Mix>() {
            if (f.prefetch != 0)
                r = run<Arch, S, Two, Mix, O>(f, keys, n, mode.seed, out);
            else
                with_bool(f.prefetch_near, [&](auto near) { r = run_cached<Arch, S, Two, Mix, near(), O>(f, keys, n, mode.seed, out); });
        });
        return r;
    }
    static void insert(const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode) {
        if (f.owns_all()) {
            pass<Out::insert>(f, keys, n, mode, nullptr);
            return;
        }
        with_blocks(f, [&]<Shape S, bool Two>() {
            with_bool(mode.kind == KeyMode::mix64, [&](auto mix) { run_owned<Arch, S, Two, mix()>(f, keys, n, mode.seed); });
        });
    }
    static void contains_bytes(const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode,
                               std::uint8_t* out) {
        pass<Out::bytes>(f, keys, n, mode, out);
    }
    static void contains_bits(const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode,
                              std::uint64_t* out) {
        pass<Out::bits>(f, keys, n, mode, out);
    }
    static std::size_t count(const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode) {
        return pass<Out::count>(f, keys, n, mode, nullptr);
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
