// Counting Bloom filter: the plain filter it converts to, erase semantics and saturation,
// the bit-sliced counters against a naive counter array, every kernel against the scalar one,
// and the file format.
#include <gtest/gtest.h>

#include <algorithm>
#include <batchbloom/counting.hpp>
#include <batchbloom/file_kind.hpp>
#include <batchbloom/filter.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <unistd.h>

#include "support.hpp"

namespace bb = batchbloom;
using bb::Backend;
using bb::CountingFilter;
using bb::Filter;
using bb::Params;
using bb::Shape;

namespace {

std::vector<Backend> counting_backends() {
    std::vector<Backend> out{Backend::scalar};
    for (const auto& name : bb::available_backends())
        if (name == "avx2" || name == "avx512") out.push_back(bb::parse_backend(name));
    return out;
}

using Case = std::tuple<Shape, Backend>;

class CountingTest : public ::testing::TestWithParam<Case> {
protected:
    Shape shape() const { return std::get<0>(GetParam()); }
    Backend backend() const { return std::get<1>(GetParam()); }
    CountingFilter make(const Params& p, bb::Hashing h = {}) const { return CountingFilter(p, h, backend()); }
};

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
    return std::string(bb::to_string(std::get<0>(info.param))) + "_" + std::string(bb::to_string(std::get<1>(info.param)));
}

// The naive model: one byte per counter, the key's bits from layout.hpp's pattern.
struct NaiveCounters {
    Params p;
    std::vector<std::uint8_t> c;
    explicit NaiveCounters(const Params& params) : p(params), c(params.blocks * params.block_bytes() * 8) {}

    std::vector<std::size_t> counters_of(std::uint64_t hash) const {
        std::vector<std::size_t> idx;
        const std::uint64_t block = bb::layout::block_index(hash, p.blocks);
        bb::layout::visit_shape(p.shape, [&](auto tag) {
            constexpr Shape S = decltype(tag)::value;
            using T = bb::layout::shape_traits<S>;
            const auto pat = bb::layout::make_pattern<S>(static_cast<std::uint32_t>(hash), p.k);
            for (unsigned w = 0; w < T::words; ++w)
                for (unsigned b = 0; b < T::word_bits; ++b)
                    if ((pat.w[w] >> b) & 1) idx.push_back(block * p.block_bytes() * 8 + w * T::word_bits + b);
        });
        return idx;
    }
    void insert(std::uint64_t hash) {
        for (auto i : counters_of(hash)) c[i] = static_cast<std::uint8_t>(std::min(15, c[i] + 1));
    }
    bool erase(std::uint64_t hash) {
        const auto idx = counters_of(hash);
        for (auto i : idx)
            if (c[i] == 0) return false;
        for (auto i : idx)
            if (c[i] < 15) --c[i];
        return true;
    }
};

}  // namespace

INSTANTIATE_TEST_SUITE_P(ShapesAndKernels, CountingTest,
                         ::testing::Combine(::testing::Values(Shape::split256, Shape::word512, Shape::line512),
                                            ::testing::ValuesIn(counting_backends())),
                         case_name);

TEST_P(CountingTest, PositiveCountersAreByteIdenticalToThePlainFilter) {
    for (unsigned k : {1u, 7u, 8u, 11u, 16u}) {
        const Params p = Params::make(shape(), 777, k);
        const bb::Hashing h{bb::HashKind::xxh3, 99};
        const auto keys = bb::testing::random_keys(6000, k, 0);
        CountingFilter c = make(p, h);
        Filter f(p, h);
        c.insert(keys);
        f.insert(keys);
        EXPECT_EQ(c.to_filter(), f) << "k=" << k;
    }
}

TEST_P(CountingTest, NoFalseNegativesAndFprOfThePlainModel) {
    const std::size_t n = 20000;
    const Params p = Params::for_fpr(n, 0.01, shape());
    const auto keys = bb::testing::random_keys(n, 1, 0), absent = bb::testing::random_keys(200000, 2, 1);
    CountingFilter c = make(p);
    c.insert(keys);
    EXPECT_EQ(c.count(keys), n);
    // The "counter > 0" view is the plain filter, so its FPR is the plain model's: within 5
    // binomial standard deviations of predicted_fpr (plus 10% for the model's own error).
    const double predicted = bb::predicted_fpr(p, n);
    const double measured = double(c.count(absent)) / double(absent.size());
    const double sigma = std::sqrt(predicted * (1 - predicted) / double(absent.size()));
    EXPECT_NEAR(measured, predicted, 5 * sigma + 0.1 * predicted);
}

