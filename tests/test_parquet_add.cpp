// parquet::add_filters and what it is made of: the Thrift compact writer, the footer rewrite,
// the page encodings and codecs. The committed fixtures (make_parquet_fixtures.py) are real
// files: PyArrow's is ZSTD with dictionary pages falling back to PLAIN, DuckDB's is dictionary
// encoded; their own filters are the oracle for the filters add_filters builds from the pages.
#include <batchbloom/parquet.hpp>
#include <gtest/gtest.h>

#include <lz4.h>
#include <snappy-c.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "interop/parquet/chunk_filter.hpp"
#include "interop/parquet/codecs.hpp"
#include "interop/parquet/encodings.hpp"
#include "interop/parquet/footer_rewrite.hpp"
#include "interop/parquet/thrift_compact.hpp"
#include "parquet_test_files.hpp"
#include "support.hpp"

namespace bb = batchbloom;
namespace pq = batchbloom::parquet;
namespace thrift = batchbloom::parquet::thrift;
using bb::testing::read_file;
using bb::testing::write_file;

namespace {

const std::string data_dir = BATCHBLOOM_TEST_DATA_DIR;
constexpr std::int64_t group = 2048;  // rows per row group of the fixtures

std::filesystem::path temp_path(const std::string& name) {
    return bb::testing::process_temp_path(name);
}

std::span<const std::byte> footer_of(std::span<const std::byte> file) {
    std::uint32_t n;
    std::memcpy(&n, file.data() + file.size() - 8, 4);
    return file.subspan(file.size() - 8 - n, n);
}

std::vector<std::byte> bytes_of(std::initializer_list<unsigned> v) {
    std::vector<std::byte> b;
    for (const unsigned x : v) b.push_back(std::byte(static_cast<std::uint8_t>(x)));
    return b;
}

pq::AddOptions add_options(std::vector<std::string> columns, bool replace = false, double fpp = 0.01) {
    pq::AddOptions o;
    o.columns = std::move(columns);
    o.replace = replace;
    o.fpp = fpp;
    return o;
}

}  // namespace

TEST(ParquetThrift, WriterRoundTripsThroughTheReader) {
    std::vector<std::byte> out;
    thrift::CompactWriter w(out);
    w.begin_struct();
    w.i32_field(1, -5);
    w.i64_field(3, std::numeric_limits<std::int64_t>::min());
    w.field(40, thrift::Type::binary);  // a jump over 15: long form
    w.binary("hello");
    w.field(2, thrift::Type::bool_true);  // backwards: long form, a boolean in the header
    w.field(41, thrift::Type::list);
    w.list_header(thrift::Type::i32, 20);  // 15 elements or more: the size follows the header
    for (int i = 0; i < 20; ++i) w.i32(i - 10);
    w.field(42, thrift::Type::structure);
    w.begin_struct();
    w.i64_field(7, 1234567890123);
    w.end_struct();
    w.end_struct();

    thrift::CompactReader r(out, "test");
    r.begin_struct();
    thrift::Field f;
    std::vector<std::int16_t> ids;
    while (r.next_field(f)) {
        ids.push_back(f.id);
        switch (f.id) {
            case 1: EXPECT_EQ(r.read_i32(f.type), -5); break;
            case 3: EXPECT_EQ(r.read_i64(f.type), std::numeric_limits<std::int64_t>::min()); break;
            case 40: EXPECT_EQ(r.read_binary(f.type), "hello"); break;
            case 2: EXPECT_EQ(f.type, thrift::Type::bool_true); break;
            case 41: {
                const auto h = r.read_list_header(f.type);
                ASSERT_EQ(h.size, 20u);
                for (int i = 0; i < 20; ++i) EXPECT_EQ(r.read_i32(h.element), i - 10);
                break;
            }
            case 42: {
                // A value's raw bytes can be copied after any header: they decode the same.
                const auto raw = r.skip_raw(f.type);
                std::vector<std::byte> copy;
                thrift::CompactWriter cw(copy);
                cw.begin_struct();
                cw.field(9, thrift::Type::structure);
                cw.raw(raw);
                cw.end_struct();
                thrift::CompactReader cr(copy, "copy");
                cr.begin_struct();
                thrift::Field g;
                ASSERT_TRUE(cr.next_field(g));
                cr.begin_struct();
                ASSERT_TRUE(cr.next_field(g));
                EXPECT_EQ(g.id, 7);
                EXPECT_EQ(cr.read_i64(g.type), 1234567890123);
                break;
            }
            default: ADD_FAILURE() << "field " << f.id;
        }
    }
    EXPECT_EQ(ids, (std::vector<std::int16_t>{1, 3, 40, 2, 41, 42}));
    EXPECT_EQ(r.position(), out.size());
}

