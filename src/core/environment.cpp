#include "core/environment.hpp"

#include <atomic>
#include <cstdlib>
#include <forward_list>
#include <mutex>

#include "batchbloom/environment.hpp"

namespace batchbloom::detail {
namespace {

Environment read_now() {
    Environment env;
    if (const char* v = std::getenv("BATCHBLOOM_BACKEND"); v != nullptr && *v != '\0') env.backend = v;
    if (const char* v = std::getenv("BATCHBLOOM_BATCH_PATH"); v != nullptr) env.batch_path = v;
    return env;
}

// Every snapshot read stays alive: a bulk call on another thread may hold a reference to the
// one a reload replaces. Reloads are rare, a few dozen bytes each.
std::mutex snapshots_mutex;
std::forward_list<Environment> snapshots;

const Environment* publish(Environment env) {
    const std::lock_guard lock(snapshots_mutex);
    snapshots.push_front(std::move(env));
    return &snapshots.front();
}

std::atomic<const Environment*>& current() {
    static std::atomic<const Environment*> snapshot{publish(read_now())};
    return snapshot;
}

}  // namespace

const Environment& environment() { return *current().load(std::memory_order_acquire); }

}  // namespace batchbloom::detail

namespace batchbloom {

void reload_environment() {
    auto& snapshot = detail::current();  // the first read, if none happened yet, before this one
    snapshot.store(detail::publish(detail::read_now()), std::memory_order_release);
}

}  // namespace batchbloom
