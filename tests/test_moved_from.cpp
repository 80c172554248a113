// The moved-from rule of every filter type (filter.hpp, "After a move"): a moved-from filter is
// empty and every member may be called — probes find nothing, estimates are 0, what needs
// storage throws Error — and self-assignment by copy or move changes nothing.
#include <gtest/gtest.h>

#include <batchbloom/classic.hpp>
#include <batchbloom/concurrent.hpp>
#include <batchbloom/counting.hpp>
#include <batchbloom/deletable.hpp>
#include <batchbloom/filter.hpp>
#include <batchbloom/join.hpp>
#include <batchbloom/scalable.hpp>
#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "filter_types.hpp"
#include "support.hpp"

namespace bb = batchbloom;

namespace {

const std::vector<std::uint64_t> keys = bb::testing::random_keys(3000, 1, 0);
const std::vector<std::uint32_t> keys32{1, 2, 3, 70000};
const std::vector<std::string_view> strings{"a", "bb", "ccc"};
const std::vector<std::string> owned_strings{"a", "bb", "ccc"};

/// The answers of a probe that finds nothing: every byte 0, and 0xFF beforehand to see them written.
template <class F, class K>
void expect_probes_empty(const F& f, const std::vector<K>& ks) {
    std::vector<std::uint8_t> out(ks.size(), 0xFF);
    f.contains(std::span<const K>(ks), out);
    EXPECT_EQ(out, std::vector<std::uint8_t>(ks.size(), 0));
}

template <class F>
void expect_save_refused(const F& f) {
    std::ostringstream out;
    EXPECT_THROW(f.save(out), bb::Error);
    EXPECT_TRUE(out.str().empty());
    bb::testing::TempDir dir;
    EXPECT_THROW(f.save(dir.path() / "x.bbf"), bb::Error);
    EXPECT_FALSE(std::filesystem::exists(dir.path() / "x.bbf"));
}

/// Moves `full` out by construction and by assignment, checks the source with `expect_empty`,
/// self-assigns by copy and move, and makes a moved-from filter whole again by assignment.
template <class F, class ExpectEmpty>
void check_move_rule(F full, ExpectEmpty expect_empty) {
    const F original = full;
    F a(std::move(full));
    EXPECT_TRUE(a == original);
    expect_empty(full);
    F b = original;
    b = std::move(a);
    EXPECT_TRUE(b == original);
    expect_empty(a);
    // A moved-from filter moved again, or assigned from another moved-from one, stays empty.
    F c(std::move(a));
    expect_empty(c);
    a = std::move(c);
    expect_empty(a);
    expect_empty(c);
    // Two empty filters of the same type and params are equal; a copy of an empty one is empty.
    EXPECT_TRUE(a == c);
    F copy_of_empty(a);
    expect_empty(copy_of_empty);
    EXPECT_FALSE(a == original);
    // Self-assignment leaves the filter as it was (the alias keeps -Wself-move quiet).
    F& alias = b;
    b = std::move(alias);
    EXPECT_TRUE(b == original);
    b = alias;
    EXPECT_TRUE(b == original);
    F& empty_alias = a;
    a = std::move(empty_alias);
    expect_empty(a);
    // Assigning makes it whole.
    a = original;
    EXPECT_TRUE(a == original);
    c = std::move(b);
    EXPECT_TRUE(c == original);
}

/// What an empty filter of every type answers: probes find nothing in every key form, counts
/// are 0, clear() does nothing, the settings may change, inserts of every form and save throw.
template <class F>
void expect_common_empty(F& e) {
    EXPECT_EQ(e.key_kinds(), bb::KeyKinds::none());
    EXPECT_FALSE(e.contains(keys[0]));
    EXPECT_FALSE(e.contains(std::string_view("a")));
    EXPECT_FALSE(e.contains_hash(e.hash(keys[0])));
    EXPECT_FALSE(e.contains_hash(1));
    expect_probes_empty(e, keys);
    expect_probes_empty(e, keys32);
    expect_probes_empty(e, strings);
    expect_probes_empty(e, owned_strings);
    std::vector<std::uint8_t> out(keys.size(), 0xFF);
    e.contains_hashes(std::span<const std::uint64_t>(keys), out);
    EXPECT_EQ(out, std::vector<std::uint8_t>(keys.size(), 0));
    EXPECT_EQ(e.count(std::span<const std::uint64_t>(keys)), 0u);
    EXPECT_EQ(e.count(std::span<const std::uint32_t>(keys32)), 0u);
    EXPECT_EQ(e.count(std::span<const std::string_view>(strings)), 0u);
    EXPECT_EQ(e.count(std::span<const std::string>(owned_strings)), 0u);
    EXPECT_EQ(e.count_hashes(std::span<const std::uint64_t>(keys)), 0u);
    if constexpr (requires { e.clear(); }) e.clear();
    e.set_threads(2);
    e.set_backend(bb::Backend::scalar);
    EXPECT_THROW(e.insert(keys[0]), bb::Error);
    EXPECT_THROW(e.insert(std::string_view("a")), bb::Error);
    EXPECT_THROW(e.insert(std::span<const std::uint64_t>(keys)), bb::Error);
    EXPECT_THROW(e.insert(std::span<const std::uint32_t>(keys32)), bb::Error);
    EXPECT_THROW(e.insert(std::span<const std::string_view>(strings)), bb::Error);
    EXPECT_THROW(e.insert(std::span<const std::string>(owned_strings)), bb::Error);
    EXPECT_THROW(e.insert_hash(1), bb::Error);
    EXPECT_THROW(e.insert_hashes(std::span<const std::uint64_t>(keys)), bb::Error);
    EXPECT_EQ(e.count_hashes(std::span<const std::uint64_t>(keys)), 0u);  // nothing went in
    EXPECT_EQ(e.key_kinds(), bb::KeyKinds::none());
    expect_save_refused(e);
}

/// Per type: make() the filters to fill and move from, expect_empty() the checks of an empty
/// one that only that type has.
template <class F>
struct Type;

template <>
struct Type<bb::Filter> {
    static std::vector<bb::Filter> make() { return {bb::Filter(bb::Params::for_fpr(3000, 0.01))}; }
    static void expect_empty(bb::Filter& e) {
        EXPECT_EQ(e.params().blocks, 0u);
        EXPECT_TRUE(e.bytes().empty());
        EXPECT_TRUE(e.mutable_bytes().empty());
        std::vector<std::uint64_t> bitmap(keys.size() / 64 + 1, ~std::uint64_t(0));
        e.contains_bitmap(std::span<const std::uint64_t>(keys), bitmap);
        EXPECT_EQ(bitmap, std::vector<std::uint64_t>(bitmap.size(), 0));
        bitmap.assign(1, ~std::uint64_t(0));
        e.contains_bitmap(std::span<const std::uint32_t>(keys32), bitmap);
        EXPECT_EQ(bitmap[0], 0u);
        bitmap.assign(1, ~std::uint64_t(0));
        e.contains_bitmap(std::span<const std::string_view>(strings), bitmap);
        EXPECT_EQ(bitmap[0], 0u);
        std::vector<std::uint8_t> out(keys.size());
        EXPECT_THROW(e.contains(std::span<const std::uint64_t>(keys), std::span<std::uint8_t>(out).first(1)),
                     bb::Error);  // argument checks still apply
        EXPECT_EQ(e.fill_ratio(), 0.0);
        EXPECT_EQ(e.current_fpr(), 0.0);
        EXPECT_EQ(e.estimated_cardinality(), 0.0);
        e.set_batch_path(bb::BatchPath::direct);
        e.set_scratch_limit(1 << 20);
        EXPECT_EQ(e.scratch_bytes(), 0u);
        e.release_scratch();
        bb::Filter whole(bb::Params::for_fpr(3000, 0.01));
        EXPECT_FALSE(e.compatible(whole));
        EXPECT_THROW(e |= whole, bb::Error);
        EXPECT_THROW(e &= whole, bb::Error);
        EXPECT_THROW(whole |= e, bb::Error);
        EXPECT_THROW(whole &= e, bb::Error);
        EXPECT_THROW((void)bb::estimated_jaccard(e, e), bb::Error);
        EXPECT_THROW((void)e.fold(), bb::Error);
        std::ostringstream zstd;
        EXPECT_THROW(e.save(zstd, {bb::Compression::zstd}), bb::Error);
        // A view of it finds nothing and refuses inserts.
        bb::ConcurrentFilter view(e);
        EXPECT_FALSE(view.contains(keys[0]));
        EXPECT_FALSE(view.contains_hash(1));
        EXPECT_EQ(view.count(std::span<const std::uint64_t>(keys)), 0u);
        std::vector<std::uint8_t> hits(keys.size(), 0xFF);
        view.contains(std::span<const std::uint64_t>(keys), hits);
        EXPECT_EQ(hits, std::vector<std::uint8_t>(keys.size(), 0));
        hits.assign(keys.size(), 0xFF);
        view.contains_hashes(std::span<const std::uint64_t>(keys), hits);
        EXPECT_EQ(hits, std::vector<std::uint8_t>(keys.size(), 0));
        EXPECT_THROW(view.insert(keys[0]), bb::Error);
        EXPECT_THROW(view.insert(std::span<const std::uint64_t>(keys)), bb::Error);
        EXPECT_THROW(view.insert_hashes(std::span<const std::uint64_t>(keys)), bb::Error);
    }
};

template <>
struct Type<bb::CountingFilter> {
    static std::vector<bb::CountingFilter> make() { return {bb::CountingFilter(bb::Params::for_fpr(3000, 0.01))}; }
    static void expect_empty(bb::CountingFilter& e) {
        EXPECT_EQ(e.params().blocks, 0u);
        EXPECT_TRUE(e.bytes().empty());
        EXPECT_FALSE(e.erase(keys[0]));
        EXPECT_FALSE(e.erase(std::string_view("a")));
        EXPECT_FALSE(e.erase_hash(1));
        std::vector<std::uint8_t> out(keys.size(), 0xFF);
        EXPECT_EQ(e.erase(std::span<const std::uint64_t>(keys), out), 0u);
        EXPECT_EQ(out, std::vector<std::uint8_t>(keys.size(), 0));
        EXPECT_EQ(e.erase(std::span<const std::uint32_t>(keys32)), 0u);
        EXPECT_EQ(e.erase(std::span<const std::string_view>(strings)), 0u);
        EXPECT_EQ(e.erase_hashes(std::span<const std::uint64_t>(keys)), 0u);
        EXPECT_EQ(e.saturated_counters(), 0u);
        EXPECT_THROW((void)e.counter(0, 0), bb::Error);
        EXPECT_THROW((void)e.to_filter(), bb::Error);
    }
};

template <>
struct Type<bb::DeletableFilter> {
    static std::vector<bb::DeletableFilter> make() { return {bb::DeletableFilter(bb::Params::for_fpr(3000, 0.01))}; }
    static void expect_empty(bb::DeletableFilter& e) {
        EXPECT_EQ(e.params().blocks, 0u);
        EXPECT_EQ(e.regions(), 0u);
        EXPECT_TRUE(e.collisions().empty());
        EXPECT_EQ(e.collided_regions(), 0u);
        EXPECT_TRUE(e.filter().bytes().empty());
        EXPECT_EQ(e.erase(keys[0]), bb::EraseResult::absent);
        EXPECT_EQ(e.erase(std::string_view("a")), bb::EraseResult::absent);
        EXPECT_EQ(e.erase_hash(1), bb::EraseResult::absent);
        std::vector<bb::EraseResult> results(keys.size(), bb::EraseResult::erased);
        EXPECT_EQ(e.erase(std::span<const std::uint64_t>(keys), results), 0u);
        EXPECT_EQ(results, std::vector<bb::EraseResult>(keys.size(), bb::EraseResult::absent));
        EXPECT_EQ(e.erase(std::span<const std::string_view>(strings)), 0u);
        e.clear();
        EXPECT_EQ(e.params().blocks, 0u);
        EXPECT_TRUE(e.collisions().empty());
    }
};

template <>
struct Type<bb::ScalableFilter> {
    static std::vector<bb::ScalableFilter> make() {
        return {bb::ScalableFilter(bb::ScalableParams{.initial_capacity = 1000, .initial_fpr = 0.01})};
    }
    static void expect_empty(bb::ScalableFilter& e) {
        EXPECT_TRUE(e.stages().empty());
        EXPECT_TRUE(e.stage_sizes().empty());
        EXPECT_EQ(e.size(), 0u);
        EXPECT_EQ(e.bytes(), 0u);
        EXPECT_EQ(e.predicted_fpr(), 0.0);
        EXPECT_GT(e.stage_capacity(1), 0u);  // from the params, which stay
        EXPECT_GT(e.stage_fpr(1), 0.0);
        EXPECT_GT(e.fpr_bound(), 0.0);
        EXPECT_EQ(e.scratch_bytes(), 0u);  // a moved-from filter has no scratch
        e.release_scratch();
    }
};

template <>
struct Type<bb::ClassicFilter> {
    static std::vector<bb::ClassicFilter> make() {
        return {bb::ClassicFilter(bb::ClassicParams::for_fpr(3000, 0.01)), bb::ClassicFilter::spark(3000, 0.01)};
    }
    static void expect_empty(bb::ClassicFilter& e) {
        EXPECT_EQ(e.params().bits, 0u);
        EXPECT_TRUE(e.words().empty());
        EXPECT_TRUE(e.mutable_words().empty());
        EXPECT_EQ(e.fill_ratio(), 0.0);
        EXPECT_EQ(e.predicted_fpr(1000), 0.0);
        bb::ClassicFilter whole(bb::ClassicParams::for_fpr(3000, 0.01));
        EXPECT_FALSE(e.compatible(whole));
        EXPECT_THROW(e |= whole, bb::Error);
        EXPECT_THROW(e &= whole, bb::Error);
        EXPECT_THROW(whole |= e, bb::Error);
        EXPECT_THROW(e |= e, bb::Error);
        std::ostringstream spark;
        EXPECT_THROW(e.write_spark(spark), bb::Error);
        EXPECT_THROW((void)e.to_spark_bytes(), bb::Error);
    }
};

template <class F>
class MovedFromType : public ::testing::Test {};
using FilterTypes = bb::testing::FilterTypes;
TYPED_TEST_SUITE(MovedFromType, FilterTypes);

}  // namespace