TEST(ParquetFooterRewrite, NoChangeIsTheSameBytesAndChangesOnlyTheNamedChunks) {
    for (const char* name : {"pyarrow_bloom.parquet", "duckdb_bloom.parquet"}) {
        SCOPED_TRACE(name);
        const auto file = read_file(data_dir + "/" + name);
        const auto footer = footer_of(file);
        const auto same = pq::rewrite_footer(footer, {});
        EXPECT_TRUE(std::equal(same.begin(), same.end(), footer.begin(), footer.end()));

        const pq::FileMetadata before = pq::parse_file_metadata(footer);
        const std::map<pq::ChunkIndex, pq::ChunkFilter> changes = {{{0, 0}, {111, 222, 333}}, {{1, 2}, {444, 555, 666}}};
        const pq::FileMetadata after = pq::parse_file_metadata(pq::rewrite_footer(footer, changes));
        ASSERT_EQ(after.row_groups.size(), before.row_groups.size());
        for (std::size_t g = 0; g < before.row_groups.size(); ++g) {
            for (std::size_t c = 0; c < before.row_groups[g].columns.size(); ++c) {
                const auto& b = before.row_groups[g].columns[c];
                const auto& a = after.row_groups[g].columns[c];
                EXPECT_EQ(a.path, b.path);
                EXPECT_EQ(a.data_page_offset, b.data_page_offset);
                EXPECT_EQ(a.dictionary_page_offset, b.dictionary_page_offset);
                EXPECT_EQ(a.total_compressed_size, b.total_compressed_size);
                EXPECT_EQ(a.codec, b.codec);
                if (const auto it = changes.find({g, c}); it != changes.end()) {
                    EXPECT_EQ(a.bloom_filter_offset, it->second.offset);
                    EXPECT_EQ(a.bloom_filter_length, it->second.length);
                    // DuckDB's statistics carry a distinct count, which wins over ours.
                    EXPECT_EQ(a.distinct_values, b.distinct_values ? b.distinct_values : it->second.distinct);
                } else {
                    EXPECT_EQ(a.bloom_filter_offset, b.bloom_filter_offset);
                    EXPECT_EQ(a.bloom_filter_length, b.bloom_filter_length);
                    EXPECT_EQ(a.distinct_values, b.distinct_values);
                }
            }
        }
        // Rewriting again replaces our distinct count instead of adding a second one.
        const auto twice = pq::rewrite_footer(pq::rewrite_footer(footer, changes), changes);
        EXPECT_EQ(twice, pq::rewrite_footer(footer, changes));
        EXPECT_THROW(pq::rewrite_footer(footer, {{{5, 0}, {1, 1, 1}}}), bb::FormatError);
    }
}

