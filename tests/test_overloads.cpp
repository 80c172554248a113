// Every filter class takes keys the same ways: 64-bit and 32-bit integer spans (a 32-bit key
// is its value), string_view spans and std::string spans for insert, contains, count (and
// erase where keys can be erased), and pre-computed hashes (hash(key), then insert_hash,
// insert_hashes, contains_hash, contains_hashes, count_hashes, and erase_hash[es] where keys
// can be erased), with the same answers and the same bits whichever form carries a key. The
// join filter takes the four key forms for its build and its column probes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <batchbloom/classic.hpp>
#include <batchbloom/concurrent.hpp>
#include <batchbloom/counting.hpp>
#include <batchbloom/deletable.hpp>
#include <batchbloom/filter.hpp>
#include <batchbloom/join.hpp>
#include <batchbloom/scalable.hpp>

namespace bb = batchbloom;

namespace {

template <class K>
using Keys = std::span<const K>;
using Out = std::span<std::uint8_t>;

template <class F, class K>
concept TakesKeys = requires(F& f, const F& c, Keys<K> keys, Out out) {
    f.insert(keys);
    c.contains(keys, out);
    { c.count(keys) } -> std::same_as<std::size_t>;
};

template <class F>
concept TakesEveryKeyForm = TakesKeys<F, std::uint64_t> && TakesKeys<F, std::uint32_t> &&
                            TakesKeys<F, std::string_view> && TakesKeys<F, std::string> &&
                            requires(F& f, const F& c) {
                                f.insert(std::uint64_t{});
                                f.insert(std::string_view{});
                                { c.contains(std::uint64_t{}) } -> std::same_as<bool>;
                                { c.contains(std::string_view{}) } -> std::same_as<bool>;
                            };

template <class F>
concept ErasesEveryKeyForm = requires(F& f) {
    f.erase(Keys<std::uint64_t>{});
    f.erase(Keys<std::uint32_t>{});
    f.erase(Keys<std::string_view>{});
    f.erase(Keys<std::string>{});
};

template <class F>
concept TakesHashes = requires(F& f, const F& c, Keys<std::uint64_t> hashes, Out out) {
    { c.hash(std::uint64_t{}) } -> std::same_as<std::uint64_t>;
    { c.hash(std::string_view{}) } -> std::same_as<std::uint64_t>;
    f.insert_hash(std::uint64_t{});
    f.insert_hashes(hashes);
    { c.contains_hash(std::uint64_t{}) } -> std::same_as<bool>;
    c.contains_hashes(hashes, out);
    { c.count_hashes(hashes) } -> std::same_as<std::size_t>;
};

template <class F>
concept ErasesHashes = requires(F& f, Keys<std::uint64_t> hashes) {
    f.erase_hash(std::uint64_t{});
    { f.erase_hashes(hashes) } -> std::same_as<std::size_t>;
};

template <class F>
concept TakesEveryForm = TakesEveryKeyForm<F> && TakesHashes<F>;
template <class F>
concept ErasesEveryForm = TakesEveryForm<F> && ErasesEveryKeyForm<F> && ErasesHashes<F>;

static_assert(TakesEveryForm<bb::Filter> && TakesEveryForm<bb::ScalableFilter> && TakesEveryForm<bb::ConcurrentFilter> &&
              TakesEveryForm<bb::ClassicFilter>);
static_assert(ErasesEveryForm<bb::CountingFilter> && ErasesEveryForm<bb::DeletableFilter>);

// The join filter is built from a column and probed with columns (it has no single keys and no
// hashes): every key form builds it and goes through each of its probes.
template <class F, class K>
concept JoinsKeys = std::constructible_from<F, Keys<K>> &&
                    requires(const F& c, Keys<K> keys, std::span<std::uint32_t> sel, std::span<std::uint64_t> bitmap) {
                        { c.select_chunk(keys, sel) } -> std::same_as<std::size_t>;
                        { c.select(keys) } -> std::same_as<std::vector<std::uint64_t>>;
                        c.bitmap(keys, bitmap);
                        { c.count(keys) } -> std::same_as<std::size_t>;
                    };

static_assert(JoinsKeys<bb::JoinFilter, std::uint64_t> && JoinsKeys<bb::JoinFilter, std::uint32_t> &&
              JoinsKeys<bb::JoinFilter, std::string_view> && JoinsKeys<bb::JoinFilter, std::string>);

const bb::Params params = bb::Params::for_fpr(20000, 0.001);

// One filter of each type (a ConcurrentFilter with the Filter it views), and whether two hold
// the same bits.
template <auto make>
struct Setup {
    decltype(make()) f = make();
    bool same(const Setup& o) const { return f == o.f; }
};
using FilterSetup = Setup<[] { return bb::Filter(params); }>;
using ScalableSetup = Setup<[] { return bb::ScalableFilter(bb::ScalableParams{.initial_capacity = 3000, .initial_fpr = 0.001}); }>;
using CountingSetup = Setup<[] { return bb::CountingFilter(params); }>;
using DeletableSetup = Setup<[] { return bb::DeletableFilter(params); }>;
using ClassicSetup = Setup<[] { return bb::ClassicFilter(bb::ClassicParams::for_fpr(20000, 0.001)); }>;
// Spark's schemes hash keys their own way.
using SparkSetup = Setup<[] { return bb::ClassicFilter::spark(20000, 0.001, bb::ClassicScheme::spark_v2, 7); }>;
struct ConcurrentSetup {
    bb::Filter bits{params};
    bb::ConcurrentFilter f{bits};
    bool same(const ConcurrentSetup& o) const { return bits == o.bits; }
};

struct KeySets {
    std::vector<std::string> strings;
    std::vector<std::string_view> views;
    std::vector<std::uint32_t> small;
    std::vector<std::uint64_t> wide;  // small's values

