#pragma once
// Keys to hashes for every filter type: hash_key() of the filter's hashing, in L1-sized chunks,
// so every type maps a key exactly as Filter does (32-bit keys widened to 64 bits).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <span>
#include <string_view>
#include <type_traits>

#include "batchbloom/hash.hpp"
#include "batchbloom/key_kinds.hpp"
#include "batch/threads.hpp"
#include "engine/engine.hpp"

namespace batchbloom::detail {

inline constexpr std::size_t hash_chunk = 2048;  // a multiple of 64: bitmap chunks stay word-aligned

/// What inserting `n` keys of type Key records (KeyKinds): integers for the integer types,
/// bytes for the string types, nothing for no keys.
template <class Key>
constexpr KeyKinds kinds_of(std::size_t n) noexcept {
    if (n == 0) return KeyKinds::none();
    return std::is_integral_v<Key> ? KeyKinds::only_integers() : KeyKinds::only_bytes();
}

/// Strings whose bytes are prefetched ahead of the one being hashed: a string's hash waits on
/// its bytes, which the views alone do not let the hardware's prefetchers foresee (TPC-H SF 1,
/// part names through a join filter, Xeon VM: the filtered joins ran 6% faster with it).
inline constexpr std::size_t strings_ahead = 16;

/// Calls fn(hashes, n, offset of hashes[0] in keys) for consecutive chunks of keys.
template <class Key, class Fn>
void for_hash_chunks(const Hashing& hashing, std::span<const Key> keys, Fn&& fn) {
    std::uint64_t buf[hash_chunk];
    for (std::size_t begin = 0; begin < keys.size(); begin += hash_chunk) {
        const std::size_t n = keys.size() - begin < hash_chunk ? keys.size() - begin : hash_chunk;
        for (std::size_t i = 0; i < n; ++i) {
            if constexpr (std::is_integral_v<Key>)
                buf[i] = hash_key(hashing, std::uint64_t{keys[begin + i]});
            else {
                if (begin + i + strings_ahead < keys.size())
                    __builtin_prefetch(std::string_view(keys[begin + i + strings_ahead]).data(), 0, 3);
                buf[i] = hash_key(hashing, std::string_view(keys[begin + i]));
            }
        }
        fn(static_cast<const std::uint64_t*>(buf), n, begin);
    }
}

/// Feeds keys to a blocked-filter kernel call op(values, n, mode, offset of values[0] in keys):
/// 64-bit integers with xxh3 hashing go straight in (the kernels fuse the mixer), 32-bit ones
/// widened a chunk at a time; everything else (Murmur3 integers, strings) is hashed here, a
/// chunk at a time. With
/// Hashed, the keys are hashes already (HashForms, key_forms.hpp) and go in whole, as they are.
template <bool Hashed = false, class Key, class Op>
void feed_keys(const Hashing& hashing, std::span<const Key> keys, Op&& op) {
    if constexpr (Hashed) {
        static_assert(std::is_same_v<Key, std::uint64_t>);
        return op(keys.data(), keys.size(), KeyMode{KeyMode::hashed, 0}, std::size_t{0});
    } else if constexpr (std::is_same_v<Key, std::uint64_t>) {
        if (hashing.kind == HashKind::xxh3)
            return op(keys.data(), keys.size(), KeyMode{KeyMode::mix64, hashing.seed}, std::size_t{0});
    } else if constexpr (std::is_same_v<Key, std::uint32_t>) {
        if (hashing.kind == HashKind::xxh3) {
            std::uint64_t wide[hash_chunk];
            for (std::size_t begin = 0; begin < keys.size(); begin += hash_chunk) {
                const std::size_t n = keys.size() - begin < hash_chunk ? keys.size() - begin : hash_chunk;
                for (std::size_t i = 0; i < n; ++i) wide[i] = keys[begin + i];
                op(static_cast<const std::uint64_t*>(wide), n, KeyMode{KeyMode::mix64, hashing.seed}, begin);
            }
            return;
        }
    }
    for_hash_chunks(hashing, keys, [&](const std::uint64_t* h, std::size_t n, std::size_t at) {
        op(h, n, KeyMode{KeyMode::hashed, 0}, at);
    });
}

/// out[j] = hash_key(h, keys[j]), on the engine's kernels (hash.hpp's hash_keys on the best engine).
template <class Key>
void hash_keys(const Hashing& h, const BlockedKernels& kernels, std::span<const Key> keys, std::uint64_t* out) {
    feed_keys(h, keys, [&](const std::uint64_t* k, std::size_t m, KeyMode mode, std::size_t at) {
        kernels.hash(k, m, mode, out + at);
    });
}

/// Keys per round where feed_keys_on hashes keys ahead of the call: a buffer of 32 MiB at most,
/// and rounds still large enough for the partitioned path (1M keys or more).
inline constexpr std::size_t hashed_round = std::size_t(1) << 22;

/// feed_keys for a bulk call on `threads` threads (its threads_for the whole batch). Where the
/// keys need hashing here (strings, Murmur3 integers, 32-bit keys), feed_keys' L1-sized chunks
/// are each too small for a second thread, so the hashing and the call's own work ran on the
/// caller alone: a JoinFilter of 1M strings took 7.5-8 ms to build on one thread or two (Zen 5
/// VM). So there the keys are hashed on the call's threads into rounds of up to hashed_round
/// hashes, each given to op whole (as hashes), which the call then splits across its threads.
/// Without the memory for a round, feed_keys as before.
template <bool Hashed = false, class Key, class Op>
void feed_keys_on(unsigned threads, const Hashing& hashing, std::span<const Key> keys, Op&& op) {
    const bool whole = Hashed || (std::is_same_v<Key, std::uint64_t> && hashing.kind == HashKind::xxh3);
    if (threads <= 1 || whole || keys.size() <= hash_chunk) return feed_keys<Hashed>(hashing, keys, op);
    const std::size_t round = std::min(keys.size(), hashed_round);
    std::unique_ptr<std::uint64_t[]> hashes;
    try {
        hashes = std::make_unique_for_overwrite<std::uint64_t[]>(round);
    } catch (const std::bad_alloc&) {
        return feed_keys<Hashed>(hashing, keys, op);
    }
    // The best CPU engine hashes, as hash.hpp's hash_keys does (a CUDA call takes the hashes).
    const BlockedKernels& cpu = blocked_kernels(Backend::automatic);
    for (std::size_t begin = 0; begin < keys.size(); begin += round) {
        const std::size_t n = std::min(round, keys.size() - begin);
        each_share(n, threads, hash_chunk, [&](Range r) {
            hash_keys(hashing, cpu, keys.subspan(begin + r.begin, r.size()), hashes.get() + r.begin);
        });
        op(static_cast<const std::uint64_t*>(hashes.get()), n, KeyMode{KeyMode::hashed, 0}, begin);
    }
}

}  // namespace batchbloom::detail
