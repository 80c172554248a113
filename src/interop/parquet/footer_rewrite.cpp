// Footer re-encoding: a walk down FileMetaData -> row_groups -> columns -> meta_data that
// copies every field it does not change as its raw encoding, so fields this code does not
// know (newer statistics, page index locations, encodings, ...) survive unchanged.
#include "interop/parquet/footer_rewrite.hpp"

#include <cstring>
#include <limits>
#include <string>

#include "batchbloom/parquet.hpp"
#include "interop/parquet/raw_reads.hpp"
#include "interop/parquet/thrift_compact.hpp"
#include "interop/parquet/thrift_ids.hpp"

namespace batchbloom::parquet {

namespace {

using thrift::CompactReader;
using thrift::CompactWriter;
using thrift::Field;
using thrift::Type;

void copy_field(CompactReader& r, CompactWriter& w, const Field& f) {
    w.field(f.id, f.type);
    w.raw(r.skip_raw(f.type));
}

void write_key_value(CompactWriter& w, std::string_view key, std::string_view value) {
    w.begin_struct();
    w.field(ids::key_value::key, Type::binary);
    w.binary(key);
    w.field(ids::key_value::value, Type::binary);
    w.binary(value);
    w.end_struct();
}

bool is_distinct_entry(std::span<const std::byte> entry) {
    CompactReader r(entry, "Parquet footer key_value_metadata");
    r.begin_struct();
    Field f;
    bool ours = false;
    while (r.next_field(f)) {
        if (f.id == ids::key_value::key && f.type == Type::binary) ours = r.read_binary(f.type) == distinct_values_key;
        else r.skip(f.type);
    }
    return ours;
}

// key_value_metadata without any earlier distinct count of ours, plus the new one if known.
void rewrite_key_values(CompactReader& r, CompactWriter& w, const Field& f, const std::optional<std::string>& distinct) {
    const auto h = r.read_list_header(f.type);
    if (h.element != Type::structure) r.fail("key_value_metadata is not a list of structs");
    // The list's new length precedes its entries, so a first pass (on a copy of the reader)
    // counts the kept ones; nothing is held per entry, however many the list declares.
    std::size_t kept = 0;
    {
        CompactReader count = r;
        for (std::size_t i = 0; i < h.size; ++i) kept += !is_distinct_entry(count.skip_raw(Type::structure));
    }
    w.field(f.id, Type::list);
    w.list_header(Type::structure, kept + (distinct ? 1 : 0));
    for (std::size_t i = 0; i < h.size; ++i) {
        const auto entry = r.skip_raw(Type::structure);
        if (!is_distinct_entry(entry)) w.raw(entry);
    }
    if (distinct) write_key_value(w, distinct_values_key, *distinct);
}

void rewrite_column_metadata(CompactReader& r, CompactWriter& w, const ChunkFilter& cf) {
    namespace id = ids::column_metadata;
    const auto distinct = cf.distinct ? std::optional(std::to_string(*cf.distinct)) : std::nullopt;
    bool has_key_values = false;
    {
        CompactReader probe = r;
        probe.begin_struct();
        Field f;
        while (probe.next_field(f)) {
            has_key_values |= f.id == id::key_value_metadata;
            probe.skip(f.type);
        }
    }
    // New fields go where a writer sorting by id would put them.
    bool key_values_done = has_key_values || !distinct, bloom_done = false;
    const auto insert_before = [&](std::int16_t next_id) {
        if (!key_values_done && next_id > id::key_value_metadata) {
            w.field(id::key_value_metadata, Type::list);
            w.list_header(Type::structure, 1);
            write_key_value(w, distinct_values_key, *distinct);
            key_values_done = true;
        }
        if (!bloom_done && next_id > id::bloom_filter_length) {
            w.i64_field(id::bloom_filter_offset, cf.offset);
            w.i32_field(id::bloom_filter_length, cf.length);
            bloom_done = true;
        }
    };
    r.begin_struct();
    w.begin_struct();
    Field f;
    while (r.next_field(f)) {
        if (f.id == id::bloom_filter_offset || f.id == id::bloom_filter_length) {
            r.skip(f.type);  // replaced
            continue;
        }
        insert_before(f.id);
        if (f.id == id::key_value_metadata) rewrite_key_values(r, w, f, distinct);
        else copy_field(r, w, f);
    }
    insert_before(std::numeric_limits<std::int16_t>::max());
    w.end_struct();
}

void rewrite_column_chunk(CompactReader& r, CompactWriter& w, const ChunkFilter* cf) {
    bool found = false;
    r.begin_struct();
    w.begin_struct();
    Field f;
    while (r.next_field(f)) {
        if (cf != nullptr && f.id == ids::column_chunk::meta_data && f.type == Type::structure) {
            w.field(f.id, f.type);
            rewrite_column_metadata(r, w, *cf);
            found = true;
        } else {
            copy_field(r, w, f);
        }
    }
    w.end_struct();
    if (cf != nullptr && !found) r.fail("ColumnChunk without meta_data");
}

// Copies a list of structs, rewriting element i with each(i).
template <class Each>
void rewrite_struct_list(CompactReader& r, CompactWriter& w, const Field& f, const char* what, Each&& each) {
    const auto h = r.read_list_header(f.type);
    if (h.element != Type::structure) r.fail(std::string(what) + " is not a list of structs");
    w.field(f.id, Type::list);
    w.list_header(Type::structure, h.size);
    for (std::size_t i = 0; i < h.size; ++i) each(i);
}

// Copies a struct, except its list of structs with id `list` (`what`), rewritten as above.
template <class Each>
void rewrite_list_in_struct(CompactReader& r, CompactWriter& w, std::int16_t list, const char* what, Each&& each) {
    r.begin_struct();
    w.begin_struct();
    Field f;
    while (r.next_field(f)) {
        if (f.id == list) rewrite_struct_list(r, w, f, what, each);
        else copy_field(r, w, f);
    }
    w.end_struct();
}

}  // namespace

std::vector<std::byte> rewrite_footer(std::span<const std::byte> footer, const std::map<ChunkIndex, ChunkFilter>& filters) {
    CompactReader r(footer, "Parquet footer");
    std::vector<std::byte> out;
    out.reserve(footer.size() + 64 * filters.size());
    CompactWriter w(out);
    std::size_t rewritten = 0;
    rewrite_list_in_struct(r, w, ids::file_metadata::row_groups, "FileMetaData.row_groups", [&](std::size_t g) {
        rewrite_list_in_struct(r, w, ids::row_group::columns, "RowGroup.columns", [&](std::size_t c) {
            const auto it = filters.find({g, c});
            rewrite_column_chunk(r, w, it == filters.end() ? nullptr : &it->second);
            rewritten += it != filters.end();
        });
    });
    if (rewritten != filters.size()) r.fail("a column chunk to give a filter is not in the footer");
    return out;
}

std::vector<std::byte> rewrite_file_end(std::span<const std::byte> footer, const std::map<ChunkIndex, ChunkFilter>& filters) {
    std::vector<std::byte> end = rewrite_footer(footer, filters);
    if (end.size() > std::numeric_limits<std::uint32_t>::max()) throw Error("the new footer exceeds 4 GiB");
    const auto n = static_cast<std::uint32_t>(end.size());
    end.resize(end.size() + tail_bytes);
    std::memcpy(end.data() + n, &n, 4);  // little-endian target (config.hpp)
    std::memcpy(end.data() + n + 4, "PAR1", 4);
    return end;
}

}  // namespace batchbloom::parquet
