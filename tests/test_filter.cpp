#include <unistd.h>

#include <gtest/gtest.h>

#include <batchbloom/filter.hpp>
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "support.hpp"

namespace bb = batchbloom;
using bb::Filter;
using bb::Params;
using bb::Shape;

namespace {

struct Config {
    Shape shape;
    unsigned k;
    bb::HashKind hash;
    std::uint64_t seed;
};

std::string name(const ::testing::TestParamInfo<Config>& info) {
    return std::string(bb::to_string(info.param.shape)) + "_k" + std::to_string(info.param.k) + "_" +
           std::string(bb::to_string(info.param.hash)) + "_seed" + std::to_string(info.param.seed);
}

class FilterTest : public ::testing::TestWithParam<Config> {
protected:
    Filter make(std::uint64_t blocks = 997) const {
        const Config c = GetParam();
        return Filter(Params::make(c.shape, blocks, c.k), bb::Hashing{c.hash, c.seed});
    }
};

std::vector<std::uint8_t> probe(const Filter& f, const std::vector<std::uint64_t>& keys) {
    std::vector<std::uint8_t> out(keys.size(), 2);
    f.contains(keys, out);
    return out;
}

}  // namespace

INSTANTIATE_TEST_SUITE_P(Shapes, FilterTest,
                         ::testing::Values(Config{Shape::split256, 8, bb::HashKind::xxh3, 0},
                                           Config{Shape::split256, 3, bb::HashKind::murmur3, 7},
                                           Config{Shape::word512, 8, bb::HashKind::xxh3, 0},
                                           Config{Shape::word512, 16, bb::HashKind::xxh3, 42},
                                           Config{Shape::word512, 5, bb::HashKind::murmur3, 0},
                                           Config{Shape::line512, 6, bb::HashKind::xxh3, 1},
                                           Config{Shape::line512, 1, bb::HashKind::murmur3, 99}),
                         name);

TEST_P(FilterTest, NoFalseNegativesForRandomKeys) {
    Filter f = make();
    const auto keys = bb::testing::random_keys(50000, 11, 0);
    f.insert(keys);
    EXPECT_EQ(f.count(keys), keys.size());
    for (std::size_t i = 0; i < keys.size(); i += 97) ASSERT_TRUE(f.contains(keys[i]));
}

TEST_P(FilterTest, NoFalseNegativesForSequentialAndExtremeKeys) {
    Filter f = make();
    std::vector<std::uint64_t> keys(20000);
    std::iota(keys.begin(), keys.end(), 0);
    keys.push_back(std::numeric_limits<std::uint64_t>::max());
    keys.push_back(std::numeric_limits<std::uint64_t>::max() - 1);
    keys.push_back(1ULL << 63);
    f.insert(keys);
    EXPECT_EQ(f.count(keys), keys.size());
    EXPECT_TRUE(f.contains(std::uint64_t{0}));
    EXPECT_TRUE(f.contains(std::numeric_limits<std::uint64_t>::max()));
}

TEST_P(FilterTest, DuplicatesChangeNothing) {
    Filter once = make(), thrice = make();
    const auto keys = bb::testing::random_keys(3000, 12, 0);
    once.insert(keys);
    for (int i = 0; i < 3; ++i) thrice.insert(keys);
    EXPECT_EQ(once, thrice);
}

