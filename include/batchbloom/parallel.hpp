#pragma once
// Where the library's parallel work runs. A bulk call on more than one thread splits its work
// into tasks; by default the library's own pool runs them (the calling thread takes tasks too,
// the pool's workers spin for a short while after a call and then sleep, so an idle process
// burns no core and a call with threads = 1 wakes none). A host that keeps its own threads (a
// query engine, a task scheduler) hands them the work instead with set_parallel_runner: then
// the library starts no thread of its own.
#include <functional>

namespace batchbloom {

/// Runs task(i) for every i in [0, tasks) and returns when all have returned. The tasks are
/// independent: they may run at once on several threads, or one after another on one (the
/// library's results never depend on which). A task never throws into the runner (the library
/// carries its exceptions out itself).
using ParallelRunner = std::function<void(unsigned tasks, const std::function<void(unsigned)>& task)>;

/// Makes `runner` run the library's parallel work from the next bulk call on (calls already
/// running finish as they started); an empty runner restores the library's own pool. The
/// runner is called from the thread that made the bulk call, possibly from several such
/// threads at once, but never from inside one of the library's tasks: a bulk call made there
/// (by a task of a Parquet add, say) runs all of its work on that task's thread.
void set_parallel_runner(ParallelRunner runner);

/// Threads the library's own pool starts at most for `threads = 0` (every core): the CPUs this
/// process may run on (its affinity mask), read once.
unsigned hardware_threads() noexcept;

/// Runs task(i) for every i in [0, tasks) on the threads a bulk call would use: the calling
/// thread and up to `threads` - 1 of the library's pool (0: hardware_threads()), or the host's
/// runner where one is set; returns when all have returned. For work that goes with a bulk call
/// (a pass over the keys before inserting them): it keeps the same threads busy, where threads
/// of its own would leave the pool's asleep for the insert to wake. Each index runs once, on any
/// of the threads; the first exception a task throws is rethrown once every task has finished.
/// Called from inside one of the library's tasks, it runs every task on that task's thread.
void run_parallel(unsigned tasks, unsigned threads, const std::function<void(unsigned)>& task);

}  // namespace batchbloom
