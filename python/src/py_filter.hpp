#pragma once
// The Python-side filter: a batchbloom filter plus the lock that makes one filter safe to
// share between Python threads. Bulk calls run with the GIL released, and the engines' inserts
// use plain (non-atomic) stores, so writers (insert, |=, &=, clear, set_backend) take the lock
// exclusively and readers (contains, count, save, |) share it.
#include <batchbloom/filter.hpp>

#include <nanobind/nanobind.h>

#include <mutex>
#include <shared_mutex>
#include <utility>

namespace batchbloom::python {

namespace nb = nanobind;

template <class F>
struct Locked {
    explicit Locked(F f) : filter(std::move(f)) {}
    Locked(Locked&& other) noexcept : filter(std::move(other.filter)) {}

    F filter;
    mutable std::shared_mutex mutex;
    /// A ConcurrentFilter view was made of it (set under the exclusive lock, read under the
    /// shared one): its inserts may run under a shared lock, so save(path) takes a snapshot.
    bool viewed = false;
};

using PyFilter = Locked<Filter>;

/// Runs fn(self.filter) holding Lock on its mutex. The GIL is released first unless the lock is
/// free at once and the call is short (single keys), so a long writer never stalls other
/// Python threads.
template <template <class> class Lock, class L, class Fn>
auto with_lock(L& self, bool short_call, Fn&& fn) {
    if (short_call) {
        Lock<std::shared_mutex> lock(self.mutex, std::try_to_lock);
        if (lock.owns_lock()) return fn(self.filter);
    }
    nb::gil_scoped_release release;
    Lock<std::shared_mutex> lock(self.mutex);
    return fn(self.filter);
}

/// fn(filter) under a shared lock (readers).
template <class F, class Fn>
auto read_locked(const Locked<F>& self, bool short_call, Fn&& fn) {
    return with_lock<std::shared_lock>(self, short_call, std::forward<Fn>(fn));
}

/// fn(filter) under the exclusive lock (writers).
template <class F, class Fn>
auto write_locked(Locked<F>& self, bool short_call, Fn&& fn) {
    return with_lock<std::unique_lock>(self, short_call, std::forward<Fn>(fn));
}

/// Runs fn(a.filter, b.filter) with `a` locked as Lock and `b` shared, the two locks taken in
/// address order so that a |= b and b |= a in two threads cannot deadlock. GIL released.
template <template <class> class Lock, class A, class F, class Fn>
auto pair_locked(A& a, const Locked<F>& b, Fn&& fn) {
    nb::gil_scoped_release release;
    if (static_cast<const void*>(&a) == static_cast<const void*>(&b)) {
        Lock<std::shared_mutex> lock(a.mutex);
        return fn(a.filter, b.filter);
    }
    if (static_cast<const void*>(&a) < static_cast<const void*>(&b)) {
        Lock<std::shared_mutex> la(a.mutex);
        std::shared_lock lb(b.mutex);
        return fn(a.filter, b.filter);
    }
    std::shared_lock lb(b.mutex);
    Lock<std::shared_mutex> la(a.mutex);
    return fn(a.filter, b.filter);
}

void bind_params(nb::module_& m);
void bind_filter(nb::module_& m);
void bind_counting(nb::module_& m);
void bind_scalable(nb::module_& m);
void bind_classic(nb::module_& m);
void bind_deletable(nb::module_& m);
void bind_join(nb::module_& m);
void bind_load_any(nb::module_& m);
void bind_concurrent(nb::module_& m);
void bind_parquet(nb::module_& m);
void bind_lock(nb::module_& m);
void bind_sketch(nb::module_& m);

}  // namespace batchbloom::python
