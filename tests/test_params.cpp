#include <gtest/gtest.h>

#include <batchbloom/classic.hpp>
#include <batchbloom/error.hpp>
#include <batchbloom/params.hpp>
#include <chrono>
#include <cmath>
#include <limits>
#include <string>

namespace bb = batchbloom;
using bb::Params;
using bb::Shape;

namespace {

Params at_bits_per_key(Shape s, std::uint64_t n, double bpk, unsigned k) {
    const double block_bits = 8.0 * bb::layout::info(s).block_bytes;
    return Params::make(s, static_cast<std::uint64_t>(std::llround(double(n) * bpk / block_bits)), k);
}

template <class F>
std::string error_of(F&& f) {
    try {
        f();
    } catch (const bb::Error& e) {
        return e.what();
    }
    return "<no exception>";
}

}  // namespace

// Reference values of the blocked-filter model from the literature:
// Parquet SBBF at 10.5 bits/key -> 1.013%; 512-bit line, k = 6, 10 bits/key -> 0.958%
// (RocksDB's "theoretical best" for its cache-line filter); classic formula 0.844%.
TEST(Params, ModelMatchesPublishedValues) {
    const std::uint64_t n = 1'000'000;
    EXPECT_NEAR(bb::predicted_fpr(at_bits_per_key(Shape::split256, n, 10.5, 8), n), 0.01013, 0.00002);
    EXPECT_NEAR(bb::predicted_fpr(at_bits_per_key(Shape::line512, n, 10, 6), n), 0.00958, 0.00002);
    EXPECT_NEAR(bb::classic_fpr(10 * n, 6, n), 0.00844, 0.00001);
}

TEST(Params, ClassicFormulaIsOptimisticForBlockedFilters) {
    for (Shape s : {Shape::split256, Shape::word512, Shape::line512})
        for (double bpk : {8.0, 10.0, 16.0}) {
            const auto p = Params::for_bits_per_key(1'000'000, bpk, s);
            EXPECT_GT(bb::predicted_fpr(p, 1'000'000), bb::classic_fpr(p.bits(), p.k, 1'000'000) * 1.05);
        }
}

TEST(Params, ForFprMeetsTargetWithFewestBlocks) {
    for (Shape s : {Shape::split256, Shape::word512, Shape::line512})
        for (std::uint64_t n : {1ULL, 10ULL, 1000ULL, 1'000'000ULL, 100'000'000ULL})
            for (double fpr : {0.3, 0.01, 0.001, 1e-5}) {
                const Params p = Params::for_fpr(n, fpr, s);
                SCOPED_TRACE(std::string(bb::to_string(s)) + " n=" + std::to_string(n) + " fpr=" + std::to_string(fpr));
                EXPECT_LE(bb::predicted_fpr(p, n), fpr);
                // No k reaches the target with one block fewer.
                if (p.blocks > 1) {
                    for (unsigned k = 1; k <= bb::layout::max_k; ++k)
                        EXPECT_GT(bb::predicted_fpr(Params::make(s, p.blocks - 1, k), n), fpr);
                }
            }
}

