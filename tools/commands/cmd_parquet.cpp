// batchbloom parquet: the split-block Bloom filters of a Parquet file — list them, probe them
// with keys, or write a copy of the file whose filters batchbloom rebuilt from a key file.
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <batchbloom/parquet.hpp>

#include "commands/commands.hpp"
#include "common/key_input.hpp"
#include "common/stdout_output.hpp"

namespace batchbloom::cli {

namespace {

namespace pq = batchbloom::parquet;

constexpr std::size_t batch_keys = std::size_t(1) << 16;

template <class T>
T parse_number(std::string_view text, pq::PhysicalType type) {
    T v{};
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size() || text.empty())
        throw Error("'" + std::string(text) + "' is not a valid " + std::string(pq::to_string(type)) + " value");
    return v;
}

/// hash_value of a text key read as a value of the column's physical type.
std::uint64_t hash_key_text(std::string_view key, pq::PhysicalType type) {
    switch (type) {
        case pq::PhysicalType::int32: return pq::hash_value(parse_number<std::int32_t>(key, type));
        case pq::PhysicalType::int64: return pq::hash_value(parse_number<std::int64_t>(key, type));
        case pq::PhysicalType::float32: return pq::hash_value(parse_number<float>(key, type));
        case pq::PhysicalType::float64: return pq::hash_value(parse_number<double>(key, type));
        case pq::PhysicalType::byte_array:
        case pq::PhysicalType::fixed_len_byte_array: return pq::hash_value(key);
        default: break;
    }
    throw Error("Parquet Bloom filters are not defined for " + std::string(pq::to_string(type)) + " columns");
}

/// Reads every key of `source` in batches, hashed for `type`; calls f(batch, hashes).
template <class F>
void for_each_key_batch(std::string_view source, pq::PhysicalType type, F&& f) {
    KeyReader reader(source, KeyFormat::text);
    KeyBatch batch;
    std::vector<std::uint64_t> hashes;
    while (reader.next(batch, batch_keys)) {
        hashes.clear();
        for (const auto line : batch.lines) hashes.push_back(hash_key_text(line, type));
        f(batch, hashes);
    }
}


/// Row groups the command works on: --row-group I, or all of them.
std::vector<std::size_t> selected_row_groups(const ParsedArgs& args, const pq::Reader& reader) {
    const std::size_t groups = reader.metadata().row_groups.size();
    if (const auto rg = args.u64("row-group")) {
        if (*rg >= groups)
            throw UsageError("--row-group " + std::to_string(*rg) + " out of range (the file has " +
                             std::to_string(groups) + " row groups)");
        return {static_cast<std::size_t>(*rg)};
    }
    std::vector<std::size_t> all(groups);
    for (std::size_t i = 0; i < groups; ++i) all[i] = i;
    return all;
}

int list_filters(const pq::Reader& reader, const std::vector<std::size_t>& groups) {
    std::string out = "row_group\tcolumn\ttype\tvalues\tbloom_filter_bytes\tfill\n";
    for (const std::size_t rg : groups) {
        for (const auto& c : reader.metadata().row_groups[rg].columns) {
            out += std::to_string(rg) + "\t" + c.path + "\t" + std::string(pq::to_string(c.type)) + "\t" +
                   std::to_string(c.num_values) + "\t";
            const auto filter = c.external ? std::nullopt : reader.bloom_filter(rg, c.path);
            if (filter) {
                char fill[32];
                std::snprintf(fill, sizeof fill, "%.4f", filter->fill_ratio());
                out += std::to_string(filter->bytes()) + "\t" + fill + "\n";
            } else {
                out += "-\t-\n";
            }
        }
    }
    write_stdout(out);
    return 0;
}

int query(const ParsedArgs& args, const pq::Reader& reader, const std::string& column,
          const std::vector<std::size_t>& groups) {
    const pq::PhysicalType type = reader.column_chunk(groups.front(), column).type;
    std::vector<std::optional<pq::SplitBlockFilter>> filters;
    for (const std::size_t rg : groups) {
        filters.push_back(reader.bloom_filter(rg, column));
        if (!filters.back())
            std::fprintf(stderr, "batchbloom: note: row group %zu has no Bloom filter for '%s'; every key may be in it\n",
                         rg, column.c_str());
    }
    const bool count_only = args.has("count");
    std::vector<std::uint64_t> counts(groups.size());
    std::vector<std::uint8_t> hits;
    std::string out;
    for_each_key_batch(*args.value("query"), type, [&](const KeyBatch& batch, const std::vector<std::uint64_t>& hashes) {
        hits.resize(hashes.size());
        for (std::size_t g = 0; g < groups.size(); ++g) {
            if (filters[g]) filters[g]->contains_hashes(hashes, hits);
            else std::fill(hits.begin(), hits.end(), std::uint8_t{1});
            for (std::size_t i = 0; i < hits.size(); ++i) {
                if (hits[i] == 0) continue;
                ++counts[g];
                if (!count_only) out += std::to_string(groups[g]) + "\t" + std::string(batch.lines[i]) + "\n";
            }
        }
        write_stdout(out);
        out.clear();
    });
    if (count_only)
        for (std::size_t g = 0; g < groups.size(); ++g) out += std::to_string(groups[g]) + "\t" + std::to_string(counts[g]) + "\n";
    write_stdout(out);
    return 0;
}

std::vector<char> read_whole(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error("cannot open '" + path + "': " + std::strerror(errno));
    in.seekg(0, std::ios::end);
    std::vector<char> bytes(static_cast<std::size_t>(in.tellg()));
    in.seekg(0);
    if (!in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()))) throw Error("cannot read '" + path + "'");
    return bytes;
}

