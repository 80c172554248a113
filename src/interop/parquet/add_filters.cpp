// parquet::add_filters: a copy of a Parquet file with a Bloom filter per row group of the chosen
// columns, each built from that row group's own values.
//
// Layout of the copy: the original bytes up to its footer (every page and page index at the
// same offset), then the new filters, then the re-encoded footer. Filters the copy replaces are
// dropped when they are the last thing before the footer (as in a file this function wrote);
// otherwise their bytes stay, unreferenced.
#include <algorithm>
#include <atomic>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include "batchbloom/atomic_file.hpp"
#include "batchbloom/file_lock.hpp"
#include "batchbloom/parquet.hpp"
#include "batch/threads.hpp"
#include "interop/parquet/add_filters.hpp"
#include "interop/parquet/bloom_header.hpp"
#include "interop/parquet/chunk_filter.hpp"
#include "interop/parquet/column_values.hpp"
#include "interop/parquet/raw_reads.hpp"
#include "interop/parquet/footer_rewrite.hpp"

namespace batchbloom::parquet {

namespace {

struct Job {
    std::size_t row_group = 0;
    std::size_t column_index = 0;  // within the row group
    const ColumnChunk* chunk = nullptr;
    std::uint64_t pages_at = 0;
    bool replaces = false;  // the chunk has a filter, which this one replaces
};

std::string where(const Job& j) {
    return "column " + quoted(j.chunk->path) + " row group " + std::to_string(j.row_group);
}

void check_chunk(const Job& j) {
    const ColumnChunk& c = *j.chunk;
    check_hashable(c);
    if (c.encrypted) throw Error(where(j) + " is encrypted");
    if (c.external) throw Error(where(j) + " is stored in another file");
}

std::string column_list(const std::vector<std::string>& columns) {
    std::string names;
    for (const auto& c : columns) names += (names.empty() ? "" : ", ") + c;
    return names.empty() ? "none" : names;
}

bool same_file(const std::filesystem::path& a, const std::filesystem::path& b) {
    std::error_code ec;
    return std::filesystem::equivalent(a, b, ec) && !ec;
}

// Where the copied bytes end: the footer, or the start of a run of replaced filters that
// reaches it (nothing else can lie there: the run covers every byte up to the footer).
std::uint64_t copied_bytes(std::ifstream& in, const std::filesystem::path& path, const RawFooter& footer,
                           const FileMetadata& meta, const std::set<ChunkIndex>& rebuilt) {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> replaced;  // [begin, end)
    std::vector<std::uint64_t> kept;                                 // filters that stay
    for (std::size_t g = 0; g < meta.row_groups.size(); ++g) {
        for (std::size_t c = 0; c < meta.row_groups[g].columns.size(); ++c) {
            const ColumnChunk& chunk = meta.row_groups[g].columns[c];
            if (!chunk.bloom_filter_offset) continue;
            const std::int64_t at = *chunk.bloom_filter_offset;
            if (!rebuilt.contains({g, c})) {
                kept.push_back(std::uint64_t(at));
                continue;
            }
            if (at < std::int64_t(magic_bytes) || std::uint64_t(at) >= footer.offset) continue;
            std::uint64_t length;
            if (chunk.bloom_filter_length) {
                length = std::uint64_t(std::max<std::int32_t>(*chunk.bloom_filter_length, 0));
            } else {
                const auto head = read_at(in, path, std::uint64_t(at),
                                          std::size_t(std::min<std::uint64_t>(footer.offset - std::uint64_t(at), 256)));
                const BloomHeader h = read_bloom_header(head);
                length = h.header_bytes + h.num_bytes;
            }
            replaced.emplace_back(std::uint64_t(at), std::uint64_t(at) + length);
        }
    }
    std::sort(replaced.begin(), replaced.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    std::uint64_t end = footer.offset;
    for (const auto& [begin, stop] : replaced) {
        if (stop == end) end = begin;
        else if (stop < end) break;
    }
    for (const std::uint64_t at : kept)
        if (at >= end && at < footer.offset) return footer.offset;  // shared with a filter that stays
    return std::max<std::uint64_t>(end, magic_bytes);
}

// One chunk's filter, serialized, and what add_filters reports about it.
struct Built {
    std::vector<std::byte> bytes;
    AddedFilter info;
};

Built build(const Job& j, std::ifstream& in, const std::filesystem::path& path, const AddOptions& options) {
    const ColumnChunk& c = *j.chunk;
    const auto pages = read_at(in, path, j.pages_at, std::size_t(c.total_compressed_size));
    ChunkFilterBuilder builder(std::uint64_t(c.num_values), options.fpp, options.ndv);
    const std::int64_t values = hash_chunk_values(pages, c, builder);
    const auto [filter, distinct, exact] = builder.finish();
    return {filter.serialize(),
            {j.row_group, c.path, values, distinct, exact, filter.bytes(), filter.predicted_fpr(),
             j.replaces}};
}

void copy_bytes(std::ifstream& in, const std::filesystem::path& path, std::uint64_t n, std::ostream& out) {
    constexpr std::size_t block = std::size_t(4) << 20;
    std::vector<char> buf(std::min<std::uint64_t>(n, block));
    in.seekg(0);
    while (n > 0) {
        const std::size_t k = std::size_t(std::min<std::uint64_t>(n, block));
        if (!in.read(buf.data(), static_cast<std::streamsize>(k))) io_error(path, "read");
        out.write(buf.data(), static_cast<std::streamsize>(k));
        n -= k;
    }
}

}  // namespace

void AddOptions::validate() const {
    if (columns.empty()) throw Error("add_filters: no column named");
    for (std::size_t i = 0; i < columns.size(); ++i)
        for (std::size_t k = 0; k < i; ++k)
            if (columns[i] == columns[k]) throw Error("column " + quoted(columns[i]) + " named twice");
    (void)optimal_bytes(1, fpp);  // its error names the range
    if (ndv && *ndv == 0) throw Error("add_filters: ndv must be at least 1 (a filter sized for no value passes every probe)");
    detail::check_threads_option(threads, "add_filters");
}

std::vector<AddedFilter> add_filters(const std::filesystem::path& in, const std::filesystem::path& out,
                                     const AddOptions& options) {
    options.validate();
    const FileLock lock = lock_if_rewritten(out, {in});  // in place: in is read, then replaced
    return add_filters_unlocked(in, out, options).value_or(std::vector<AddedFilter>{});
}

std::optional<std::vector<AddedFilter>> add_filters_unlocked(const std::filesystem::path& in_path,
                                                             const std::filesystem::path& out_path,
                                                             const AddOptions& options) {
    std::ifstream in(in_path, std::ios::binary);
    if (!in) io_error(in_path, "open");
    // The footer's bytes are read once. They are walked twice: parse_file_metadata picks out the
    // fields the checks and jobs need, and rewrite_file_end (footer_rewrite.cpp) copies every
    // field as encoded once the filters' offsets are known. The second walk is the re-encoding
    // itself (a compact-protocol struct has no length to splice by), not a second parse.
    const RawFooter footer = read_raw_footer(in, in_path);
    const FileMetadata meta = parse_file_metadata(footer.bytes);
    if (meta.encrypted)
        throw Error(quoted(in_path.string()) + " is encrypted (its plaintext footer is signed and cannot be rewritten)");

    // Every check before any work, so that a mistake costs nothing and writes nothing.
    std::vector<Job> jobs;
    std::set<ChunkIndex> rebuilt;
    // Against the schema first: a file of no row groups has columns too.
    for (const std::string& name : options.columns)
        if (std::find(meta.columns.begin(), meta.columns.end(), name) == meta.columns.end())
            throw Error("no column " + quoted(name) + " in " + quoted(in_path.string()) + " (columns: " +
                        column_list(meta.columns) + ")");
    for (std::size_t g = 0; g < meta.row_groups.size(); ++g) {
        const auto& columns = meta.row_groups[g].columns;
        for (const std::string& name : options.columns) {
            const auto it = std::find_if(columns.begin(), columns.end(), [&](const ColumnChunk& c) { return c.path == name; });
            if (it == columns.end())
                throw FormatError(quoted(in_path.string()) + ": row group " + std::to_string(g) + " has no column chunk for " +
                                  quoted(name) + ", a column of its schema");
            Job j{g, std::size_t(it - columns.begin()), &*it, 0, it->bloom_filter_offset.has_value()};
            check_chunk(j);
            if (j.replaces && !options.replace) continue;  // kept: only missing filters are added
            j.pages_at = pages_offset(*j.chunk, footer.offset);
            jobs.push_back(j);
            rebuilt.insert({j.row_group, j.column_index});
        }
    }
    if (jobs.empty() && same_file(in_path, out_path)) return std::nullopt;
    const std::uint64_t body = copied_bytes(in, in_path, footer, meta, rebuilt);

    // Chunks are decoded on `threads` threads, a window of them at a time (so that only a few
    // filters wait in memory), and written in order.
    const unsigned threads = detail::resolve_threads(options.threads);
    const std::size_t window = 4 * std::size_t(threads);
    std::vector<AddedFilter> added;
    write_file(out_path, [&](std::ostream& out) {
        copy_bytes(in, in_path, body, out);
        std::uint64_t at = body;
        std::map<ChunkIndex, ChunkFilter> located;
        for (std::size_t first = 0; first < jobs.size(); first += window) {
            const std::size_t n = std::min(window, jobs.size() - first);
            std::vector<Built> built(n);
            std::atomic<std::size_t> next{0};
            detail::each_thread(static_cast<unsigned>(std::min<std::size_t>(threads, n)), [&](unsigned) {
                std::ifstream own(in_path, std::ios::binary);
                if (!own) io_error(in_path, "open");
                for (std::size_t k; (k = next++) < n;) built[k] = build(jobs[first + k], own, in_path, options);
            });
            for (std::size_t k = 0; k < n; ++k) {
                const Job& j = jobs[first + k];
                const auto& b = built[k];
                out.write(reinterpret_cast<const char*>(b.bytes.data()), static_cast<std::streamsize>(b.bytes.size()));
                located[{j.row_group, j.column_index}] = {std::int64_t(at), static_cast<std::int32_t>(b.bytes.size()),
                                                          b.info.distinct_exact ? std::optional(b.info.distinct)
                                                                                : std::nullopt};
                added.push_back(b.info);
                at += b.bytes.size();
            }
        }
        const auto end = rewrite_file_end(footer.bytes, located);
        out.write(reinterpret_cast<const char*>(end.data()), static_cast<std::streamsize>(end.size()));
        if (!out) throw Error("cannot write " + quoted(out_path.string()));
    });
    return added;
}

}  // namespace batchbloom::parquet
