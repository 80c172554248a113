// The Bloom-join pre-filter: selection vectors, bitmaps and counts against the scalar
// reference filter on every engine, and the join result with and without the filter.
#include <gtest/gtest.h>

#include <batchbloom/backend.hpp>
#include <batchbloom/join.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "support.hpp"

namespace bb = batchbloom;
using bb::Backend;
using bb::JoinFilter;
using bb::JoinFilterOptions;

namespace {

std::vector<Backend> cpu_backends() {
    std::vector<Backend> out;
    for (const auto& name : bb::available_backends())
        if (name != "cuda") out.push_back(bb::parse_backend(name));
    return out;
}

class JoinTest : public ::testing::TestWithParam<Backend> {
protected:
    JoinFilterOptions options(double fpr = 0.01) const {
        JoinFilterOptions o;
        o.fpr = fpr;
        o.backend = GetParam();
        return o;
    }
};

std::string backend_name(const ::testing::TestParamInfo<Backend>& info) { return std::string(bb::to_string(info.param)); }

/// A probe column of `n` rows: every third row a build key (in shuffled order, some
/// repeated), the rest keys that are absent by construction (the other parity).
std::vector<std::uint64_t> probe_column(const std::vector<std::uint64_t>& build, std::size_t n, std::uint64_t seed) {
    const auto absent = bb::testing::random_keys(n, seed, 1);
    bb::testing::KeyGen pick(seed + 1);
    std::vector<std::uint64_t> probe(n);
    for (std::size_t i = 0; i < n; ++i) probe[i] = i % 3 == 0 ? build[pick.next() % build.size()] : absent[i];
    return probe;
}

/// The indices the scalar reference filter, with the join filter's params and hashing, says
/// may match.
template <class Key>
std::vector<std::uint64_t> oracle(const JoinFilter& jf, const std::vector<Key>& probe) {
    bb::Filter reference(jf.filter().params(), jf.filter().hashing(), Backend::scalar);
    std::copy(jf.filter().bytes().begin(), jf.filter().bytes().end(), reference.mutable_bytes().begin());
    std::vector<std::uint64_t> sel;
    for (std::size_t i = 0; i < probe.size(); ++i)
        if (reference.contains(probe[i])) sel.push_back(i);
    return sel;
}

/// A tiny orders/lineitem pair: orders keyed by sparse order keys (TPC-H style: 8 of every 32
/// values), each order 1..7 line items, and a predicate that keeps `percent` of the orders.
struct Tables {
    std::vector<std::uint64_t> order_key, build_key, build_payload;  // build side = selected orders
    std::vector<std::uint64_t> line_key, line_payload;
};

Tables make_tables(std::size_t orders, unsigned percent, std::uint64_t seed) {
    Tables t;
    bb::testing::KeyGen g(seed);
    for (std::uint64_t i = 0; i < orders; ++i) {
        const std::uint64_t key = i / 8 * 32 + i % 8 + 1;
        t.order_key.push_back(key);
        if (g.next() % 100 < percent) {
            t.build_key.push_back(key);
            t.build_payload.push_back(g.next() % 1000);
        }
        for (std::uint64_t l = 0, lines = 1 + g.next() % 7; l < lines; ++l) {
            t.line_key.push_back(key);
            t.line_payload.push_back(g.next() % 50);
        }
    }
    return t;
}

using Pair = std::tuple<std::size_t, std::size_t>;  // (probe row, build row)

/// The equi-join of build and probe over the probe rows in `rows` (all rows if null).
template <class Key>
std::vector<Pair> hash_join(const std::vector<Key>& build, const std::vector<Key>& probe,
                            const std::vector<std::uint64_t>* rows) {
    std::unordered_multimap<Key, std::size_t> table;
    for (std::size_t b = 0; b < build.size(); ++b) table.emplace(build[b], b);
    std::vector<Pair> out;
    auto probe_row = [&](std::size_t p) {
        const auto [first, last] = table.equal_range(probe[p]);
        for (auto it = first; it != last; ++it) out.emplace_back(p, it->second);
    };
    if (rows == nullptr)
        for (std::size_t p = 0; p < probe.size(); ++p) probe_row(p);
    else
        for (std::uint64_t p : *rows) probe_row(static_cast<std::size_t>(p));
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace

INSTANTIATE_TEST_SUITE_P(Engines, JoinTest, ::testing::ValuesIn(cpu_backends()), backend_name);

TEST_P(JoinTest, SelectionEqualsTheReferenceFilterAndKeepsEveryMatch) {
    const auto build = bb::testing::random_keys(5000, 11, 0);
    const auto probe = probe_column(build, 70001, 12);
    const JoinFilter jf(std::span<const std::uint64_t>(build), options());
    const auto sel = jf.select(std::span<const std::uint64_t>(probe));
    EXPECT_EQ(sel, oracle(jf, probe));
    for (std::size_t i = 0; i < probe.size(); i += 3)
        ASSERT_TRUE(std::binary_search(sel.begin(), sel.end(), i)) << "matching row " << i << " was dropped";
    EXPECT_GT(sel.size(), probe.size() / 3);  // some false positives...
    EXPECT_LT(sel.size(), probe.size() / 3 + probe.size() / 20);  // ...but about 1% of the rest
}

TEST_P(JoinTest, ChunksBitmapsCountsAndThreadCountsAgree) {
    const auto build = bb::testing::random_keys(3000, 21, 0);
    const auto probe = probe_column(build, 100003, 22);
    const std::span<const std::uint64_t> column(probe);
    auto o = options(0.05);
    o.threads = 1;
    const JoinFilter one(std::span<const std::uint64_t>(build), o);
    const auto expected = one.select(column);
    ASSERT_EQ(expected, oracle(one, probe));

    for (unsigned threads : {2u, 3u}) {
        for (std::size_t chunk_rows : {std::size_t(1), std::size_t(100), std::size_t(65536), probe.size() * 2}) {
            o.threads = threads;
            o.chunk_rows = chunk_rows;
            const JoinFilter jf(std::span<const std::uint64_t>(build), o);
            ASSERT_EQ(jf.filter(), one.filter());
            EXPECT_EQ(jf.select(column), expected) << threads << " threads, chunks of " << chunk_rows;
            EXPECT_EQ(jf.count(column), expected.size());
        }
    }

    // select_chunk over uneven chunks gives chunk-local indices of the same rows.
    std::vector<std::uint64_t> from_chunks;
    std::vector<std::uint32_t> sel(40000);
    for (std::size_t begin = 0; begin < probe.size(); begin += 33333) {
        const auto chunk = column.subspan(begin, std::min<std::size_t>(33333, probe.size() - begin));
        const std::size_t n = one.select_chunk(chunk, sel);
        for (std::size_t i = 0; i < n; ++i) from_chunks.push_back(begin + sel[i]);
    }
    EXPECT_EQ(from_chunks, expected);

    // The bitmap form, with a spare word that must stay zero.
    std::vector<std::uint64_t> bits((probe.size() + 63) / 64 + 1, ~std::uint64_t(0));
    one.bitmap(column, bits);
    std::vector<std::uint64_t> from_bits;
    bb::bitmap_to_selection(bits, probe.size(), 0, from_bits);
    EXPECT_EQ(from_bits, expected);
    EXPECT_EQ(bits[probe.size() / 64] >> (probe.size() % 64), 0u);
}

TEST_P(JoinTest, JoinResultIsTheSameWithAndWithoutTheFilter) {
    for (unsigned percent : {1u, 10u, 50u}) {
        const Tables t = make_tables(20000, percent, percent);
        ASSERT_FALSE(t.build_key.empty());
        const JoinFilter jf(std::span<const std::uint64_t>(t.build_key), options());
        const auto survivors = jf.select(std::span<const std::uint64_t>(t.line_key));
        const auto without = hash_join(t.build_key, t.line_key, nullptr);
        EXPECT_EQ(hash_join(t.build_key, t.line_key, &survivors), without) << percent << "% of the orders";
        EXPECT_GE(survivors.size(), without.size());
        // The filter pays only if it drops most non-matching rows: at most ~2% of them survive.
        EXPECT_LE(survivors.size() - without.size(), (t.line_key.size() - without.size()) / 50 + 20);
    }
}

TEST_P(JoinTest, StringAndThirtyTwoBitKeys) {
    std::vector<std::string> build_names, probe_names;
    for (int i = 0; i < 2000; ++i) build_names.push_back("part#" + std::to_string(i * 7) + " almond blush");
    for (int i = 0; i < 30000; ++i) probe_names.push_back("part#" + std::to_string(i) + " almond blush");
    const std::vector<std::string_view> build(build_names.begin(), build_names.end());
    const std::vector<std::string_view> probe(probe_names.begin(), probe_names.end());
    const JoinFilter names(std::span<const std::string_view>(build), options());
    const auto sel = names.select(std::span<const std::string_view>(probe));
    EXPECT_EQ(sel, oracle(names, probe));
    for (std::size_t i = 0; i < 2000 * 7; i += 7) ASSERT_TRUE(std::binary_search(sel.begin(), sel.end(), i));
    EXPECT_EQ(hash_join(build, probe, &sel), hash_join(build, probe, nullptr));
    std::vector<std::uint32_t> local(probe.size());
    EXPECT_EQ(names.select_chunk(std::span<const std::string_view>(probe), local), sel.size());

    // A std::string is the same key as its view, on both sides, in every form of probe.
    const JoinFilter owned(std::span<const std::string>(build_names), options());
    EXPECT_EQ(owned.filter(), names.filter());
    EXPECT_EQ(owned.key_kinds(), names.key_kinds());
    const std::span<const std::string> owned_probe(probe_names);
    EXPECT_EQ(names.select(owned_probe), sel);
    EXPECT_EQ(names.count(owned_probe), sel.size());
    std::vector<std::uint64_t> by_view((probe.size() + 63) / 64), by_string(by_view.size());
    names.bitmap(std::span<const std::string_view>(probe), by_view);
    names.bitmap(owned_probe, by_string);
    EXPECT_EQ(by_string, by_view);
    std::vector<std::uint32_t> owned_local(probe.size());
    ASSERT_EQ(names.select_chunk(owned_probe, owned_local), sel.size());
    EXPECT_EQ(owned_local, local);

    // A 32-bit key is the same key as its 64-bit value: same filter, same survivors.
    std::vector<std::uint32_t> b32, p32;
    for (std::uint32_t i = 0; i < 3000; ++i) b32.push_back(i * 5);
    for (std::uint32_t i = 0; i < 40000; ++i) p32.push_back(i);
    const std::vector<std::uint64_t> b64(b32.begin(), b32.end()), p64(p32.begin(), p32.end());
    const JoinFilter narrow(std::span<const std::uint32_t>(b32), options());
    const JoinFilter wide(std::span<const std::uint64_t>(b64), options());
    EXPECT_EQ(narrow.filter(), wide.filter());
    EXPECT_EQ(narrow.select(std::span<const std::uint32_t>(p32)), wide.select(std::span<const std::uint64_t>(p64)));
    EXPECT_EQ(narrow.count(std::span<const std::uint32_t>(p32)), wide.count(std::span<const std::uint64_t>(p64)));
}

TEST(Join, SizedForDistinctKeysOrTheGivenCount) {
    std::vector<std::uint64_t> build;
    for (std::uint64_t i = 0; i < 1000; ++i) build.insert(build.end(), 5, i);  // 1000 keys, 5 times each
    JoinFilterOptions o;
    o.fpr = 0.01;
    const JoinFilter distinct(std::span<const std::uint64_t>(build), o);
    EXPECT_EQ(distinct.sized_for(), 1000u);
    EXPECT_EQ(distinct.filter().params(), bb::Params::for_fpr(1000, 0.01));
    EXPECT_LE(distinct.predicted_fpr(), 0.01);
    o.expected_keys = build.size();
    EXPECT_EQ(JoinFilter(std::span<const std::uint64_t>(build), o).filter().params(), bb::Params::for_fpr(5000, 0.01));
    o.expected_keys = 0;
    o.bits_per_key = 16;
    o.shape = bb::Shape::split256;
    EXPECT_EQ(JoinFilter(std::span<const std::uint64_t>(build), o).filter().params(),
              bb::Params::for_bits_per_key(1000, 16, bb::Shape::split256));
}

TEST(Join, OverAFilterBuiltElsewhereProbesAsTheOriginal) {
    const auto build = bb::testing::random_keys(5000, 51, 0);
    const auto probe = bb::testing::random_keys(30000, 52, 1);
    JoinFilterOptions o;
    o.shape = bb::Shape::split256;
    o.hashing = {bb::HashKind::murmur3, 9};
    o.chunk_rows = 1000;
    const JoinFilter original(std::span<const std::uint64_t>(build), o);
    bb::Filter copy = original.filter();
    JoinFilterOptions defaults;  // shape and hashing come from the filter, not from these
    defaults.chunk_rows = 1000;
    const JoinFilter again(std::move(copy), original.sized_for(), defaults);
    EXPECT_EQ(again.filter(), original.filter());
    EXPECT_EQ(again.options().shape, bb::Shape::split256);
    EXPECT_EQ(again.options().hashing, o.hashing);
    EXPECT_EQ(again.sized_for(), 5000u);
    EXPECT_EQ(again.predicted_fpr(), original.predicted_fpr());
    EXPECT_EQ(again.select(std::span<const std::uint64_t>(probe)), original.select(std::span<const std::uint64_t>(probe)));
    EXPECT_EQ(again.count(std::span<const std::uint64_t>(build)), build.size());
    EXPECT_EQ(JoinFilter(original.filter(), 0).sized_for(), 1u);
}

TEST(Join, MeasuredFalsePositivesMatchThePrediction) {
    const auto build = bb::testing::random_keys(20000, 31, 0);
    const auto absent = bb::testing::random_keys(400000, 32, 1);
    JoinFilterOptions o;
    o.fpr = 0.01;
    const JoinFilter jf(std::span<const std::uint64_t>(build), o);
    const double measured = double(jf.count(std::span<const std::uint64_t>(absent))) / double(absent.size());
    EXPECT_NEAR(measured, jf.predicted_fpr(), 0.15 * jf.predicted_fpr());
}

TEST(Join, EmptySidesAndBadArguments) {
    const std::vector<std::uint64_t> none;
    const auto probe = bb::testing::random_keys(1000, 41, 0);
    const JoinFilter empty{std::span<const std::uint64_t>(none)};
    EXPECT_EQ(empty.sized_for(), 1u);
    EXPECT_TRUE(empty.select(std::span<const std::uint64_t>(probe)).empty());  // nothing can match
    const JoinFilter some{std::span<const std::uint64_t>(probe)};
    EXPECT_TRUE(some.select(std::span<const std::uint64_t>(none)).empty());
    EXPECT_EQ(some.select_chunk(std::span<const std::uint64_t>(none), {}), 0u);

    std::vector<std::uint32_t> short_sel(999);
    EXPECT_THROW(some.select_chunk(std::span<const std::uint64_t>(probe), short_sel), bb::Error);
    std::vector<std::uint64_t> short_bits(15);
    EXPECT_THROW(some.bitmap(std::span<const std::uint64_t>(probe), short_bits), bb::Error);
    std::vector<std::uint64_t> out;
    EXPECT_THROW(bb::bitmap_to_selection(short_bits, 1000, 0, out), bb::Error);

    JoinFilterOptions o;
    o.fpr = 1.5;
    EXPECT_THROW(JoinFilter(std::span<const std::uint64_t>(probe), o), bb::Error);
    o = {};
    o.bits_per_key = -1;
    EXPECT_THROW(JoinFilter(std::span<const std::uint64_t>(probe), o), bb::Error);
    o = {};
    o.chunk_rows = 0;
    EXPECT_THROW(JoinFilter(std::span<const std::uint64_t>(probe), o), bb::Error);
    const auto names = bb::available_backends();
    if (std::find(names.begin(), names.end(), "cuda") == names.end()) {
        o = {};
        o.backend = Backend::cuda;
        EXPECT_THROW(JoinFilter(std::span<const std::uint64_t>(probe), o), bb::Error);
    }
}

TEST(Join, BitmapToSelectionHonoursBaseAndLength) {
    const std::vector<std::uint64_t> bits = {0x8000000000000001ULL, 0xFFULL};
    std::vector<std::uint64_t> out = {7};
    bb::bitmap_to_selection(bits, 68, 1000, out);  // bits 64..67 of the second word only
    EXPECT_EQ(out, (std::vector<std::uint64_t>{7, 1000, 1063, 1064, 1065, 1066, 1067}));
}
