#pragma once
// Bulk operations over any engine, on one or many threads, on one of two paths:
//
//  direct       the engine walks the batch in the caller's order (its own pipeline hashes a
//               window of keys and prefetches their blocks);
//  partitioned  the batch is hashed and scattered, in rounds, into one bucket per filter
//               region (a contiguous range of blocks small enough to stay in L2); each region
//               is streamed into the cache in address order and its bucket processed there,
//               and answers are put back in the caller's order. It pays when a large batch
//               meets a filter much larger than the cache, so that each cache line is visited
//               by several keys of the batch; `automatic` takes it by a rule over this
//               machine's caches (batch/path_choice.hpp).
//
// Threads split a probe's batch into contiguous ranges. Inserts on several threads split the
// filter by block range (each thread owns whole blocks, on either path), so no two threads
// write one block: no atomics, and since OR is commutative the filter is bit-identical whatever the
// thread count or path.
#include "batchbloom/batch_tuning.hpp"
#include "batchbloom/params.hpp"
#include "engine/engine.hpp"
#include "batch/bulk_call.hpp"
#include "batch/path_choice.hpp"
#include "batch/threads.hpp"

namespace batchbloom::detail {

class BatchScratch;

/// The kernels' view of a filter of `p` whose blocks start at `data` (probes only read through it).
inline FilterRef filter_ref(const Params& p, const std::byte* data) {
    return {const_cast<std::byte*>(data), p.blocks, p.shape, p.k};
}

// Each takes the call's context (bulk_call.hpp), built once for the call; n may be a part of
// the call's keys (a chunk), which then gets call.threads_for(n).
void bulk_insert(const BlockedKernels& e, const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode,
                 const BulkCall& call);
void bulk_contains_bytes(const BlockedKernels& e, const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode,
                         std::uint8_t* out, const BulkCall& call);
void bulk_contains_bits(const BlockedKernels& e, const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode,
                        std::uint64_t* out, const BulkCall& call);
std::size_t bulk_count(const BlockedKernels& e, const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode,
                       const BulkCall& call);

/// The path (direct or partitioned) those take for n keys on f with e under `call`: the engine's
/// limits first (the CUDA engine takes whole calls on one host thread; an engine without
/// partitioned kernels has the direct path only), then choose_path (path_choice.hpp) for the
/// threads n keys get.
BatchPath path_for(const BlockedKernels& e, const FilterRef& f, std::size_t n, const BulkCall& call, Op op);

}  // namespace batchbloom::detail
