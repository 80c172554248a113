// Parquet split-block Bloom filters: hashing, block math, header, engines, and the filters of
// real files written by PyArrow and DuckDB (tests/data, made by make_parquet_fixtures.py),
// checked against DuckDB's own answers for the same values.
#include <batchbloom/parquet.hpp>
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "parquet_test_files.hpp"
#include "support.hpp"

namespace bb = batchbloom;
namespace pq = batchbloom::parquet;
using bb::testing::read_file;
using bb::testing::write_file;

namespace {

constexpr std::uint32_t parquet_salt[8] = {0x47b6137bU, 0x44974d91U, 0x8824ad5bU, 0xa2b7289dU,
                                           0x705495c7U, 0x2df1424bU, 0x9efc4947U, 0x5c6bfb31U};

const std::string data_dir = BATCHBLOOM_TEST_DATA_DIR;

std::string temp_path(const std::string& name) {
    return bb::testing::process_temp_path(name).string();
}

std::uint32_t word(std::span<const std::byte> bits, std::size_t i) {
    std::uint32_t w;
    std::memcpy(&w, bits.data() + 4 * i, 4);
    return w;
}

// A minimal Thrift compact writer, for synthetic footers and headers.
class ThriftOut {
public:
    std::vector<std::byte> bytes;
    void u8(unsigned b) { bytes.push_back(std::byte(static_cast<std::uint8_t>(b))); }
    void varint(std::uint64_t v) {
        while (v >= 0x80) u8(static_cast<unsigned>(v & 0x7F) | 0x80), v >>= 7;
        u8(static_cast<unsigned>(v));
    }
    void zigzag(std::int64_t v) { varint((static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63)); }
    // Field header with a delta from the previous field of the same struct (1..15).
    void field(unsigned delta, unsigned type) { u8(delta << 4 | type); }
    void i32(unsigned delta, std::int32_t v) { field(delta, 5), zigzag(v); }
    void i64(unsigned delta, std::int64_t v) { field(delta, 6), zigzag(v); }
    void binary(unsigned delta, std::string_view s) {
        field(delta, 8), varint(s.size());
        for (char c : s) u8(static_cast<unsigned char>(c));
    }
    void list(unsigned delta, unsigned element, std::size_t n) {
        field(delta, 9);
        if (n < 15) u8(static_cast<unsigned>(n) << 4 | element);
        else u8(0xF0 | element), varint(n);
    }
    void stop() { u8(0); }
    void raw(std::span<const std::byte> b) { bytes.insert(bytes.end(), b.begin(), b.end()); }
};

// A one-row-group, one-column file: "PAR1", `body` (placed at offset 4), the footer, its length, "PAR1".
std::vector<std::byte> synthetic_file(std::span<const std::byte> body, std::optional<std::int64_t> bloom_offset,
                                      std::optional<std::int32_t> bloom_length, bool extra_fields = false) {
    ThriftOut f;
    f.i32(1, 2);  // version
    if (extra_fields) {
        // Unknown fields a reader must skip: a double, a map, a set of lists of bools, two
        // boolean fields, nested structs.
        f.field(0, 7), f.zigzag(20);
        for (int i = 0; i < 8; ++i) f.u8(0x11);
        f.field(1, 11), f.varint(2), f.u8(0x85);  // 21: map<binary, i32>, 2 entries
        for (int i = 0; i < 2; ++i) f.varint(1), f.u8('k'), f.zigzag(i);
        f.field(0, 10), f.zigzag(40), f.u8(0x19);  // 40: set of one list
        f.u8(0x11), f.u8(1);                        // ... of one bool
        f.field(1, 1), f.field(1, 2);               // 41, 42: booleans
        f.field(1, 12), f.i64(1, 5), f.field(1, 12), f.stop(), f.stop();  // 43: struct{i64, struct{}}
    }
    // The extra fields jump ids around, so the schema (2) is written with an explicit id.
    f.field(0, 9), f.zigzag(2), f.u8(0x1C);  // schema: list<struct>, 1 element
    f.binary(4, "schema"), f.stop();
    f.field(0, 6), f.zigzag(3), f.zigzag(10);  // num_rows
    f.list(1, 12, 1);                          // row_groups
    f.list(1, 12, 1);                          // RowGroup.columns
    f.i64(2, 4);                               // ColumnChunk.file_offset
    f.field(1, 12);                            // ColumnChunk.meta_data
    f.i32(1, 2);                               // type INT64
    f.list(1, 8, 0);                           // encodings
    f.list(1, 8, 2);                           // path_in_schema
    f.varint(1), f.u8('a'), f.varint(1), f.u8('b');
    f.i32(1, 0);   // codec
    f.i64(1, 10);  // num_values
    f.i64(1, 0), f.i64(1, 0), f.i64(2, 4);  // sizes, data_page_offset
    if (bloom_offset) f.field(0, 6), f.zigzag(14), f.zigzag(*bloom_offset);
    if (bloom_length) f.field(0, 5), f.zigzag(15), f.zigzag(*bloom_length);
    f.stop();              // ColumnMetaData
    f.stop();              // ColumnChunk
    f.i64(1, 0);           // RowGroup.total_byte_size (id 2)
    f.i64(1, 10);          // RowGroup.num_rows
    f.stop();              // RowGroup
    f.stop();              // FileMetaData
    ThriftOut file;
    for (char c : std::string_view("PAR1")) file.u8(static_cast<unsigned char>(c));
    file.raw(body);
    file.raw(f.bytes);
    const auto n = static_cast<std::uint32_t>(f.bytes.size());
    for (int i = 0; i < 4; ++i) file.u8((n >> (8 * i)) & 0xFF);
    for (char c : std::string_view("PAR1")) file.u8(static_cast<unsigned char>(c));
    return file.bytes;
}

// ---- the probe values of the fixtures (make_parquet_fixtures.py) ---------------------------

constexpr int fixture_rows = 4096;
constexpr int fixture_group = 2048;

template <class T>
struct Probes {
    std::vector<T> present, absent;
};

Probes<std::int64_t> i64_probes() {
    Probes<std::int64_t> p;
    for (std::int64_t i = 0; i < fixture_rows; ++i) p.present.push_back(7 * i + 3), p.absent.push_back(7 * i + 4);
    return p;
}
Probes<std::int32_t> i32_probes() {
    Probes<std::int32_t> p;
    for (std::int32_t i = 0; i < fixture_rows; ++i) p.present.push_back(5 * i - 100000), p.absent.push_back(5 * i - 99998);
    return p;
}
Probes<double> f64_probes() {
    Probes<double> p;
    for (int i = 0; i < fixture_rows; ++i) p.present.push_back(i / 2.0), p.absent.push_back(i / 2.0 + 0.125);
    return p;
}
Probes<float> f32_probes() {
    Probes<float> p;
    for (int i = 0; i < fixture_rows; ++i)
        p.present.push_back(static_cast<float>(i) / 4.0f), p.absent.push_back(static_cast<float>(i) / 4.0f + 0.0625f);
    return p;
}
struct StringProbes {
    std::vector<std::string> present_s, absent_s;
    Probes<std::string_view> views() const {
        return {{present_s.begin(), present_s.end()}, {absent_s.begin(), absent_s.end()}};
    }
};
StringProbes s_probes() {
    StringProbes p;
    for (int i = 0; i < fixture_rows; ++i)
        p.present_s.push_back("key-" + std::to_string(11 * i)), p.absent_s.push_back("nokey-" + std::to_string(i));
    return p;
}

// "FILE COLUMN ROW_GROUP" -> the expected answers, one per probe (present probes, then absent).
std::map<std::string, std::vector<std::uint8_t>> expected_answers() {
    std::ifstream in(data_dir + "/parquet_expected.txt");
    EXPECT_TRUE(in) << "missing " << data_dir << "/parquet_expected.txt";
    std::map<std::string, std::vector<std::uint8_t>> m;
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        std::istringstream ls(line);
        std::string file, column, group, hex;
        ls >> file >> column >> group >> hex;
        std::vector<std::uint8_t> bits;
        for (char c : hex) {
            const int v = std::stoi(std::string(1, c), nullptr, 16);
            for (int b = 3; b >= 0; --b) bits.push_back(static_cast<std::uint8_t>((v >> b) & 1));
        }
        bits.resize(2 * fixture_rows);
        m[file + " " + column + " " + group] = bits;
    }
    return m;
}

