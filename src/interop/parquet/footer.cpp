// Parquet footer (FileMetaData) parsing and reading Bloom filters out of a file.
#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <optional>
#include <ranges>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "batchbloom/parquet.hpp"
#include "interop/parquet/bloom_header.hpp"
#include "interop/parquet/raw_reads.hpp"
#include "interop/parquet/thrift_compact.hpp"
#include "interop/parquet/thrift_ids.hpp"

namespace batchbloom::parquet {

namespace {

using thrift::CompactReader;
using thrift::Field;
using thrift::Type;

struct SchemaLeaf {
    std::int32_t type_length = 0;
    std::int32_t converted_type = -1;
    std::int32_t max_definition_level = 0;
    std::int32_t max_repetition_level = 0;
};

struct SchemaElement {
    std::string_view name;  // into the footer
    std::int32_t type_length = 0, num_children = 0, converted_type = -1;
    ids::Repetition repetition = ids::Repetition::required;
};

SchemaElement read_schema_element(CompactReader& r) {
    namespace id = ids::schema_element;
    SchemaElement e;
    r.begin_struct();
    Field f;
    while (r.next_field(f)) {
        if (f.id == id::type_length) e.type_length = r.read_i32(f.type);
        else if (f.id == id::repetition_type) e.repetition = static_cast<ids::Repetition>(r.read_i32(f.type));
        else if (f.id == id::name) e.name = r.read_binary(f.type);
        else if (f.id == id::num_children) e.num_children = r.read_i32(f.type);
        else if (f.id == id::converted_type) e.converted_type = r.read_i32(f.type);
        else r.skip(f.type);
    }
    return e;
}

// Row groups, column chunks (and the schema's leaves in a file of no row groups) are the
// footer's only entries kept per element; each list's declared length (each leaf) counts
// against max_footer_entries before anything is allocated for it.
class EntryBudget {
public:
    void take(CompactReader& r, std::size_t n, const char* what) {
        if (n > max_footer_entries - used_)
            r.fail(std::string(what) + " of " + std::to_string(n) + " entries makes " + std::to_string(used_ + n) +
                   " row groups, column chunks and schema leaves, over the limit of " + std::to_string(max_footer_entries));
        used_ += n;
    }

private:
    std::size_t used_ = 0;
};

// ConvertedType names (parquet.thrift's enum, in its order), for messages about a column's type.
std::string converted_type_name(std::int32_t t) {
    static constexpr const char* names[] = {
        "UTF8",   "MAP",    "MAP_KEY_VALUE", "LIST",   "ENUM",    "DECIMAL", "DATE",  "TIME_MILLIS",
        "TIME_MICROS", "TIMESTAMP_MILLIS", "TIMESTAMP_MICROS", "UINT_8", "UINT_16", "UINT_32", "UINT_64",
        "INT_8",  "INT_16", "INT_32",        "INT_64", "JSON",    "BSON",    "INTERVAL"};
    if (t < 0) return "";
    if (std::size_t(t) < std::size(names)) return names[t];
    return "converted type " + std::to_string(t);
}

// The schema is a depth-first list of SchemaElements; each group names its child count. Each
// leaf gives its FIXED_LEN width, converted type and level maxima to the column chunks at its
// dotted path. The walk keeps only the open groups and the current path, so its memory follows
// the schema's depth (at most max_schema_depth), not the element count a footer declares; only
// a file without row groups, whose columns nothing else names, has its leaves' paths kept (in
// `columns`, counted against `budget`).
void apply_schema(CompactReader& r, Type list_type, std::vector<RowGroup>& row_groups,
                  std::vector<std::string>& columns, EntryBudget& budget) {
    // Iterator algorithms, not std::ranges ones: clang 14 (the fuzz build) cannot instantiate
    // libstdc++ 12's ranges.
    struct ByPath {
        bool operator()(const ColumnChunk* a, const ColumnChunk* b) const { return a->path < b->path; }
        bool operator()(const ColumnChunk* a, std::string_view b) const { return a->path < b; }
        bool operator()(std::string_view a, const ColumnChunk* b) const { return a < b->path; }
    };
    std::vector<ColumnChunk*> chunks;
    for (auto& g : row_groups)
        for (auto& c : g.columns) chunks.push_back(&c);
    std::sort(chunks.begin(), chunks.end(), ByPath{});

    const auto h = r.read_list_header(list_type);
    if (h.element != Type::structure) r.fail("FileMetaData.schema is not a list of structs");
    struct Open {
        std::int64_t children_left;
        std::size_t path_size;  // of the group's own path, a prefix of `path`
        SchemaLeaf levels;
    };
    std::vector<Open> open;
    std::string path;
    for (std::size_t i = 0; i < h.size; ++i) {
        const SchemaElement e = read_schema_element(r);
        if (i == 0) {  // the root: its name is no part of any path
            open.push_back({std::max<std::int32_t>(e.num_children, 0), 0, {}});
            continue;
        }
        if (open.empty()) continue;  // past the tree the root describes
        Open& parent = open.back();
        --parent.children_left;
        SchemaLeaf levels = parent.levels;
        if (e.repetition == ids::Repetition::optional) ++levels.max_definition_level;
        if (e.repetition == ids::Repetition::repeated) ++levels.max_definition_level, ++levels.max_repetition_level;
        path.resize(parent.path_size);
        if (!path.empty()) path += '.';
        path += e.name;
        if (e.num_children > 0) {
            if (open.size() >= max_schema_depth)
                r.fail("schema nested deeper than " + std::to_string(max_schema_depth) + " levels");
            open.push_back({e.num_children, path.size(), levels});
        } else {
            levels.type_length = e.type_length;
            levels.converted_type = e.converted_type;
            if (row_groups.empty()) {
                budget.take(r, 1, "the schema's leaf columns");
                columns.push_back(path);
            }
            const auto [first, last] = std::equal_range(chunks.begin(), chunks.end(), std::string_view(path), ByPath{});
            for (auto it = first; it != last; ++it) {
                ColumnChunk* c = *it;
                c->in_schema = true;
                c->type_length = levels.type_length;
                c->converted_type = converted_type_name(levels.converted_type);
                c->max_definition_level = levels.max_definition_level;
                c->max_repetition_level = levels.max_repetition_level;
            }
        }
        while (!open.empty() && open.back().children_left <= 0) open.pop_back();
    }
}

std::optional<std::int64_t> read_distinct_count(CompactReader& r) {
    std::optional<std::int64_t> n;
    r.begin_struct();
    Field f;
    while (r.next_field(f)) {
        if (f.id == ids::statistics::distinct_count) n = r.read_i64(f.type);
        else r.skip(f.type);
    }
    return n;
}

// The distinct count add_filters recorded in ColumnMetaData.key_value_metadata, if any.
std::optional<std::int64_t> read_recorded_distinct(CompactReader& r, Type list_type) {
    std::optional<std::int64_t> n;
    const auto h = r.read_list_header(list_type);
    if (h.element != Type::structure) r.fail("key_value_metadata is not a list of structs");
    for (std::size_t i = 0; i < h.size; ++i) {
        std::string_view key, value;
        r.begin_struct();
        Field f;
        while (r.next_field(f)) {
            if (f.id == ids::key_value::key) key = r.read_binary(f.type);
            else if (f.id == ids::key_value::value) value = r.read_binary(f.type);
            else r.skip(f.type);
        }
        std::int64_t v = 0;
        const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
        if (key == distinct_values_key && ec == std::errc() && end == value.data() + value.size() && v >= 0) n = v;
    }
    return n;
}

ColumnChunk read_column_metadata(CompactReader& r) {
    namespace id = ids::column_metadata;
    ColumnChunk c;
    bool have_type = false, have_path = false;
    std::optional<std::int64_t> stats_distinct, recorded_distinct;
    r.begin_struct();
    Field f;
    while (r.next_field(f)) {
        switch (f.id) {
            case id::type: {
                const std::int32_t t = r.read_i32(f.type);
                if (t < 0 || t > 7) r.fail("unknown physical type " + std::to_string(t));
                c.type = static_cast<PhysicalType>(t);
                have_type = true;
                break;
            }
            case id::path_in_schema: {
                const auto h = r.read_list_header(f.type);
                for (std::size_t i = 0; i < h.size; ++i) {
                    if (i > 0) c.path += '.';
                    c.path += r.read_binary(h.element);
                }
                have_path = true;
                break;
            }
            case id::codec: c.codec = static_cast<Codec>(r.read_i32(f.type)); break;
            case id::num_values: c.num_values = r.read_i64(f.type); break;
            case id::total_compressed_size: c.total_compressed_size = r.read_i64(f.type); break;
            case id::key_value_metadata: recorded_distinct = read_recorded_distinct(r, f.type); break;
            case id::data_page_offset: c.data_page_offset = r.read_i64(f.type); break;
            case id::dictionary_page_offset: c.dictionary_page_offset = r.read_i64(f.type); break;
            case id::statistics:
                if (f.type != Type::structure) r.fail("ColumnMetaData.statistics is not a struct");
                stats_distinct = read_distinct_count(r);
                break;
            case id::bloom_filter_offset: c.bloom_filter_offset = r.read_i64(f.type); break;
            case id::bloom_filter_length: c.bloom_filter_length = r.read_i32(f.type); break;
            default: r.skip(f.type);
        }
    }
    if (!have_type || !have_path) r.fail("ColumnMetaData without type or path_in_schema");
    c.distinct_values = stats_distinct ? stats_distinct : recorded_distinct;
    return c;
}

ColumnChunk read_column_chunk(CompactReader& r) {
    namespace id = ids::column_chunk;
    std::optional<ColumnChunk> meta;
    bool external = false, encrypted = false;
    r.begin_struct();
    Field f;
    while (r.next_field(f)) {
        if (f.id == id::file_path && f.type == Type::binary) {
            external = !r.read_binary(f.type).empty();
        } else if (f.id == id::meta_data) {
            if (f.type != Type::structure) r.fail("ColumnChunk.meta_data is not a struct");
            meta = read_column_metadata(r);
        } else if (f.id == id::crypto_metadata || f.id == id::encrypted_column_metadata) {
            encrypted = true;
            r.skip(f.type);
        } else {
            r.skip(f.type);
        }
    }
    // Encrypted columns may carry their metadata encrypted only, which this reader cannot use.
    if (!meta) r.fail("ColumnChunk without plaintext meta_data (encrypted column?)");
    meta->external = external;
    meta->encrypted = encrypted;
    return *meta;
}

RowGroup read_row_group(CompactReader& r, EntryBudget& budget) {
    RowGroup g;
    bool have_columns = false;
    r.begin_struct();
    Field f;
    while (r.next_field(f)) {
        if (f.id == ids::row_group::columns) {
            const auto h = r.read_list_header(f.type);
            if (h.element != Type::structure) r.fail("RowGroup.columns is not a list of structs");
            budget.take(r, h.size, "a row group's list of column chunks");
            g.columns.reserve(g.columns.size() + h.size);
            for (std::size_t i = 0; i < h.size; ++i) g.columns.push_back(read_column_chunk(r));
            have_columns = true;
        } else if (f.id == ids::row_group::num_rows) {
            g.num_rows = r.read_i64(f.type);
        } else {
            r.skip(f.type);
        }
    }
    if (!have_columns) r.fail("RowGroup without columns");
    return g;
}

// A Bloom filter header is a few dozen bytes; readers that are not told the filter's length
// read this much first (Arrow uses 256 as well) and then the bitset the header announces.
constexpr std::size_t header_guess = 256;

}  // namespace

// Built with append: GCC 12 reports a bogus -Wrestrict on "'" + std::string (GCC bug 105329).
std::string quoted(const std::string& text) {
    std::string q(1, '\'');
    q += text;
    q += '\'';
    return q;
}

void io_error(const std::filesystem::path& path, const std::string& what) {
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

RawFooter read_raw_footer(std::ifstream& in, const std::filesystem::path& path) {
    RawFooter f;
    in.seekg(0, std::ios::end);
    f.file_size = static_cast<std::uint64_t>(in.tellg());
    const std::string name = quoted(path.string());
    if (f.file_size < magic_bytes + tail_bytes) throw FormatError(name + " is too small to be a Parquet file");
    const auto head = read_at(in, path, 0, magic_bytes);
    const auto tail = read_at(in, path, f.file_size - tail_bytes, tail_bytes);
    const auto is = [](const std::vector<std::byte>& b, std::size_t at, const char* m) {
        return std::memcmp(b.data() + at, m, magic_bytes) == 0;
    };
    if (is(tail, 4, "PARE")) throw FormatError(name + " has an encrypted footer, which is not supported");
    if (!is(head, 0, "PAR1") || !is(tail, 4, "PAR1")) throw FormatError(name + " is not a Parquet file (no PAR1 magic)");
    std::uint32_t footer_len;
    std::memcpy(&footer_len, tail.data(), 4);  // little-endian target (config.hpp)
    if (footer_len > f.file_size - magic_bytes - tail_bytes)
        throw FormatError(name + ": footer length " + std::to_string(footer_len) + " exceeds the file");
    f.offset = f.file_size - tail_bytes - footer_len;
    f.bytes = read_at(in, path, f.offset, footer_len);
    return f;
}

FileMetadata parse_file_metadata(std::span<const std::byte> footer) {
    namespace id = ids::file_metadata;
    CompactReader r(footer, "Parquet footer");
    FileMetadata m;
    bool have_row_groups = false;
    EntryBudget budget;
    // The schema is walked once the column chunks are known (it may come before or after
    // them), from a copy of the reader at its start; the first pass only checks its syntax.
    std::optional<std::pair<CompactReader, Type>> schema;
    r.begin_struct();
    Field f;
    while (r.next_field(f)) {
        if (f.id == id::schema) {
            schema.emplace(r, f.type);
            r.skip(f.type);
        } else if (f.id == id::num_rows) {
            m.num_rows = r.read_i64(f.type);
        } else if (f.id == id::row_groups) {
            const auto h = r.read_list_header(f.type);
            if (h.element != Type::structure) r.fail("FileMetaData.row_groups is not a list of structs");
            budget.take(r, h.size, "FileMetaData.row_groups");
            m.row_groups.reserve(m.row_groups.size() + h.size);
            for (std::size_t i = 0; i < h.size; ++i) m.row_groups.push_back(read_row_group(r, budget));
            have_row_groups = true;
        } else if (f.id == id::encryption_algorithm) {
            m.encrypted = true;
            r.skip(f.type);
        } else {
            r.skip(f.type);
        }
    }
    if (!have_row_groups) r.fail("FileMetaData without row_groups");
    if (schema) apply_schema(schema->first, schema->second, m.row_groups, m.columns, budget);
    if (!m.row_groups.empty())
        for (const auto& c : m.row_groups.front().columns) m.columns.push_back(c.path);
    return m;
}

Reader::Reader(const std::filesystem::path& path) : path_(path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) io_error(path, "open");
    const RawFooter footer = read_raw_footer(in, path);
    file_size_ = footer.file_size;
    metadata_ = parse_file_metadata(footer.bytes);
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
