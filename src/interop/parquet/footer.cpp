// Parquet footer (FileMetaData) parsing and reading Bloom filters out of a file.
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>

#include "batchbloom/parquet.hpp"
#include "interop/parquet/bloom_header.hpp"
#include "interop/parquet/thrift_compact.hpp"

namespace batchbloom::parquet {

namespace {

using thrift::CompactReader;
using thrift::Field;
using thrift::Type;

// Field ids from parquet.thrift; everything else is skipped.
ColumnChunk read_column_metadata(CompactReader& r) {
    ColumnChunk c;
    bool have_type = false, have_path = false;
    r.begin_struct();
    Field f;
    while (r.next_field(f)) {
        switch (f.id) {
            case 1: {
                const std::int32_t t = r.read_i32(f.type);
                if (t < 0 || t > 7) r.fail("unknown physical type " + std::to_string(t));
                c.type = static_cast<PhysicalType>(t);
                have_type = true;
                break;
            }
            case 3: {
                const auto h = r.read_list_header(f.type);
                for (std::size_t i = 0; i < h.size; ++i) {
                    if (i > 0) c.path += '.';
                    c.path += r.read_binary(h.element);
                }
                have_path = true;
                break;
            }
            case 5: c.num_values = r.read_i64(f.type); break;
            case 14: c.bloom_filter_offset = r.read_i64(f.type); break;
            case 15: c.bloom_filter_length = r.read_i32(f.type); break;
            default: r.skip(f.type);
        }
    }
    if (!have_type || !have_path) r.fail("ColumnMetaData without type or path_in_schema");
    return c;
}

ColumnChunk read_column_chunk(CompactReader& r) {
    std::optional<ColumnChunk> meta;
    bool external = false;
    r.begin_struct();
    Field f;
    while (r.next_field(f)) {
        if (f.id == 1 && f.type == Type::binary) {
            external = !r.read_binary(f.type).empty();
        } else if (f.id == 3) {
            if (f.type != Type::structure) r.fail("ColumnChunk.meta_data is not a struct");
            meta = read_column_metadata(r);
        } else {
            r.skip(f.type);
        }
    }
    // Encrypted columns carry their metadata encrypted (field 9), which this reader cannot use.
    if (!meta) r.fail("ColumnChunk without plaintext meta_data (encrypted column?)");
    meta->external = external;
    return *meta;
}

RowGroup read_row_group(CompactReader& r) {
    RowGroup g;
    bool have_columns = false;
    r.begin_struct();
    Field f;
    while (r.next_field(f)) {
        if (f.id == 1) {
            const auto h = r.read_list_header(f.type);
            if (h.element != Type::structure) r.fail("RowGroup.columns is not a list of structs");
            for (std::size_t i = 0; i < h.size; ++i) g.columns.push_back(read_column_chunk(r));
            have_columns = true;
        } else if (f.id == 3) {
            g.num_rows = r.read_i64(f.type);
        } else {
            r.skip(f.type);
        }
    }
    if (!have_columns) r.fail("RowGroup without columns");
    return g;
}

// Built with append: GCC 12 reports a bogus -Wrestrict on "'" + std::string (GCC bug 105329).
std::string quoted(const std::string& s) {
    std::string q(1, '\'');
    q += s;
    q += '\'';
    return q;
}

[[noreturn]] void io_error(const std::filesystem::path& path, const std::string& what) {
    const int err = errno;
    throw Error("cannot " + what + " " + quoted(path.string()) + ": " + std::strerror(err));
}

std::vector<std::byte> read_at(std::ifstream& in, const std::filesystem::path& path, std::uint64_t offset,
                               std::size_t n) {
    std::vector<std::byte> buf(n);
    in.seekg(static_cast<std::streamoff>(offset));
    if (!in.read(reinterpret_cast<char*>(buf.data()), static_cast<std::streamsize>(n))) io_error(path, "read");
    return buf;
}

constexpr std::size_t magic_bytes = 4;
constexpr std::size_t tail_bytes = 8;  // footer length (4, little-endian) + "PAR1"
// A Bloom filter header is a few dozen bytes; readers that are not told the filter's length
// read this much first (Arrow uses 256 as well) and then the bitset the header announces.
constexpr std::size_t header_guess = 256;

}  // namespace

FileMetadata parse_file_metadata(std::span<const std::byte> footer) {
    CompactReader r(footer, "Parquet footer");
    FileMetadata m;
    bool have_row_groups = false;
    r.begin_struct();
    Field f;
    while (r.next_field(f)) {
        if (f.id == 3) {
            m.num_rows = r.read_i64(f.type);
        } else if (f.id == 4) {
            const auto h = r.read_list_header(f.type);
            if (h.element != Type::structure) r.fail("FileMetaData.row_groups is not a list of structs");
            for (std::size_t i = 0; i < h.size; ++i) m.row_groups.push_back(read_row_group(r));
            have_row_groups = true;
        } else {
            r.skip(f.type);
        }
    }
    if (!have_row_groups) r.fail("FileMetaData without row_groups");
    return m;
}

Reader::Reader(const std::filesystem::path& path) : path_(path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) io_error(path, "open");
    in.seekg(0, std::ios::end);
    file_size_ = static_cast<std::uint64_t>(in.tellg());
    const std::string name = quoted(path.string());
    if (file_size_ < magic_bytes + tail_bytes) throw FormatError(name + " is too small to be a Parquet file");
    const auto head = read_at(in, path, 0, magic_bytes);
    const auto tail = read_at(in, path, file_size_ - tail_bytes, tail_bytes);
    const auto is = [](const std::vector<std::byte>& b, std::size_t at, const char* m) {
        return std::memcmp(b.data() + at, m, magic_bytes) == 0;
    };
    if (is(tail, 4, "PARE")) throw FormatError(name + " has an encrypted footer, which is not supported");
    if (!is(head, 0, "PAR1") || !is(tail, 4, "PAR1")) throw FormatError(name + " is not a Parquet file (no PAR1 magic)");
    std::uint32_t footer_len;
    std::memcpy(&footer_len, tail.data(), 4);  // little-endian target (config.hpp)
    if (footer_len > file_size_ - magic_bytes - tail_bytes)
        throw FormatError(name + ": footer length " + std::to_string(footer_len) + " exceeds the file");
    const auto footer = read_at(in, path, file_size_ - tail_bytes - footer_len, footer_len);
    metadata_ = parse_file_metadata(footer);
}

