// parquet::add_filters_to_dataset: add_filters over the files of a dataset, in place, several
// files at once.
#include <algorithm>
#include <atomic>
#include <cctype>
#include <mutex>
#include <string>

#include "batchbloom/parquet.hpp"
#include "batch/threads.hpp"
#include "interop/parquet/raw_reads.hpp"

namespace batchbloom::parquet {

namespace fs = std::filesystem;

namespace {

bool hidden(const fs::path& p) {
    const std::string name = p.filename().string();
    return name.empty() || name[0] == '_' || name[0] == '.';
}

bool parquet_name(const fs::path& p) {
    std::string ext = p.extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return ext == ".parquet" || ext == ".parq";
}

/// Whether every chunk of every named column already has a filter: the file needs no work (nor
/// does a file without row groups).
bool has_every_filter(const fs::path& file, const AddOptions& options) {
    const Reader reader(file);
    for (const RowGroup& g : reader.metadata().row_groups)
        for (const std::string& name : options.columns) {
            const auto it = std::find_if(g.columns.begin(), g.columns.end(), [&](const ColumnChunk& c) { return c.path == name; });
            if (it == g.columns.end() || !it->bloom_filter_offset) return false;
        }
    return true;
}

}  // namespace

std::vector<fs::path> dataset_files(std::span<const fs::path> paths) {
    std::vector<fs::path> files;
    for (const fs::path& p : paths) {
        std::error_code ec;
        const auto status = fs::status(p, ec);
        if (ec || !fs::exists(status)) throw Error("no file or directory " + quoted(p.string()));
        if (!fs::is_directory(status)) {
            files.push_back(p);
            continue;
        }
        std::vector<fs::path> found;
        for (auto it = fs::recursive_directory_iterator(p); it != fs::recursive_directory_iterator(); ++it) {
            if (hidden(it->path())) {
                if (it->is_directory()) it.disable_recursion_pending();
                continue;
            }
            if (it->is_regular_file() && parquet_name(it->path())) found.push_back(it->path());
        }
        std::sort(found.begin(), found.end());
        files.insert(files.end(), found.begin(), found.end());
    }
    return files;
}

std::vector<DatasetFile> add_filters_to_dataset(std::span<const fs::path> files, const AddOptions& options,
                                                const DatasetProgress& progress, const DatasetFileGuard& guard) {
    if (options.columns.empty()) throw Error("add_filters_to_dataset: no column named");
    detail::check_threads_option(options.threads, "add_filters_to_dataset");
    std::vector<DatasetFile> results(files.size());
    if (files.empty()) return results;
    // Files in parallel first (a file's chunks decode in parallel too, but small files have few).
    const unsigned threads = detail::resolve_threads(options.threads);
    const unsigned workers = static_cast<unsigned>(std::min<std::size_t>(threads, files.size()));
    AddOptions per_file = options;
    per_file.threads = std::max(1u, threads / workers);
    std::atomic<std::size_t> next{0};
    std::mutex report;
    std::size_t done = 0;
    detail::each_thread(workers, [&](unsigned) {
        for (std::size_t i; (i = next++) < files.size();) {
            DatasetFile& r = results[i];
            r.path = files[i];
            try {
                const std::shared_ptr<void> held = guard ? guard(r.path) : nullptr;
                if (!options.replace && has_every_filter(r.path, options)) {
                    r.outcome = DatasetFile::Outcome::skipped;
                } else {
                    r.filters = add_filters(r.path, r.path, per_file);
                    r.outcome = DatasetFile::Outcome::added;
                }
            } catch (const std::exception& e) {
                r.outcome = DatasetFile::Outcome::failed;
                r.error = e.what();
            }
            const std::lock_guard lock(report);
            ++done;
            if (progress) progress(r, done, files.size());
        }
    });
    return results;
}

}  // namespace batchbloom::parquet