    explicit KeySets(std::uint32_t n, std::uint32_t from = 0) {
        for (std::uint32_t i = from; i < from + n; ++i) {
            strings.push_back("key-" + std::to_string(i));
            small.push_back(i * 2654435761u);
        }
        views.assign(strings.begin(), strings.end());
        wide.assign(small.begin(), small.end());
    }
};

template <class F>
std::vector<std::uint64_t> hashes_of(const F& f, const KeySets& k) {
    std::vector<std::uint64_t> h;
    for (auto v : k.wide) h.push_back(f.hash(v));
    for (auto v : k.views) h.push_back(f.hash(v));
    return h;
}

// The same answers from every form: keys inserted as std::string are found as string_view and
// std::string; keys inserted as 32-bit integers are found as their 64-bit values.
template <class F>
void expect_same_answers(F& f) {
    const KeySets k(500);
    f.insert(Keys<std::string>(k.strings));
    f.insert(Keys<std::uint32_t>(k.small));
    EXPECT_EQ(f.count(Keys<std::string>(k.strings)), k.strings.size());
    EXPECT_EQ(f.count(Keys<std::string_view>(k.views)), k.strings.size());
    EXPECT_EQ(f.count(Keys<std::uint32_t>(k.small)), k.small.size());
    EXPECT_EQ(f.count(Keys<std::uint64_t>(k.wide)), k.small.size());
    std::vector<std::uint8_t> a(k.strings.size()), b(k.strings.size());
    f.contains(Keys<std::string>(k.strings), a);
    f.contains(Keys<std::string_view>(k.views), b);
    EXPECT_EQ(a, b);
    EXPECT_EQ(a, std::vector<std::uint8_t>(k.strings.size(), 1));
    EXPECT_THROW(f.contains(Keys<std::string>(k.strings), Out(a).first(3)), bb::Error);
    EXPECT_THROW(f.contains_hashes(Keys<std::uint64_t>(k.wide), Out(a).first(3)), bb::Error);
}

template <class S>
class EveryFilterType : public ::testing::Test {};
using Setups = ::testing::Types<FilterSetup, ConcurrentSetup, ScalableSetup, CountingSetup, DeletableSetup,
                                ClassicSetup, SparkSetup>;
TYPED_TEST_SUITE(EveryFilterType, Setups);

}  // namespace

TYPED_TEST(EveryFilterType, AnswersAlikeForEveryKeyForm) {
    TypeParam s;
    expect_same_answers(s.f);
}

// 20000 keys of each kind, in batches big enough for several threads: every form sets the
// same bits, and the hash probes answer as the key probes do, bit for bit.
TYPED_TEST(EveryFilterType, EveryFormSetsTheSameBits) {
    const KeySets k(20000), absent(20000, 1u << 30);
    TypeParam by_keys, by_narrow, by_hashes, one_by_one;
    by_keys.f.insert(Keys<std::uint64_t>(k.wide));
    by_keys.f.insert(Keys<std::string_view>(k.views));
    by_narrow.f.insert(Keys<std::uint32_t>(k.small));
    by_narrow.f.insert(Keys<std::string>(k.strings));
    const std::vector<std::uint64_t> hashes = hashes_of(by_keys.f, k);
    by_hashes.f.insert_hashes(hashes);
    for (std::size_t i = 0; i < 1000; ++i) one_by_one.f.insert_hash(hashes[i]);
    one_by_one.f.insert_hashes(Keys<std::uint64_t>(hashes).subspan(1000));
    EXPECT_TRUE(by_keys.same(by_narrow));
    EXPECT_TRUE(by_keys.same(by_hashes));
    EXPECT_TRUE(by_keys.same(one_by_one));

    // Probes of present and absent keys: some absent ones are false positives, the same ones
    // whichever form asks.
    const std::vector<std::uint64_t> probes = [&] {
        std::vector<std::uint64_t> p = hashes_of(by_keys.f, absent);
        p.insert(p.end(), hashes.begin(), hashes.end());
        return p;
    }();
    std::vector<std::uint8_t> by_key(absent.wide.size()), by_hash(probes.size());
    by_keys.f.contains_hashes(probes, by_hash);
    by_keys.f.contains(Keys<std::uint64_t>(absent.wide), by_key);
    EXPECT_TRUE(std::equal(by_key.begin(), by_key.end(), by_hash.begin()));
    by_keys.f.contains(Keys<std::string>(absent.strings), by_key);
    EXPECT_TRUE(std::equal(by_key.begin(), by_key.end(), by_hash.begin() + absent.wide.size()));
    EXPECT_EQ(static_cast<std::size_t>(std::count(by_hash.begin() + 2 * absent.wide.size(), by_hash.end(), 1)),
              hashes.size());
    EXPECT_EQ(by_keys.f.count_hashes(probes),
              by_keys.f.count(Keys<std::uint64_t>(absent.wide)) + by_keys.f.count(Keys<std::string>(absent.strings)) +
                  hashes.size());
    for (std::size_t i = 0; i < 200; ++i) {
        EXPECT_EQ(by_keys.f.contains_hash(probes[i]), by_keys.f.contains(absent.wide[i]));
        EXPECT_EQ(by_keys.f.contains_hash(probes[absent.wide.size() + i]), by_keys.f.contains(absent.views[i]));
    }
}

