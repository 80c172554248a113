// Every filter class takes keys the same ways: 64-bit and 32-bit integer spans (a 32-bit key
// is its value), string_view spans and std::string spans for insert, contains, count (and
// erase where keys can be erased), with the same answers whichever form carries a key.
// ClassicFilter, whose schemes hash keys their own way, takes 64-bit integers and string_view
// spans only (checked below, so that a change to its set is a decision, not an accident).
#include <gtest/gtest.h>

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

static_assert(TakesEveryKeyForm<bb::Filter>);
static_assert(TakesEveryKeyForm<bb::CountingFilter>);
static_assert(TakesEveryKeyForm<bb::DeletableFilter>);
static_assert(TakesEveryKeyForm<bb::ScalableFilter>);
static_assert(TakesEveryKeyForm<bb::ConcurrentFilter>);
static_assert(ErasesEveryKeyForm<bb::CountingFilter>);
static_assert(ErasesEveryKeyForm<bb::DeletableFilter>);
static_assert(TakesKeys<bb::ClassicFilter, std::uint64_t> && TakesKeys<bb::ClassicFilter, std::string_view>);
static_assert(!TakesKeys<bb::ClassicFilter, std::uint32_t> && !TakesKeys<bb::ClassicFilter, std::string>);

const bb::Params params = bb::Params::for_fpr(2000, 0.001);

// The same answers from every form: keys inserted as std::string are found as string_view and
// std::string; keys inserted as 32-bit integers are found as their 64-bit values.
template <class F>
void expect_same_answers(F& f) {
    std::vector<std::string> strings;
    for (int i = 0; i < 500; ++i) strings.push_back("key-" + std::to_string(i));
    const std::vector<std::string_view> views(strings.begin(), strings.end());
    std::vector<std::uint32_t> small;
    for (std::uint32_t i = 0; i < 500; ++i) small.push_back(i * 2654435761u);
    const std::vector<std::uint64_t> wide(small.begin(), small.end());

    f.insert(Keys<std::string>(strings));
    f.insert(Keys<std::uint32_t>(small));
    EXPECT_EQ(f.count(Keys<std::string>(strings)), strings.size());
    EXPECT_EQ(f.count(Keys<std::string_view>(views)), strings.size());
    EXPECT_EQ(f.count(Keys<std::uint32_t>(small)), small.size());
    EXPECT_EQ(f.count(Keys<std::uint64_t>(wide)), small.size());
    std::vector<std::uint8_t> a(strings.size()), b(strings.size());
    f.contains(Keys<std::string>(strings), a);
    f.contains(Keys<std::string_view>(views), b);
    EXPECT_EQ(a, b);
    EXPECT_EQ(a, std::vector<std::uint8_t>(strings.size(), 1));
    EXPECT_THROW(f.contains(Keys<std::string>(strings), Out(a).first(3)), bb::Error);
}

}  // namespace

TEST(Overloads, FilterAnswersAlikeForEveryKeyForm) {
    bb::Filter f(params);
    expect_same_answers(f);
}

TEST(Overloads, ConcurrentFilterAnswersAlikeForEveryKeyForm) {
    bb::Filter bits(params);
    bb::ConcurrentFilter f(bits);
    expect_same_answers(f);
}

TEST(Overloads, ScalableFilterAnswersAlikeForEveryKeyForm) {
    bb::ScalableFilter f(bb::ScalableParams{.initial_capacity = 300, .initial_fpr = 0.001});
    expect_same_answers(f);
}

TEST(Overloads, CountingFilterErasesEveryKeyForm) {
    bb::CountingFilter f(params);
    expect_same_answers(f);
    std::vector<std::string> strings;
    for (int i = 0; i < 500; ++i) strings.push_back("key-" + std::to_string(i));
    EXPECT_EQ(f.erase(Keys<std::string>(strings)), strings.size());
    EXPECT_EQ(f.count(Keys<std::string>(strings)), 0u);
}

TEST(Overloads, DeletableFilterErasesEveryKeyForm) {
    bb::DeletableFilter f(params);
    expect_same_answers(f);
    std::vector<std::uint32_t> small;
    for (std::uint32_t i = 0; i < 500; ++i) small.push_back(i * 2654435761u);
    std::vector<bb::EraseResult> results(small.size());
    const std::size_t erased = f.erase(Keys<std::uint32_t>(small), results);
    EXPECT_GT(erased, 0u);  // keys in collision-free regions
    std::size_t counted = 0;
    for (auto r : results) counted += r == bb::EraseResult::erased;
    EXPECT_EQ(counted, erased);
}