TEST_P(CountingTest, ErasingInsertedKeysLeavesTheFilterOfTheRest) {
    const Params p = Params::for_fpr(10000, 0.01, shape());
    const auto kept = bb::testing::random_keys(10000, 3, 0), gone = bb::testing::random_keys(5000, 4, 0);
    CountingFilter c = make(p);
    c.insert(kept);
    c.insert(gone);
    std::vector<std::uint8_t> erased(gone.size());
    EXPECT_EQ(c.erase(gone, erased), gone.size());
    EXPECT_TRUE(std::all_of(erased.begin(), erased.end(), [](auto e) { return e == 1; }));
    ASSERT_EQ(c.saturated_counters(), 0u);  // at ~1 key per counter, 15 is out of reach
    Filter only_kept(p);
    only_kept.insert(kept);
    EXPECT_EQ(c.to_filter(), only_kept);
    EXPECT_EQ(c.count(kept), kept.size());
}

TEST_P(CountingTest, KeysThatWereNeverInsertedAreRefusedAndChangeNothing) {
    const Params p = Params::for_fpr(5000, 0.01, shape());
    const auto keys = bb::testing::random_keys(5000, 5, 0), absent = bb::testing::random_keys(20000, 6, 1);
    CountingFilter c = make(p);
    c.insert(keys);
    std::vector<std::uint8_t> probe(absent.size());
    c.contains(absent, probe);
    std::vector<std::uint64_t> negatives;
    for (std::size_t i = 0; i < absent.size(); ++i)
        if (probe[i] == 0) negatives.push_back(absent[i]);
    ASSERT_GT(negatives.size(), absent.size() / 2);
    const CountingFilter before = c;
    std::vector<std::uint8_t> erased(negatives.size(), 7);
    EXPECT_EQ(c.erase(negatives, erased), 0u);
    EXPECT_TRUE(std::all_of(erased.begin(), erased.end(), [](auto e) { return e == 0; }));
    EXPECT_EQ(c, before);
    EXPECT_FALSE(CountingFilter(p).erase(std::uint64_t{42}));  // empty filter: nothing to erase
}

TEST_P(CountingTest, SaturatedCountersStayAndTheKeyStaysPresent) {
    const Params p = Params::make(shape(), 64, 8);
    CountingFilter c = make(p);
    const std::uint64_t key = 12345;
    for (int i = 0; i < 20; ++i) c.insert(key);
    const std::uint64_t h = c.hash(key), block = bb::layout::block_index(h, p.blocks);
    const Filter plain = c.to_filter();
    unsigned bits_of_key = 0;
    for (unsigned bit = 0; bit < p.block_bytes() * 8; ++bit) {
        const bool set = (std::to_integer<unsigned>(plain.bytes()[block * p.block_bytes() + bit / 8]) >> (bit % 8)) & 1;
        EXPECT_EQ(c.counter(block, bit), set ? 15u : 0u);
        bits_of_key += set;
    }
    EXPECT_EQ(c.saturated_counters(), bits_of_key);
    // 20 inserts, 25 erases: a saturated counter never drops, so every erase succeeds and the
    // key never becomes a false negative (nor ever leaves).
    for (int i = 0; i < 25; ++i) EXPECT_TRUE(c.erase(key));
    EXPECT_TRUE(c.contains(key));
    EXPECT_EQ(c.saturated_counters(), bits_of_key);
}

TEST_P(CountingTest, CountersFollowANaiveCounterArray) {
    // A small, crowded filter (up to ~30 keys per block), so counters reach 15 and saturate,
    // and a random mix of inserts, erases of present keys and erases of random keys.
    for (unsigned k : {3u, 8u, 12u}) {
        const Params p = Params::make(shape(), 5, k);
        CountingFilter c = make(p);
        NaiveCounters model(p);
        bb::testing::KeyGen g(k);
        std::vector<std::uint64_t> present;
        for (int step = 0; step < 3000; ++step) {
            const std::uint64_t r = g.next();
            if (r % 3 != 0 || present.empty()) {
                const std::uint64_t key = r % 200;  // repeats: the same key inserted again
                c.insert(key);
                model.insert(c.hash(key));
                present.push_back(key);
            } else {
                const bool erase_present = (r >> 8) % 2 == 0;
                const std::uint64_t key = erase_present ? present[(r >> 16) % present.size()] : r;
                const bool got = c.erase(key);
                ASSERT_EQ(got, model.erase(c.hash(key))) << "step " << step;
            }
        }
        for (std::uint64_t b = 0; b < p.blocks; ++b)
            for (unsigned bit = 0; bit < p.block_bytes() * 8; ++bit)
                ASSERT_EQ(c.counter(b, bit), model.c[b * p.block_bytes() * 8 + bit]) << "k=" << k << " block " << b;
        EXPECT_GT(c.saturated_counters(), 0u);
    }
}

