// batchbloom.Filter: the blocked Bloom filter, with bulk calls that release the GIL.
#include <string>

#include "bind_common.hpp"

namespace batchbloom::python {

namespace {

using namespace nb::literals;

PyFilter make(const Params& params, nb::handle hash, nb::handle seed, nb::handle backend, nb::handle threads) {
    Filter f(params, hashing(hash, seed), backend_arg(backend));
    f.set_threads(threads_arg(threads));
    return PyFilter(std::move(f));
}

std::string repr(const PyFilter& self) {
    const Filter& f = self.filter;
    return "batchbloom.Filter(shape='" + std::string(to_string(f.params().shape)) +
           "', blocks=" + std::to_string(f.params().blocks) + ", k=" + std::to_string(f.params().k) + ", hash='" +
           std::string(to_string(f.hashing().kind)) + "', seed=" + std::to_string(f.hashing().seed) + ", backend='" +
           std::string(to_string(f.backend())) + "')";
}

}  // namespace

void bind_filter(nb::module_& m) {
    auto cls = nb::class_<PyFilter>(m, "Filter",
                                    "A blocked Bloom filter, built and probed in batches.\n\n"
                                    "Bulk calls (insert, contains, count) release the GIL and run on every\n"
                                    "core unless threads= says otherwise; one filter may be shared by Python\n"
                                    "threads (writers exclude readers). Results never depend on the engine or\n"
                                    "thread count.");
    cls.def(
           "__init__",
           [](PyFilter* self, nb::handle n, nb::handle fpr, nb::handle bpk, nb::handle shape, nb::handle hash,
              nb::handle seed, nb::handle backend, nb::handle threads) {
               new (self) PyFilter(make(sizing("Filter", n, fpr, bpk, shape), hash, seed, backend, threads));
           },
           "n"_a.none() = nb::none(), "fpr"_a.none() = nb::none(), nb::kw_only(), "bits_per_key"_a.none() = nb::none(),
           "shape"_a.none() = "word512", "hash"_a.none() = "xxh3", "seed"_a.none() = 0, "backend"_a.none() = "auto", "threads"_a.none() = 0,
           "An empty filter sized for n distinct keys at false-positive rate fpr (or bits_per_key\n"
           "bits per key). shape: 'word512' (default), 'split256' or 'line512'; hash: 'xxh3' or\n"
           "'murmur3' with seed; backend: 'auto' or one of available_backends(); threads: 0 = all cores.")
        .def_static(
            "from_params",
            [](nb::handle p, nb::handle hash, nb::handle seed, nb::handle backend, nb::handle threads) {
                return make(params_arg(p), hash, seed, backend, threads);
            },
            "params"_a.none(), nb::kw_only(), "hash"_a.none() = "xxh3", "seed"_a.none() = 0, "backend"_a.none() = "auto", "threads"_a.none() = 0,
            "An empty filter with explicit Params.")
        .def("clear", [](PyFilter& self) { write_locked(self, false, [](Filter& f) { f.clear(); }); },
             "Sets every bit to zero.")
        .def("fill_ratio",
             [](const PyFilter& self) { return read_locked(self, false, [](const Filter& f) { return f.fill_ratio(); }); },
             "Fraction of bits set.")
        .def("current_fpr",
             [](const PyFilter& self) { return read_locked(self, false, [](const Filter& f) { return f.current_fpr(); }); },
             "False-positive rate of a random absent key against the bits as they are now.")
        .def("estimated_cardinality",
             [](const PyFilter& self) {
                 return read_locked(self, false, [](const Filter& f) { return f.estimated_cardinality(); });
             },
             "Number of distinct keys inserted, estimated from the fill (Swamidass & Baldi).")
        .def_prop_ro("params", [](const PyFilter& self) { return self.filter.params(); }, "The filter's Params.")
        .def_prop_ro("shape", [](const PyFilter& self) { return std::string(to_string(self.filter.params().shape)); })
        .def_prop_ro("blocks", [](const PyFilter& self) { return self.filter.params().blocks; })
        .def_prop_ro("k", [](const PyFilter& self) { return self.filter.params().k; })
        .def_prop_ro("bits", [](const PyFilter& self) { return self.filter.params().bits(); })
        .def_prop_ro("nbytes", [](const PyFilter& self) { return self.filter.params().bytes(); },
                     "Size of the bit array in bytes.")
        .def_prop_ro("hash_kind", [](const PyFilter& self) { return std::string(to_string(self.filter.hashing().kind)); },
                     "'xxh3' or 'murmur3'.")
        .def_prop_ro("seed", [](const PyFilter& self) { return self.filter.hashing().seed; })
        .def_prop_rw(
            "backend", [](const PyFilter& self) { return std::string(to_string(self.filter.backend())); },
            [](PyFilter& self, nb::handle name) {
                const Backend b = backend_arg(name);
                write_locked(self, true, [&](Filter& f) { f.set_backend(b); });
            },
            nb::for_setter(nb::arg("value").none()),
            "Engine of the bulk calls: 'auto' (resolved on each call) or an engine name. Not part of\n"
            "the filter's value: not saved, pickled or compared.")
        .def_prop_rw(
            "threads", [](const PyFilter& self) { return self.filter.threads(); },
            [](PyFilter& self, nb::handle threads) {
                const unsigned t = threads_arg(threads);
                write_locked(self, true, [&](Filter& f) { f.set_threads(t); });
            },
            nb::for_setter(nb::arg("value").none()),
            "Threads of the bulk calls; 0 = every core.")
        .def("compatible", [](const PyFilter& self, const PyFilter& other) { return self.filter.compatible(other.filter); },
             "other"_a, "Whether |, & and the Jaccard estimate are defined for the two filters.")
        .def("fold",
             [](const PyFilter& self) {
                 return read_locked(self, false, [](const Filter& f) { return PyFilter(f.fold()); });
             },
             "A filter of half the blocks holding the same keys (needs an even block count).")
        .def("__repr__", &repr);
    def_set_algebra(cls, "The union: bit for bit the filter of both key sets.",
                    "Bitwise AND: holds the common keys, with a higher FPR than a filter of them.");
    def_keys(cls);
    def_value(cls);

    m.def(
        "estimated_jaccard",
        [](const PyFilter& a, const PyFilter& b) {
            return pair_locked<std::shared_lock>(a, b, [](const Filter& x, const Filter& y) { return estimated_jaccard(x, y); });
        },
        "a"_a, "b"_a, "Jaccard similarity of the key sets behind two compatible filters, estimated from their fills; "
        "1.0 for two empty filters (two empty sets are the same set).");
}

}  // namespace batchbloom::python
