#pragma once
// The one resolved context of a bulk call (insert, probe, count, erase) of any filter type: what
// the settings of the object making the call (BulkSettings: its engine and threads; for the
// blocked filter's batch paths also its BatchPath and scratch, BatchTuning) mean for this call
// and its n keys. Every filter type builds it once, with bulk_call, before the call's work, and
// passes it down; no code below resolves an engine or a thread count again. Code that runs a
// part of the call (a chunk of keys hashed first, a part of a scalable filter's probe) takes
// call.threads_for(part): the call's threads, or fewer for a part too small to pay for them.
//
// The engine is resolved per call rather than when it is set, so BATCHBLOOM_BACKEND (as last
// read: reload_environment) and engines that become available take effect without rebuilding
// filters. A call made inside a task of the library's parallel work (a Parquet add's chunks, the
// threads of another call) resolves its threads the same way but runs all of them on its task's
// thread: run_tasks (threads.hpp) starts no nested work.
#include <cstddef>

#include "batchbloom/backend.hpp"
#include "batchbloom/batch_tuning.hpp"
#include "batchbloom/bulk_settings.hpp"

namespace batchbloom::detail {

class BatchScratch;

struct BulkCall {
    /// The engine, resolved (resolve_backend): never automatic. The kernels a filter type runs
    /// for it are the registry's (its own, or its fallback's: docs/architecture.md, "Engines").
    Backend backend;
    /// Threads for the call's keys: the setting (0: every CPU this process may use) at most
    /// max_threads, and at most one per min_keys_per_thread keys (threads.hpp); at least 1.
    unsigned threads;
    /// The blocked filter's path setting (automatic: the rule of path_choice.hpp, per part).
    BatchPath path = BatchPath::automatic;
    /// The blocked filter's partitioned-path scratch; null: the direct path only.
    BatchScratch* scratch = nullptr;

    /// Threads for a part of the call of `keys` keys: the call's, or fewer for a smaller part.
    unsigned threads_for(std::size_t keys) const noexcept;
};

/// The context of a bulk call of n keys under `settings`, on `path` with `scratch` (the
/// blocked filter's; other types have neither). Throws Error if the engine (or the one
/// BATCHBLOOM_BACKEND names, for automatic) is not available here.
BulkCall bulk_call(const BulkSettings& settings, std::size_t n, BatchPath path = BatchPath::automatic,
                   BatchScratch* scratch = nullptr);

}  // namespace batchbloom::detail