// A 32-bit key is its 64-bit value and a std::string its bytes to the classic schemes too.
TEST(Overloads, ClassicU32KeysAreTheirValues) {
    for (const auto scheme : {bb::ClassicScheme::double_hashing, bb::ClassicScheme::spark_v1, bb::ClassicScheme::spark_v2}) {
        const KeySets k(3000);
        const bb::ClassicHashing h{scheme, bb::HashKind::xxh3, 0};
        bb::ClassicFilter a(bb::ClassicParams{64 * 1024, 5}, h), b(bb::ClassicParams{64 * 1024, 5}, h);
        a.insert(Keys<std::uint32_t>(k.small));
        b.insert(Keys<std::uint64_t>(k.wide));
        EXPECT_EQ(a, b) << to_string(scheme);
        for (std::size_t i = 0; i < k.small.size(); ++i) ASSERT_EQ(a.hash(k.wide[i]), b.hash(std::uint64_t{k.small[i]}));
    }
}

namespace {

// The types that erase keys: what one erase reports per key, and whether every present key is
// erased (a counting filter's counters) or only those in regions no other key touched (a
// deletable filter's collision bitmap).
template <class F>
struct Erasing;
template <>
struct Erasing<bb::CountingFilter> {
    using Result = std::uint8_t;
    static bool erased(Result r) { return r == 1; }
    static constexpr bool every_present_key = true;
};
template <>
struct Erasing<bb::DeletableFilter> {
    using Result = bb::EraseResult;
    static bool erased(Result r) { return r == bb::EraseResult::erased; }
    static constexpr bool every_present_key = false;
};

template <class F>
class EveryErasingType : public ::testing::Test {};
using ErasingTypes = ::testing::Types<bb::CountingFilter, bb::DeletableFilter>;
TYPED_TEST_SUITE(EveryErasingType, ErasingTypes);

}  // namespace

// Erasing keys of every form erases what it reports, key by key.
TYPED_TEST(EveryErasingType, ErasesEveryKeyForm) {
    using E = Erasing<TypeParam>;
    TypeParam f(params);
    expect_same_answers(f);
    const KeySets k(500);
    std::vector<typename E::Result> results(k.small.size());
    const std::size_t erased = f.erase(Keys<std::uint32_t>(k.small), results);
    EXPECT_GT(erased, 0u);
    EXPECT_EQ(static_cast<std::size_t>(std::count_if(results.begin(), results.end(), E::erased)), erased);
    const std::size_t strings = f.erase(Keys<std::string>(k.strings));
    if constexpr (E::every_present_key) {
        EXPECT_EQ(erased, k.small.size());
        EXPECT_EQ(strings, k.strings.size());
        EXPECT_EQ(f.count(Keys<std::string>(k.strings)), 0u);
    }
}

// Erasing by hashes erases what erasing the keys does, with the same outcomes.
TYPED_TEST(EveryErasingType, ErasingHashesMatchesErasingKeys) {
    const KeySets k(5000);
    TypeParam by_keys(params);
    by_keys.insert(Keys<std::uint64_t>(k.wide));
    TypeParam by_hashes = by_keys;
    std::vector<std::uint64_t> hashes;
    for (auto v : k.wide) hashes.push_back(by_keys.hash(v));
    const auto half = Keys<std::uint64_t>(k.wide).first(2500);
    const auto half_hashes = Keys<std::uint64_t>(hashes).first(2500);

    std::vector<typename Erasing<TypeParam>::Result> from_keys(2500), from_hashes(2500);
    EXPECT_EQ(by_keys.erase(half, from_keys), by_hashes.erase_hashes(half_hashes, from_hashes));
    EXPECT_EQ(from_keys, from_hashes);
    EXPECT_TRUE(by_keys == by_hashes);
    EXPECT_EQ(by_keys.erase(k.wide[2600]), by_hashes.erase_hash(hashes[2600]));
    EXPECT_TRUE(by_keys == by_hashes);
}
