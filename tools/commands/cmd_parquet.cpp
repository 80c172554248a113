// batchbloom parquet: the split-block Bloom filters of a Parquet file — list them, probe them
// with keys, or (parquet add) write a copy of the file with a filter per row group built from
// the row group's own values.
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <unistd.h>

#include <batchbloom/parquet.hpp>

#include "commands/commands.hpp"
#include "common/common_options.hpp"
#include "common/key_input.hpp"
#include "common/progress.hpp"
#include "common/stdout_output.hpp"
#include "common/text_format.hpp"

namespace batchbloom::cli {

namespace {

namespace pq = batchbloom::parquet;

/// Reads every key of `source` in batches, hashed for `type`; calls f(batch, hashes).
template <class F>
void for_each_key_batch(std::string_view source, const pq::ColumnChunk& column, F&& f) {
    KeyReader reader(source, KeyFormat::text);
    KeyBatch batch;
    std::vector<std::uint64_t> hashes;
    while (reader.next(batch, key_batch_size)) {
        hashes.clear();
        for (const auto line : batch.lines) hashes.push_back(pq::hash_text_key(column, line));
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
    std::string out = "row_group\tcolumn\ttype\trows\tdistinct\tfilter_bytes\tfpr\n";
    for (const std::size_t rg : groups) {
        const auto& group = reader.metadata().row_groups[rg];
        for (const auto& c : group.columns) {
            out += std::to_string(rg) + "\t" + c.path + "\t" + std::string(pq::to_string(c.type)) + "\t" +
                   std::to_string(group.num_rows) + "\t" +
                   (c.distinct_values ? std::to_string(*c.distinct_values) : "-") + "\t";
            const auto filter = c.external ? std::nullopt : reader.bloom_filter(rg, c.path);
            if (filter) out += std::to_string(filter->bytes()) + "\t" + format_number(filter->predicted_fpr(), 3) + "\n";
            else out += "-\t-\n";
        }
    }
    write_stdout(out);
    return 0;
}

int query(const ParsedArgs& args, const pq::Reader& reader, const std::string& column,
          const std::vector<std::size_t>& groups) {
    const pq::ColumnChunk& chunk = reader.column_chunk(groups.front(), column);
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
    for_each_key_batch(*args.value("query"), chunk, [&](const KeyBatch& batch, const std::vector<std::uint64_t>& hashes) {
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

pq::AddOptions add_options(const ParsedArgs& args) {
    for (const char* option : {"query", "count", "row-group"})
        if (args.has(option)) throw UsageError(std::string("parquet add takes no --") + option);
    pq::AddOptions options;
    for (const auto c : args.values("column")) options.columns.emplace_back(c);
    if (options.columns.empty()) throw UsageError("parquet add needs --column NAME (one or more)");
    if (const auto p = args.real("fpr")) {
        if (!(*p > 0.0 && *p < 1.0)) throw UsageError("--fpr must be in (0, 1)");
        options.fpp = *p;
    }
    options.ndv = args.u64("ndv");
    if (options.ndv && *options.ndv == 0) throw UsageError("--ndv must be at least 1");
    options.replace = args.has("replace");
    options.threads = read_threads(args);
    return options;
}

/// One line per filter: what it holds and costs.
std::string filter_lines(const std::string& prefix, const std::vector<pq::AddedFilter>& added) {
    std::string table;
    for (const auto& f : added)
        table += prefix + std::to_string(f.row_group) + "\t" + f.column + "\t" + std::to_string(f.values) + "\t" +
                 (f.distinct_exact ? "" : "~") + std::to_string(f.distinct) + "\t" + std::to_string(f.bytes) + "\t" +
                 format_number(f.predicted_fpr, 3) + "\n";
    return table;
}

/// The notes a set of added filters deserves: --ndv smaller than a row group's distinct count,
/// and filters at Parquet's size cap that still miss --fpr.
void filter_warnings(const std::vector<pq::AddedFilter>& added, const pq::AddOptions& options) {
    for (const auto& f : added)
        if (options.ndv && std::uint64_t(f.distinct) > *options.ndv)
            std::fprintf(stderr,
                         "batchbloom: note: row group %zu of '%s' holds %lld distinct values, more than --ndv %llu; "
                         "its filter's FPR is %s\n",
                         f.row_group, f.column.c_str(), static_cast<long long>(f.distinct),
                         static_cast<unsigned long long>(*options.ndv), format_number(f.predicted_fpr, 3).c_str());
    // Writers cap a filter at max_bitset_bytes; past it the FPR asked for cannot be had.
    std::size_t capped = 0;
    double worst = 0;
    for (const auto& f : added)
        if (f.bytes == pq::max_bitset_bytes && f.predicted_fpr > options.fpp) ++capped, worst = std::max(worst, f.predicted_fpr);
    if (capped > 0)
        std::fprintf(stderr,
                     "batchbloom: warning: %zu filter(s) hold the most a Parquet filter may (%u bytes) and still miss "
                     "--fpr %s: predicted FPR up to %s\n",
                     capped, pq::max_bitset_bytes, format_number(options.fpp, 3).c_str(), format_number(worst, 3).c_str());
}

int add(const ParsedArgs& args, const std::string& in) {
    const auto out = args.value("out");
    if (!out) throw UsageError("parquet add needs --out OUT.parquet (or a directory or several files: in place)");
    const pq::AddOptions options = add_options(args);
    const auto added = pq::add_filters(in, std::string(*out), options);
    write_stdout("row_group\tcolumn\tvalues\tdistinct\tfilter_bytes\tfpr\n" + filter_lines("", added));
    filter_warnings(added, options);
    return 0;
}

/// parquet add over a dataset: every Parquet file of the directories and files given, each
/// rewritten in place, several at a time; files that have every filter already are skipped.
int add_dataset(const ParsedArgs& args) {
    if (args.has("out")) throw UsageError("parquet add rewrites a dataset's files in place: --out takes one IN.parquet");
    const pq::AddOptions options = add_options(args);
    std::vector<std::filesystem::path> roots;
    for (std::size_t i = 1; i < args.positional_count(); ++i) roots.emplace_back(std::string(*args.positional(i)));
    auto listing = pq::dataset_files(roots);
    for (const auto& bad : listing.unreadable)
        std::fprintf(stderr, "batchbloom: error: %s: %s\n", bad.path.c_str(), bad.error.c_str());
    if (listing.files.empty() && listing.unreadable.empty())
        throw Error("no Parquet files (*.parquet, *.parq) under the paths given");
    const bool shown = !args.has("quiet") && isatty(fileno(stderr));
    std::vector<pq::AddedFilter> every;
    const auto results = pq::add_filters_to_dataset(
        std::move(listing.files), options, [&](const pq::DatasetFile& f, std::size_t done, std::size_t total) {
            if (shown) std::fprintf(stderr, "\r\033[Kparquet add: %zu/%zu files, %s", done, total, f.name.c_str());
        });
    if (shown) std::fprintf(stderr, "\r\033[K");
    std::string table = "file\trow_group\tcolumn\tvalues\tdistinct\tfilter_bytes\tfpr\n";
    std::size_t added = 0, skipped = 0;
    std::string failures;
    for (const auto& r : results) {
        switch (r.outcome) {
            case pq::DatasetFile::Outcome::added:
                ++added;
                table += filter_lines(r.path.string() + "\t", r.filters);
                every.insert(every.end(), r.filters.begin(), r.filters.end());
                break;
            case pq::DatasetFile::Outcome::skipped:
                ++skipped;
                break;
            case pq::DatasetFile::Outcome::failed:
                failures += "\n  " + r.path.string() + ": " + r.error;
                break;
        }
    }
    write_stdout(table);
    filter_warnings(every, options);
    if (!args.has("quiet"))
        std::fprintf(stderr, "batchbloom: parquet add: %zu file(s) given filters, %zu skipped (they had them), %zu failed\n",
                     added, skipped, results.size() - added - skipped + listing.unreadable.size());
    for (const auto& bad : listing.unreadable) failures += "\n  " + bad.path.string() + ": " + bad.error;
    if (!failures.empty()) throw Error("parquet add failed for some files (the others were done):" + failures);
    return 0;
}

CommandSpec parquet_spec() {
    return {
        .name = "parquet",
        .synopsis = "FILE.parquet [--row-group I] [--column NAME --query KEYS [--count]]\n"
                    "   or: batchbloom parquet add IN.parquet --column NAME [--column NAME ...] [--fpr P] [--ndv N]\n"
                    "                                [--replace] --out OUT.parquet\n"
                    "   or: batchbloom parquet add DIR|FILE... --column NAME [...]   (a dataset, in place)",
        .summary = "List or probe the split-block Bloom filters of a Parquet file, or add them to a copy of it.",
        .options = {{"column", "NAME", "column path (dotted for nested columns); needed by --query; add: repeatable", true},
                    {"row-group", "I", "only row group I (default: every row group)"},
                    {"query", "KEYS", "print 'ROW_GROUP<TAB>KEY' for each key of KEYS (file or -) that may be in the row group"},
                    {"count", "", "with --query: print 'ROW_GROUP<TAB>N', the number of keys that may be in it"},
                    fpr_option(" of each filter, for its row group's distinct values (add; default 0.01)"),
                    {"ndv", "N", "add: size every filter for N distinct values instead of its row group's own count"},
                    {"replace", "", "add: rebuild the filters the file already has for these columns (without it they are kept)"},
                    {"threads", "T", "add: threads decoding files and column chunks (default 0: every core)"},
                    {"out", "OUT", "the file add writes (under a temporary name, then renamed; may be IN)"},
                    quiet_option()},
        .positionals = {{"FILE.parquet | add", "a Parquet file (plaintext footer), or 'add' (then IN.parquet)", true},
                        {"IN.parquet", "for add: the file to copy; or directories and files of a dataset", false, true}},
        .notes = "Without --query, lists every column chunk: rows, distinct values (when the writer or 'add'\n"
                 "recorded them), Bloom filter bytes and the filter's predicted FPR for an absent value.\n"
                 "Keys are one per line, read as the column's physical type: INT32 / INT64 decimal integers,\n"
                 "FLOAT / DOUBLE decimal numbers, BYTE_ARRAY / FIXED_LEN_BYTE_ARRAY the line's bytes. They are\n"
                 "hashed as Parquet readers hash them (XXH64 of the PLAIN encoding), so the answers are the\n"
                 "writer's.\n"
                 "add copies IN's pages byte for byte and appends, for every row group, a filter of each named\n"
                 "column built from that row group's own values (read from its pages) and sized for their\n"
                 "distinct count at --fpr; the footer records where each filter is. Chunks that have a filter\n"
                 "keep it (without --replace), so adding a column later adds only its filters. It prints one\n"
                 "line per filter written: values, distinct values ('~N': estimated, past 2^24 in one chunk), bytes, predicted\n"
                 "FPR. (A file named 'add': ./add.)\n"
                 "Given a directory or several files, add works on a dataset: every *.parquet / *.parq file under\n"
                 "the directories (hive partitions included; names starting with '_' or '.' skipped) and the files\n"
                 "named is rewritten in place, atomically each, several at a time; files whose columns all have\n"
                 "filters already are skipped (without --replace), so running it again after an interruption does\n"
                 "the files left. A file that fails, or an entry that cannot be read (a directory, a symbolic link\n"
                 "loop), is reported and the rest go on (exit 1 if any failed). Every add, of one file or a\n"
                 "dataset, holds the file's lock while it rewrites it in place, so concurrent adds take turns.\n",
    };
}

int run_parquet(const ParsedArgs& args) {
    const std::string first(*args.positional(0));
    if (first == "add") {
        const auto in = args.positional(1);
        if (!in) throw UsageError("parquet add needs IN.parquet");
        if (args.positional_count() > 2 || std::filesystem::is_directory(std::string(*in))) return add_dataset(args);
        if (std::error_code ec; !std::filesystem::exists(std::string(*in), ec))
            throw Error("no file or directory '" + std::string(*in) + "'");
        return add(args, std::string(*in));
    }
    if (args.positional(1)) throw UsageError("unexpected argument '" + std::string(*args.positional(1)) + "' for 'parquet'");
    for (const char* option : {"fpr", "ndv", "replace", "threads", "out", "quiet"})
        if (args.has(option)) throw UsageError(std::string("--") + option + " belongs to 'parquet add'");
    const pq::Reader reader{std::filesystem::path(first)};
    if (reader.metadata().row_groups.empty()) throw Error("'" + first + "' has no row groups");
    const auto groups = selected_row_groups(args, reader);
    if (args.has("count") && !args.has("query")) throw UsageError("--count needs --query");
    if (!args.has("query")) return list_filters(reader, groups);
    const auto columns = args.values("column");
    if (columns.empty()) throw UsageError("--query needs --column NAME");
    if (columns.size() > 1) throw UsageError("--query takes one --column");
    return query(args, reader, std::string(columns.front()), groups);
}

}  // namespace

const Command parquet_command = {"parquet", "list or probe the Bloom filters of a Parquet file, or add them to a copy",
                                 parquet_spec, run_parquet};

bool is_parquet_file(const std::string& path) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (f == nullptr) return false;
    char magic[4] = {};
    const bool parquet = std::fread(magic, 1, 4, f) == 4 && std::string_view(magic, 4) == "PAR1";
    std::fclose(f);
    return parquet;
}

int describe_parquet(const std::string& path) {
    const pq::Reader reader{std::filesystem::path(path)};
    write_stdout("format:                 Parquet, " + std::to_string(reader.metadata().row_groups.size()) +
                 " row groups, split-block Bloom filters (no checksum: the format has none, so a damaged filter"
                 " is not detected)\n");
    std::vector<std::size_t> groups(reader.metadata().row_groups.size());
    for (std::size_t i = 0; i < groups.size(); ++i) groups[i] = i;
    return list_filters(reader, groups);
}

}  // namespace batchbloom::cli