TEST(ParquetAdd, RebuildsTheWritersFiltersFromThePages) {
    for (const char* name : {"pyarrow_bloom.parquet", "duckdb_bloom.parquet"}) {
        SCOPED_TRACE(name);
        const auto in = data_dir + "/" + name;
        const auto out = temp_path("rebuilt.parquet");
        pq::AddOptions options;
        options.columns = {"i64", "i32", "s", "f64", "f32"};
        options.fpp = 0.05;
        options.ndv = group;  // as the writers sized them
        // They have filters, which are kept: the copy is the file.
        EXPECT_TRUE(pq::add_filters(in, out, options).empty());
        EXPECT_EQ(read_file(out), read_file(in));
        options.replace = true;
        const auto added = pq::add_filters(in, out, options);
        ASSERT_EQ(added.size(), 10u);
        for (const auto& a : added) {
            EXPECT_EQ(a.values, group);
            EXPECT_EQ(a.distinct, group);
            EXPECT_TRUE(a.replaced);
        }
        const pq::Reader original(in), rebuilt(out);
        for (std::size_t rg = 0; rg < 2; ++rg) {
            for (const auto& column : options.columns) {
                SCOPED_TRACE(column + " row group " + std::to_string(rg));
                EXPECT_TRUE(*rebuilt.bloom_filter(rg, column) == *original.bloom_filter(rg, column));
                EXPECT_EQ(rebuilt.column_chunk(rg, column).distinct_values, group);
            }
        }
        // The pages are where they were: every byte before the old footer is the same, except
        // the old filters of these columns, which were the last thing before it.
        const auto a = read_file(in), b = read_file(out);
        const auto body = static_cast<std::size_t>(*original.column_chunk(0, "i64").bloom_filter_offset);
        ASSERT_GT(b.size(), body);
        EXPECT_TRUE(std::equal(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(body), b.begin()));
        std::filesystem::remove(out);
    }
}

TEST(ParquetAdd, EachRowGroupGetsItsOwnValuesSizedForThem) {
    const auto in = data_dir + "/pyarrow_bloom.parquet";
    const auto out = temp_path("plain.parquet");
    pq::AddOptions options;
    options.columns = {"plain"};  // row i holds i; no filter in the file
    const auto added = pq::add_filters(in, out, options);
    ASSERT_EQ(added.size(), 2u);
    const pq::Reader r(out);
    for (std::size_t rg = 0; rg < 2; ++rg) {
        std::vector<std::int64_t> values(group);
        for (std::int64_t i = 0; i < group; ++i) values[std::size_t(i)] = std::int64_t(rg) * group + i;
        pq::SplitBlockFilter want(pq::optimal_bytes(group, 0.01));
        want.insert(std::span<const std::int64_t>(values));
        EXPECT_TRUE(*r.bloom_filter(rg, "plain") == want) << rg;
        EXPECT_EQ(added[rg].bytes, want.bytes());
        EXPECT_DOUBLE_EQ(added[rg].predicted_fpr, want.predicted_fpr());
        EXPECT_LT(want.predicted_fpr(), 0.01);
        EXPECT_FALSE(added[rg].replaced);
    }
    // The other columns' filters are untouched.
    const pq::Reader original(in);
    EXPECT_TRUE(*r.bloom_filter(1, "s") == *original.bloom_filter(1, "s"));

    // The thread count changes nothing in the file.
    const auto with = [&](unsigned threads) {
        auto o = add_options({"plain", "i64"}, true);
        o.threads = threads;
        pq::add_filters(in, out, o);
        return read_file(out);
    };
    EXPECT_EQ(with(1), with(3));

    // --ndv sizes every filter alike; the values are still the row group's own.
    options.ndv = 100;
    options.columns = {"plain"};
    const auto small = pq::add_filters(in, out, options);
    EXPECT_EQ(small[0].bytes, pq::optimal_bytes(100, 0.01));
    EXPECT_EQ(small[0].distinct, group);
    std::filesystem::remove(out);
}

