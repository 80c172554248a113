// Files written by an earlier version (tests/data/golden/README.md) in the forms that are not one
// kind's own file: a zstd frame and Spark's serialized form. Every kind's batchbloom files are
// tested alike in test_file_properties.cpp (FileProperties.GoldenFilesLoadAndSaveToTheSameBytes).
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

// Every key of `keys` tests positive.
template <class F, class Key>
void expect_all(const F& f, const std::vector<Key>& keys) {
    for (std::size_t i = 0; i < keys.size(); ++i) {
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

TEST(Golden, ZstdFileHoldsThePlainFile) {
    const bb::Filter z = bb::Filter::load(dir + "blocked_word512.zst.bbf");
    EXPECT_TRUE(z == bb::Filter::load(dir + "blocked_word512.bbf"));
    EXPECT_EQ(saved(z), file_contents(dir + "blocked_word512.bbf"));
}

TEST(Golden, SparkFilesLoadAndWriteTheSameBytes) {
    const auto v2 = bb::ClassicFilter::load(dir + "classic_spark_v2.bbf");
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
