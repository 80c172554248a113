// Files written by an earlier version (tests/data/golden/README.md): every kind still loads,
// holds its keys, reads its key kinds as not recorded, and saves again to the same bytes.
#include <batchbloom/batchbloom.hpp>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support.hpp"

namespace {

namespace bb = batchbloom;
using bb::testing::file_contents;

const std::string dir = std::string(BATCHBLOOM_TEST_DATA_DIR) + "/golden/";

std::vector<std::uint64_t> ints() {
    std::vector<std::uint64_t> v;
    for (std::uint64_t i = 0; i < 200; ++i) v.push_back(i * 7919);
    return v;
}
std::vector<std::string> strings() {
    std::vector<std::string> v;
    for (int i = 0; i < 100; ++i) v.push_back("key-" + std::to_string(i));
    return v;
}

// Every key of `keys` (from `first` on) tests positive.
template <class F, class Key>
void expect_all(const F& f, const std::vector<Key>& keys, std::size_t first = 0) {
    for (std::size_t i = first; i < keys.size(); ++i) {
        if constexpr (std::is_same_v<Key, std::string>)
            EXPECT_TRUE(f.contains(std::string_view(keys[i]))) << keys[i];
        else
            EXPECT_TRUE(f.contains(keys[i])) << keys[i];
    }
}

template <class F>
std::string saved(const F& f) {
    std::ostringstream out;
    f.save(out);
    return out.str();
}

TEST(Golden, BlockedFiltersLoadAndSaveToTheSameBytes) {
    struct Case {
        const char* file;
        bb::Params params;
        bb::Hashing hashing;
        bool has_strings;
    };
    const Case cases[] = {
        {"blocked_word512.bbf", bb::Params::make(bb::Shape::word512, 16, 8), {}, true},
        {"blocked_split256_murmur3.bbf", bb::Params::make(bb::Shape::split256, 20, 8), {bb::HashKind::murmur3, 42}, true},
        {"blocked_line512.bbf", bb::Params::make(bb::Shape::line512, 12, 6), {bb::HashKind::xxh3, 7}, false},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.file);
        const bb::Filter f = bb::Filter::load(dir + c.file);
        EXPECT_EQ(f.params(), c.params);
        EXPECT_EQ(f.hashing(), c.hashing);
        EXPECT_EQ(f.key_kinds(), bb::KeyKinds::not_recorded());
        expect_all(f, ints());
        if (c.has_strings) expect_all(f, strings());
        EXPECT_EQ(saved(f), file_contents(dir + c.file));
        EXPECT_EQ(bb::file_kind(dir + c.file), bb::FileKind::blocked);
    }
}

TEST(Golden, ZstdFileHoldsThePlainFile) {
    const bb::Filter z = bb::Filter::load(dir + "blocked_word512.zst.bbf");
    EXPECT_TRUE(z == bb::Filter::load(dir + "blocked_word512.bbf"));
    EXPECT_EQ(saved(z), file_contents(dir + "blocked_word512.bbf"));
}

TEST(Golden, FamilyFilesLoadAndSaveToTheSameBytes) {
    const auto c = bb::CountingFilter::load(dir + "counting.bbf");
    EXPECT_EQ(c.params(), bb::Params::make(bb::Shape::word512, 8, 8));
    EXPECT_EQ(c.key_kinds(), bb::KeyKinds::not_recorded());
    expect_all(c, ints(), 50);
    expect_all(c, strings());
    EXPECT_EQ(saved(c), file_contents(dir + "counting.bbf"));

    const auto d = bb::DeletableFilter::load(dir + "deletable.bbf");
    EXPECT_EQ(d.region_bits(), 8u);
    EXPECT_EQ(d.key_kinds(), bb::KeyKinds::not_recorded());
    expect_all(d, ints(), 50);
    expect_all(d, strings());
    EXPECT_EQ(saved(d), file_contents(dir + "deletable.bbf"));

    const auto s = bb::ScalableFilter::load(dir + "scalable.bbf");
    EXPECT_EQ(s.stages().size(), 3u);
    EXPECT_EQ(s.size(), 300u);
    EXPECT_EQ(s.key_kinds(), bb::KeyKinds::not_recorded());
    expect_all(s, ints());
    expect_all(s, strings());
    EXPECT_EQ(saved(s), file_contents(dir + "scalable.bbf"));
}

TEST(Golden, ClassicAndSparkFilesLoadAndSaveToTheSameBytes) {
    const auto dh = bb::ClassicFilter::load(dir + "classic_double_hashing.bbf");
    EXPECT_EQ(dh.params(), (bb::ClassicParams{3000, 5}));
    EXPECT_EQ(dh.key_kinds(), bb::KeyKinds::not_recorded());
    expect_all(dh, ints());
    expect_all(dh, strings());
    EXPECT_EQ(saved(dh), file_contents(dir + "classic_double_hashing.bbf"));

    const auto v2 = bb::ClassicFilter::load(dir + "classic_spark_v2.bbf");
    EXPECT_EQ(v2.hashing().scheme, bb::ClassicScheme::spark_v2);
    EXPECT_EQ(saved(v2), file_contents(dir + "classic_spark_v2.bbf"));
    const auto spark2 = bb::load_classic_filter_file(dir + "spark_v2.bin");
    EXPECT_TRUE(spark2 == v2);
    EXPECT_EQ(spark2.key_kinds(), bb::KeyKinds::not_recorded());
    const auto spark_bytes = spark2.to_spark_bytes();
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(spark_bytes.data()), spark_bytes.size()),
              file_contents(dir + "spark_v2.bin"));

    const auto spark1 = bb::load_classic_filter_file(dir + "spark_v1.bin");
    EXPECT_EQ(spark1.hashing().scheme, bb::ClassicScheme::spark_v1);
    expect_all(spark1, ints());
    expect_all(spark1, strings());
    const auto bytes1 = spark1.to_spark_bytes();
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(bytes1.data()), bytes1.size()), file_contents(dir + "spark_v1.bin"));
}

}  // namespace