TEST_P(FilterTest, StringKeys) {
    Filter f = make();
    std::vector<std::string> keys = {"", "a", "hello", std::string(10000, 'x'), std::string("\0\x01\xff\0", 4)};
    for (int i = 0; i < 5000; ++i) keys.push_back("key-" + std::to_string(i));
    f.insert(keys);
    std::vector<std::string_view> views(keys.begin(), keys.end());
    EXPECT_EQ(f.count(views), keys.size());
    std::vector<std::uint8_t> out(views.size());
    f.contains(views, out);
    for (auto b : out) ASSERT_EQ(b, 1);
    std::vector<std::uint64_t> bits((views.size() + 63) / 64);
    f.contains_bitmap(views, bits);
    for (std::size_t i = 0; i < views.size(); ++i) ASSERT_EQ((bits[i / 64] >> (i % 64)) & 1, 1u);
    std::vector<std::uint64_t> string_bits(bits.size());
    f.contains_bitmap(keys, string_bits);  // std::string keys: the same bitmap as their views
    EXPECT_EQ(string_bits, bits);
    for (const auto& k : keys) ASSERT_TRUE(f.contains(std::string_view(k)));
    // The binary key differs from its prefix before the first zero byte.
    Filter g = make();
    g.insert(std::string_view("\0\x01\xff\0", 4));
    EXPECT_TRUE(g.contains(std::string_view("\0\x01\xff\0", 4)));
    EXPECT_NE(f.hash(std::string_view("\0\x01", 2)), f.hash(std::string_view("\0", 1)));
}

TEST_P(FilterTest, Uint32KeysAreTheirUint64Widening) {
    Filter a = make(), b = make();
    std::vector<std::uint32_t> k32(3001);
    std::iota(k32.begin(), k32.end(), 4000000000U);
    std::vector<std::uint64_t> k64(k32.begin(), k32.end());
    a.insert(k32);
    b.insert(k64);
    EXPECT_EQ(a, b);
    EXPECT_EQ(a.count(k32), k32.size());
    std::vector<std::uint8_t> out(k32.size());
    a.contains(k32, out);
    EXPECT_EQ(std::accumulate(out.begin(), out.end(), 0u), k32.size());
    std::vector<std::uint64_t> b32((k32.size() + 63) / 64), b64(b32.size());
    a.contains_bitmap(k32, b32);
    a.contains_bitmap(k64, b64);
    EXPECT_EQ(b32, b64);
}

TEST_P(FilterTest, BulkSingleHashedAndAllOutputFormsAgree) {
    Filter bulk = make(), single = make(), hashed = make();
    const auto keys = bb::testing::random_keys(5000, 13, 0);
    bulk.insert(keys);
    for (auto k : keys) single.insert(k);
    std::vector<std::uint64_t> hashes;
    for (auto k : keys) hashes.push_back(hashed.hash(k));
    hashed.insert_hashes(hashes);
    EXPECT_EQ(bulk, single);
    EXPECT_EQ(bulk, hashed);

    // Half present, half absent; odd batch sizes exercise the bitmap tail.
    auto mixed = bb::testing::random_keys(2001, 14, 1);
    mixed.insert(mixed.end(), keys.begin(), keys.begin() + 2001);
    for (std::size_t n : {0, 1, 7, 33, 63, 64, 65, 1001, 4002}) {
        const std::vector<std::uint64_t> q(mixed.begin(), mixed.begin() + std::ptrdiff_t(n));
        const auto bytes = probe(bulk, q);
        std::vector<std::uint64_t> bitmap((n + 63) / 64 + 1, ~0ULL);
        bulk.contains_bitmap(q, bitmap);
        std::size_t expect_count = 0;
        for (std::size_t i = 0; i < n; ++i) {
            ASSERT_EQ(bytes[i], bulk.contains(q[i]) ? 1 : 0);
            ASSERT_EQ((bitmap[i / 64] >> (i % 64)) & 1, bytes[i]);
            expect_count += bytes[i];
        }
        if (n % 64 != 0) {
            EXPECT_EQ(bitmap[n / 64] >> (n % 64), 0u) << "bits past n must be zero";
        }
        EXPECT_EQ(bitmap[(n + 63) / 64], ~0ULL) << "bitmap written past its end";
        EXPECT_EQ(bulk.count(q), expect_count);
        std::vector<std::uint64_t> qh;
        for (auto k : q) qh.push_back(bulk.hash(k));
        std::vector<std::uint8_t> hbytes(n);
        bulk.contains_hashes(qh, hbytes);
        EXPECT_EQ(hbytes, bytes);
        EXPECT_EQ(bulk.count_hashes(qh), expect_count);
    }
}

