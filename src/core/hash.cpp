#include "batchbloom/hash.hpp"

#include <cstring>
#include <string>

#include "batchbloom/error.hpp"
#include "core/enum_names.hpp"

// xxHash is compiled into this translation unit only, so the installed library has no
// link-time dependency on libxxhash.
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace batchbloom {

std::uint64_t xxh3_64(const void* data, std::size_t len, std::uint64_t seed) noexcept {
    return XXH3_64bits_withSeed(data, len, seed);
}

namespace {

constexpr std::uint64_t rotl(std::uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

constexpr std::uint64_t fmix(std::uint64_t k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ULL;
    k ^= k >> 33;
    return k;
}

std::uint64_t load_le64(const unsigned char* p) {
    std::uint64_t v;
    std::memcpy(&v, p, 8);  // little-endian target (config.hpp)
    return v;
}

}  // namespace

std::array<std::uint64_t, 2> murmur3_x64_128(const void* data, std::size_t len, std::uint32_t seed) noexcept {
    constexpr std::uint64_t c1 = 0x87c37b91114253d5ULL;
    constexpr std::uint64_t c2 = 0x4cf5ad432745937fULL;
    const auto* bytes = static_cast<const unsigned char*>(data);
    std::uint64_t h1 = seed, h2 = seed;

    const std::size_t nblocks = len / 16;
    for (std::size_t i = 0; i < nblocks; ++i) {
        std::uint64_t k1 = load_le64(bytes + 16 * i);
        std::uint64_t k2 = load_le64(bytes + 16 * i + 8);
        k1 *= c1; k1 = rotl(k1, 31); k1 *= c2; h1 ^= k1;
        h1 = rotl(h1, 27); h1 += h2; h1 = h1 * 5 + 0x52dce729;
        k2 *= c2; k2 = rotl(k2, 33); k2 *= c1; h2 ^= k2;
        h2 = rotl(h2, 31); h2 += h1; h2 = h2 * 5 + 0x38495ab5;
    }

    // Tail: up to 15 bytes, little-endian into k1 (bytes 0-7) and k2 (bytes 8-14).
    const unsigned char* tail = bytes + 16 * nblocks;
    const std::size_t rest = len & 15;
    std::uint64_t k1 = 0, k2 = 0;
    for (std::size_t i = rest; i > 8; --i) k2 |= std::uint64_t(tail[i - 1]) << (8 * (i - 9));
    for (std::size_t i = rest < 8 ? rest : 8; i > 0; --i) k1 |= std::uint64_t(tail[i - 1]) << (8 * (i - 1));
    if (rest > 8) { k2 *= c2; k2 = rotl(k2, 33); k2 *= c1; h2 ^= k2; }
    if (rest > 0) { k1 *= c1; k1 = rotl(k1, 31); k1 *= c2; h1 ^= k1; }

    h1 ^= len; h2 ^= len;
    h1 += h2; h2 += h1;
    h1 = fmix(h1); h2 = fmix(h2);
    h1 += h2; h2 += h1;
    return {h1, h2};
}

std::uint64_t hash_key(const Hashing& h, std::uint64_t key) noexcept {
    if (h.kind == HashKind::murmur3) {
        unsigned char le[8];
        std::memcpy(le, &key, 8);
        return murmur3_x64_128(le, 8, static_cast<std::uint32_t>(h.seed))[0];
    }
    return mix64(key, h.seed);
}

std::uint64_t hash_key(const Hashing& h, std::string_view key) noexcept {
    if (h.kind == HashKind::murmur3)
        return murmur3_x64_128(key.data(), key.size(), static_cast<std::uint32_t>(h.seed))[0];
    return xxh3_64(key.data(), key.size(), h.seed);
}

namespace {
constexpr detail::EnumName<HashKind> hash_kind_names[] = {{HashKind::xxh3, "xxh3"}, {HashKind::murmur3, "murmur3"}};
}  // namespace

std::string_view to_string(HashKind kind) { return detail::name_of(hash_kind_names, kind); }
HashKind parse_hash_kind(std::string_view name) { return detail::value_named(hash_kind_names, name, "hash kind"); }

void validate(const Hashing& h) {
    if (h.kind != HashKind::xxh3 && h.kind != HashKind::murmur3)
        throw Error("unknown hash kind " + std::to_string(static_cast<unsigned>(h.kind)));
    if (h.kind == HashKind::murmur3 && h.seed > 0xFFFFFFFFULL)
        throw Error("murmur3 takes a 32-bit seed; got " + std::to_string(h.seed));
}

}  // namespace batchbloom
