#pragma once
// The per-key rules of the classic filter: one struct per ClassicScheme with
//   start(hashing, key) -> std::uint64_t  (the key's two hashes, the 64 bits its positions
//                                          follow from: what the filter hands the kernels)
//   begin(start)        -> Probe
//   next(Probe&, m)     -> position       (the next of the k positions, in [0, m))
// The kernels (src/cpu/scalar/classic_scalar.cpp) are templates over these, so the batchbloom
// and the Spark rules share every loop and differ only here.
#include <algorithm>
#include <bit>
#include <span>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <type_traits>

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
    static std::uint64_t start(const ClassicHashing& c, const Key& key) {
        return hash_key(Hashing{c.kind, c.seed}, key);
    }
    static Probe begin(std::uint64_t start) { return {start, std::rotl(start, 32)}; }
    // The high word of (h * m): a uniform position for any m without a division.
    static std::uint64_t next(Probe& p, std::uint64_t m) {
        __extension__ using u128 = unsigned __int128;
        const auto pos = static_cast<std::uint64_t>((u128(p.h) * m) >> 64);
        p.h += p.step;
        return pos;
    }
};

// Spark's two hashes: hi with the filter's seed, lo with hi as the seed; a key's start holds
// hi in its high and lo in its low 32 bits.
inline std::uint64_t spark_start(std::uint64_t key, std::uint32_t seed) {
    const std::uint32_t hi = spark_hash_long(key, seed);
    return (std::uint64_t(hi) << 32) | spark_hash_long(key, hi);
}
inline std::uint64_t spark_start(std::string_view key, std::uint32_t seed) {
    const std::uint32_t hi = spark_hash_bytes(key, seed);
    return (std::uint64_t(hi) << 32) | spark_hash_bytes(key, hi);
}
inline std::int32_t spark_hi(std::uint64_t start) { return static_cast<std::int32_t>(start >> 32); }
inline std::int32_t spark_lo(std::uint64_t start) { return static_cast<std::int32_t>(start & 0xFFFFFFFFu); }

// Both Spark schemes start from the same two hashes; they step through positions differently.
struct SparkStart {
    template <class Key>
    static std::uint64_t start(const ClassicHashing& c, const Key& key) {
        return spark_start(key, static_cast<std::uint32_t>(c.seed));
    }
};

struct SparkV1Scheme : SparkStart {
    struct Probe {
        std::uint32_t combined, step;  // Java int arithmetic: wraps modulo 2^32
    };
    static Probe begin(std::uint64_t start) {
        return {static_cast<std::uint32_t>(spark_hi(start)), static_cast<std::uint32_t>(spark_lo(start))};
    }
    static std::uint64_t next(Probe& p, std::uint64_t m) {
        p.combined += p.step;  // i = 1..k: the first position already includes one step
        const auto c = static_cast<std::int32_t>(p.combined);
        return static_cast<std::uint64_t>(c < 0 ? ~c : c) % m;
    }
};

struct SparkV2Scheme : SparkStart {
    struct Probe {
        std::uint64_t combined, step;  // Java long arithmetic: wraps modulo 2^64
    };
    static Probe begin(std::uint64_t start) {
        return {static_cast<std::uint64_t>(std::int64_t(spark_hi(start)) * 0x7fffffff),
                static_cast<std::uint64_t>(std::int64_t(spark_lo(start)))};
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

/// The start of every key (Scheme::start) in L1-sized chunks: fn(starts, n, offset of starts[0]).
/// With Hashed, the keys are starts already (ClassicFilter::hash) and go in as they are.
template <bool Hashed = false, class Key, class Fn>
void for_start_chunks(const ClassicHashing& h, std::span<const Key> keys, Fn&& fn) {
    constexpr std::size_t chunk = 2048;
    if constexpr (Hashed) {
        static_assert(std::is_same_v<Key, std::uint64_t>);
        for (std::size_t begin = 0; begin < keys.size(); begin += chunk)
            fn(keys.data() + begin, std::min(chunk, keys.size() - begin), begin);
        return;
    }
    std::uint64_t buf[chunk];
    with_scheme(h.scheme, [&]<class Scheme>(Scheme) {
        for (std::size_t begin = 0; begin < keys.size(); begin += chunk) {
            const std::size_t n = std::min(chunk, keys.size() - begin);
            for (std::size_t i = 0; i < n; ++i) buf[i] = Scheme::start(h, keys[begin + i]);
            fn(static_cast<const std::uint64_t*>(buf), n, begin);
        }
    });
}

}  // namespace batchbloom::detail