TEST_P(FilterTest, UnalignedSpans) {
    Filter a = make(), b = make();
    const auto keys = bb::testing::random_keys(4097, 15, 0);
    // A key span starting 8 bytes into a 64-byte aligned buffer, and an output span at an odd
    // address.
    alignas(64) static std::uint64_t buf[4200];
    std::memcpy(buf + 1, keys.data(), keys.size() * 8);
    a.insert(std::span<const std::uint64_t>(buf + 1, keys.size()));
    b.insert(keys);
    EXPECT_EQ(a, b);
    std::vector<std::uint8_t> out(keys.size() + 3);
    a.contains(std::span<const std::uint64_t>(buf + 1, keys.size()), std::span(out).subspan(3, keys.size()));
    for (std::size_t i = 0; i < keys.size(); ++i) ASSERT_EQ(out[i + 3], 1);
}

TEST_P(FilterTest, EmptyInputs) {
    Filter f = make();
    const Filter before = f;
    f.insert(std::span<const std::uint64_t>{});
    f.insert(std::span<const std::string_view>{});
    EXPECT_EQ(f, before);
    EXPECT_EQ(f.count(std::span<const std::uint64_t>{}), 0u);
    f.contains(std::span<const std::uint64_t>{}, std::span<std::uint8_t>{});
    f.contains_bitmap(std::span<const std::uint64_t>{}, std::span<std::uint64_t>{});
    EXPECT_EQ(f.fill_ratio(), 0.0);
    EXPECT_EQ(f.estimated_cardinality(), 0.0);
    EXPECT_EQ(f.current_fpr(), 0.0);
}

TEST_P(FilterTest, EstimatesFollowTheFill) {
    Filter f = make(4000);
    const std::size_t n = 100000;
    f.insert(bb::testing::random_keys(n, 16, 0));
    // The estimate's error is a few tenths of a percent at this size (sd of the zero count).
    EXPECT_NEAR(f.estimated_cardinality(), double(n), 0.03 * n);
    EXPECT_NEAR(f.current_fpr(), bb::predicted_fpr(f.params(), n), 0.1 * bb::predicted_fpr(f.params(), n));
    EXPECT_GT(f.fill_ratio(), 0.0);
    EXPECT_LT(f.fill_ratio(), 1.0);
}

TEST_P(FilterTest, CopyMoveClearEquality) {
    Filter f = make();
    f.insert(bb::testing::random_keys(1000, 17, 0));
    Filter copy = f;
    EXPECT_EQ(copy, f);
    EXPECT_NE(copy.bytes().data(), f.bytes().data());
    Filter moved = std::move(copy);
    EXPECT_EQ(moved, f);
    copy = moved;  // assigning to a moved-from filter works
    EXPECT_EQ(copy, f);
    moved.clear();
    EXPECT_NE(moved, f);
    EXPECT_EQ(moved.fill_ratio(), 0.0);
    Filter other_seed(f.params(), bb::Hashing{f.hashing().kind, f.hashing().seed + 1});
    EXPECT_NE(other_seed, moved);  // same bits (none), different hashing
}

TEST(Filter, StorageIs64ByteAligned) {
    for (std::uint64_t blocks : {1ULL, 3ULL, 1000ULL, 100000ULL}) {
        Filter f(Params::make(Shape::split256, blocks, 8));
        EXPECT_EQ(reinterpret_cast<std::uintptr_t>(f.bytes().data()) % 64, 0u);
        EXPECT_EQ(f.bytes().size(), blocks * 32);
    }
}

TEST(Filter, RejectsMismatchedOutputs) {
    Filter f(Params::for_fpr(1000, 0.01));
    const auto keys = bb::testing::random_keys(100, 18, 0);
    std::vector<std::uint8_t> small(99);
    EXPECT_THROW(f.contains(keys, small), bb::Error);
    std::vector<std::uint64_t> bitmap(1);
    EXPECT_THROW(f.contains_bitmap(keys, bitmap), bb::Error);
    std::vector<std::string_view> sv(3);
    EXPECT_THROW(f.contains(sv, small), bb::Error);
}

