// batchbloom.ConcurrentFilter: the C++ ConcurrentFilter view over a batchbloom.Filter, for
// inserts from many Python threads at once without a lock between them (include/batchbloom/
// concurrent.hpp has the guarantee and its memory-ordering argument).
//
// Every call holds the filter's lock shared, like the filter's own probes, so view inserts run
// in parallel with each other, with view probes and with the filter's probes, while the
// filter's writers (insert, clear, |=, set_backend) wait. The filter's own contains/count read
// without atomics: while view inserts may be in flight, probe through the view.
#include "bind_common.hpp"

#include <batchbloom/concurrent.hpp>

namespace batchbloom::python {

namespace {

using namespace nb::literals;

struct PyConcurrent {
    nb::object owner;  // keeps the Filter alive
    PyFilter* target;
};

/// Runs fn(view) under the filter's shared lock (see read_locked for the GIL rule). The view
/// writes through a Filter& under a shared lock: that is its point (atomic words only).
template <class Fn>
auto with_view(const PyConcurrent& self, bool short_call, Fn&& fn) {
    return read_locked(*self.target, short_call, [&](const Filter& f) {
        const ConcurrentFilter view(const_cast<Filter&>(f));
        return fn(view);
    });
}

}  // namespace

void bind_concurrent(nb::module_& m) {
    nb::class_<PyConcurrent>(m, "ConcurrentFilter",
                             "A view of a Filter for inserting from many threads at once, without a lock.\n\n"
                             "    view = batchbloom.ConcurrentFilter(f)\n"
                             "    # on each thread: view.insert(morsel)\n\n"
                             "Inserts set each word with an atomic OR; the filter ends bit-identical to a\n"
                             "sequential build. A probe through the view never misses a key whose insert\n"
                             "returned before the probe started. While view inserts may be running, probe\n"
                             "through the view (the filter's own contains reads without atomics).")
        .def(
            "__init__",
            [](PyConcurrent* self, Typed<PyFilter> filter) {
                if (!nb::isinstance<PyFilter>(filter))
                    throw nb::type_error("ConcurrentFilter(filter): filter must be a batchbloom.Filter");
                auto& target = nb::cast<PyFilter&>(filter);
                {
                    // Exclusive: a save(path) in flight finishes before this view's inserts can start.
                    nb::gil_scoped_release release;
                    const std::unique_lock lock(target.mutex);
                    target.viewed = true;
                }
                new (self) PyConcurrent{nb::borrow(filter), &target};
            },
            "filter"_a, "A view of `filter` (a batchbloom.Filter), which it keeps alive.")
        .def_prop_ro("filter", [](const PyConcurrent& self) { return nb::borrow<nb::typed<nb::object, PyFilter>>(self.owner); },
                     "The viewed Filter.")
        .def(
            "insert",
            [](const PyConcurrent& self, nb::handle keys, nb::handle nulls) {
                for_each_batch(
                    keys,
                    [&](const KeyBatch& batch, std::size_t) {
                        with_view(self, batch.size() <= short_batch, [&](ConcurrentFilter v) { insert(v, batch); });
                    },
                    nulls_arg(nulls));
            },
            nb::arg("keys").none(), nb::kw_only(), nb::arg("nulls").none() = "error",
            BATCHBLOOM_SIG_BATCH("insert", "None"),
            "Inserts a batch of keys (as Filter.insert takes them); other threads may insert and probe meanwhile.")
        .def(
            "contains",
            [](const PyConcurrent& self, nb::handle keys, nb::handle nulls) {
                return answers_array(
                    keys,
                    [&](const KeyBatch& batch, std::uint8_t* out) {
                        with_view(self, batch.size() <= short_batch,
                                  [&](const ConcurrentFilter& v) { contains(v, batch, out); });
                    },
                    nulls_arg(nulls));
            },
            nb::arg("keys").none(), nb::kw_only(), nb::arg("nulls").none() = "error",
            BATCHBLOOM_SIG_BATCH("contains", "numpy.typing.NDArray[numpy.bool_]"), "A NumPy bool array: True where the key may be present.")
        .def(
            "count",
            [](const PyConcurrent& self, nb::handle keys, nb::handle nulls) {
                return count_batches(
                    keys,
                    [&](const KeyBatch& batch) {
                        return with_view(self, batch.size() <= short_batch,
                                         [&](const ConcurrentFilter& v) { return count(v, batch); });
                    },
                    nulls_arg(nulls));
            },
            nb::arg("keys").none(), nb::kw_only(), nb::arg("nulls").none() = "error",
            BATCHBLOOM_SIG_BATCH("count", "int"), "Number of keys in the batch that may be present.");
}

}  // namespace batchbloom::python