// Our answers for one column of one row group equal the reader's (DuckDB's) for every probe,
// and the filter we build from the row group's values is the writer's filter, byte for byte.
template <class T>
void check_column(const pq::Reader& reader, const std::string& file, const std::string& column, const Probes<T>& p,
                  const std::map<std::string, std::vector<std::uint8_t>>& expected) {
    for (std::size_t rg = 0; rg < reader.metadata().row_groups.size(); ++rg) {
        SCOPED_TRACE(file + " " + column + " row group " + std::to_string(rg));
        const auto filter = reader.bloom_filter(rg, column);
        ASSERT_TRUE(filter.has_value());
        // Both writers size a row group's filter from its 2048 distinct values at fpp 0.05.
        EXPECT_EQ(filter->bytes(), pq::optimal_bytes(fixture_group, 0.05));
        std::vector<T> probes(p.present);
        probes.insert(probes.end(), p.absent.begin(), p.absent.end());
        std::vector<std::uint8_t> ours(probes.size());
        filter->contains(std::span<const T>(probes), ours);
        const auto it = expected.find(file + " " + column + " " + std::to_string(rg));
        ASSERT_NE(it, expected.end());
        std::size_t positives = 0, mismatches = 0;
        for (std::size_t j = 0; j < probes.size(); ++j) {
            mismatches += ours[j] != it->second[j];
            positives += ours[j];
        }
        EXPECT_EQ(mismatches, 0u);
        // The row group's own values are all there, and the other group's mostly not.
        EXPECT_GE(positives, std::size_t(fixture_group));
        EXPECT_LT(positives, std::size_t(fixture_group) + fixture_group / 4);

        const auto first = p.present.begin() + static_cast<std::ptrdiff_t>(rg * fixture_group);
        const std::vector<T> values(first, first + fixture_group);
        pq::SplitBlockFilter rebuilt(filter->bytes());
        rebuilt.insert(std::span<const T>(values));
        EXPECT_TRUE(rebuilt == *filter) << "our filter of the row group's values differs from the writer's";
    }
}

