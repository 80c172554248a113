// parquet::add_filters_to_dataset: add_filters over the files of a dataset, in place, several
// files at once.
#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstring>
#include <mutex>
#include <string>

#include "batchbloom/file_lock.hpp"
#include "batchbloom/parquet.hpp"
#include "batch/threads.hpp"
#include "interop/parquet/add_filters.hpp"
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

DatasetFile unreadable(const fs::path& path, const fs::path& root, const std::string& why) {
    DatasetFile f;
    f.path = path;
    f.name = path.lexically_relative(root).string();
    f.error = why;
    return f;
}

// One directory given, walked by hand rather than with recursive_directory_iterator: that one
// ends the whole walk at the first subdirectory it cannot open or entry it cannot stat, where a
// dataset's bad entry should cost only itself.
void walk(const fs::path& root, DatasetListing& listing) {
    std::vector<fs::path> dirs{root};
    std::vector<DatasetFile> found;
    while (!dirs.empty()) {
        const fs::path dir = std::move(dirs.back());
        dirs.pop_back();
        std::error_code ec;
        fs::directory_iterator it(dir, ec);
        if (ec) {
            listing.unreadable.push_back(unreadable(dir, root, "cannot read directory: " + ec.message()));
            continue;
        }
        for (; it != fs::directory_iterator(); it.increment(ec)) {
            if (ec) break;
            const fs::path& p = it->path();
            if (hidden(p)) continue;
            std::error_code sec;
            const fs::file_status link = it->symlink_status(sec);
            if (!sec && fs::is_directory(link)) {
                dirs.push_back(p);
                continue;
            }
            if (!parquet_name(p)) continue;
            const fs::file_status target = it->status(sec);
            if (sec && sec != std::errc::no_such_file_or_directory) {
                listing.unreadable.push_back(unreadable(p, root, sec.message()));
            } else if (!fs::exists(target)) {
                listing.unreadable.push_back(unreadable(p, root, "symbolic link to nothing"));
            } else if (fs::is_regular_file(target)) {
                DatasetFile f;
                f.path = p;
                f.name = p.lexically_relative(root).string();
                found.push_back(std::move(f));
            }
        }
        if (ec) listing.unreadable.push_back(unreadable(dir, root, "cannot read directory: " + ec.message()));
    }
    std::sort(found.begin(), found.end(), [](const DatasetFile& a, const DatasetFile& b) { return a.path < b.path; });
    for (auto& f : found) listing.files.push_back(std::move(f));
}

}  // namespace

DatasetListing dataset_files(std::span<const fs::path> paths) {
    for (const fs::path& p : paths) {
        std::error_code ec;
        if (!fs::exists(fs::status(p, ec))) throw Error("no file or directory " + quoted(p.string()));
    }
    DatasetListing listing;
    for (const fs::path& p : paths) {
        std::error_code ec;
        if (fs::is_directory(fs::status(p, ec))) {
            walk(p, listing);
            continue;
        }
        DatasetFile f;
        f.path = p;
        f.name = p.string();
        listing.files.push_back(std::move(f));
    }
    return listing;
}

std::vector<DatasetFile> add_filters_to_dataset(std::vector<DatasetFile> files, const AddOptions& options,
                                                const DatasetProgress& progress) {
    options.validate();
    if (files.empty()) return files;
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
            DatasetFile& r = files[i];
            if (r.name.empty()) r.name = r.path.string();
            r.filters.clear();
            r.error.clear();
            try {
                // Held from before the file is read until it is replaced (as add_filters does).
                const FileLock lock = FileLock::acquire(r.path);
                auto added = add_filters_unlocked(r.path, r.path, per_file);
                r.outcome = added ? DatasetFile::Outcome::added : DatasetFile::Outcome::skipped;
                if (added) r.filters = std::move(*added);
            } catch (const std::exception& e) {
                r.outcome = DatasetFile::Outcome::failed;
                r.error = e.what();
            }
            const std::lock_guard lock(report);
            ++done;
            if (progress) progress(r, done, files.size());
        }
    });
    return files;
}

}  // namespace batchbloom::parquet