TEST_P(CountingTest, EveryKernelMatchesTheScalarKernel) {
    const Params p = Params::make(shape(), 301, 9);
    auto keys = bb::testing::random_keys(30000, 7, 0);
    const auto extra = bb::testing::random_keys(20000, 8, 1);
    CountingFilter ref(p, {}, Backend::scalar), c = make(p);
    for (int round = 0; round < 3; ++round) {  // ~100 keys per block: counters saturate
        ref.insert(keys);
        c.insert(keys);
    }
    std::vector<std::uint64_t> erase_keys(keys.begin(), keys.begin() + 20000);
    erase_keys.insert(erase_keys.end(), extra.begin(), extra.end());
    std::vector<std::uint8_t> ref_out(erase_keys.size()), out(erase_keys.size());
    EXPECT_EQ(c.erase(erase_keys, out), ref.erase(erase_keys, ref_out));
    EXPECT_EQ(out, ref_out);
    EXPECT_EQ(c, ref);
    std::vector<std::uint8_t> ref_probe(extra.size()), probe(extra.size());
    ref.contains(extra, ref_probe);
    c.contains(extra, probe);
    EXPECT_EQ(probe, ref_probe);
}

TEST_P(CountingTest, BatchesEqualSingleKeysAndKeyTypesAgree) {
    const Params p = Params::make(shape(), 97, 7);
    const auto keys = bb::testing::random_keys(3000, 9, 0);
    CountingFilter batch = make(p), single = make(p);
    batch.insert(keys);
    for (auto k : keys) single.insert(k);
    EXPECT_EQ(batch, single);
    std::vector<std::uint8_t> out(keys.size());
    EXPECT_EQ(batch.erase(std::span(keys).first(1000), std::span(out).first(1000)), 1000u);
    for (std::size_t i = 0; i < 1000; ++i) EXPECT_TRUE(single.erase(keys[i]));
    EXPECT_EQ(batch, single);

    std::vector<std::uint32_t> small = {1, 2, 3, 70000};
    std::vector<std::uint64_t> wide(small.begin(), small.end());
    CountingFilter a = make(p), b = make(p);
    a.insert(small);
    b.insert(wide);
    EXPECT_EQ(a, b);
    std::vector<std::string_view> names = {"alice", "bob"};
    a.insert(names);
    EXPECT_TRUE(a.contains(std::string_view("alice")));
    EXPECT_EQ(a.erase(names), 2u);
    EXPECT_EQ(a, b);
}

TEST(CountingApi, BadArgumentsThrow) {
    const Params p = Params::make(Shape::word512, 4, 8);
    CountingFilter c(p);
    EXPECT_THROW(c.counter(4, 0), bb::Error);
    EXPECT_THROW(c.counter(0, 512), bb::Error);
    std::vector<std::uint64_t> keys(3);
    std::vector<std::uint8_t> out(2);
    EXPECT_THROW(c.contains(keys, out), bb::Error);
    EXPECT_THROW(c.erase(keys, out), bb::Error);
    EXPECT_THROW(CountingFilter(Params::make(Shape::word512, 0, 8)), bb::Error);
}

TEST_P(CountingTest, ThreadCountNeverChangesResults) {
    // Few blocks and repeated keys, so that saturation and refused erases depend on the order
    // in which a block's keys are applied; batches big enough (> 32K keys per thread) to split.
    const Params p = Params::make(shape(), 301, 7);
    auto keys = bb::testing::random_keys(100'001, 41, 0);
    for (std::size_t i = 0; i < keys.size(); i += 5) keys[i] = keys[i / 7];
    auto to_erase = bb::testing::random_keys(50'000, 42, 1);  // never inserted: refused
    to_erase.insert(to_erase.end(), keys.begin(), keys.begin() + 60'000);
    for (std::size_t i = 0; i < to_erase.size(); i += 3) to_erase[i] = keys[i % 100];
    const auto queries = bb::testing::random_keys(100'001, 43, 1);

    CountingFilter ref = make(p);
    ref.set_threads(1);
    ref.insert(keys);
    ref.insert(std::span(keys).first(70'000));
    std::vector<std::uint8_t> ref_erased(to_erase.size()), ref_probe(queries.size());
    const std::size_t ref_count = ref.erase(to_erase, ref_erased);
    ref.contains(queries, ref_probe);
    for (unsigned threads : {2u, 3u}) {
        SCOPED_TRACE(std::to_string(threads) + " threads");
        CountingFilter c = make(p);
        c.set_threads(threads);
        c.insert(keys);
        std::vector<std::uint64_t> hashes(70'000);
        for (std::size_t i = 0; i < hashes.size(); ++i) hashes[i] = c.hash(keys[i]);
        c.insert_hashes(hashes);  // the hash path splits the same way as the key path
        std::vector<std::uint8_t> erased(to_erase.size()), probe(queries.size());
        EXPECT_EQ(c.erase(to_erase, erased), ref_count);
        EXPECT_EQ(erased, ref_erased);
        EXPECT_EQ(c, ref);
        c.contains(queries, probe);
        EXPECT_EQ(probe, ref_probe);
        EXPECT_EQ(c.count(queries), ref.count(queries));
    }
}
