// Every number the C++ API takes is checked or safely capped: each option below is walked
// through 0, 1, max - 1, max, just past max and absurd values. A refused value is an Error
// naming the option; an accepted one gives the right answer (no overflow, no division by zero,
// no rows dropped, no crash).
#include <batchbloom/batchbloom.hpp>
#include <batchbloom/parquet.hpp>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "support.hpp"

namespace bb = batchbloom;

namespace {

constexpr std::uint64_t u64_max = std::numeric_limits<std::uint64_t>::max();
constexpr std::size_t size_max = std::numeric_limits<std::size_t>::max();
constexpr double not_a_number = std::numeric_limits<double>::quiet_NaN();
constexpr double inf = std::numeric_limits<double>::infinity();

/// One value of one option: `run` uses it; `refused` is the message's pattern when the value
/// must be refused, empty when it must work (run checks the answer itself).
struct Case {
    std::string option;
    std::string value;
    std::string refused;
    std::function<void()> run;
};

void check(const Case& c) {
    SCOPED_TRACE(c.option + " = " + c.value);
    if (c.refused.empty()) {
        EXPECT_NO_THROW(c.run());
        return;
    }
    try {
        c.run();
        ADD_FAILURE() << "accepted";
    } catch (const bb::Error& e) {
        EXPECT_NE(std::string(e.what()).find(c.refused), std::string::npos) << e.what();
    }
}

const std::vector<std::uint64_t>& build_keys() {
    static const auto keys = bb::testing::random_keys(200'000, 71, 0);
    return keys;
}

/// A join over build_keys() with the options changed by `set`: every build key is selected,
/// counted and in the bitmap, whatever the chunking and the threads.
Case join_case(std::string option, std::string value, std::string refused,
               std::function<void(bb::JoinFilterOptions&)> set) {
    return {option, value, refused, [set] {
                bb::JoinFilterOptions o;
                set(o);
                const auto& keys = build_keys();
                const bb::JoinFilter j(std::span<const std::uint64_t>(keys), o);
                const auto sel = j.select(std::span<const std::uint64_t>(keys));
                ASSERT_EQ(sel.size(), keys.size());
                for (std::size_t i = 0; i < sel.size(); i += 997) ASSERT_EQ(sel[i], i);
                ASSERT_EQ(j.count(std::span<const std::uint64_t>(keys)), keys.size());
            }};
}

}  // namespace

TEST(OptionLimits, JoinFilterOptions) {
    std::vector<Case> cases;
    for (std::size_t rows : {std::size_t{1}, std::size_t{63}, std::size_t{64}, std::size_t{65}, std::size_t{1} << 32,
                             size_max - 64, size_max - 63, size_max - 1, size_max})
        cases.push_back(join_case("chunk_rows", std::to_string(rows), "", [rows](auto& o) { o.chunk_rows = rows; }));
    cases.push_back(join_case("chunk_rows", "0", "chunk_rows must be at least 1", [](auto& o) { o.chunk_rows = 0; }));
    for (unsigned t : {0u, 1u, 2u, bb::max_threads - 1, bb::max_threads})
        cases.push_back(join_case("threads", std::to_string(t), "", [t](auto& o) { o.threads = t; }));
    for (unsigned t : {bb::max_threads + 1, 100'000u, std::numeric_limits<unsigned>::max()})
        cases.push_back(join_case("threads", std::to_string(t), "threads must be in [0, 1024]", [t](auto& o) { o.threads = t; }));
    for (double p : {0.0, 1.0, -1.0, not_a_number, inf})
        cases.push_back(join_case("fpr", std::to_string(p), "FPR must be in (0, 1)", [p](auto& o) { o.fpr = p; }));
    cases.push_back(join_case("fpr", "1e-200", "need more than 2^32 - 1 blocks", [](auto& o) { o.fpr = 1e-200; }));
    for (double b : {-1.0, not_a_number})
        cases.push_back(join_case("bits_per_key", std::to_string(b), "bits_per_key must be positive",
                                  [b](auto& o) { o.bits_per_key = b; }));
    cases.push_back(join_case("expected_keys", "2^64-1", "need more than 2^32 - 1 blocks",
                              [](auto& o) { o.expected_keys = u64_max; }));
    for (const auto& c : cases) check(c);
}

TEST(OptionLimits, SizingAndFilterParameters) {
    std::vector<Case> cases;
    auto sized = [&](std::string option, std::string value, std::string refused, std::function<void()> run) {
        cases.push_back({std::move(option), std::move(value), std::move(refused), std::move(run)});
    };
    sized("n", "0", "n must be at least 1", [] { (void)bb::Params::for_fpr(0, 0.01); });
    sized("n", "1", "", [] { EXPECT_GE(bb::Params::for_fpr(1, 0.01).blocks, 1u); });
    sized("n", "2^64-1", "need more than 2^32 - 1 blocks", [] { (void)bb::Params::for_fpr(u64_max, 0.01); });
    for (double p : {0.0, 1.0, -0.5, not_a_number, inf, 2.0})
        sized("fpr", std::to_string(p), "FPR must be in (0, 1)", [p] { (void)bb::Params::for_fpr(10, p); });
    sized("fpr", "1e-200", "need more than 2^32 - 1 blocks", [] { (void)bb::Params::for_fpr(1000, 1e-200); });
    sized("fpr", "denormal", "need more than 2^32 - 1 blocks", [] { (void)bb::Params::for_fpr(1, 4.9e-324); });
    for (double b : {0.0, -1.0, not_a_number, inf})
        sized("bits_per_key", std::to_string(b), "bits per key", [b] { (void)bb::Params::for_bits_per_key(10, b); });
    sized("bits_per_key", "1e300", "need", [] { (void)bb::Params::for_bits_per_key(10, 1e300); });
    sized("blocks", "0", "blocks must be between 1 and 2^32 - 1", [] { bb::Params{bb::Shape::word512, 0, 8}.validate(); });
    sized("blocks", "2^32", "blocks must be between 1 and 2^32 - 1",
          [] { bb::Params{bb::Shape::word512, std::uint64_t{1} << 32, 8}.validate(); });
    sized("k", "0", "k must be between 1 and", [] { bb::Params{bb::Shape::word512, 1, 0}.validate(); });
    sized("k", "absurd", "k must be between 1 and", [] { bb::Params{bb::Shape::word512, 1, 1u << 31}.validate(); });
    sized("seed", "2^32 (murmur3)", "seed", [] { bb::Filter f(bb::Params::for_fpr(10, 0.01), {bb::HashKind::murmur3, std::uint64_t{1} << 32}); });
    sized("seed", "2^64-1 (xxh3)", "", [] { bb::Filter f(bb::Params::for_fpr(10, 0.01), {bb::HashKind::xxh3, u64_max}); });
    sized("initial_capacity", "0", "initial capacity must be at least 1",
          [] { bb::ScalableFilter f(bb::ScalableParams{.initial_capacity = 0}); });
    sized("initial_capacity", "2^64-1", "", [] { (void)bb::ScalableParams::for_total_fpr(u64_max, 0.01); });
    for (double g : {0.5, not_a_number, inf})
        sized("growth", std::to_string(g), "growth factor must be >= 1",
              [g] { bb::ScalableFilter f(bb::ScalableParams{.initial_capacity = 10, .growth = g}); });
    for (double r : {0.0, 1.0, not_a_number})
        sized("tightening", std::to_string(r), "tightening ratio must be in (0, 1)",
              [r] { bb::ScalableFilter f(bb::ScalableParams{.initial_capacity = 10, .tightening = r}); });
    for (unsigned bits : {0u, 3u, 1024u, ~0u})
        sized("region_bits", std::to_string(bits), "region", [bits] { bb::DeletableFilter f(bb::Params::for_fpr(10, 0.01), bits); });
    sized("classic n", "0", "n", [] { (void)bb::ClassicParams::for_fpr(0, 0.01); });
    for (double p : {0.0, 1.0, not_a_number})
        sized("classic fpr", std::to_string(p), "", [p] {
            EXPECT_THROW((void)bb::ClassicParams::for_fpr(10, p), bb::Error);
            EXPECT_THROW((void)bb::ClassicParams::spark(10, p), bb::Error);
        });
    for (const auto& c : cases) check(c);
}

// set_threads cannot refuse (it is noexcept): any count runs, on at most max_threads threads,
// with the one-thread answers.
TEST(OptionLimits, AnyThreadCountRunsCapped) {
    const auto keys = bb::testing::random_keys(300'000, 72, 0);
    for (unsigned t : {0u, 1u, bb::max_threads, bb::max_threads + 1, 100'000u, std::numeric_limits<unsigned>::max()}) {
        SCOPED_TRACE(t);
        bb::Filter f(bb::Params::for_fpr(keys.size(), 0.01));
        f.set_threads(t);
        f.insert(keys);
        EXPECT_EQ(f.count(keys), keys.size());
        bb::ClassicFilter c(bb::ClassicParams::for_fpr(keys.size(), 0.01));
        c.set_threads(t);
        c.insert(keys);
        EXPECT_EQ(c.count(keys), keys.size());
        bb::ScalableFilter s(bb::ScalableParams::for_total_fpr(10'000, 0.01));
        s.set_threads(t);
        s.insert(keys);
        EXPECT_EQ(s.count(keys), keys.size());
    }
}

TEST(OptionLimits, ParquetAddOptions) {
    const std::string in = std::string(BATCHBLOOM_TEST_DATA_DIR) + "/pyarrow_bloom.parquet";
    bb::testing::TempDir dir;
    const auto out = dir.path() / "out.parquet";
    auto add = [&](auto set) {
        bb::parquet::AddOptions o;
        o.columns = {"i64"};
        o.replace = true;
        set(o);
        return bb::parquet::add_filters(in, out, o);
    };
    std::vector<Case> cases;
    cases.push_back({"ndv", "0", "ndv must be at least 1", [&] { add([](auto& o) { o.ndv = 0; }); }});
    cases.push_back({"ndv", "1", "", [&] { EXPECT_EQ(add([](auto& o) { o.ndv = 1; }).front().bytes, 32u); }});
    cases.push_back({"ndv", "2^64-1", "", [&] {
                         EXPECT_EQ(add([](auto& o) { o.ndv = u64_max; }).front().bytes, bb::parquet::max_bitset_bytes);
                     }});
    for (double p : {0.0, 1.0, -1.0, not_a_number})
        cases.push_back({"fpp", std::to_string(p), "fpp must be in (0, 1)", [&, p] { add([p](auto& o) { o.fpp = p; }); }});
    // Below what the largest Parquet filter reaches, the size is capped, never 0.
    for (double p : {1e-50, 1e-200, 4.9e-324})
        cases.push_back({"fpp", std::to_string(p), "", [&, p] {
                             EXPECT_EQ(add([p](auto& o) { o.fpp = p; }).front().bytes, bb::parquet::max_bitset_bytes);
                         }});
    for (unsigned t : {0u, 1u, bb::max_threads})
        cases.push_back({"threads", std::to_string(t), "", [&, t] { add([t](auto& o) { o.threads = t; }); }});
    for (unsigned t : {bb::max_threads + 1, std::numeric_limits<unsigned>::max()})
        cases.push_back({"threads", std::to_string(t), "threads must be in [0, 1024]",
                         [&, t] { add([t](auto& o) { o.threads = t; }); }});
    for (const auto& c : cases) check(c);
}