TEST(ParquetAdd, ErrorsLeaveTheOutputAlone) {
    const auto in = data_dir + "/pyarrow_bloom.parquet";
    const auto out = temp_path("kept.parquet");
    const auto sentinel = bytes_of({'o', 'l', 'd'});
    write_file(out, sentinel);
    const auto attempt = [&](pq::AddOptions options) {
        EXPECT_THROW(pq::add_filters(in, out, options), bb::Error);
        EXPECT_EQ(read_file(out), sentinel);
    };
    attempt(add_options({}));                        // no column
    attempt(add_options({"nope"}));                  // no such column
    attempt(add_options({"plain", "plain"}));        // twice
    attempt(add_options({"plain"}, false, 1.0));     // fpp out of range
    // A corrupt page fails while the copy is being written: the temporary file goes away.
    auto file = read_file(in);
    const pq::Reader r(in);
    const auto& chunk = r.column_chunk(1, "plain");
    const auto at = static_cast<std::size_t>(chunk.dictionary_page_offset.value_or(chunk.data_page_offset));
    for (std::size_t i = 0; i < 64; ++i) file[at + 20 + i] = std::byte{0xFF};
    const auto corrupt = temp_path("corrupt.parquet");
    write_file(corrupt, file);
    EXPECT_THROW(pq::add_filters(corrupt, out, add_options({"plain"})), bb::Error);
    EXPECT_EQ(read_file(out), sentinel);
    for (const auto& e : std::filesystem::directory_iterator(out.parent_path())) {
        const auto name = e.path().filename().string();
        EXPECT_TRUE(name == out.filename().string() || name.find(out.filename().string()) == std::string::npos)
            << "left behind: " << name;
    }
    std::filesystem::remove(out);
    std::filesystem::remove(corrupt);
}

TEST(ParquetAdd, RefusesAnEncryptedFileWithAPlaintextFooter) {
    // The fixture with FileMetaData.encryption_algorithm (8) set: AES_GCM_V1 {}.
    const auto file = read_file(data_dir + "/tiny_pyarrow.parquet");
    const auto footer = footer_of(file);
    std::vector<std::byte> meta;
    thrift::CompactWriter w(meta);
    thrift::CompactReader r(footer, "footer");
    r.begin_struct();
    w.begin_struct();
    thrift::Field f;
    while (r.next_field(f)) {
        w.field(f.id, f.type);
        w.raw(r.skip_raw(f.type));
    }
    w.field(8, thrift::Type::structure);
    w.begin_struct();
    w.field(1, thrift::Type::structure);
    w.begin_struct();
    w.end_struct();
    w.end_struct();
    w.end_struct();
    std::vector<std::byte> encrypted(file.begin(), file.end() - 8 - static_cast<std::ptrdiff_t>(footer.size()));
    encrypted.insert(encrypted.end(), meta.begin(), meta.end());
    const auto n = static_cast<std::uint32_t>(meta.size());
    for (int i = 0; i < 4; ++i) encrypted.push_back(std::byte(static_cast<std::uint8_t>(n >> (8 * i))));
    for (const char c : std::string_view("PAR1")) encrypted.push_back(std::byte(c));
    const auto path = temp_path("encrypted.parquet");
    write_file(path, encrypted);
    EXPECT_TRUE(pq::Reader(path).metadata().encrypted);
    try {
        pq::add_filters(path, temp_path("never.parquet"), add_options({"i64"}, true));
        ADD_FAILURE() << "no error";
    } catch (const bb::Error& e) {
        EXPECT_NE(std::string(e.what()).find("encrypted"), std::string::npos) << e.what();
    }
    EXPECT_FALSE(std::filesystem::exists(temp_path("never.parquet")));
    std::filesystem::remove(path);
}

// Files of no rows as the writers make them (make_parquet_fixtures.py): PyArrow's row group has
// a chunk whose only page is its dictionary (data_page_offset 0) and one with no page at all;
// DuckDB's and Spark's have no row group.
TEST(ParquetAdd, EmptyFilesOfEveryWriter) {
    for (const char* name : {"empty_pyarrow.parquet", "empty_duckdb.parquet", "empty_spark.parquet"}) {
        SCOPED_TRACE(name);
        const auto in = data_dir + "/" + name;
        const auto out = temp_path("empty-out.parquet");
        const pq::Reader original(in);
        const std::size_t groups = original.metadata().row_groups.size();
        const auto added = pq::add_filters(in, out, add_options({"x", "s"}));
        ASSERT_EQ(added.size(), 2 * groups);
        for (const auto& a : added) {
            EXPECT_EQ(a.values, 0);
            EXPECT_EQ(a.distinct, 0);
            EXPECT_EQ(a.bytes, pq::min_bitset_bytes);
        }
        const pq::Reader r(out);
        ASSERT_EQ(r.metadata().row_groups.size(), groups);
        EXPECT_EQ(r.metadata().num_rows, 0);
        for (std::size_t rg = 0; rg < groups; ++rg) {
            const auto x = r.bloom_filter(rg, "x"), s = r.bloom_filter(rg, "s");
            ASSERT_TRUE(x && s);
            EXPECT_FALSE(x->contains(std::int64_t{0}));
            EXPECT_FALSE(s->contains(std::string_view("a")));
        }
        // Without row groups there is nothing to add: the copy is the file.
        if (groups == 0) {
            EXPECT_EQ(read_file(out), read_file(in));
        }
        std::filesystem::remove(out);
        // Column names are checked against the schema, row groups or none.
        const auto missing = bb::testing::message_of<bb::Error>([&] { pq::add_filters(in, out, add_options({"x", "nope"})); });
        EXPECT_NE(missing.find("no column 'nope'"), std::string::npos) << missing;
        EXPECT_NE(missing.find("(columns: x, s)"), std::string::npos) << missing;
        EXPECT_FALSE(std::filesystem::exists(out));
        EXPECT_EQ(original.metadata().columns, (std::vector<std::string>{"x", "s"}));
    }
}

