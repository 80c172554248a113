// Bit-compatibility with Apache Spark's BloomFilter: filters that Spark built and serialized
// (tests/data/spark/spark_vectors.inc, made by gen_spark_vectors.py from PySpark) are rebuilt
// byte for byte from the same keys, read back, and probed.
#include <batchbloom/classic.hpp>
#include <gtest/gtest.h>

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/classic_scheme.hpp"

namespace bb = batchbloom;

namespace {

struct SparkVector {
    int version;
    std::int32_t seed;
    std::uint64_t n;
    double fpp;
    std::string_view key_type;
    std::vector<std::string_view> keys;
    std::string_view serialized_hex;
};

const std::vector<SparkVector>& vectors() {
    static const std::vector<SparkVector> v = {
#include "data/spark/spark_vectors.inc"
    };
    return v;
}

std::string from_hex(std::string_view hex) {
    std::string out;
    for (std::size_t i = 0; i + 1 < hex.size(); i += 2) {
        unsigned byte = 0;
        std::from_chars(hex.data() + i, hex.data() + i + 2, byte, 16);
        out.push_back(static_cast<char>(byte));
    }
    return out;
}

std::vector<std::byte> as_bytes(const std::string& s) {
    std::vector<std::byte> b(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) b[i] = static_cast<std::byte>(s[i]);
    return b;
}

std::string to_hex(std::span<const std::byte> bytes) {
    static constexpr char digits[] = "0123456789abcdef";
    std::string out;
    for (const auto b : bytes) {
        out.push_back(digits[unsigned(b) >> 4]);
        out.push_back(digits[unsigned(b) & 15]);
    }
    return out;
}

std::uint64_t long_key(std::string_view text) {
    std::int64_t v = 0;
    std::from_chars(text.data(), text.data() + text.size(), v);
    return static_cast<std::uint64_t>(v);
}

// Inserts the vector's keys the way Spark's putLong / putString / putBinary does.
void insert_keys(bb::ClassicFilter& f, const SparkVector& v) {
    for (const auto key : v.keys) {
        if (v.key_type == "long") {
            f.insert(long_key(key));
        } else {
            f.insert(std::string_view(from_hex(key)));
        }
    }
}

bb::ClassicScheme scheme_of(const SparkVector& v) {
    return v.version == 1 ? bb::ClassicScheme::spark_v1 : bb::ClassicScheme::spark_v2;
}

}  // namespace

TEST(SparkFormat, VectorsArePresent) { ASSERT_GE(vectors().size(), 10u); }

TEST(SparkFormat, BuildsTheBytesSparkWrites) {
    for (const auto& v : vectors()) {
        SCOPED_TRACE("version " + std::to_string(v.version) + ", seed " + std::to_string(v.seed) + ", n " +
                     std::to_string(v.n) + ", " + std::string(v.key_type) + " keys");
        auto f = bb::ClassicFilter::spark(v.n, v.fpp, scheme_of(v), v.seed);
        insert_keys(f, v);
        EXPECT_EQ(to_hex(f.to_spark_bytes()), v.serialized_hex);
    }
}

TEST(SparkFormat, ReadsWhatSparkWrites) {
    for (const auto& v : vectors()) {
        SCOPED_TRACE(std::string(v.serialized_hex.substr(0, 40)));
        const auto bytes = as_bytes(from_hex(v.serialized_hex));
        const auto f = bb::ClassicFilter::from_spark_bytes(bytes);
        EXPECT_EQ(f.hashing().scheme, scheme_of(v));
        EXPECT_EQ(f.hashing().seed, static_cast<std::uint32_t>(v.seed));
        EXPECT_EQ(f.params(), bb::ClassicParams::spark(v.n, v.fpp));  // Spark's sizing, reproduced
        for (const auto key : v.keys) {
            if (v.key_type == "long") {
                EXPECT_TRUE(f.contains(long_key(key))) << key;
            } else {
                EXPECT_TRUE(f.contains(std::string_view(from_hex(key)))) << key;
            }
        }
        EXPECT_EQ(f.to_spark_bytes(), bytes);  // and writes it back unchanged
    }
}