void check_fixture(const std::string& file) {
    const pq::Reader reader(data_dir + "/" + file);
    ASSERT_EQ(reader.metadata().row_groups.size(), 2u);
    EXPECT_EQ(reader.metadata().num_rows, fixture_rows);
    const auto expected = expected_answers();
    check_column(reader, file, "i64", i64_probes(), expected);
    check_column(reader, file, "i32", i32_probes(), expected);
    check_column(reader, file, "f64", f64_probes(), expected);
    check_column(reader, file, "f32", f32_probes(), expected);
    const auto s = s_probes();
    check_column(reader, file, "s", s.views(), expected);
    EXPECT_EQ(reader.column_chunk(0, "i32").type, pq::PhysicalType::int32);
    EXPECT_EQ(reader.column_chunk(1, "s").type, pq::PhysicalType::byte_array);
    EXPECT_EQ(reader.column_chunk(1, "f32").num_values, fixture_group);
}

}  // namespace

TEST(Parquet, HashIsXxh64OfThePlainEncoding) {
    EXPECT_EQ(pq::hash_value(std::string_view()), 0xEF46DB3751D8E999ULL);  // XXH64("", seed 0)
    const std::int32_t i32 = -2;
    const std::int64_t i64 = -2;
    const double d = 1.5;
    const float f = 1.5f;
    const auto bytes_of = [](const auto& v) {
        return std::string_view(reinterpret_cast<const char*>(&v), sizeof(v));
    };
    EXPECT_EQ(pq::hash_value(i32), pq::hash_value(bytes_of(i32)));
    EXPECT_EQ(pq::hash_value(i64), pq::hash_value(bytes_of(i64)));
    EXPECT_EQ(pq::hash_value(d), pq::hash_value(bytes_of(d)));
    EXPECT_EQ(pq::hash_value(f), pq::hash_value(bytes_of(f)));
    // INT32 is hashed as 4 bytes, never widened.
    EXPECT_NE(pq::hash_value(std::int32_t{7}), pq::hash_value(std::int64_t{7}));
}

