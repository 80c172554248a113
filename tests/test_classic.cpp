// The classic Bloom filter: sizing, no false negatives, FPR against the classic model, the
// scalar and gather probes agreeing bit for bit, set algebra, and the file format.
#include <batchbloom/classic.hpp>
#include <batchbloom/filter.hpp>
#include <batchbloom/params.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support.hpp"

namespace bb = batchbloom;
using bb::testing::random_keys;

namespace {

const bb::ClassicScheme all_schemes[] = {bb::ClassicScheme::double_hashing, bb::ClassicScheme::spark_v1,
                                         bb::ClassicScheme::spark_v2};

// Spark schemes need whole words; round m up for them.
bb::ClassicFilter make(bb::ClassicScheme s, std::uint64_t bits, unsigned k, std::uint64_t seed = 0) {
    if (s != bb::ClassicScheme::double_hashing) bits = (bits + 63) / 64 * 64;
    if (s == bb::ClassicScheme::spark_v1) seed = 0;
    return bb::ClassicFilter(bb::ClassicParams{bits, k}, bb::ClassicHashing{s, bb::HashKind::xxh3, seed});
}

std::vector<std::string> string_keys(std::size_t n, std::uint64_t seed, unsigned parity) {
    std::vector<std::string> out;
    for (const auto k : random_keys(n, seed, parity)) out.push_back("key-" + std::to_string(k) + std::string(k % 7, 'x'));
    return out;
}

std::vector<std::string_view> views(const std::vector<std::string>& s) { return {s.begin(), s.end()}; }

std::string scheme_name(bb::ClassicScheme s) { return std::string(bb::to_string(s)); }

}  // namespace