// Facts about Spark's Murmur3_x86_32 independent of the vectors: with no tail it is the
// reference MurmurHash3_x86_32 (whose empty-string values are published), and hashLong is
// hashUnsafeBytes of the key's 8 little-endian bytes. (Tails, which Spark mixes byte by byte,
// are covered by the string and binary vectors.)
TEST(SparkFormat, MurmurVariantFacts) {
    // Reference MurmurHash3_x86_32("", seed 0) = 0, and with seed 1 = 0x514E28B7.
    EXPECT_EQ(bb::detail::spark_hash_bytes("", 0), 0u);
    EXPECT_EQ(bb::detail::spark_hash_bytes("", 1), 0x514E28B7u);
    // Whole words: hashLong(x) equals hashUnsafeBytes of x's 8 little-endian bytes.
    for (const std::uint64_t x : {0ULL, 1ULL, 0xDEADBEEFCAFEF00DULL, ~0ULL}) {
        char le[8];
        for (int i = 0; i < 8; ++i) le[i] = static_cast<char>((x >> (8 * i)) & 0xFF);
        EXPECT_EQ(bb::detail::spark_hash_long(x, 42), bb::detail::spark_hash_bytes(std::string_view(le, 8), 42));
    }
}

TEST(SparkFormat, RejectsMalformedInput) {
    const auto good = as_bytes(from_hex(vectors().front().serialized_hex));
    auto expect_format_error = [](std::vector<std::byte> b, const char* what) {
        EXPECT_THROW(bb::ClassicFilter::from_spark_bytes(b), bb::FormatError) << what;
    };
    for (std::size_t len = 0; len < good.size(); len += 3)
        expect_format_error(std::vector<std::byte>(good.begin(), good.begin() + std::ptrdiff_t(len)), "truncated");
    auto with = [&](std::size_t at, std::uint8_t byte) {
        auto b = good;
        b[at] = std::byte{byte};
        return b;
    };
    expect_format_error(with(3, 3), "version 3");
    expect_format_error(with(0, 0x80), "negative version");
    expect_format_error(with(7, 0), "k = 0");
    expect_format_error(with(4, 0x7F), "huge k");
    expect_format_error(with(12, 0x80), "negative word count");  // v2: version, k, seed, words
    expect_format_error(with(15, 0xFF), "word count past the data");
    // The largest word count on a few bytes: refused before 16 GB are allocated for it (the
    // sanitizer build aborts on such an allocation; fuzz_blocked found it).
    auto huge = with(12, 0x7F);
    for (std::size_t i = 13; i < 16; ++i) huge[i] = std::byte{0xFF};
    huge.resize(31);
    expect_format_error(huge, "2^31 - 1 words in 31 bytes");
    auto trailing = good;
    trailing.push_back(std::byte{0});
    expect_format_error(trailing, "trailing byte");
    // A zero word count is rejected (Spark would divide by a zero bit size when probing).
    ASSERT_GT(good.size(), 16u);
    std::vector<std::byte> zero_words(good.begin(), good.begin() + 12);  // version 2, k, seed
    zero_words.resize(16, std::byte{0});
    expect_format_error(zero_words, "zero words");
}

TEST(SparkFormat, OnlySparkSchemesHaveTheSparkForm) {
    bb::ClassicFilter f(bb::ClassicParams{640, 3});
    EXPECT_THROW((void)f.to_spark_bytes(), bb::Error);
    EXPECT_THROW(bb::ClassicFilter(bb::ClassicParams{100, 3}, {bb::ClassicScheme::spark_v2}), bb::Error);
    EXPECT_THROW(bb::ClassicFilter(bb::ClassicParams{128, 3}, {bb::ClassicScheme::spark_v1, bb::HashKind::xxh3, 1}),
                 bb::Error);
    EXPECT_THROW((void)bb::ClassicFilter::spark(10, 0.01, bb::ClassicScheme::double_hashing), bb::Error);
}
