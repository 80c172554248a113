#pragma once
// One benchmark run of `batchbloom bench` on one engine and thread count: bulk insert of the
// workload's keys, then bulk probes of the 50%-hit and the all-absent key sets, each timed.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <batchbloom/backend.hpp>
#include <batchbloom/filter.hpp>
#include <batchbloom/hash.hpp>
#include <batchbloom/params.hpp>

#include "bench/bench_workload.hpp"

namespace batchbloom::cli {

struct BenchSetup {
    Params params;
    Hashing hashing;
    unsigned repeat = 1;  ///< each phase runs this many times; the fastest run counts (cold: the median)
    /// Cold mode (--cold): read before every timed call, so that neither the filter nor the keys
    /// start in any cache, as in a program that calls the library between other work. Each
    /// phase then reports the median of its calls after the first, and the first apart.
    const std::vector<std::uint64_t>* flush = nullptr;
};

struct BenchResult {
    std::string backend;  ///< engine name as shown ("scalar", "auto(avx2)", ...)
    unsigned threads = 1;
    std::string path;  ///< the batch path asked for: "direct", "partitioned" or "automatic"
    /// For "automatic": the path each phase's calls took once measured ("direct" or
    /// "partitioned"; "automatic" if they had not been measured).
    std::string chosen_insert, chosen_probe;
    std::uint64_t keys = 0;
    std::uint64_t queries = 0;
    Params params;
    double insert_seconds = 0;
    double probe_mixed_seconds = 0;   ///< contains(span, out) over the 50%-hit set
    /// The first call of each phase on this filter (with the automatic path, where a kind of call
    /// not yet measured in this process measures); NaN unless cold.
    double insert_first_seconds = 0, probe_first_seconds = 0;
    bool cold = false;
    double probe_absent_seconds = 0;  ///< count(span) over the absent set
    std::uint64_t absent_hits = 0;    ///< false positives among the absent keys
    std::uint64_t mixed_hits = 0;
    std::uint64_t false_negatives = 0;  ///< inserted keys of the mixed set reported absent
    double predicted_fpr = 0;
    /// Random line reads per second over a buffer the size of this filter, measured in the
    /// same run: the limit of a direct probe at this size (0 if not measured).
    double size_limit_lines_per_s = 0;

    double bits_per_key() const { return static_cast<double>(params.bits()) / static_cast<double>(keys); }
    double measured_fpr() const { return static_cast<double>(absent_hits) / static_cast<double>(queries); }
    double insert_mkeys_per_s() const { return static_cast<double>(keys) / insert_seconds / 1e6; }
    double insert_ns_per_key() const { return insert_seconds * 1e9 / static_cast<double>(keys); }
    double probe_mixed_mkeys_per_s() const { return static_cast<double>(queries) / probe_mixed_seconds / 1e6; }
    double probe_absent_mkeys_per_s() const { return static_cast<double>(queries) / probe_absent_seconds / 1e6; }
    double probe_mixed_ns_per_key() const { return probe_mixed_seconds * 1e9 / static_cast<double>(queries); }
    double probe_absent_ns_per_key() const { return probe_absent_seconds * 1e9 / static_cast<double>(queries); }
    double insert_first_ns_per_key() const { return insert_first_seconds * 1e9 / static_cast<double>(keys); }
    double probe_first_ns_per_key() const { return probe_first_seconds * 1e9 / static_cast<double>(queries); }
    /// 50%-hit probe rate over the line read rate at this filter's size.
    double probe_over_size_limit() const {
        return size_limit_lines_per_s > 0 ? probe_mixed_mkeys_per_s() * 1e6 / size_limit_lines_per_s : 0;
    }
};

struct BenchRun {
    BenchResult result;
    std::optional<Filter> filter;  ///< the filter after the insert phase, to compare engines
};

/// "scalar", or "auto(scalar)" for Backend::automatic.
std::string backend_label(Backend backend);

std::string_view path_name(BatchPath path);

/// Reads every cache line of `buffer` (cold mode's flush between timed calls).
void read_through(const std::vector<std::uint64_t>& buffer);

/// Runs every phase on `backend` with `threads` threads (>= 1) on batch path `path`. Throws
/// Error if the engine is not available here.
BenchRun run_backend(const Workload& work, const BenchSetup& setup, Backend backend, unsigned threads, BatchPath path);

}  // namespace batchbloom::cli