TEST(ClassicParams, ForFprMeetsTheTargetWithTheOptimalK) {
    for (const double fpr : {0.1, 0.01, 0.001, 1e-5}) {
        const std::uint64_t n = 100'000;
        const auto p = bb::ClassicParams::for_fpr(n, fpr);
        EXPECT_LE(bb::classic_fpr(p.bits, p.k, n), fpr);
        const double ideal_bits = double(n) * -std::log(fpr) / (std::log(2.0) * std::log(2.0));
        EXPECT_GE(double(p.bits), ideal_bits);
        EXPECT_LE(double(p.bits), ideal_bits * 1.01);
        EXPECT_EQ(p.k, unsigned(std::lround(double(p.bits) / double(n) * std::log(2.0))));
    }
    // 1%: 9.585 bits/key, k = 7 (the textbook numbers).
    const auto p = bb::ClassicParams::for_fpr(1'000'000, 0.01);
    EXPECT_NEAR(double(p.bits) / 1e6, 9.585, 0.01);
    EXPECT_EQ(p.k, 7u);
    EXPECT_EQ(bb::ClassicParams::for_bits_per_key(1000, 10), (bb::ClassicParams{10'000, 7}));
}

TEST(ClassicParams, SparkSizing) {
    // BloomFilter.create(1e6, 0.03): optimalNumOfBits = 7298440 -> 114039 words, k = 5.
    const auto p = bb::ClassicParams::spark(1'000'000, 0.03);
    EXPECT_EQ(p.bits, 114'039u * 64);
    EXPECT_EQ(p.k, 5u);
}

TEST(ClassicParams, RejectsInvalidValues) {
    EXPECT_THROW(bb::ClassicParams::for_fpr(0, 0.01), bb::Error);
    EXPECT_THROW(bb::ClassicParams::for_fpr(10, 0.0), bb::Error);
    EXPECT_THROW(bb::ClassicParams::for_fpr(10, 1.0), bb::Error);
    EXPECT_THROW(bb::ClassicParams::for_bits_per_key(10, -1), bb::Error);
    EXPECT_THROW(bb::ClassicParams::for_bits_per_key(10, NAN), bb::Error);
    EXPECT_THROW(bb::ClassicFilter(bb::ClassicParams{0, 3}), bb::Error);
    EXPECT_THROW(bb::ClassicFilter(bb::ClassicParams{64, 0}), bb::Error);
    EXPECT_THROW(bb::ClassicFilter(bb::ClassicParams{64, bb::ClassicParams::max_k + 1}), bb::Error);
    EXPECT_THROW(bb::ClassicFilter(bb::ClassicParams{bb::ClassicParams::max_bits + 1, 3}), bb::Error);
    EXPECT_THROW(bb::ClassicFilter(bb::ClassicParams{64, 3}, {bb::ClassicScheme::spark_v2, bb::HashKind::xxh3, 1ULL << 32}),
                 bb::Error);
    EXPECT_THROW(bb::ClassicFilter(bb::ClassicParams{64, 3}, {bb::ClassicScheme::double_hashing, bb::HashKind::murmur3, 1ULL << 32}),
                 bb::Error);
    EXPECT_THROW(bb::parse_classic_scheme("spark_v3"), bb::Error);
    EXPECT_EQ(bb::parse_classic_scheme("spark_v1"), bb::ClassicScheme::spark_v1);
}

TEST(ClassicFilter, NoFalseNegatives) {
    for (const auto s : all_schemes) {
        for (const std::uint64_t bits : {1ULL, 70ULL, 1'000ULL, 100'003ULL}) {
            SCOPED_TRACE(scheme_name(s) + ", " + std::to_string(bits) + " bits");
            auto f = make(s, bits, 5, 99);
            const auto keys = random_keys(5'000, 1, 0);
            const auto strings = string_keys(2'000, 2, 0);
            f.insert(keys);
            f.insert(views(strings));
            EXPECT_EQ(f.count(keys), keys.size());
            EXPECT_EQ(f.count(views(strings)), strings.size());
            for (std::size_t i = 0; i < 100; ++i) EXPECT_TRUE(f.contains(keys[i]) && f.contains(strings[i]));
        }
    }
}

TEST(ClassicFilter, SingleAndBulkInsertAgree) {
    for (const auto s : all_schemes) {
        auto a = make(s, 50'000, 6, 3), b = make(s, 50'000, 6, 3);
        const auto keys = random_keys(3'000, 3, 0);
        a.insert(keys);
        for (const auto k : keys) b.insert(k);
        EXPECT_TRUE(a == b) << scheme_name(s);
        EXPECT_GT(a.fill_ratio(), 0.2);
        a.clear();
        EXPECT_EQ(a.fill_ratio(), 0.0);
    }
}

// Bulk calls on several threads: the same bits and answers as one thread, for private copies
// merged afterwards (a filter small next to the batch) and for one shared array with atomic
// ORs (a filter over 64 MiB), integer and string keys, every scheme.
TEST(ClassicFilter, ThreadCountNeverChangesResults) {
    const auto keys = random_keys(200'001, 31, 0);
    auto queries = random_keys(100'001, 32, 1);
    queries.insert(queries.end(), keys.begin(), keys.begin() + 100'001);
    const auto skeys = string_keys(100'001, 33, 0);
    const auto sv = views(skeys);
    for (const auto s : all_schemes) {
        for (const std::uint64_t bits : {std::uint64_t(1'000'003), std::uint64_t(80) << 23}) {  // 122 KiB, 80 MiB
            if (bits > 1'000'003 && s != bb::ClassicScheme::double_hashing) continue;
            SCOPED_TRACE(scheme_name(s) + " bits=" + std::to_string(bits));
            auto ref = make(s, bits, 5, 7);
            ref.set_threads(1);
            ref.insert(keys);
            ref.insert(sv);
            std::vector<std::uint8_t> expect(queries.size());
            ref.contains(queries, expect);
            for (unsigned threads : {2u, 3u}) {
                auto f = make(s, bits, 5, 7);
                f.set_threads(threads);
                f.insert(keys);
                f.insert(sv);
                ASSERT_TRUE(f == ref) << threads << " threads";
                std::vector<std::uint8_t> got(queries.size());
                f.contains(queries, got);
                ASSERT_EQ(got, expect) << threads << " threads";
                ASSERT_EQ(f.count(queries), ref.count(queries));
                ASSERT_EQ(f.count(sv), sv.size());
            }
        }
    }
}

// The bulk probe (prefetching pipeline) answers exactly as the per-key probe, on every scheme.
TEST(ClassicFilter, BulkProbeMatchesSingleKey) {
    for (const auto s : all_schemes) {
        auto f = make(s, 30'011, 5, 21);
        f.set_backend(bb::Backend::scalar);
        f.insert(random_keys(3'000, 15, 0));
        auto queries = random_keys(2'000, 15, 0);
        const auto absent = random_keys(20'003, 16, 1);
        queries.insert(queries.end(), absent.begin(), absent.end());
        std::vector<std::uint8_t> bulk(queries.size());
        f.contains(queries, bulk);
        std::size_t positives = 0;
        for (std::size_t i = 0; i < queries.size(); ++i) {
            ASSERT_EQ(bulk[i], f.contains(queries[i]) ? 1 : 0) << scheme_name(s) << " key " << i;
            positives += bulk[i];
        }
        EXPECT_GT(positives, 2'000u);  // the inserted ones, and some false positives
        EXPECT_LT(positives, 2'000u + 2'000u);
        const auto strings = string_keys(1'000, 17, 1);
        std::vector<std::uint8_t> sbulk(strings.size());
        f.contains(views(strings), sbulk);
        for (std::size_t i = 0; i < strings.size(); ++i) ASSERT_EQ(sbulk[i], f.contains(std::string_view(strings[i])) ? 1 : 0);
    }
}

TEST(ClassicFilter, BitsPastMStayZero) {
    auto f = make(bb::ClassicScheme::double_hashing, 70, 4);
    f.insert(random_keys(1'000, 4, 0));
    EXPECT_EQ(f.words().size(), 2u);
    EXPECT_EQ(f.words()[1] >> 6, 0u);  // bits 70..127 are not part of the filter
    EXPECT_EQ(f.words()[0], ~0ULL);    // 1000 keys x 4 positions fill 70 bits
}

// Every engine answers as the scalar one, bit for bit, including odd bit counts, k = 1, batch
// lengths that are not a multiple of 8, and string keys.
TEST(ClassicFilter, EveryEngineMatchesScalar) {
    for (const std::string& engine : bb::available_backends()) {
        for (const std::uint64_t bits : {1ULL, 63ULL, 64ULL, 1'001ULL, 123'457ULL, (1ULL << 22) + 3}) {
            for (const unsigned k : {1u, 3u, 7u, 16u}) {
                SCOPED_TRACE(engine + ", " + std::to_string(bits) + " bits, k " + std::to_string(k));
                auto f = make(bb::ClassicScheme::double_hashing, bits, k, 17);
                f.insert(random_keys(bits / 12 + 1, 5, 0));
                auto queries = random_keys(4'099, 5, 0);
                const auto absent = random_keys(4'001, 6, 1);
                queries.insert(queries.end(), absent.begin(), absent.end());
                std::vector<std::uint8_t> scalar(queries.size()), other(queries.size());
                f.set_backend(bb::Backend::scalar);
                f.contains(queries, scalar);
                f.set_backend(bb::parse_backend(engine));
                f.contains(queries, other);
                EXPECT_EQ(scalar, other);
                const auto strings = string_keys(777, 7, 0);
                std::vector<std::uint8_t> s1(strings.size()), s2(strings.size());
                f.set_backend(bb::Backend::scalar);
                f.contains(views(strings), s1);
                f.set_backend(bb::parse_backend(engine));
                f.contains(views(strings), s2);
                EXPECT_EQ(s1, s2);
                EXPECT_EQ(f.count(queries), std::size_t(std::count(scalar.begin(), scalar.end(), 1)));
            }
        }
    }
}

// The measured FPR of each scheme against (1 - e^{-kn/m})^k. Q absent probes estimate the
// filter's FPR p with standard deviation sqrt(p(1-p)/Q); the filter's own FPR scatters around
// the model by a few percent (fill fluctuates by ~1/sqrt(m), and that enters k times), so
// the tolerance is 5 standard deviations plus 5% of the model.
TEST(ClassicFilter, FprMatchesTheClassicModel) {
    const std::uint64_t n = 40'000;
    const std::size_t q = 400'000;
    for (const auto s : all_schemes) {
        for (const double bits_per_key : {8.0, 12.0}) {
            const auto p = bb::ClassicParams::for_bits_per_key(n, bits_per_key);
            auto f = make(s, p.bits, p.k, 11);
            f.insert(random_keys(n, 8, 0));
            const double measured = double(f.count(random_keys(q, 9, 1))) / double(q);
            const double model = f.predicted_fpr(n);
            const double tolerance = 5 * std::sqrt(model * (1 - model) / double(q)) + 0.05 * model;
            EXPECT_NEAR(measured, model, tolerance) << scheme_name(s) << " at " << bits_per_key << " bits/key";
            // Fill against its expectation 1 - (1 - 1/m)^{kn}.
            const double expected_fill = -std::expm1(double(p.k * n) * std::log1p(-1.0 / double(f.params().bits)));
            EXPECT_NEAR(f.fill_ratio(), expected_fill, 0.005);
        }
    }
}

// At the same bits per key the classic filter beats the blocked model: the yardstick.
TEST(ClassicFilter, NeedsFewerBitsThanBlockedForTheSameFpr) {
    const auto classic = bb::ClassicParams::for_fpr(1'000'000, 0.01);
    const auto blocked = bb::Params::for_fpr(1'000'000, 0.01);
    EXPECT_LT(classic.bits, blocked.bits());
}

TEST(ClassicFilter, SetAlgebra) {
    for (const auto s : all_schemes) {
        auto a = make(s, 64'000, 5, 1), b = make(s, 64'000, 5, 1), both = make(s, 64'000, 5, 1);
        const auto ka = random_keys(2'000, 10, 0), kb = random_keys(2'000, 11, 0);
        a.insert(ka);
        b.insert(kb);
        both.insert(ka);
        both.insert(kb);
        EXPECT_TRUE((a | b) == both) << scheme_name(s);
        const auto common = a & b;
        EXPECT_LT(common.fill_ratio(), a.fill_ratio());
        EXPECT_FALSE(a.compatible(make(s, 128'000, 5, 1)));
        EXPECT_THROW(a |= make(s, 64'000, 6, 1), bb::Error);
    }
    EXPECT_THROW(make(bb::ClassicScheme::double_hashing, 64, 2, 1) |= make(bb::ClassicScheme::double_hashing, 64, 2, 2),
                 bb::Error);
}

// Round trips and rejected files are every kind's (test_file_properties.cpp); this is the
// classic kind's own entry point for both of its forms.
TEST(ClassicFormat, BatchbloomFilesOfEverySchemeAreClassicFilterFiles) {
    for (const auto s : all_schemes) {
        auto f = make(s, 10'007, 4, 77);
        f.insert(random_keys(1'000, 12, 0));
        const auto path = bb::testing::process_temp_path("bb_classic_" + scheme_name(s) + ".bbf");
        f.save(path);
        EXPECT_TRUE(bb::is_classic_filter_file(path));
        EXPECT_TRUE(bb::load_classic_filter_file(path) == f);
        std::filesystem::remove(path);
    }
    bb::Filter(bb::Params::for_bits_per_key(100, 10)).save(bb::testing::process_temp_path("bb_blocked.bbf"));
    EXPECT_FALSE(bb::is_classic_filter_file(bb::testing::process_temp_path("bb_blocked.bbf")));
    EXPECT_FALSE(bb::is_classic_filter_file("/nonexistent/file"));
}

TEST(ClassicFormat, SparkFilesLoadThroughTheSameEntryPoint) {
    auto f = bb::ClassicFilter::spark(1'000, 0.01);
    f.insert(random_keys(500, 14, 0));
    const auto path = bb::testing::process_temp_path("bb_classic_spark.bin");
    {
        std::ofstream out(path, std::ios::binary);
        f.write_spark(out);
    }
    EXPECT_TRUE(bb::is_classic_filter_file(path));
    EXPECT_TRUE(bb::load_classic_filter_file(path) == f);
    std::filesystem::remove(path);
}