TEST(ParquetAdd, AddsTheMissingFiltersAndKeepsTheOthers) {
    const auto in = data_dir + "/pyarrow_bloom.parquet";
    const auto file = temp_path("missing.parquet");
    std::filesystem::copy_file(in, file, std::filesystem::copy_options::overwrite_existing);
    // i64 has the writer's filters, plain none: only plain's are built.
    const auto added = pq::add_filters(file, file, add_options({"i64", "plain"}));
    ASSERT_EQ(added.size(), 2u);
    for (const auto& a : added) EXPECT_EQ(a.column, "plain");
    const pq::Reader original(in), now(file);
    for (std::size_t rg = 0; rg < 2; ++rg) {
        EXPECT_TRUE(*now.bloom_filter(rg, "i64") == *original.bloom_filter(rg, "i64"));
        EXPECT_TRUE(now.bloom_filter(rg, "plain").has_value());
    }
    // Nothing missing: nothing written, the file untouched.
    const auto before = read_file(file);
    const auto stamp = std::filesystem::last_write_time(file);
    EXPECT_TRUE(pq::add_filters(file, file, add_options({"plain", "i64"})).empty());
    EXPECT_EQ(read_file(file), before);
    EXPECT_EQ(std::filesystem::last_write_time(file), stamp);
    // replace rebuilds every one named.
    EXPECT_EQ(pq::add_filters(file, file, add_options({"plain", "i64"}, true)).size(), 4u);
    std::filesystem::remove(file);
}

