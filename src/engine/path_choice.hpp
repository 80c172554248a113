#pragma once
// Which batch path `BatchPath::automatic` takes, decided by measurement on the machine at hand
// rather than by crossovers measured on another one.
//
// The partitioned path can only win for a filter larger than L2 and a batch large enough to
// bring several keys to each region; below that, automatic is direct without measuring. For
// the rest, calls are put in classes (operation, engine, block shape, thread count, filter size
// within a factor of two, keys per filter line within a factor of two: an engine's own rates
// decide for it, as its hashing and block work against the memory's decide which path is
// faster), and the first calls of a class measure
// both paths on their own keys: a slice of the batch runs direct, then one round of the
// partitioned path (all of it real work, nothing done twice; a larger batch only repeats
// rounds, so one round measures it), as many such pairs as the call has room for until the
// class is decided, then the rest on the faster path. Two measurements that agree on the
// faster path per key decide, else a third (the median of the three); the choice is kept for
// the class for the rest of the process. An explicit
// Filter::set_batch_path, then the environment variable BATCHBLOOM_BATCH_PATH (direct,
// partitioned or automatic), override the measurement.
#include <cstddef>
#include <cstdint>

#include "batchbloom/filter.hpp"
#include "engine/engine.hpp"

namespace batchbloom::detail {

enum class Op : std::uint8_t { insert, probe };

/// The path a call of n keys on `threads` threads of `engine` takes: direct or partitioned, or
/// automatic when it should measure both (the class has not been measured yet). `path` is the
/// filter's setting. Throws Error if BATCHBLOOM_BATCH_PATH holds something else than a path's
/// name.
BatchPath choose_path(const FilterRef& f, Backend engine, std::size_t n, unsigned threads, BatchPath path, Op op);

/// The keys of each direct slice a measuring call of n keys runs (one per measuring pair).
std::size_t measuring_slice(std::size_t n);

/// Records one measurement's per-key seconds of each path for its class; decides the class's
/// path once the measurements agree (see above). Returns the class's path, automatic while
/// it is undecided.
BatchPath record_path_times(const FilterRef& f, Backend engine, std::size_t n, unsigned threads, Op op,
                            double direct_s_per_key, double partitioned_s_per_key);

/// Adds a measuring call's work to its class: the keys it ran on each path while the class was
/// undecided, and the seconds it spent growing the scratch before it measured.
void record_measuring_call(const FilterRef& f, Backend engine, std::size_t n, unsigned threads, Op op,
                           std::size_t direct_keys, std::size_t partitioned_keys, double scratch_s);

/// What the class of such a call measured (Filter::batch_path_measurement); pairs == 0 if nothing.
BatchPathMeasurement path_measurement(const FilterRef& f, Backend engine, std::size_t n, unsigned threads, Op op);

/// Forgets every measurement (tests).
void forget_path_times();

}  // namespace batchbloom::detail
