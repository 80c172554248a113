#pragma once
// Which batch path `BatchPath::automatic` takes: a rule over facts of the running machine (its
// cache sizes) and of the call (insert or probe, threads, the filter's size, the batch's size),
// so every process on a machine takes the same path for the same call, first call included.
//
// The rule, and the measurements behind it (docs/design.md, "Two batch paths"):
//  - Probes take the direct path: the direct probe reads one line per key in the caller's
//    order with prefetching, at or near the machine's random-read limit out of cache; the
//    partitioned probe also has to put the answers back in order: it lost by 1.4x where memory
//    is fast (Zen 5 VM) and won by only 1.2-1.3x where it is slow (Zen 3 and Sapphire Rapids VMs).
//  - Inserts on one thread take the direct path, unless they bring 1M keys or more to a filter
//    over four times the last-level cache: then most of the direct path's line reads go to
//    memory, and partitioning won where memory is slow (Sapphire Rapids and Zen 3 VMs, 1.5-1.8x
//    at 120 MiB) and cost 3-5% where it is fast (Zen 5 VM, 120 MiB, against a 32 MiB cache).
//  - Inserts on several threads into a filter whose copies fit the cache take private copies
//    (private_copies_pay), which is the direct path on each thread's share.
//  - Inserts on several threads of 1M keys or more into a filter whose copies do not fit take
//    the partitioned path, whether or not the last-level cache holds the filter itself. The
//    alternative, the direct path by block range, makes each thread read and hash every key
//    to set only its own blocks: that per-key work is not shared, and on a Zen 3 VM two threads
//    gained nothing over one at 12 and 30 MiB, where partitioning ran twice as fast.
//  - Smaller multi-thread batches take the direct path (copies, else block ranges).
// An explicit Filter::set_batch_path, then the environment variable BATCHBLOOM_BATCH_PATH
// (direct, partitioned or automatic; as last read, batchbloom/environment.hpp), override it.
#include <cstddef>
#include <cstdint>

#include "batchbloom/batch_tuning.hpp"
#include "engine/engine.hpp"

namespace batchbloom::detail {

enum class Op : std::uint8_t { insert, probe };

/// The path (direct or partitioned) a call of n keys on `threads` threads takes on f, whose
/// setting is `path`. Throws Error if BATCHBLOOM_BATCH_PATH holds something else than a path's
/// name.
BatchPath choose_path(const FilterRef& f, std::size_t n, unsigned threads, BatchPath path, Op op);

/// Whether t threads inserting n keys take private copies of the filter (each thread inserts
/// its share into its own, then the copies are ORed in): while all t copies stay in the cache
/// (L2, or the last level) and are affordable (copies_affordable). Each thread then hashes only
/// its share, where block ranges make every thread read and hash every key (two threads ran
/// slower than one).
bool private_copies_pay(const FilterRef& f, unsigned t, std::size_t n);

/// The last-level cache the rule counts on: the L3 the system reports, but at most 16 L2s per
/// CPU this process may use. A VM reports its host socket's whole L3, which other guests
/// share: a Sapphire Rapids VM of 2 vCPUs reported 260 MiB, and its 120 MiB filter was not held
/// (two-thread inserts: partitioned 3.24 ns/key against direct 5.71). On bare metal and on the
/// Zen 5 VM (1 MiB L2, 32 MiB L3) the cap is the L3 itself.
std::uint64_t shared_cache_bytes();

}  // namespace batchbloom::detail