// A dataset with bad entries: each is reported, the good files are done.
TEST(ParquetDataset, BadEntriesAreReportedAndTheRestDone) {
    namespace fs = std::filesystem;
    const fs::path root = temp_path("dataset");
    fs::remove_all(root);
    fs::create_directories(root / "k=1");
    fs::create_directories(root / "k=2");
    fs::copy_file(data_dir + "/pyarrow_bloom.parquet", root / "k=1" / "part-0.parquet");
    fs::copy_file(data_dir + "/pyarrow_bloom.parquet", root / "k=2" / "part-0.parquet");
    fs::create_symlink("loop.parquet", root / "loop.parquet");       // a link to itself
    fs::create_symlink("nowhere.parquet", root / "dangling.parquet");  // to nothing
    fs::create_directory_symlink(".", root / "k=2" / "back");          // a directory link: not followed
    write_file(root / "k=1" / "notes.parquet", std::as_bytes(std::span(std::string_view("notes, not a Parquet file"))));
    write_file(root / "README.txt", bytes_of({'h', 'i'}));            // not a Parquet name: skipped

    const std::vector<fs::path> roots{root};
    auto listing = pq::dataset_files(roots);
    std::vector<std::string> names, bad;
    for (const auto& f : listing.files) names.push_back(f.name);
    for (const auto& f : listing.unreadable) bad.push_back(f.name + ": " + f.error);
    std::sort(bad.begin(), bad.end());
    EXPECT_EQ(names, (std::vector<std::string>{"k=1/notes.parquet", "k=1/part-0.parquet", "k=2/part-0.parquet"}));
    ASSERT_EQ(bad.size(), 2u);
    EXPECT_EQ(bad[0], "dangling.parquet: symbolic link to nothing");
    EXPECT_NE(bad[1].find("loop.parquet: "), std::string::npos) << bad[1];
    EXPECT_NE(bad[1].find("symbolic links"), std::string::npos) << bad[1];  // "Too many levels of symbolic links"

    std::vector<std::string> progress;
    const auto results = pq::add_filters_to_dataset(std::move(listing.files), add_options({"plain"}),
                                                    [&](const pq::DatasetFile& f, std::size_t, std::size_t) {
                                                        progress.push_back(f.name);
                                                    });
    ASSERT_EQ(results.size(), 3u);
    EXPECT_EQ(results[0].outcome, pq::DatasetFile::Outcome::failed);
    EXPECT_NE(results[0].error.find("not a Parquet file"), std::string::npos) << results[0].error;
    for (std::size_t i = 1; i < 3; ++i) {
        EXPECT_EQ(results[i].outcome, pq::DatasetFile::Outcome::added) << results[i].error;
        EXPECT_TRUE(pq::Reader(results[i].path).bloom_filter(0, "plain").has_value());
    }
    std::sort(progress.begin(), progress.end());
    EXPECT_EQ(progress, names);  // the progress names each file by its partition path
    // A second run has nothing left to do.
    const auto again = pq::add_filters_to_dataset(pq::dataset_files(roots).files, add_options({"plain"}));
    EXPECT_EQ(again[1].outcome, pq::DatasetFile::Outcome::skipped);
    EXPECT_EQ(again[2].outcome, pq::DatasetFile::Outcome::skipped);
    // A path given that does not exist is an error before anything is done.
    const std::vector<fs::path> missing{root, root / "nope"};
    EXPECT_NE(bb::testing::message_of<bb::Error>([&] { pq::dataset_files(missing); }).find("no file or directory"),
              std::string::npos);
    fs::remove_all(root);
}

TEST(ParquetAdd, CorruptFilesFailCleanly) {
    // Random single-byte changes anywhere in a small file: add_filters succeeds or throws Error
    // (tests/fuzz/fuzz_parquet.cpp searches far wider).
    const auto file = read_file(data_dir + "/tiny_pyarrow.parquet");
    const auto path = temp_path("mutant.parquet");
    const auto out = temp_path("mutant-out.parquet");
    std::mt19937 rng(5);
    for (int trial = 0; trial < 300; ++trial) {
        const std::size_t at = rng() % file.size();
        auto mutant = file;
        mutant[at] = std::byte(static_cast<std::uint8_t>(rng() | 1) ^ static_cast<std::uint8_t>(mutant[at]));
        write_file(path, mutant);
        try {
            pq::add_filters(path, out, add_options({"i64", "s"}, true));
        } catch (const bb::Error&) {
        }
    }
    std::filesystem::remove(path);
    std::filesystem::remove(out);
}

