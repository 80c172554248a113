#pragma once
// The per-key rules of the classic filter: one struct per ClassicScheme with
//   start(hashing, key) -> Probe     (the key's two hashes)
//   next(Probe&, m)     -> position  (the next of the k positions, in [0, m))
// The filter's kernels (classic_kernels.hpp) are templates over these, so the batchbloom and
// the Spark rules share every loop and differ only here.
#include <bit>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "batchbloom/classic.hpp"
#include "batchbloom/config.hpp"

namespace batchbloom::detail {

// ---- Spark's Murmur3_x86_32 (org.apache.spark.util.sketch), 32-bit arithmetic --------------
BATCHBLOOM_HD constexpr std::uint32_t spark_mix_k1(std::uint32_t k1) {
    return std::rotl(k1 * 0xcc9e2d51u, 15) * 0x1b873593u;
}
BATCHBLOOM_HD constexpr std::uint32_t spark_mix_h1(std::uint32_t h1, std::uint32_t k1) {
    return std::rotl(h1 ^ k1, 13) * 5u + 0xe6546b64u;
}
BATCHBLOOM_HD constexpr std::uint32_t spark_fmix(std::uint32_t h1, std::uint32_t len) {
    h1 ^= len;
    h1 ^= h1 >> 16;
    h1 *= 0x85ebca6bu;
    h1 ^= h1 >> 13;
    h1 *= 0xc2b2ae35u;
    return h1 ^ (h1 >> 16);
}
/// Murmur3_x86_32.hashLong(input, seed): the low, then the high 32 bits, length 8.
BATCHBLOOM_HD constexpr std::uint32_t spark_hash_long(std::uint64_t key, std::uint32_t seed) {
    std::uint32_t h1 = spark_mix_h1(seed, spark_mix_k1(static_cast<std::uint32_t>(key)));
    h1 = spark_mix_h1(h1, spark_mix_k1(static_cast<std::uint32_t>(key >> 32)));
    return spark_fmix(h1, 8);
}
/// Murmur3_x86_32.hashUnsafeBytes(bytes, seed): whole little-endian 32-bit words, then each
/// remaining byte on its own, sign-extended (Spark's variant; not the reference tail).
inline std::uint32_t spark_hash_bytes(std::string_view key, std::uint32_t seed) {
    const std::size_t aligned = key.size() - key.size() % 4;
    std::uint32_t h1 = seed;
    for (std::size_t i = 0; i < aligned; i += 4) {
        std::uint32_t word;
        std::memcpy(&word, key.data() + i, 4);  // little-endian target (config.hpp)
        h1 = spark_mix_h1(h1, spark_mix_k1(word));
    }
    for (std::size_t i = aligned; i < key.size(); ++i) {
        const auto sign_extended = static_cast<std::uint32_t>(static_cast<std::int32_t>(static_cast<signed char>(key[i])));
        h1 = spark_mix_h1(h1, spark_mix_k1(sign_extended));
    }
    return spark_fmix(h1, static_cast<std::uint32_t>(key.size()));
}

// ---- the schemes ----------------------------------------------------------------------------

struct DoubleHashingScheme {
    struct Probe {
        std::uint64_t h, step;
    };
    template <class Key>
    static Probe start(const ClassicHashing& c, const Key& key) {
        const std::uint64_t h = hash_key(Hashing{c.kind, c.seed}, key);
        return {h, std::rotl(h, 32)};
    }
    // The high word of (h * m): a uniform position for any m without a division.
    static std::uint64_t next(Probe& p, std::uint64_t m) {
        __extension__ using u128 = unsigned __int128;
        const auto pos = static_cast<std::uint64_t>((u128(p.h) * m) >> 64);
        p.h += p.step;
        return pos;
    }
};

// Spark's two hashes: hi with the filter's seed, lo with hi as the seed.
struct SparkHashes {
    std::int32_t hi, lo;
};
inline SparkHashes spark_hashes(std::uint64_t key, std::uint32_t seed) {
    const std::uint32_t hi = spark_hash_long(key, seed);
    return {static_cast<std::int32_t>(hi), static_cast<std::int32_t>(spark_hash_long(key, hi))};
}
inline SparkHashes spark_hashes(std::string_view key, std::uint32_t seed) {
    const std::uint32_t hi = spark_hash_bytes(key, seed);
    return {static_cast<std::int32_t>(hi), static_cast<std::int32_t>(spark_hash_bytes(key, hi))};
}

struct SparkV1Scheme {
    struct Probe {
        std::uint32_t combined, step;  // Java int arithmetic: wraps modulo 2^32
    };
    template <class Key>
    static Probe start(const ClassicHashing& c, const Key& key) {
        const auto hl = spark_hashes(key, static_cast<std::uint32_t>(c.seed));
        return {static_cast<std::uint32_t>(hl.hi), static_cast<std::uint32_t>(hl.lo)};
    }
    static std::uint64_t next(Probe& p, std::uint64_t m) {
        p.combined += p.step;  // i = 1..k: the first position already includes one step
        const auto c = static_cast<std::int32_t>(p.combined);
        return static_cast<std::uint64_t>(c < 0 ? ~c : c) % m;
    }
};

struct SparkV2Scheme {
    struct Probe {
        std::uint64_t combined, step;  // Java long arithmetic: wraps modulo 2^64
    };
    template <class Key>
    static Probe start(const ClassicHashing& c, const Key& key) {
        const auto hl = spark_hashes(key, static_cast<std::uint32_t>(c.seed));
        return {static_cast<std::uint64_t>(std::int64_t(hl.hi) * 0x7fffffff),
                static_cast<std::uint64_t>(std::int64_t(hl.lo))};
    }
    static std::uint64_t next(Probe& p, std::uint64_t m) {
        p.combined += p.step;
        const auto c = static_cast<std::int64_t>(p.combined);
        return static_cast<std::uint64_t>(c < 0 ? ~c : c) % m;
    }
};

/// Calls f(Scheme{}) with the scheme struct for `s`: the one place that maps the enum to code.
template <class F>
decltype(auto) with_scheme(ClassicScheme s, F&& f) {
    switch (s) {
        case ClassicScheme::spark_v1: return f(SparkV1Scheme{});
        case ClassicScheme::spark_v2: return f(SparkV2Scheme{});
        case ClassicScheme::double_hashing: break;
    }
    return f(DoubleHashingScheme{});
}

}  // namespace batchbloom::detail
