#include "core/environment.hpp"

#include <atomic>
#include <cstdlib>
#include <forward_list>
#include <mutex>
#include <string>
#include <string_view>

#include "batchbloom/environment.hpp"

namespace batchbloom::detail {
namespace {

BatchPath parse_batch_path(std::string_view s) {
    if (s.empty() || s == "automatic" || s == "auto") return BatchPath::automatic;
    if (s == "direct") return BatchPath::direct;
    if (s == "partitioned") return BatchPath::partitioned;
    throw Error("BATCHBLOOM_BATCH_PATH must be direct, partitioned or automatic, got '" + std::string(s) + "'");
}

/// Parses a variable once, at reading: bulk calls then look the result up.
template <class T, class Parse>
Setting<T> setting(const char* v, Parse parse) {
    Setting<T> s;
    if (v == nullptr) return s;
    try {
        s.value = parse(v);
    } catch (const Error& e) {
        s.error = e.what();
    }
    return s;
}

Environment read_now() {
    Environment env;
    if (const char* v = std::getenv("BATCHBLOOM_BACKEND"); v != nullptr && *v != '\0')
        env.backend = setting<Backend>(v, parse_backend);
    env.batch_path = setting<BatchPath>(std::getenv("BATCHBLOOM_BATCH_PATH"), parse_batch_path);
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