// Each selected chunk's filter is rebuilt at its own size and written over the old one, in
// place: the footer's offsets and lengths stay valid, so nothing else in the file changes.
int rebuild(const ParsedArgs& args, const std::string& path, const pq::Reader& reader, const std::string& column,
            const std::vector<std::size_t>& groups) {
    const auto out_path = args.value("out");
    if (!out_path) throw UsageError("--rebuild needs --out NEW.parquet");
    const pq::PhysicalType type = reader.column_chunk(groups.front(), column).type;
    std::vector<pq::SplitBlockFilter> filters;
    for (const std::size_t rg : groups) {
        const auto old = reader.bloom_filter(rg, column);
        if (!old) throw Error("row group " + std::to_string(rg) + " has no Bloom filter for '" + column + "' to rebuild");
        filters.emplace_back(old->bytes());
    }
    for_each_key_batch(*args.value("rebuild"), type, [&](const KeyBatch&, const std::vector<std::uint64_t>& hashes) {
        for (auto& f : filters) f.insert_hashes(hashes);
    });
    std::vector<char> bytes = read_whole(path);
    for (std::size_t g = 0; g < groups.size(); ++g) {
        const pq::ColumnChunk& c = reader.column_chunk(groups[g], column);
        const auto serialized = filters[g].serialize();
        const auto at = static_cast<std::size_t>(*c.bloom_filter_offset);
        // The writer's header may encode the same fields in a different number of bytes; then
        // the new filter would not fit its slot, and moving it would mean rewriting the footer.
        std::size_t old_size = 0;
        pq::SplitBlockFilter::deserialize(std::as_bytes(std::span(bytes)).subspan(at), &old_size);
        if (old_size != serialized.size())
            throw Error("row group " + std::to_string(groups[g]) + ": the writer's Bloom filter header is " +
                        std::to_string(old_size - filters[g].bytes()) + " bytes, ours " +
                        std::to_string(serialized.size() - filters[g].bytes()) + "; cannot rewrite it in place");
        std::memcpy(bytes.data() + at, serialized.data(), serialized.size());
    }
    const std::string out(*out_path);
    const std::string tmp = out + ".tmp";
    {
        std::ofstream o(tmp, std::ios::binary | std::ios::trunc);
        if (!o.write(bytes.data(), static_cast<std::streamsize>(bytes.size())) || !o.flush())
            throw Error("cannot write '" + tmp + "'");
    }
    std::filesystem::rename(tmp, out);
    return 0;
}

}  // namespace

CommandSpec parquet_spec() {
    return {
        .name = "parquet",
        .synopsis = "FILE.parquet [--column NAME] [--row-group I] [--query KEYS [--count] | --rebuild KEYS --out NEW]",
        .summary = "List, probe or rebuild the split-block Bloom filters of a Parquet file.",
        .options = {{"column", "NAME", "column path (dotted for nested columns); needed by --query and --rebuild"},
                    {"row-group", "I", "only row group I (default: every row group)"},
                    {"query", "KEYS", "print 'ROW_GROUP<TAB>KEY' for each key of KEYS (file or -) that may be in the row group"},
                    {"count", "", "with --query: print 'ROW_GROUP<TAB>N', the number of keys that may be in it"},
                    {"rebuild", "KEYS", "write a copy of FILE whose filters for the column hold exactly the keys of KEYS"},
                    {"out", "NEW", "the file --rebuild writes"}},
        .positionals = {{"FILE.parquet", "a Parquet file (plaintext footer)", true}},
        .notes = "Without --query or --rebuild, lists every column chunk and its Bloom filter size and fill.\n"
                 "Keys are one per line, read as the column's physical type: INT32 / INT64 decimal integers,\n"
                 "FLOAT / DOUBLE decimal numbers, BYTE_ARRAY / FIXED_LEN_BYTE_ARRAY the line's bytes. They are\n"
                 "hashed as Parquet readers hash them (XXH64 of the PLAIN encoding), so the answers are the\n"
                 "writer's. --rebuild keeps each filter's size and place in the file.\n",
    };
}

int run_parquet(const ParsedArgs& args) {
    const std::string path(*args.positional(0));
    const pq::Reader reader{std::filesystem::path(path)};
    if (reader.metadata().row_groups.empty()) throw Error("'" + path + "' has no row groups");
    const auto groups = selected_row_groups(args, reader);
    const bool probe = args.has("query"), write = args.has("rebuild");
    if (probe && write) throw UsageError("--query and --rebuild cannot be combined");
    if (args.has("count") && !probe) throw UsageError("--count needs --query");
    if (args.has("out") && !write) throw UsageError("--out needs --rebuild");
    if (!probe && !write) return list_filters(reader, groups);
    const auto column = args.value("column");
    if (!column) throw UsageError(std::string(probe ? "--query" : "--rebuild") + " needs --column NAME");
    return probe ? query(args, reader, std::string(*column), groups)
                 : rebuild(args, path, reader, std::string(*column), groups);
}

}  // namespace batchbloom::cli
