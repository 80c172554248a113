// A filter's promise holds for any order of its keys: every filter type, fed the same keys in
// their input order, sorted by value, sorted by hash, reversed and with every key twice, has
// no false negative and measures the FPR it predicts (a scalable filter: under its bound too).
// Keys sorted by hash once crowded a scalable filter's stages into their first blocks (42%
// FPR for a predicted 4%).
#include <batchbloom/batchbloom.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "support.hpp"

namespace bb = batchbloom;

namespace {

constexpr std::size_t n_keys = 20'000;
constexpr std::size_t n_absent = 200'000;

struct Order {
    std::string name;
    std::function<std::vector<std::uint64_t>(std::vector<std::uint64_t>)> arrange;
};

std::vector<Order> orders() {
    return {
        {"input", [](std::vector<std::uint64_t> k) { return k; }},
        {"by value", [](std::vector<std::uint64_t> k) { std::sort(k.begin(), k.end()); return k; }},
        {"by hash",
         [](std::vector<std::uint64_t> k) {
             std::sort(k.begin(), k.end(), [](std::uint64_t a, std::uint64_t b) {
                 return bb::hash_key(bb::Hashing{}, a) < bb::hash_key(bb::Hashing{}, b);
             });
             return k;
         }},
        {"reversed", [](std::vector<std::uint64_t> k) { std::reverse(k.begin(), k.end()); return k; }},
        {"each twice",
         [](std::vector<std::uint64_t> k) {
             std::vector<std::uint64_t> twice;
             for (std::uint64_t v : k) twice.insert(twice.end(), {v, v});
             return twice;
         }},
    };
}

/// What a filter type is checked for: inserted keys, the absent keys it passes, its prediction.
struct Outcome {
    std::size_t missed = 0;        // inserted keys it answers no for
    double measured = 0;           // fraction of absent keys it answers yes for
    double predicted = 0;          // its own model's FPR for what it holds
    double bound = 1.0;            // a scalable filter's bound at any size
    bool predicted_is_upper = false;  // duplicates counted as keys: the model over-predicts
};

template <class F>
Outcome outcome(const F& f, const std::vector<std::uint64_t>& keys, const std::vector<std::uint64_t>& absent) {
    Outcome o;
    o.missed = keys.size() - f.count(keys);
    o.measured = double(f.count(absent)) / double(absent.size());
    return o;
}

/// The measured FPR of n_absent probes is within 5 binomial sigmas and 10% (the blocked model's
/// own error at this size) of the prediction.
void expect_fpr(const Outcome& o) {
    const double sigma = std::sqrt(o.predicted * (1 - o.predicted) / double(n_absent));
    const double slack = 5 * sigma + 0.10 * o.predicted;
    EXPECT_LE(o.measured, o.predicted + slack);
    if (!o.predicted_is_upper) {
        EXPECT_GE(o.measured, o.predicted - slack);
    }
    EXPECT_LE(o.measured, o.bound);
}

}  // namespace

TEST(InsertionOrder, EveryFilterTypeKeepsItsPredictionInAnyOrder) {
    const auto keys = bb::testing::random_keys(n_keys, 91, 0);
    const auto absent = bb::testing::random_keys(n_absent, 92, 1);
    const double fpr = 0.01;
    const auto params = bb::Params::for_fpr(n_keys, fpr);

    for (const Order& order : orders()) {
        SCOPED_TRACE(order.name);
        const auto in = order.arrange(keys);
        const bool twice = in.size() > keys.size();
        // The blocked filter types: each filter of `p` built from `in` predicts the blocked model's FPR.
        const auto check_blocked = [&](const char* type, const bb::Params& p, auto filter) {
            SCOPED_TRACE(std::string(type) + " " + std::string(bb::to_string(p.shape)));
            filter.insert(in);
            auto o = outcome(filter, keys, absent);
            o.predicted = bb::predicted_fpr(p, n_keys);
            EXPECT_EQ(o.missed, 0u);
            expect_fpr(o);
        };
        for (bb::Shape shape : {bb::Shape::split256, bb::Shape::word512, bb::Shape::line512}) {
            const auto p = bb::Params::for_fpr(n_keys, fpr, shape);
            check_blocked("blocked", p, bb::Filter(p));
        }
        check_blocked("counting", params, bb::CountingFilter(params));
        check_blocked("deletable", params, bb::DeletableFilter(params));
        {
            SCOPED_TRACE("scalable");
            bb::ScalableFilter f(bb::ScalableParams::for_total_fpr(1'000, 0.05));
            f.insert(in);
            ASSERT_GE(f.stages().size(), 4u);
            auto o = outcome(f, keys, absent);
            o.predicted = f.predicted_fpr();  // the union bound over the stages: an upper bound
            o.predicted_is_upper = true;
            o.bound = f.fpr_bound();
            EXPECT_EQ(o.missed, 0u);
            expect_fpr(o);
            // Not far below either: the stages' own FPRs add up nearly exactly at these rates.
            if (!twice) {
                EXPECT_GE(o.measured, 0.8 * o.predicted);
            }
        }
        for (const auto& classic : {bb::ClassicFilter(bb::ClassicParams::for_fpr(n_keys, fpr)),
                                    bb::ClassicFilter::spark(n_keys, fpr)}) {
            SCOPED_TRACE("classic " + std::string(bb::to_string(classic.hashing().scheme)));
            bb::ClassicFilter f = classic;
            f.insert(in);
            auto o = outcome(f, keys, absent);
            o.predicted = f.predicted_fpr(n_keys);
            EXPECT_EQ(o.missed, 0u);
            expect_fpr(o);
        }
    }
}

// A scalable filter's bulk and single-key answers agree, and it is the same filter whether the
// keys came in one batch or one by one, in any order of calls.
TEST(InsertionOrder, ScalableBatchesAndSingleKeysBuildOneFilter) {
    const auto keys = bb::testing::random_keys(5'000, 93, 0);
    bb::ScalableFilter batch(bb::ScalableParams::for_total_fpr(300, 0.01));
    bb::ScalableFilter single = batch;
    batch.insert(keys);
    for (std::uint64_t k : keys) single.insert(k);
    EXPECT_TRUE(batch == single);
    for (std::size_t i = 0; i < keys.size(); i += 7) EXPECT_TRUE(batch.contains(keys[i]));
}
