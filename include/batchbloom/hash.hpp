#pragma once
// Key hashing. A filter records its hash kind and seed, so a filter saved by one program is
// probed with the same hash by another.
//
//   HashKind::xxh3     integers: mix64 (below); byte strings: XXH3-64 with the seed
//   HashKind::murmur3  integers: their 8 little-endian bytes, and byte strings, through
//                      MurmurHash3_x64_128 (low 64 bits) with the seed's low 32 bits
//
// 32-bit integer keys are widened to 64 bits first, so 7u and 7ull are the same key.
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "config.hpp"

namespace batchbloom {

/// Hash function; the numeric values are part of the file format.
enum class HashKind : std::uint8_t {
    xxh3 = 1,
    murmur3 = 2,
};

struct Hashing {
    HashKind kind = HashKind::xxh3;
    std::uint64_t seed = 0;  ///< for murmur3 only values below 2^32 are valid
    friend bool operator==(const Hashing&, const Hashing&) = default;
};

/// Seeded 64-bit integer mixer (the splitmix64 finalizer, Stafford's "mix13", after a seeded
/// offset): a bijection on 64-bit values with full avalanche, two multiplies per key, and
/// cheap enough to run inside the SIMD and CUDA kernels.
BATCHBLOOM_HD constexpr std::uint64_t mix64(std::uint64_t key, std::uint64_t seed) {
    std::uint64_t z = (key ^ seed) + 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/// XXH3-64 of a byte string (libxxhash).
std::uint64_t xxh3_64(const void* data, std::size_t len, std::uint64_t seed) noexcept;

/// MurmurHash3_x64_128 (Austin Appleby's reference algorithm): {h1, h2}.
std::array<std::uint64_t, 2> murmur3_x64_128(const void* data, std::size_t len, std::uint32_t seed) noexcept;

/// Hash of an integer key under h.
std::uint64_t hash_key(const Hashing& h, std::uint64_t key) noexcept;

/// Hash of a byte-string key under h.
std::uint64_t hash_key(const Hashing& h, std::string_view key) noexcept;

/// hash_key(h, keys[i]) into out[i] for every key: what a filter of hashing h inserts for them,
/// for insert_hashes when the hashes serve more than one filter or pass (a sketch that sizes the
/// filter, then the insert). Integer keys of HashKind::xxh3 are hashed a vector at a time by this
/// machine's best engine; other keys one at a time. Throws Error unless out.size() == keys.size().
void hash_keys(const Hashing& h, std::span<const std::uint64_t> keys, std::span<std::uint64_t> out);
void hash_keys(const Hashing& h, std::span<const std::uint32_t> keys, std::span<std::uint64_t> out);
void hash_keys(const Hashing& h, std::span<const std::string_view> keys, std::span<std::uint64_t> out);
void hash_keys(const Hashing& h, std::span<const std::string> keys, std::span<std::uint64_t> out);

/// "xxh3" / "murmur3"; parse_hash_kind throws Error on anything else.
std::string_view to_string(HashKind kind);
HashKind parse_hash_kind(std::string_view name);

/// Throws Error if the kind is unknown or the seed does not fit the kind.
void validate(const Hashing& h);

}  // namespace batchbloom
