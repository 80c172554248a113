#pragma once
// Probes of filters asked one after another, newest first, until one has the key: a scalable
// filter's stages. The filter type describes its stages (their references and how each reads
// a key's hash) and how keys become hashes; this splits the batch and keeps the keys still
// unanswered. A key some stage has found is not asked again: the keys left are compacted
// (hash and position) when that pays, i.e. when the keys found since the last compaction,
// times the stages still to ask, outnumber the keys left (a compaction pass costs about one
// probe per key; all-absent probes never pay for one, and OR each stage's answers in).
//
// Two ways, chosen by the filter type:
//  in chunks     each thread takes a contiguous part of the batch and asks every stage for one
//                L2-sized chunk of it at a time, on the direct path (a chunk brings too few keys
//                per cache line of a stage larger than the cache for the partitioned one);
//  stage by stage  each stage is asked once for every key left, through its own batch path
//                (which may partition the batch), in scratch kept between calls.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>

#include "batch/bulk_call.hpp"
#include "engine/engine.hpp"

namespace batchbloom::detail {

class BatchScratch;

/// Writes the hashes of keys [begin, begin + n) of the batch to `hashes`.
using HashKeys = std::function<void(std::size_t begin, std::size_t n, std::uint64_t* hashes)>;

/// Probes keys [0, n), the keys of `call` (bulk_call.hpp), in chunks on the call's threads:
/// stage s is refs[s] read with modes[s], newest first. out: one answer per key.
void probe_in_chunks(const BlockedKernels& kernels, std::span<const FilterRef> refs, std::span<const KeyMode> modes,
                     std::size_t n, std::uint8_t* out, const BulkCall& call, const HashKeys& hash);

/// Asks stage s (0: newest) for the answers of values v[0, m).
using ProbeStage = std::function<void(std::size_t s, const std::uint64_t* v, std::size_t m, std::uint8_t* answers)>;

/// Below this many keys every stage runs direct: the stage-by-stage probe does not apply.
inline constexpr std::size_t stage_probe_min_keys = std::size_t(1) << 17;

/// Probes keys [0, n), the keys of `call` (bulk_call.hpp), of `stages` stages stage by stage, in
/// parts of as many keys as `scratch` holds (13 bytes per key: a value, its position, an
/// answer): `values` (null: hash writes each part's hashes into the scratch) are the keys as
/// every stage's probe takes them. Each stage's answers are ORed in on the threads the call
/// gives a part (call.threads_for; the stages' own calls take theirs). Returns false, having
/// done nothing, when the scratch is too small for a part of stage_probe_min_keys keys, is used
/// by another call, or cannot be had.
bool probe_by_stage(BatchScratch& scratch, std::size_t stages, const std::uint64_t* values, std::size_t n,
                    std::uint8_t* out, const BulkCall& call, const HashKeys& hash, const ProbeStage& probe);

}  // namespace batchbloom::detail
