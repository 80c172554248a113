#include "batch/threads.hpp"

#include <pthread.h>
#include <sched.h>

#include <chrono>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <utility>

#include "batch/scratch.hpp"
#include "batchbloom/bulk_settings.hpp"
#include "batchbloom/error.hpp"
#include "batchbloom/parallel.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define BATCHBLOOM_PAUSE() _mm_pause()
#else
#define BATCHBLOOM_PAUSE() std::this_thread::yield()
#endif

namespace batchbloom {

unsigned hardware_threads() noexcept {
    static const unsigned n = [] {
        cpu_set_t set;
        CPU_ZERO(&set);
        if (::sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return unsigned(CPU_COUNT(&set));
        return std::max(1u, std::thread::hardware_concurrency());
    }();
    return n;
}

}  // namespace batchbloom

namespace batchbloom::detail {

namespace {

/// One parallel call's tasks: claimed one at a time by the caller and the workers, each
/// counted as finished once it returned. Shared: a worker that wakes after the call returned
/// may still hold it, and finds nothing left to claim. Each thread that joins takes the next
/// slot first, and one beyond the call's threads claims nothing (a pool grown for an earlier
/// call of more threads wakes more workers than this one asked for).
struct Job {
    void* body;
    void (*call)(void*, unsigned, unsigned);
    unsigned tasks, slots;
    std::atomic<unsigned> next{0}, finished{0}, joined{0};
    std::mutex error_mutex;
    std::exception_ptr error;

    Job(void* b, void (*c)(void*, unsigned, unsigned), unsigned t, unsigned s)
        : body(b), call(c), tasks(t), slots(s) {}

    void work();
};

/// Whether this thread is inside a task: a bulk call made there runs on this thread alone (the
/// pool is busy with the outer call, and a nested wait could deadlock a host's runner).
thread_local bool in_task = false;

void Job::work() {
    if (next.load(std::memory_order_relaxed) >= tasks) return;
    // The threads that hold a slot claim tasks until none is left, so one without a slot may leave.
    const unsigned slot = joined.fetch_add(1, std::memory_order_relaxed);
    if (slot >= slots) return;
    const bool outer = in_task;
    in_task = true;
    for (unsigned i; (i = next.fetch_add(1, std::memory_order_relaxed)) < tasks;) {
        try {
            call(body, i, slot);
        } catch (...) {
            const std::lock_guard lock(error_mutex);
            if (!error) error = std::current_exception();
        }
        finished.fetch_add(1, std::memory_order_release);
    }
    in_task = outer;
}

/// How long a worker keeps looking for the next call before it sleeps: back-to-back calls
/// (a loop of batches) find it awake, and an idle process stops using the CPU within this
/// much time of its last call. Waking a sleeping worker costs the caller one futex call; on a
/// VM whose idle vCPU the host has parked, the worker itself may take milliseconds to run,
/// which is why the caller never waits for a worker that has not claimed a task.
constexpr auto spin_time = std::chrono::microseconds(200);

/// The library's own threads: started on first need (never more than the call asks for, nor
/// more than the CPUs this process may use, less the caller's), kept for the process.
class Pool {
public:
    static Pool& get() {
        static const bool registered = [] {
            // A forked child has none of the parent's workers, and a lock one of them held stays
            // held there: the child starts from a new pool (the old one is left, never touched).
            ::pthread_atfork(nullptr, nullptr, [] { current() = new Pool; });
            return true;
        }();
        (void)registered;
        return *current();
    }

    void run(const std::shared_ptr<Job>& job, unsigned threads) {
        const std::unique_lock busy(run_mutex_, std::try_to_lock);
        if (!busy.owns_lock() || start_workers(threads - 1) == 0) {
            job->work();  // another thread's call holds the pool: this one runs on its caller
            return;
        }
        {
            const std::lock_guard lock(mutex_);
            job_ = job;
            generation_.fetch_add(1, std::memory_order_release);
            if (sleeping_ > 0) wake_elsewhere();
        }
        job->work();
        while (job->finished.load(std::memory_order_acquire) < job->tasks) BATCHBLOOM_PAUSE();
        const std::lock_guard lock(mutex_);
        job_.reset();
    }

private:
    static Pool*& current() {
        static Pool* pool = new Pool;  // never destroyed: workers may outlive static destruction
        return pool;
    }

