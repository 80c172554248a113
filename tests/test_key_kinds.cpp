// Key kinds: every filter type records whether integers or byte strings went in, keeps the
// record through copies, files (not Spark's form) and conversions, and merges it by set algebra.
#include <batchbloom/batchbloom.hpp>
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

namespace {

namespace bb = batchbloom;
using bb::KeyKinds;

constexpr KeyKinds both{true, true, true};
const std::vector<std::uint64_t> ints = {1, 2, 3};
const std::vector<std::uint32_t> ints32 = {4, 5};
const std::vector<std::string_view> strs = {"a", "b"};
const bb::Params params = bb::Params::make(bb::Shape::word512, 8, 6);

template <class F>
F round_trip(const F& f) {
    std::stringstream buf;
    f.save(buf);
    return F::load(buf);
}

TEST(KeyKinds, MergeRulesAndNames) {
    EXPECT_EQ(KeyKinds::only_integers() | KeyKinds::only_bytes(), both);
    EXPECT_EQ(KeyKinds::none() | KeyKinds::only_bytes(), KeyKinds::only_bytes());
    EXPECT_EQ(both | KeyKinds::not_recorded(), KeyKinds::not_recorded());
    EXPECT_EQ(KeyKinds::not_recorded() | KeyKinds::none(), KeyKinds::not_recorded());
    EXPECT_EQ(both & KeyKinds::only_bytes(), KeyKinds::only_bytes());
    EXPECT_EQ(KeyKinds::only_integers() & KeyKinds::only_bytes(), KeyKinds::none());
    EXPECT_EQ(KeyKinds::not_recorded() & KeyKinds::only_bytes(), KeyKinds::only_bytes());
    EXPECT_EQ(KeyKinds::not_recorded() & KeyKinds::not_recorded(), KeyKinds::not_recorded());
    EXPECT_EQ(bb::to_string(both), "integers and byte strings");
    EXPECT_EQ(bb::to_string(KeyKinds::only_integers()), "integers");
    EXPECT_EQ(bb::to_string(KeyKinds::only_bytes()), "byte strings");
    EXPECT_EQ(bb::to_string(KeyKinds::none()), "none");
    EXPECT_EQ(bb::to_string(KeyKinds::not_recorded()), "not recorded");
}

TEST(KeyKinds, FilterRecordsKeysNotHashes) {
    bb::Filter f(params);
    EXPECT_EQ(f.key_kinds(), KeyKinds::none());
    f.insert_hashes(ints);
    f.insert_hash(7);
    f.insert(std::span<const std::uint64_t>{});  // no keys: nothing recorded
    EXPECT_EQ(f.key_kinds(), KeyKinds::none());
    f.insert(std::span<const std::uint32_t>(ints32));
    EXPECT_EQ(f.key_kinds(), KeyKinds::only_integers());
    f.insert(std::string_view("x"));
    EXPECT_EQ(f.key_kinds(), both);
    EXPECT_EQ(round_trip(f).key_kinds(), both);
    EXPECT_EQ(bb::Filter(f).key_kinds(), both);
    EXPECT_EQ(f.fold().key_kinds(), both);
    f.clear();
    EXPECT_EQ(f.key_kinds(), both);

    bb::Filter g(params);
    g.insert(std::uint64_t{9});
    EXPECT_EQ(g.key_kinds(), KeyKinds::only_integers());
    g.add_key_kinds(KeyKinds::only_bytes());  // e.g. hashes of strings inserted with insert_hashes
    EXPECT_EQ(g.key_kinds(), both);
    g.add_key_kinds(KeyKinds::not_recorded());
    EXPECT_EQ(g.key_kinds(), KeyKinds::not_recorded());
    g.insert(std::uint64_t{10});  // unknown stays unknown
    EXPECT_EQ(g.key_kinds(), KeyKinds::not_recorded());
    EXPECT_EQ(round_trip(g).key_kinds(), KeyKinds::not_recorded());
}

TEST(KeyKinds, SetAlgebraMergesAndZstdKeeps) {
    bb::Filter a(params), b(params);
    a.insert(std::span<const std::uint64_t>(ints));
    b.insert(std::span<const std::string_view>(strs));
    EXPECT_EQ((a | b).key_kinds(), both);
    EXPECT_EQ((a & b).key_kinds(), KeyKinds::none());
    bb::Filter u = a | b;
    EXPECT_EQ((u & a).key_kinds(), KeyKinds::only_integers());
    std::stringstream z;
    a.save(z, bb::SaveOptions{bb::Compression::zstd, 1});
    EXPECT_EQ(bb::Filter::load(z).key_kinds(), KeyKinds::only_integers());
}

TEST(KeyKinds, CountingDeletableScalable) {
    bb::CountingFilter c(params);
    c.insert(std::span<const std::string_view>(strs));
    EXPECT_EQ(c.key_kinds(), KeyKinds::only_bytes());
    c.erase(std::span<const std::string_view>(strs));
    EXPECT_EQ(c.key_kinds(), KeyKinds::only_bytes());
    c.insert(std::uint64_t{3});
    EXPECT_EQ(round_trip(c).key_kinds(), both);
    EXPECT_EQ(c.to_filter().key_kinds(), both);
    EXPECT_EQ(bb::CountingFilter(c).key_kinds(), both);

    bb::DeletableFilter d(params);
    d.insert(std::span<const std::uint64_t>(ints));
    EXPECT_EQ(d.key_kinds(), KeyKinds::only_integers());
    EXPECT_EQ(d.filter().key_kinds(), KeyKinds::only_integers());
    d.insert_hash(99);
    EXPECT_EQ(round_trip(d).key_kinds(), KeyKinds::only_integers());
    d.insert(std::string_view("s"));
    EXPECT_EQ(round_trip(d).key_kinds(), both);

    bb::ScalableParams sp;
    sp.initial_capacity = 2;
    bb::ScalableFilter s(sp);
    s.insert_hashes(ints);
    EXPECT_EQ(s.key_kinds(), KeyKinds::none());
    s.insert(std::span<const std::uint32_t>(ints32));
    EXPECT_EQ(s.key_kinds(), KeyKinds::only_integers());
    s.insert(std::string_view("s"));
    const auto loaded = round_trip(s);
    EXPECT_EQ(loaded.key_kinds(), both);
    for (const auto& stage : loaded.stages()) EXPECT_EQ(stage.key_kinds(), both);
}

TEST(KeyKinds, ClassicKeepsThemInItsFileButNotInSparksForm) {
    bb::ClassicFilter f(bb::ClassicParams{1000, 3});
    f.insert(std::span<const std::uint64_t>(ints));
    EXPECT_EQ(f.key_kinds(), KeyKinds::only_integers());
    EXPECT_EQ(round_trip(f).key_kinds(), KeyKinds::only_integers());
    bb::ClassicFilter g(bb::ClassicParams{1000, 3});
    g.insert(std::string_view("s"));
    EXPECT_EQ((f | g).key_kinds(), both);
    EXPECT_EQ((f & g).key_kinds(), KeyKinds::none());

    auto spark = bb::ClassicFilter::spark(100, 0.01);
    spark.insert(std::string_view("s"));
    EXPECT_EQ(spark.key_kinds(), KeyKinds::only_bytes());
    EXPECT_EQ(bb::ClassicFilter::from_spark_bytes(spark.to_spark_bytes()).key_kinds(), KeyKinds::not_recorded());
}

TEST(KeyKinds, JoinFilterRecordsItsBuildKeys) {
    bb::JoinFilterOptions counted;  // distinct hashes are counted and inserted as hashes
    bb::JoinFilterOptions sized;
    sized.expected_keys = 10;       // the keys are inserted as keys
    for (const auto& o : {counted, sized}) {
        EXPECT_EQ(bb::JoinFilter(std::span<const std::uint64_t>(ints), o).key_kinds(), KeyKinds::only_integers());
        EXPECT_EQ(bb::JoinFilter(std::span<const std::uint32_t>(ints32), o).key_kinds(), KeyKinds::only_integers());
        EXPECT_EQ(bb::JoinFilter(std::span<const std::string_view>(strs), o).key_kinds(), KeyKinds::only_bytes());
        EXPECT_EQ(bb::JoinFilter(std::span<const std::uint64_t>{}, o).key_kinds(), KeyKinds::none());
    }
}

}  // namespace