TYPED_TEST(MovedFromType, IsEmptyAndEveryMemberMayBeCalled) {
    for (TypeParam& full : Type<TypeParam>::make()) {
        full.insert(std::span<const std::uint64_t>(keys));
        if constexpr (requires { full.stages(); }) {
            ASSERT_GT(full.stages().size(), 1u);  // scalable: three stages
        }
        check_move_rule(full, [](TypeParam& e) {
            expect_common_empty(e);
            Type<TypeParam>::expect_empty(e);
        });
    }
}

// The reproducer: self-move-assignment, then count().
TEST(MovedFrom, ScalableSelfMoveThenCount) {
    bb::ScalableFilter s(bb::ScalableParams{.initial_capacity = 100, .initial_fpr = 0.01});
    s.insert(std::span<const std::uint64_t>(keys));
    bb::ScalableFilter& alias = s;
    s = std::move(alias);
    EXPECT_EQ(s.count(std::span<const std::uint64_t>(keys)), keys.size());
}

TEST(MovedFrom, JoinFilter) {
    bb::JoinFilter j{std::span<const std::uint64_t>(keys)};
    const std::vector<std::uint64_t> all_rows = j.select(std::span<const std::uint64_t>(keys));
    ASSERT_EQ(all_rows.size(), keys.size());
    bb::JoinFilter moved(std::move(j));
    EXPECT_EQ(moved.select(std::span<const std::uint64_t>(keys)), all_rows);
    auto expect_empty = [](const bb::JoinFilter& e) {
        EXPECT_EQ(e.filter().params().blocks, 0u);
        EXPECT_EQ(e.key_kinds(), bb::KeyKinds::none());
        EXPECT_EQ(e.predicted_fpr(), 0.0);
        EXPECT_TRUE(e.select(std::span<const std::uint64_t>(keys)).empty());
        EXPECT_TRUE(e.select(std::span<const std::uint32_t>(keys32)).empty());
        EXPECT_TRUE(e.select(std::span<const std::string_view>(strings)).empty());
        EXPECT_TRUE(e.select(std::span<const std::string>(owned_strings)).empty());
        std::vector<std::uint32_t> sel(keys.size());
        EXPECT_EQ(e.select_chunk(std::span<const std::uint64_t>(keys), sel), 0u);
        EXPECT_EQ(e.select_chunk(std::span<const std::uint32_t>(keys32), sel), 0u);
        EXPECT_EQ(e.select_chunk(std::span<const std::string_view>(strings), sel), 0u);
        std::vector<std::uint64_t> bitmap(keys.size() / 64 + 1, ~std::uint64_t(0));
        e.bitmap(std::span<const std::uint64_t>(keys), bitmap);
        EXPECT_EQ(bitmap, std::vector<std::uint64_t>(bitmap.size(), 0));
        bitmap.assign(1, ~std::uint64_t(0));
        e.bitmap(std::span<const std::uint32_t>(keys32), bitmap);
        e.bitmap(std::span<const std::string_view>(strings), bitmap);
        EXPECT_EQ(bitmap[0], 0u);
        EXPECT_EQ(e.count(std::span<const std::uint64_t>(keys)), 0u);
        EXPECT_EQ(e.count(std::span<const std::uint32_t>(keys32)), 0u);
        EXPECT_EQ(e.count(std::span<const std::string_view>(strings)), 0u);
        EXPECT_EQ(e.count(std::span<const std::string>(owned_strings)), 0u);
        std::ostringstream out;
        EXPECT_THROW(e.filter().save(out), bb::Error);
    };
    expect_empty(j);
    bb::JoinFilter other{std::span<const std::uint64_t>()};
    other = std::move(moved);
    expect_empty(moved);
    EXPECT_EQ(other.select(std::span<const std::uint64_t>(keys)), all_rows);
    bb::JoinFilter& alias = other;
    other = std::move(alias);
    EXPECT_EQ(other.select(std::span<const std::uint64_t>(keys)), all_rows);
    j = std::move(other);  // a moved-from join filter takes a new value
    EXPECT_EQ(j.select(std::span<const std::uint64_t>(keys)), all_rows);
}