    /// Wakes the sleeping workers onto CPUs other than the caller's. Woken plainly, a worker
    /// was queued on the waking thread's CPU while the VM's other vCPU slept, and there it
    /// waited for the caller, which meanwhile ran every task itself: on a 2-vCPU Zen 5 VM the
    /// worker claimed a task in 0-8 of 61 two-thread probes of 65k keys (as slow as one thread,
    /// 77-81 against 85-89 us), and in 53-57 of 61 when the wake-up excluded the caller's CPU
    /// (43-46 against 82-83 us). The workers' masks are narrowed only around the wake-up (the
    /// scheduler picks a woken thread's CPU then) and given back at once, so the host's own
    /// affinity stands.
    void wake_elsewhere() {
        const int cpu = ::sched_getcpu();  // -1 where the system cannot tell
        // Each worker's own mask, narrowed where it holds another CPU besides the caller's.
        std::vector<std::pair<std::thread::native_handle_type, cpu_set_t>> narrowed;
        for (auto& w : workers_) {
            cpu_set_t own;
            if (cpu < 0 || cpu >= CPU_SETSIZE || ::pthread_getaffinity_np(w.native_handle(), sizeof own, &own) != 0 ||
                !CPU_ISSET(cpu, &own))
                continue;
            cpu_set_t others = own;
            CPU_CLR(cpu, &others);
            if (CPU_COUNT(&others) > 0 && ::pthread_setaffinity_np(w.native_handle(), sizeof others, &others) == 0)
                narrowed.emplace_back(w.native_handle(), own);
        }
        wake_.notify_all();
        for (auto& [handle, own] : narrowed) (void)::pthread_setaffinity_np(handle, sizeof own, &own);
    }

    /// Workers running after starting up to `wanted` (capped as above); a thread the system
    /// refuses (an address-space or process limit) ends the attempt, and the call runs on
    /// those it has.
    unsigned start_workers(unsigned wanted) {
        wanted = std::min(wanted, hardware_threads() > 1 ? hardware_threads() - 1 : 0u);
        while (workers_.size() < wanted) {
            try {
                workers_.emplace_back([this] { loop(); });
            } catch (const std::system_error&) {
                break;
            }
        }
        return static_cast<unsigned>(std::min<std::size_t>(workers_.size(), wanted));
    }

    void loop() {
        std::uint64_t seen = 0;
        for (;;) {
            auto until = std::chrono::steady_clock::now() + spin_time;
            for (unsigned spins = 0; generation_.load(std::memory_order_acquire) == seen; ++spins) {
                if (spins % 64 == 63 && std::chrono::steady_clock::now() > until) break;
                BATCHBLOOM_PAUSE();
            }
            std::shared_ptr<Job> job;
            {
                std::unique_lock lock(mutex_);
                if (generation_.load(std::memory_order_relaxed) == seen) {
                    ++sleeping_;
                    const auto woken = [&] { return generation_.load(std::memory_order_relaxed) != seen; };
                    // Spare arenas are given back once the process has made no call for a while.
                    if (spare_bytes() != 0 && !wake_.wait_for(lock, spare_keep_time, woken)) {
                        lock.unlock();
                        release_idle_spares(spare_keep_time);
                        lock.lock();
                    }
                    wake_.wait(lock, woken);
                    --sleeping_;
                }
                seen = generation_.load(std::memory_order_relaxed);
                job = job_;
            }
            if (job) job->work();
        }
    }

    std::mutex run_mutex_;  // one call at a time uses the workers
    std::mutex mutex_;      // job_, sleeping_, and the wake-up
    std::condition_variable wake_;
    std::atomic<std::uint64_t> generation_{0};
    std::shared_ptr<Job> job_;
    unsigned sleeping_ = 0;
    std::vector<std::thread> workers_;
};

struct Runner {
    std::mutex mutex;
    std::shared_ptr<const ParallelRunner> runner;  // empty: the pool
};
Runner& host_runner() {
    static auto* r = new Runner;
    return *r;
}

}  // namespace

void run_tasks(unsigned tasks, unsigned threads, void* body, void (*call)(void*, unsigned, unsigned)) {
    threads = std::max(1u, std::min(threads, tasks));
    const auto job = std::make_shared<Job>(body, call, tasks, in_task ? 1u : threads);
    if (threads <= 1 || in_task) {
        job->work();
    } else {
        std::shared_ptr<const ParallelRunner> runner;
        {
            auto& r = host_runner();
            const std::lock_guard lock(r.mutex);
            runner = r.runner;
        }
        if (runner) {
            // The host's threads claim tasks as the pool's do: as many runner tasks as threads.
            (*runner)(threads, [&job](unsigned) { job->work(); });
            job->work();  // whatever a runner that returned early left (it must not, but never lose a task)
        } else {
            Pool::get().run(job, threads);
        }
    }
    if (job->error) std::rethrow_exception(job->error);
}

unsigned resolve_threads(unsigned requested) {
    return std::min(requested == 0 ? hardware_threads() : requested, max_threads);
}

void check_threads_option(unsigned threads, const char* owner) {
    if (threads > max_threads)
        throw Error(std::string(owner) + ": threads must be in [0, " + std::to_string(max_threads) +
                    "] (0: every core), got " + std::to_string(threads));
}

}  // namespace batchbloom::detail

namespace batchbloom {

void run_parallel(unsigned tasks, unsigned threads, const std::function<void(unsigned)>& task) {
    auto body = [&task](unsigned i) { task(i); };
    detail::run_tasks(tasks, detail::resolve_threads(threads), body);
}

void set_parallel_runner(ParallelRunner runner) {
    auto& r = detail::host_runner();
    auto shared = runner ? std::make_shared<const ParallelRunner>(std::move(runner)) : nullptr;
    const std::lock_guard lock(r.mutex);
    r.runner = std::move(shared);
}

}  // namespace batchbloom
