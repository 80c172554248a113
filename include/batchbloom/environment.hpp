#pragma once
// The environment variables the library follows, read once and kept:
//
//   BATCHBLOOM_BACKEND     the engine `Backend::automatic` means (auto, scalar, avx2, avx512 or
//                          cuda; unset or empty: the best CPU engine here), for every filter type
//   BATCHBLOOM_BATCH_PATH  the batch path of filters left at BatchPath::automatic (direct,
//                          partitioned or automatic; batch_tuning.hpp)
//
// They are read by the first call that needs them, not by every bulk call: a process that
// changes them (setenv, or Python's os.environ) calls reload_environment() to make later calls
// follow. A value that names nothing is kept as it is, and each call that needs it throws Error
// naming it, as before the process changed it.
namespace batchbloom {

/// Reads the variables above again. Calls that start after it returns follow the new values;
/// calls running on other threads meanwhile finish on the values they started with. Safe to
/// call from any thread, at any time.
void reload_environment();

}  // namespace batchbloom