const ColumnChunk& Reader::column_chunk(std::size_t row_group, std::string_view column) const {
    if (row_group >= metadata_.row_groups.size())
        throw Error("row group " + std::to_string(row_group) + " out of range: " + quoted(path_.string()) + " has " +
                    std::to_string(metadata_.row_groups.size()));
    std::string names;
    for (const auto& c : metadata_.row_groups[row_group].columns) {
        if (c.path == column) return c;
        names += (names.empty() ? "" : ", ") + c.path;
    }
    throw Error("no column " + quoted(std::string(column)) + " in " + quoted(path_.string()) + " (columns: " + names + ")");
}

std::optional<SplitBlockFilter> Reader::bloom_filter(std::size_t row_group, std::string_view column) const {
    const ColumnChunk& c = column_chunk(row_group, column);
    if (!c.bloom_filter_offset) return std::nullopt;
    if (c.external) throw Error("column " + quoted(c.path) + " is stored in another file; its Bloom filter is not read");
    const std::string where = quoted(path_.string()) + " column " + quoted(c.path) + " row group " + std::to_string(row_group);
    const std::int64_t offset = *c.bloom_filter_offset;
    const std::uint64_t data_end = file_size_ - tail_bytes;  // the filter lies before the tail
    if (offset < std::int64_t(magic_bytes) || std::uint64_t(offset) >= data_end)
        throw FormatError(where + ": Bloom filter offset " + std::to_string(offset) + " is outside the file");
    const std::uint64_t room = data_end - std::uint64_t(offset);
    std::ifstream in(path_, std::ios::binary);
    if (!in) io_error(path_, "open");
    if (c.bloom_filter_length) {
        const std::int32_t len = *c.bloom_filter_length;
        if (len <= 0 || std::uint64_t(len) > room)
            throw FormatError(where + ": Bloom filter length " + std::to_string(len) + " runs outside the file");
        const auto bytes = read_at(in, path_, std::uint64_t(offset), std::size_t(len));
        std::size_t used = 0;
        auto filter = SplitBlockFilter::deserialize(bytes, &used);
        if (used != bytes.size())
            throw FormatError(where + ": Bloom filter length " + std::to_string(len) + " != header + bitset " +
                              std::to_string(used));
        return filter;
    }
    // Without a recorded length, read the header first, then the bitset it announces.
    const auto head = read_at(in, path_, std::uint64_t(offset), std::size_t(std::min<std::uint64_t>(room, header_guess)));
    const BloomHeader h = read_bloom_header(head);
    const std::uint64_t total = h.header_bytes + std::uint64_t(h.num_bytes);
    if (total > room)
        throw FormatError(where + ": Bloom filter of " + std::to_string(h.num_bytes) + " bytes runs outside the file");
    return SplitBlockFilter::deserialize(read_at(in, path_, std::uint64_t(offset), std::size_t(total)));
}

}  // namespace batchbloom::parquet