// Keys are checked against the column's type, with errors that name the value and the type.
TEST(Parquet, KeysFitTheColumnOrSayWhyNot) {
    pq::ColumnChunk c;
    c.path = "x";
    c.type = pq::PhysicalType::int32;
    c.converted_type = "UINT_32";
    // An unsigned value above the signed range is stored as its two's-complement bits.
    EXPECT_EQ(pq::hash_integer_key(c, std::uint64_t{3'000'000'000}), pq::hash_value(std::int32_t(-1'294'967'296)));
    EXPECT_EQ(pq::hash_text_key(c, "3000000000"), pq::hash_value(std::int32_t(-1'294'967'296)));
    EXPECT_EQ(pq::hash_text_key(c, "7"), pq::hash_value(std::int32_t(7)));
    const auto message = [](auto&& f) { return bb::testing::message_of<bb::Error>(f); };
    EXPECT_EQ(message([&] { pq::hash_integer_key(c, std::uint64_t{4'294'967'296}); }),
              "value 4294967296 does not fit column 'x' (INT32, UINT_32)");
    EXPECT_EQ(message([&] { pq::hash_integer_key(c, std::int64_t{-1}); }),
              "value -1 does not fit column 'x' (INT32, UINT_32)");
    EXPECT_EQ(message([&] { pq::hash_text_key(c, "99999999999999999999999"); }),
              "value 99999999999999999999999 does not fit column 'x' (INT32, UINT_32)");
    EXPECT_EQ(message([&] { pq::hash_text_key(c, "abc"); }), "key 'abc' is not a value of INT32, UINT_32 column 'x'");
    c.converted_type.clear();
    EXPECT_EQ(message([&] { pq::hash_integer_key(c, std::uint64_t{3'000'000'000}); }),
              "value 3000000000 does not fit column 'x' (INT32)");
    EXPECT_EQ(pq::hash_integer_key(c, std::int64_t{-5}), pq::hash_value(std::int32_t{-5}));
    c.converted_type = "INT_8";
    EXPECT_EQ(message([&] { pq::hash_integer_key(c, std::int64_t{200}); }), "value 200 does not fit column 'x' (INT32, INT_8)");
    c.type = pq::PhysicalType::int64;
    c.converted_type = "UINT_64";
    EXPECT_EQ(pq::hash_integer_key(c, std::uint64_t{1} << 63), pq::hash_value(std::numeric_limits<std::int64_t>::min()));
    c.type = pq::PhysicalType::byte_array;
    c.converted_type = "UTF8";
    EXPECT_EQ(message([&] { pq::hash_integer_key(c, std::int64_t{1}); }),
              "value 1 (an integer) cannot be a key of BYTE_ARRAY, UTF8 column 'x'");
    EXPECT_EQ(pq::hash_text_key(c, "1"), pq::hash_value(std::string_view("1")));
    c.type = pq::PhysicalType::float64;
    c.converted_type.clear();
    EXPECT_EQ(pq::hash_text_key(c, "0.5"), pq::hash_value(0.5));
    EXPECT_EQ(message([&] { pq::hash_text_key(c, "half"); }), "key 'half' is not a value of DOUBLE column 'x'");
}

// The schema's converted types reach the chunks (the committed fixtures: UTF8 strings).
TEST(Parquet, ChunksCarryTheirConvertedType) {
    const pq::Reader r(std::string(BATCHBLOOM_TEST_DATA_DIR) + "/pyarrow_bloom.parquet");
    EXPECT_EQ(r.column_chunk(0, "s").converted_type, "UTF8");
    EXPECT_EQ(pq::type_name(r.column_chunk(0, "s")), "BYTE_ARRAY, UTF8");
    EXPECT_EQ(pq::type_name(r.column_chunk(0, "i64")), "INT64");
    EXPECT_EQ(r.metadata().columns, (std::vector<std::string>{"i64", "i32", "s", "f64", "f32", "plain"}));
}

TEST(Parquet, BlockAndBitsAreTheSpecs) {
    // Independent of the library's layout code: the spec's block index and masks, applied to
    // raw words of a 4-block filter.
    bb::testing::KeyGen g(11);
    for (int t = 0; t < 200; ++t) {
        const std::uint64_t h = g.next();
        pq::SplitBlockFilter f(4 * 32);
        f.insert_hash(h);
        const std::uint64_t block = ((h >> 32) * 4) >> 32;
        const auto bits = f.bitset();
        for (std::size_t w = 0; w < 32; ++w) {
            const std::uint32_t want =
                w / 8 == block ? 1u << ((static_cast<std::uint32_t>(h) * parquet_salt[w % 8]) >> 27) : 0u;
            ASSERT_EQ(word(bits, w), want) << "word " << w;
        }
        EXPECT_TRUE(f.contains_hash(h));
    }
}

TEST(Parquet, SizingFollowsTheWriters) {
    EXPECT_EQ(pq::optimal_bytes(0, 0.01), 32u);
    EXPECT_EQ(pq::optimal_bytes(1, 0.5), 32u);
    // 1e6 values at 1%: 9.68e6 bits -> 2^24 bits.
    EXPECT_EQ(pq::optimal_bytes(1'000'000, 0.01), 2u << 20);
    EXPECT_EQ(pq::optimal_bytes(2048, 0.05), 2048u);
    EXPECT_EQ(pq::optimal_bytes(std::uint64_t(1) << 40, 0.01), pq::max_bitset_bytes);
    EXPECT_THROW(pq::optimal_bytes(10, 0.0), bb::Error);
    EXPECT_THROW(pq::optimal_bytes(10, 1.0), bb::Error);
    EXPECT_EQ(pq::SplitBlockFilter::for_ndv(100'000, 0.01).bytes(), 128u << 10);
    EXPECT_THROW(pq::SplitBlockFilter(48), bb::Error);
    EXPECT_THROW(pq::SplitBlockFilter(0), bb::Error);
    EXPECT_THROW(pq::SplitBlockFilter(pq::max_bitset_bytes + 32), bb::Error);
    EXPECT_EQ(pq::SplitBlockFilter(96).bytes(), 96u);  // readers accept any whole number of blocks
}

TEST(Parquet, HeaderRoundTripAndExactBytes) {
    pq::SplitBlockFilter f(64);
    f.insert(std::vector<std::int64_t>{1, 2, 3});
    const auto s = f.serialize();
    const std::vector<std::uint8_t> header = {0x15, 0x80, 0x01, 0x1C, 0x1C, 0x00, 0x00, 0x1C, 0x1C, 0x00,
                                              0x00, 0x1C, 0x1C, 0x00, 0x00, 0x00};
    ASSERT_EQ(s.size(), header.size() + 64);
    for (std::size_t i = 0; i < header.size(); ++i) EXPECT_EQ(std::to_integer<unsigned>(s[i]), header[i]) << i;
    std::size_t used = 0;
    auto extended = s;
    extended.push_back(std::byte{0x42});
    const auto g = pq::SplitBlockFilter::deserialize(extended, &used);
    EXPECT_EQ(used, s.size());
    EXPECT_TRUE(g == f);
    EXPECT_TRUE(g.contains(std::int64_t{2}));
    // Every truncation is an error, never a read past the end.
    for (std::size_t n = 0; n < s.size(); ++n)
        EXPECT_THROW(pq::SplitBlockFilter::deserialize(std::span(s.data(), n)), bb::FormatError) << n;
}

TEST(Parquet, HeaderRejectsWhatItCannotRead) {
    const auto header = [](std::int32_t num_bytes, unsigned algorithm_member, bool with_compression) {
        ThriftOut h;
        h.i32(1, num_bytes);
        h.field(1, 12), h.field(algorithm_member, 12), h.stop(), h.stop();
        h.field(1, 12), h.field(1, 12), h.stop(), h.stop();
        if (with_compression) h.field(1, 12), h.field(1, 12), h.stop(), h.stop();
        h.stop();
        h.bytes.resize(h.bytes.size() + 4096);
        return h.bytes;
    };
    EXPECT_NO_THROW(pq::SplitBlockFilter::deserialize(header(1024, 1, true)));
    EXPECT_THROW(pq::SplitBlockFilter::deserialize(header(1024, 2, true)), bb::FormatError);  // not BLOCK
    EXPECT_THROW(pq::SplitBlockFilter::deserialize(header(1024, 1, false)), bb::FormatError);  // no compression
    EXPECT_THROW(pq::SplitBlockFilter::deserialize(header(1000, 1, true)), bb::FormatError);
    EXPECT_THROW(pq::SplitBlockFilter::deserialize(header(0, 1, true)), bb::FormatError);
    EXPECT_THROW(pq::SplitBlockFilter::deserialize(header(-32, 1, true)), bb::FormatError);
    EXPECT_THROW(pq::SplitBlockFilter::deserialize(header(8192, 1, true)), bb::FormatError);  // truncated bitset
    EXPECT_THROW(pq::SplitBlockFilter::from_bitset(std::vector<std::byte>(40)), bb::FormatError);
}

TEST(Parquet, EveryEngineBuildsAndProbesTheSameFilter) {
    std::vector<std::int64_t> i64;
    std::vector<std::int32_t> i32;
    std::vector<std::string> str;
    for (std::int64_t i = 0; i < 100'000; ++i)
        i64.push_back(i * 31 - 7), i32.push_back(static_cast<std::int32_t>(i * 17)), str.push_back(std::to_string(i) + "v");
    const std::vector<std::string_view> sv(str.begin(), str.end());
    std::vector<std::int64_t> probes(i64.size());
    for (std::size_t i = 0; i < probes.size(); ++i) probes[i] = static_cast<std::int64_t>(i) * 13;

    const auto build = [&](bb::Backend b) {
        pq::SplitBlockFilter f(pq::optimal_bytes(100'000, 0.05));
        f.set_backend(b);
        f.insert(std::span<const std::int64_t>(i64));
        f.insert(std::span<const std::int32_t>(i32));
        f.insert(std::span<const std::string_view>(sv));
        return f;
    };
    const auto reference = build(bb::Backend::scalar);
    // The Filter behind it (what a DeviceFilter copies for the GPU) is split256 with k = 8.
    EXPECT_EQ(reference.filter().params(), bb::Params::make(bb::Shape::split256, reference.bytes() / 32, 8));
    EXPECT_EQ(pq::SplitBlockFilter::from_bitset(reference.filter().bytes()), reference);
    std::vector<std::uint8_t> want(probes.size());
    reference.contains(std::span<const std::int64_t>(probes), want);
    std::vector<std::uint8_t> present(sv.size());
    reference.contains(std::span<const std::string_view>(sv), present);
    EXPECT_EQ(std::count(present.begin(), present.end(), 1), static_cast<std::ptrdiff_t>(sv.size()));
    for (const auto& name : bb::available_backends()) {
        SCOPED_TRACE(name);
        const auto backend = bb::parse_backend(name);
        auto f = build(backend);
        EXPECT_TRUE(f == reference);
        std::vector<std::uint8_t> got(probes.size());
        f.contains(std::span<const std::int64_t>(probes), got);
        EXPECT_EQ(got, want);
        auto g = reference;
        g.set_backend(backend);
        g.contains(std::span<const std::int64_t>(probes), got);
        EXPECT_EQ(got, want);
    }
}

TEST(Parquet, PyArrowFileAnswersLikeDuckDB) { check_fixture("pyarrow_bloom.parquet"); }

TEST(Parquet, DuckDBFileAnswersLikeDuckDB) { check_fixture("duckdb_bloom.parquet"); }

TEST(Parquet, ColumnsWithoutFilterAndBadLookups) {
    const pq::Reader reader(data_dir + "/pyarrow_bloom.parquet");
    EXPECT_FALSE(reader.bloom_filter(0, "plain").has_value());
    EXPECT_THROW(reader.bloom_filter(0, "nope"), bb::Error);
    EXPECT_THROW(reader.bloom_filter(2, "i64"), bb::Error);
}

TEST(Parquet, SyntheticFilesWithAndWithoutLength) {
    pq::SplitBlockFilter f(128);
    f.insert(std::vector<std::int64_t>{10, 20, 30});
    const auto body = f.serialize();
    const auto len = static_cast<std::int32_t>(body.size());
    const std::string path = temp_path("synthetic.parquet");
    for (const bool extra : {false, true}) {
        for (const bool with_length : {true, false}) {
            write_file(path, synthetic_file(body, 4, with_length ? std::optional(len) : std::nullopt, extra));
            const pq::Reader r(path);
            EXPECT_EQ(r.metadata().num_rows, 10);
            const auto g = r.bloom_filter(0, "a.b");
            ASSERT_TRUE(g.has_value());
            EXPECT_TRUE(*g == f);
        }
    }
    // Offsets and lengths that point outside the file, or disagree with the header.
    for (const auto& [offset, length] : std::vector<std::pair<std::int64_t, std::int32_t>>{
             {4, len + 1}, {4, len - 1}, {4, -1}, {0, len}, {-5, len}, {1 << 30, len}, {4, 1 << 30}}) {
        write_file(path, synthetic_file(body, offset, length));
        const pq::Reader r(path);
        EXPECT_THROW(r.bloom_filter(0, "a.b"), bb::FormatError) << offset << " " << length;
    }
    write_file(path, synthetic_file(body, std::nullopt, std::nullopt));
    EXPECT_FALSE(pq::Reader(path).bloom_filter(0, "a.b").has_value());
    // The schema has no leaf a.b, so the chunk's levels are unknown: its pages cannot be read.
    EXPECT_FALSE(pq::Reader(path).column_chunk(0, "a.b").in_schema);
    pq::AddOptions add;
    add.columns = {"a.b"};
    EXPECT_THROW(pq::add_filters(path, path + ".out", add), bb::FormatError);
    EXPECT_FALSE(std::filesystem::exists(path + ".out"));
    std::filesystem::remove(path);
}

TEST(Parquet, RejectsFilesThatAreNotParquet) {
    const std::string path = temp_path("bad.parquet");
    const auto good = read_file(data_dir + "/duckdb_bloom.parquet");
    const auto expect_format_error = [&](std::vector<std::byte> bytes) {
        write_file(path, bytes);
        EXPECT_THROW(pq::Reader{path}, bb::FormatError);
    };
    expect_format_error({});
    expect_format_error(std::vector<std::byte>(good.begin(), good.begin() + 11));
    auto b = good;
    b[0] = std::byte{'X'};
    expect_format_error(b);
    b = good;
    std::memcpy(b.data() + b.size() - 4, "PARE", 4);
    expect_format_error(b);
    b = good;
    std::memset(b.data() + b.size() - 8, 0x7F, 4);  // footer longer than the file
    expect_format_error(b);
    // The footer alone: every truncation fails cleanly.
    std::uint32_t n;
    std::memcpy(&n, good.data() + good.size() - 8, 4);
    const std::span footer(good.data() + good.size() - 8 - n, n);
    EXPECT_NO_THROW(pq::parse_file_metadata(footer));
    for (std::size_t k = 0; k < n; k += 7) EXPECT_THROW(pq::parse_file_metadata(footer.first(k)), bb::FormatError) << k;
    EXPECT_THROW(pq::Reader{temp_path("does-not-exist.parquet")}, bb::Error);
    std::filesystem::remove(path);
}

TEST(Parquet, ThriftReaderIsStrict) {
    const auto parse = [](std::vector<std::uint8_t> raw) {
        std::vector<std::byte> b(raw.size());
        std::memcpy(b.data(), raw.data(), raw.size());
        return pq::parse_file_metadata(b);
    };
    // Deep nesting of structs in an unknown field.
    std::vector<std::uint8_t> deep;
    for (int i = 0; i < 100; ++i) deep.push_back(0x1C);
    deep.insert(deep.end(), 101, 0x00);
    EXPECT_THROW(parse(deep), bb::FormatError);
    EXPECT_THROW(parse({0x19, 0xFC, 0xFF, 0xFF, 0xFF, 0x0F}), bb::FormatError);  // list claims 2^32 elements
    EXPECT_THROW(parse({0x1D}), bb::FormatError);                              // invalid type 13
    EXPECT_THROW(parse({0x16, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01}),
                 bb::FormatError);                                              // 11-byte varint
    EXPECT_THROW(parse({0x15, 0x80, 0x80, 0x80, 0x80, 0x10}), bb::FormatError);  // i32 out of range
    EXPECT_THROW(parse({0x18, 0x05, 'a'}), bb::FormatError);                     // string past the end
    EXPECT_THROW(parse({0x46, 0x00, 0x00}), bb::FormatError);                    // row_groups of the wrong type
    EXPECT_THROW(parse({0x36, 0x02, 0x00}), bb::FormatError);                    // no row_groups
    EXPECT_EQ(parse({0x36, 0x02, 0x19, 0x0C, 0x00}).num_rows, 1);                // empty row_groups list
}

// ---- what a footer may cost --------------------------------------------------------------

namespace {

// A footer whose schema is `schema` (the list's elements, already encoded), then one row group
// with one INT64 column chunk at path "a".
std::vector<std::byte> footer_with_schema(std::size_t elements, const std::vector<std::byte>& schema) {
    ThriftOut f;
    f.list(2, 12, elements);  // FileMetaData.schema
    f.raw(schema);
    f.list(2, 12, 1);  // row_groups
    f.list(1, 12, 1);  // RowGroup.columns
    f.field(3, 12);    // ColumnChunk.meta_data
    f.i32(1, 2);       // type INT64
    f.list(2, 8, 1);   // path_in_schema
    f.varint(1), f.u8('a');
    f.stop(), f.stop(), f.stop(), f.stop();  // ColumnMetaData, ColumnChunk, RowGroup, FileMetaData
    return f.bytes;
}

long max_rss_kib() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss;
}

}  // namespace

// 20 million schema elements in 20 MB took 962 MB when each was kept; the walk keeps none.
TEST(ParquetFooterLimits, ManySchemaElementsCostNoMemoryEach) {
    constexpr std::size_t elements = 20'000'000;
    ThriftOut schema;
    schema.i32(5, elements - 1), schema.stop();  // the root: num_children
    schema.bytes.resize(schema.bytes.size() + elements - 2);  // empty SchemaElements, a byte each
    schema.i32(3, 1), schema.binary(1, "a"), schema.stop();  // the last: optional leaf "a"
    const auto footer = footer_with_schema(elements, schema.bytes);
    ASSERT_GT(footer.size(), elements);
    const long before = max_rss_kib();
    const auto m = pq::parse_file_metadata(footer);
    const long grown_mib = (max_rss_kib() - before) / 1024;
    EXPECT_LT(grown_mib, 64) << "parsing a " << footer.size() / 1'000'000 << " MB footer";
    const auto& c = m.row_groups.at(0).columns.at(0);
    EXPECT_TRUE(c.in_schema);
    EXPECT_EQ(c.max_definition_level, 1);
}

TEST(ParquetFooterLimits, SchemaDeeperThanTheLimitIsRejected) {
    const auto nested = [](std::size_t groups) {
        ThriftOut schema;
        for (std::size_t i = 0; i < groups; ++i) schema.i32(5, 1), schema.stop();  // num_children 1
        schema.binary(4, "a"), schema.stop();
        return footer_with_schema(groups + 1, schema.bytes);
    };
    EXPECT_NO_THROW(pq::parse_file_metadata(nested(pq::max_schema_depth)));
    try {
        pq::parse_file_metadata(nested(pq::max_schema_depth + 1));
        ADD_FAILURE() << "a schema deeper than the limit was parsed";
    } catch (const bb::FormatError& e) {
        EXPECT_NE(std::string(e.what()).find("schema nested deeper than 1000 levels"), std::string::npos) << e.what();
    }
}

// Lists longer than max_footer_entries are refused when their header is read, before anything
// is reserved for them; the bytes after the header are there, so only the limit can refuse.
TEST(ParquetFooterLimits, RowGroupsAndColumnChunksOverTheLimitAreRejected) {
    const auto expect_limit = [](const ThriftOut& f, const char* what) {
        try {
            pq::parse_file_metadata(f.bytes);
            ADD_FAILURE() << what << " over the limit was parsed";
        } catch (const bb::FormatError& e) {
            EXPECT_NE(std::string(e.what()).find("over the limit of 1048576"), std::string::npos) << e.what();
        }
    };
    constexpr std::size_t over = pq::max_footer_entries + 1;
    ThriftOut groups;
    groups.list(4, 12, over);  // FileMetaData.row_groups
    groups.bytes.resize(groups.bytes.size() + over);
    expect_limit(groups, "a row group list");
    ThriftOut columns;
    columns.list(4, 12, 1);                        // one row group ...
    columns.list(1, 12, pq::max_footer_entries);  // ... with a chunk too many
    columns.bytes.resize(columns.bytes.size() + pq::max_footer_entries);
    expect_limit(columns, "a column chunk list");
}
