#pragma once
// Keys to hashes for the filter family: hash_key() of the filter's hashing, in L1-sized
// chunks, so every type maps a key exactly as Filter does (32-bit keys widened to 64 bits).
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <type_traits>

#include "batchbloom/hash.hpp"

namespace batchbloom::detail {

inline constexpr std::size_t hash_chunk = 2048;

/// Calls fn(hashes, n, offset of hashes[0] in keys) for consecutive chunks of keys.
template <class Key, class Fn>
void for_hash_chunks(const Hashing& hashing, std::span<const Key> keys, Fn&& fn) {
    std::uint64_t buf[hash_chunk];
    for (std::size_t begin = 0; begin < keys.size(); begin += hash_chunk) {
        const std::size_t n = keys.size() - begin < hash_chunk ? keys.size() - begin : hash_chunk;
        for (std::size_t i = 0; i < n; ++i) {
            if constexpr (std::is_integral_v<Key>)
                buf[i] = hash_key(hashing, std::uint64_t{keys[begin + i]});
            else
                buf[i] = hash_key(hashing, std::string_view(keys[begin + i]));
        }
        fn(static_cast<const std::uint64_t*>(buf), n, begin);
    }
}

}  // namespace batchbloom::detail