// The sizing of a given (n, FPR, shape) is part of what a release promises: the same request
// gives the same filter however the search for it is done.
TEST(Params, ForFprSizesStayTheSame) {
    struct Case {
        Shape shape;
        std::uint64_t n;
        double fpr;
        std::uint64_t blocks;
        unsigned k;
    };
    const Case cases[] = {
        {Shape::split256, 2000, 0.01, 83, 8},           {Shape::split256, 1'000'000, 0.01, 41130, 8},
        {Shape::split256, 1'000'000'000, 0.001, 65975826, 8}, {Shape::split256, 99990, 1e-6, 19542, 16},
        {Shape::word512, 7, 0.3, 1, 16},                {Shape::word512, 1'000'000, 0.3, 8011, 8},
        {Shape::word512, 1'000'000, 0.01, 19726, 8},    {Shape::word512, 12'345'678, 0.01, 243522, 8},
        {Shape::word512, 1'000'000'000, 1e-5, 58367082, 16}, {Shape::line512, 2000, 0.3, 10, 2},
        {Shape::line512, 2000, 0.01, 39, 7},            {Shape::line512, 1'000'000, 0.01, 19328, 6},
        {Shape::line512, 1'000'000, 1e-5, 57569, 14},
    };
    for (const Case& c : cases) {
        const Params p = Params::for_fpr(c.n, c.fpr, c.shape);
        SCOPED_TRACE(std::string(bb::to_string(c.shape)) + " n=" + std::to_string(c.n) + " fpr=" + std::to_string(c.fpr));
        EXPECT_EQ(p.blocks, c.blocks);
        EXPECT_EQ(p.k, c.k);
    }
}

TEST(Params, ForBitsPerKeyPicksTheBestK) {
    const auto p = Params::for_bits_per_key(1'000'000, 10, Shape::word512);
    EXPECT_EQ(p.blocks, (1'000'000ULL * 10 + 511) / 512);
    EXPECT_EQ(p.k, 8u);  // one bit in each of the 8 words
    for (unsigned k = 1; k <= bb::layout::max_k; ++k)
        EXPECT_LE(bb::predicted_fpr(p, 1'000'000), bb::predicted_fpr(Params::make(p.shape, p.blocks, k), 1'000'000));
}

TEST(Params, PredictedFprBehaves) {
    const auto p = Params::for_bits_per_key(100000, 10, Shape::word512);
    EXPECT_EQ(bb::predicted_fpr(p, 0), 0.0);
    double last = 0;
    for (std::uint64_t n : {1000ULL, 10000ULL, 100000ULL, 1000000ULL, 100000000ULL}) {
        const double f = bb::predicted_fpr(p, n);
        EXPECT_GT(f, last);
        EXPECT_LE(f, 1.0);
        last = f;
    }
    // One block: every key lands in it, so the load is exactly n (no Poisson smoothing).
    const auto one = Params::make(Shape::word512, 1, 8);
    EXPECT_NEAR(bb::predicted_fpr(one, 10), std::pow(1 - std::pow(63.0 / 64, 10), 8), 1e-15);
}

TEST(Params, ExpectedZeroFraction) {
    const auto p = Params::make(Shape::word512, 1000, 8);
    EXPECT_DOUBLE_EQ(bb::expected_zero_fraction(p, 0), 1.0);
    // Each key sets one bit in each word of its block: after n keys a bit is zero with
    // probability (1 - 1/1000 * 1/64)^n.
    EXPECT_NEAR(bb::expected_zero_fraction(p, 50000), std::pow(1 - 1.0 / 64000, 50000), 1e-12);
    // With k = 4 the other four words of a block are never touched.
    EXPECT_NEAR(bb::expected_zero_fraction(Params::make(Shape::word512, 1000, 4), 1e9), 0.5, 1e-9);
}

TEST(Params, RejectsBadArguments) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    EXPECT_NE(error_of([] { Params::for_fpr(0, 0.01); }).find("at least 1"), std::string::npos);
    for (double bad : {0.0, 1.0, -0.5, 1.5, nan})
        EXPECT_NE(error_of([&] { Params::for_fpr(1000, bad); }).find("(0, 1)"), std::string::npos) << bad;
    for (double bad : {0.0, -1.0, nan, std::numeric_limits<double>::infinity()})
        EXPECT_NE(error_of([&] { Params::for_bits_per_key(1000, bad); }).find("bits per key"), std::string::npos);
    EXPECT_NE(error_of([] { Params::make(Shape::word512, 10, 0); }).find("k must be"), std::string::npos);
    EXPECT_NE(error_of([] { Params::make(Shape::word512, 10, 17); }).find("k must be"), std::string::npos);
    EXPECT_NE(error_of([] { Params::make(Shape::word512, 0, 8); }).find("blocks"), std::string::npos);
    EXPECT_NE(error_of([] { Params::make(Shape::word512, 1ULL << 32, 8); }).find("blocks"), std::string::npos);
    EXPECT_NE(error_of([] { Params::make(static_cast<Shape>(9), 10, 8); }).find("shape"), std::string::npos);
    EXPECT_NE(error_of([] { Params::for_fpr(1000, 0.01, static_cast<Shape>(0)); }).find("shape"), std::string::npos);
    // Sizes beyond what 32-bit block selection (and any machine) can hold.
    EXPECT_NE(error_of([] { Params::for_fpr(1'000'000'000'000'000ULL, 0.001); }).find("2^32"), std::string::npos);
    EXPECT_NE(error_of([] { Params::for_bits_per_key(1'000'000'000'000ULL, 10); }).find("2^32"), std::string::npos);
    EXPECT_NE(error_of([] { bb::parse_shape("word1024"); }).find("word1024"), std::string::npos);
}

TEST(Params, ShapeNamesRoundTrip) {
    for (Shape s : {Shape::split256, Shape::word512, Shape::line512}) EXPECT_EQ(bb::parse_shape(bb::to_string(s)), s);
}

// Every sizing request, however extreme, answers or refuses at once: the model's mixture over
// block loads summed load by load took minutes at 10^15 keys near FPR 1, and the classic
// filter's growth loop ran ~10^5 model calls there. The time limit only guards against a hang.
TEST(Params, ExtremeSizingRequestsAnswerAtOnce) {
    const double tiny = std::numeric_limits<double>::denorm_min();
    const double almost_one = std::nextafter(1.0, 0.0);  // 0.9999999999999999
    const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
    const std::uint64_t ns[] = {1, 1000, 1'000'000'000'000'000ULL, 1ULL << 63, ~0ULL};
    const double fprs[] = {tiny, 1e-300, 1e-9, 0.5, 0.99, 1.0 - 1e-12, almost_one, 1.0, inf, nan};
    const auto timed = [](auto&& request, const std::string& what) {
        const auto start = std::chrono::steady_clock::now();
        try {
            request();
        } catch (const bb::Error&) {
        }
        const auto ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        EXPECT_LT(ms, 50.0) << what;
    };
    for (Shape s : {Shape::split256, Shape::word512, Shape::line512})
        for (std::uint64_t n : ns)
            for (double fpr : fprs) {
                const std::string what = std::string(bb::to_string(s)) + " n=" + std::to_string(n) + " fpr=" +
                                         std::to_string(fpr);
                timed(
                    [&] {
                        const Params p = Params::for_fpr(n, fpr, s);
                        // An answer meets the target.
                        EXPECT_LE(bb::predicted_fpr(p, n), fpr) << what;
                    },
                    what);
                timed([&] { (void)bb::ClassicParams::for_fpr(n, fpr); }, "classic " + what);
            }
    // Even at FPR 0.9999999999999999 a block of 512 bits takes only a few thousand keys.
    EXPECT_NE(error_of([&] { Params::for_fpr(1'000'000'000'000'000ULL, almost_one); }).find("2^32 - 1 blocks"),
              std::string::npos);
}

// The FPR in a sizing error reads back as the value given, not rounded to six digits.
TEST(Params, SizingErrorsPrintTheFprAsGiven) {
    EXPECT_NE(error_of([] { Params::for_fpr(~0ULL, 0.9999999999999999); }).find("at FPR 0.9999999999999999 "),
              std::string::npos);
    EXPECT_NE(error_of([] { Params::for_fpr(1000, 1.0000000000000002); }).find("got 1.0000000000000002"),
              std::string::npos);
    EXPECT_NE(error_of([] { bb::ClassicParams::for_fpr(~0ULL, 1e-300); }).find("1e-300"), std::string::npos);
}
