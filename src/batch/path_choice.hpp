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
// the class, measured again every 16th call a few times a process (measure_again). An explicit
// Filter::set_batch_path, then the environment variable BATCHBLOOM_BATCH_PATH (direct,
// partitioned or automatic; as last read, batchbloom/environment.hpp), override the measurement.
#include <cstddef>
#include <cstdint>
#include <functional>

#include "batchbloom/batch_tuning.hpp"
#include "engine/engine.hpp"

namespace batchbloom::detail {

enum class Op : std::uint8_t { insert, probe };

/// The path a call of n keys on `threads` threads of `engine` takes: direct or partitioned, or
/// automatic when it should measure both (the class has not been measured yet). `path` is the
/// filter's setting. Throws Error if BATCHBLOOM_BATCH_PATH holds something else than a path's
/// name. `call`: for a call about to run (not a query such as Filter::batch_path_for), which
/// counts towards measuring a decided class again (measure_again).
BatchPath choose_path(const FilterRef& f, Backend engine, std::size_t n, unsigned threads, BatchPath path, Op op,
                      bool call = false);

/// Whether t threads inserting n keys take private copies of the filter (each thread inserts
/// its share into its own, then the copies are ORed in): while all t copies stay in the cache
/// (L2, or the last level) and are affordable (copies_affordable). Each thread then hashes only
/// its share, where block ranges make every thread read and hash every key (two threads ran
/// slower than one). No partitioning beats them: such inserts take the direct path unmeasured.
bool private_copies_pay(const FilterRef& f, unsigned t, std::size_t n);

/// The keys of each direct slice a measuring call of n keys runs (one per measuring pair).
std::size_t measuring_slice(std::size_t n);

/// The class of a call of n keys on `threads` threads of `engine` (see above): calls of one
/// class share their measurements and their path.
using PathClass = std::size_t;
PathClass path_class(const FilterRef& f, Backend engine, std::size_t n, unsigned threads, Op op);

/// Records one measurement's per-key seconds of each path for class c; decides its path once
/// the measurements agree (see above). Returns the class's path, automatic while it is
/// undecided.
BatchPath record_path_times(PathClass c, double direct_s_per_key, double partitioned_s_per_key);

/// The partitioned path's seconds per key on a filter the cache holds, for calls like a class
/// of `engine`, filter shape and k, `threads` and `op`: measure() once per process and kind.
/// It is a floor: on a larger filter the same scatter, in-region work and reordering also wait
/// for the regions to stream in. A direct rate below it decides direct without running (or
/// growing the scratch for) a partitioned round.
double partitioned_floor(Backend engine, const FilterRef& f, unsigned threads, Op op,
                         const std::function<double()>& measure);

/// Counts a call of class c on its decided path; true (the class undecided again) when the
/// call should measure instead: every 16th call of a class decided by measurement, at most 4
/// times a process, so that a wrong verdict is corrected within a few calls.
bool measure_again(PathClass c);

/// Decides class c for the direct path from one direct measurement below the partitioned
/// floor (recorded as one pair: the direct rate and the floor).
void record_direct_below_floor(PathClass c, double direct_s_per_key, double floor_s_per_key);

/// Adds a measuring call's work to class c: the keys it ran on each path while the class was
/// undecided, and the seconds it spent growing the scratch before it measured.
void record_measuring_call(PathClass c, std::size_t direct_keys, std::size_t partitioned_keys, double scratch_s);

/// What class c measured (Filter::batch_path_measurement); pairs == 0 if nothing.
BatchPathMeasurement path_measurement(PathClass c);

/// Forgets every measurement (tests).
void forget_path_times();

}  // namespace batchbloom::detail