TEST(ParquetChunkFilter, FoldingIsBuildingSmaller) {
    std::vector<std::uint64_t> hashes(20'000);
    bb::testing::KeyGen g(9);
    for (auto& h : hashes) h = g.next();
    pq::SplitBlockFilter big(1u << 16);
    big.insert_hashes(hashes);
    for (const std::uint32_t bytes : {1u << 16, 1u << 13, 1u << 10, 32u}) {
        pq::SplitBlockFilter direct(bytes);
        direct.insert_hashes(hashes);
        EXPECT_TRUE(big.fold(bytes) == direct) << bytes;
    }
    EXPECT_THROW(big.fold(1u << 17), bb::Error);
    EXPECT_THROW(big.fold(96), bb::Error);
    EXPECT_THROW(pq::SplitBlockFilter(96).fold(32), bb::Error);
}

TEST(ParquetChunkFilter, ExactCountThenEstimatePastTheLimit) {
    std::vector<std::uint64_t> hashes(50'000);
    bb::testing::KeyGen g(4);
    for (auto& h : hashes) h = g.next();
    hashes[7] = 0;  // the empty-slot marker is a value like any other
    for (const std::size_t limit : {std::size_t(1) << 20, std::size_t(1000)}) {
        SCOPED_TRACE(limit);
        pq::ChunkFilterBuilder b(3 * hashes.size(), 0.01, std::nullopt, limit);
        for (int rep = 0; rep < 3; ++rep)
            for (const auto h : hashes) b.add(h);
        const auto r = b.finish();
        EXPECT_EQ(r.exact, limit > hashes.size());
        if (r.exact) EXPECT_EQ(r.distinct, 50'000);
        else EXPECT_NEAR(double(r.distinct), 50'000.0, 1'000.0);  // Swamidass-Baldi on a roomy filter
        pq::SplitBlockFilter direct(pq::optimal_bytes(std::uint64_t(r.distinct), 0.01));
        direct.insert_hashes(hashes);
        EXPECT_TRUE(r.filter == direct);
    }
    pq::ChunkFilterBuilder fixed(100, 0.01, 5'000);
    fixed.add(1);
    EXPECT_EQ(fixed.finish().filter.bytes(), pq::optimal_bytes(5'000, 0.01));
    EXPECT_THROW(pq::ChunkFilterBuilder(1, 0.0, std::nullopt).finish(), bb::Error);
    pq::AddOptions bad_fpp;
    bad_fpp.columns = {"c"};
    bad_fpp.fpp = 0.0;
    EXPECT_THROW(bad_fpp.validate(), bb::Error);
}

TEST(ParquetEncodings, RleBitPackedHybrid) {
    // RLE run of 5 x 3 (bit width 2: one value byte), then 8 bit-packed values 0..3,0..3.
    const auto data = bytes_of({5 << 1, 3, (1 << 1) | 1, 0b11100100, 0b11100100});
    std::vector<std::pair<std::uint32_t, std::uint64_t>> runs;
    pq::ByteCursor c(data, "test");
    pq::read_rle_hybrid(c, 2, 11, [&](std::uint32_t v, std::uint64_t n) { runs.emplace_back(v, n); });
    const std::vector<std::pair<std::uint32_t, std::uint64_t>> want = {{3, 5}, {0, 1}, {1, 1}, {2, 1}, {3, 1}, {0, 1}, {1, 1}};
    EXPECT_EQ(runs, want);
    pq::ByteCursor short_data(std::span<const std::byte>(data).first(3), "test");
    EXPECT_THROW(pq::read_rle_hybrid(short_data, 2, 11, [](std::uint32_t, std::uint64_t) {}), bb::FormatError);
    const auto wide = bytes_of({2, 7});
    pq::ByteCursor too_wide(wide, "test");  // value 7 does not fit 2 bits
    EXPECT_THROW(pq::read_rle_hybrid(too_wide, 2, 1, [](std::uint32_t, std::uint64_t) {}), bb::FormatError);
}

TEST(ParquetEncodings, DeltaBinaryPacked) {
    // The format spec's example: 1, 2, 3, 4, 5 -> block 128 of 4 miniblocks, total 5, first
    // value 1, min delta 1, bit widths 0.
    const auto data = bytes_of({0x80, 0x01, 4, 5, 2, 2, 0, 0, 0, 0, 0xAA});
    pq::DeltaBinaryPackedReader r(data, 5, "test");
    for (std::uint64_t want = 1; want <= 5; ++want) EXPECT_EQ(r.next(), want);
    EXPECT_EQ(r.end(), 10u);  // the trailing byte is not part of it
    EXPECT_THROW(pq::DeltaBinaryPackedReader(data, 4, "test"), bb::FormatError);  // count mismatch
    // 7, 5, 3, 1, 2: min delta -2, then 2-bit deltas 0, 0, 0, 3 in the first miniblock (32
    // values, 8 bytes); the other three miniblocks hold no values and are absent.
    auto mixed = bytes_of({0x80, 0x01, 4, 5, 14, 3, 2, 0, 0, 0, 0xC0});
    mixed.resize(mixed.size() + 7);
    pq::DeltaBinaryPackedReader m(mixed, 5, "test");
    for (const std::int64_t want : {7, 5, 3, 1, 2}) EXPECT_EQ(static_cast<std::int64_t>(m.next()), want);
    EXPECT_EQ(m.end(), mixed.size());
    const auto bad_block = bytes_of({0x81, 0x01, 4, 5, 2});
    EXPECT_THROW(pq::DeltaBinaryPackedReader(bad_block, 5, "test"), bb::FormatError);
    auto cut = mixed;
    cut.resize(12);
    pq::DeltaBinaryPackedReader truncated(cut, 5, "test");
    EXPECT_THROW({ for (int i = 0; i < 5; ++i) truncated.next(); }, bb::FormatError);
}

TEST(ParquetCodecs, EachDecodesToExactlyThePageSize) {
    std::string text;
    for (int i = 0; i < 2000; ++i) text += "value-" + std::to_string(i % 97) + ";";
    const auto plain = std::as_bytes(std::span(text));
    const auto check = [&](pq::Codec codec, const std::vector<char>& packed) {
        SCOPED_TRACE(std::string(pq::to_string(codec)));
        const auto in = std::as_bytes(std::span(packed));
        std::vector<std::byte> out(plain.size());
        pq::decompress(codec, in, out);
        EXPECT_TRUE(std::equal(out.begin(), out.end(), plain.begin()));
        std::vector<std::byte> longer(plain.size() + 1), shorter(plain.size() - 1);
        EXPECT_THROW(pq::decompress(codec, in, longer), bb::FormatError);
        EXPECT_THROW(pq::decompress(codec, in, shorter), bb::FormatError);
        EXPECT_THROW(pq::decompress(codec, in.first(in.size() / 2), out), bb::FormatError);
    };
    std::vector<char> buf(ZSTD_compressBound(text.size()) + 1024);
    std::size_t n = snappy_max_compressed_length(text.size());
    ASSERT_EQ(snappy_compress(text.data(), text.size(), buf.data(), &n), SNAPPY_OK);
    check(pq::Codec::snappy, {buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(n)});
    uLongf zn = static_cast<uLongf>(buf.size());
    ASSERT_EQ(compress2(reinterpret_cast<Bytef*>(buf.data()), &zn, reinterpret_cast<const Bytef*>(text.data()),
                        text.size(), 6), Z_OK);
    check(pq::Codec::gzip, {buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(zn)});  // a zlib stream
    n = ZSTD_compress(buf.data(), buf.size(), text.data(), text.size(), 3);
    check(pq::Codec::zstd, {buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(n)});
    const int ln = LZ4_compress_default(text.data(), buf.data(), static_cast<int>(text.size()), static_cast<int>(buf.size()));
    const std::vector<char> raw(buf.begin(), buf.begin() + ln);
    check(pq::Codec::lz4_raw, raw);
    check(pq::Codec::lz4, raw);  // the bare block some writers store as LZ4
    std::vector<char> hadoop;     // and Hadoop's framing: sizes, big-endian, then the block
    for (const std::size_t v : {text.size(), raw.size()})
        for (int s = 24; s >= 0; s -= 8) hadoop.push_back(static_cast<char>((v >> s) & 0xFF));
    hadoop.insert(hadoop.end(), raw.begin(), raw.end());
    check(pq::Codec::lz4, hadoop);
    // A page of no bytes, with no buffer (PyArrow's GZIP dictionary page of an all-null chunk).
    ASSERT_EQ(compress2(reinterpret_cast<Bytef*>(buf.data()), &(zn = static_cast<uLongf>(buf.size())),
                        reinterpret_cast<const Bytef*>(text.data()), 0, 6), Z_OK);
    EXPECT_NO_THROW(pq::decompress(pq::Codec::gzip, std::as_bytes(std::span(buf.data(), zn)), std::span<std::byte>()));
    std::vector<std::byte> out(plain.size());
    EXPECT_THROW(pq::decompress(pq::Codec::lzo, plain, out), bb::Error);
    EXPECT_THROW(pq::decompress(static_cast<pq::Codec>(42), plain, out), bb::FormatError);
}