TEST(Filter, RejectsInvalidConstruction) {
    EXPECT_THROW(Filter(Params{Shape::word512, 0, 8}), bb::Error);
    EXPECT_THROW(Filter(Params{Shape::word512, 10, 0}), bb::Error);
    EXPECT_THROW(Filter(Params{static_cast<Shape>(7), 10, 8}), bb::Error);
    EXPECT_THROW(Filter(Params::make(Shape::word512, 10, 8), bb::Hashing{bb::HashKind::murmur3, 1ULL << 32}),
                 bb::Error);
    EXPECT_THROW(Filter(Params::make(Shape::word512, 10, 8), bb::Hashing{static_cast<bb::HashKind>(0), 0}), bb::Error);
}

TEST(Filter, AllocationFailureIsAnError) {
    // 2^32 - 1 blocks of 64 bytes, nearly 256 GiB: more than the machine's memory (or its
    // container's limit), so refused before the allocation. Where the kernel overcommits, the
    // allocation would succeed and zeroing it would get the process killed (seen on a 128 GiB
    // machine, which took the whole test binary with it).
    const std::uint64_t ram = std::uint64_t(sysconf(_SC_PHYS_PAGES)) * std::uint64_t(sysconf(_SC_PAGESIZE));
    const Params p = Params::make(Shape::word512, bb::layout::max_blocks, 8);
    if (ram >= p.bytes()) GTEST_SKIP() << "this machine has the memory for 256 GiB: zeroing it would take minutes";
    try {
        Filter f(p);
        ADD_FAILURE() << "a filter larger than the machine's memory was allocated";
    } catch (const bb::Error& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("cannot allocate " + std::to_string(p.bytes()) + " bytes for the filter"), std::string::npos)
            << m;
        // The limit is the machine's memory or its container's, if lower.
        EXPECT_NE(m.find("more than this machine's "), std::string::npos) << m;
    }
}

TEST(Backend, ScalarIsAlwaysAvailable) {
    const auto names = bb::available_backends();
    ASSERT_FALSE(names.empty());
    EXPECT_EQ(names.back(), "scalar");
    EXPECT_EQ(bb::resolve_backend(bb::Backend::scalar), bb::Backend::scalar);
    for (const auto& n : names) EXPECT_EQ(bb::to_string(bb::parse_backend(n)), n);
    EXPECT_THROW(bb::parse_backend("gpu9000"), bb::Error);
}

TEST(Backend, EnvironmentOverride) {
    const char* old = std::getenv("BATCHBLOOM_BACKEND");
    const std::string saved = old ? old : "";
    setenv("BATCHBLOOM_BACKEND", "scalar", 1);
    bb::reload_environment();
    EXPECT_EQ(bb::resolve_backend(bb::Backend::automatic), bb::Backend::scalar);
    // Read once and kept: a change is followed after reload_environment(), not before.
    setenv("BATCHBLOOM_BACKEND", "nonsense", 1);
    EXPECT_EQ(bb::resolve_backend(bb::Backend::automatic), bb::Backend::scalar);
    bb::reload_environment();
    EXPECT_THROW(bb::resolve_backend(bb::Backend::automatic), bb::Error);
    // An explicit choice is not overridden by the environment.
    EXPECT_EQ(bb::resolve_backend(bb::Backend::scalar), bb::Backend::scalar);
    if (old)
        setenv("BATCHBLOOM_BACKEND", saved.c_str(), 1);
    else
        unsetenv("BATCHBLOOM_BACKEND");
    bb::reload_environment();
}

TEST(Backend, UnavailableBackendIsAClearError) {
    const auto names = bb::available_backends();
    if (std::find(names.begin(), names.end(), "cuda") != names.end()) GTEST_SKIP() << "a CUDA device is present";
    Filter f(Params::for_fpr(1000, 0.01));
    EXPECT_THROW(f.set_backend(bb::Backend::cuda), bb::Error);  // never built in this configuration
    try {
        f.set_backend(bb::Backend::cuda);
    } catch (const bb::Error& e) {
        EXPECT_NE(std::string(e.what()).find("cuda"), std::string::npos);
    }
}
