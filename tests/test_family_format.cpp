// The family file format (counting, deletable, scalable) against damaged files whose
// checksums were recomputed, so that the damage reaches the field checks behind them: loading
// must either succeed or throw batchbloom::Error — never crash, hang, over-allocate or throw
// anything else (run under ASan+UBSan in CI).
#include <gtest/gtest.h>

#include <batchbloom/counting.hpp>
#include <batchbloom/deletable.hpp>
#include <batchbloom/scalable.hpp>
#include <cstring>
#include <sstream>
#include <string>
#include <typeinfo>

#include "format/file_header.hpp"
#include "support.hpp"

namespace bb = batchbloom;

namespace {

// Both checksums recomputed by the codec, so that the loader judges the damaged fields.
void reseal(std::string& f) { bb::io::reseal(std::as_writable_bytes(std::span(f))); }

template <class T>
std::string saved(const T& filter) {
    std::stringstream s;
    filter.save(s);
    return s.str();
}

template <class T>
void mutate_and_load(const std::string& good, std::uint64_t seed) {
    bb::testing::KeyGen g(seed);
    std::size_t loaded = 0;
    for (int round = 0; round < 300; ++round) {
        std::string f = good;
        const unsigned flips = 1 + unsigned(g.next() % 3);
        for (unsigned i = 0; i < flips; ++i) {
            const std::uint64_t r = g.next();
            // Mostly the header and the first payload bytes (the scalable metadata), where the
            // parsing is; sometimes anywhere.
            const std::size_t at = r % 4 == 0 ? (r >> 8) % f.size() : (r >> 8) % std::min<std::size_t>(f.size(), 160);
            f[at] = static_cast<char>(f[at] ^ static_cast<char>(1u << ((r >> 40) % 8)));
        }
        if (g.next() % 8 == 0) f.resize(64 + (g.next() % (f.size() - 64)));  // truncated, resealed
        reseal(f);
        std::stringstream in(f);
        try {
            T::load(in);
            ++loaded;
        } catch (const bb::Error&) {
        } catch (const std::exception& e) {
            ADD_FAILURE() << "round " << round << ": " << typeid(e).name() << ": " << e.what();
        }
    }
    EXPECT_LT(loaded, 300u);  // the damage was seen at least sometimes
}

}  // namespace

TEST(FamilyFormat, DamagedCountingFilesLoadOrThrowError) {
    bb::CountingFilter c(bb::Params::make(bb::Shape::split256, 3, 8));
    c.insert(bb::testing::random_keys(50, 1, 0));
    mutate_and_load<bb::CountingFilter>(saved(c), 1);
}

TEST(FamilyFormat, DamagedDeletableFilesLoadOrThrowError) {
    bb::DeletableFilter d(bb::Params::make(bb::Shape::word512, 3, 8), 4);
    d.insert(bb::testing::random_keys(50, 2, 0));
    mutate_and_load<bb::DeletableFilter>(saved(d), 2);
}

TEST(FamilyFormat, DamagedScalableFilesLoadOrThrowError) {
    bb::ScalableParams p;
    p.initial_capacity = 10;
    p.shape = bb::Shape::split256;
    bb::ScalableFilter s(p);
    s.insert(bb::testing::random_keys(40, 3, 0));
    ASSERT_EQ(s.stages().size(), 3u);
    mutate_and_load<bb::ScalableFilter>(saved(s), 3);
}
