// batchbloom.CountingFilter: 4-bit counters under every bit of a blocked filter, so keys can
// be erased (include/batchbloom/counting.hpp).
#include <batchbloom/counting.hpp>

#include "bind_common.hpp"

namespace batchbloom::python {

namespace {

using namespace nb::literals;
using PyCounting = Locked<CountingFilter>;

PyCounting make(const Params& params, nb::handle hash, nb::handle seed, nb::handle backend) {
    return PyCounting(CountingFilter(params, hashing(hash, seed), backend_arg(backend)));
}

std::string repr(const PyCounting& self) {
    const CountingFilter& f = self.filter;
    return "batchbloom.CountingFilter(shape='" + std::string(to_string(f.params().shape)) +
           "', blocks=" + std::to_string(f.params().blocks) + ", k=" + std::to_string(f.params().k) + ", hash='" +
           std::string(to_string(f.hashing().kind)) + "', seed=" + std::to_string(f.hashing().seed) + ")";
}

}  // namespace

void bind_counting(nb::module_& m) {
    auto cls = nb::class_<PyCounting>(
        m, "CountingFilter",
        "A counting Bloom filter: a 4-bit counter for every bit of a blocked filter, so keys can be\n"
        "erased. Counters saturate at 15 and then stay. Erase only keys you inserted: erasing a\n"
        "false positive can make present keys test negative. Bulk calls release the GIL.");
    cls.def(
           "__init__",
           [](PyCounting* self, nb::handle n, nb::handle fpr, nb::handle bpk, nb::handle shape, nb::handle hash,
              nb::handle seed, nb::handle backend) {
               new (self) PyCounting(make(sizing("CountingFilter", n, fpr, bpk, shape), hash, seed, backend));
           },
           "n"_a.none() = nb::none(), "fpr"_a.none() = nb::none(), nb::kw_only(), "bits_per_key"_a.none() = nb::none(),
           "shape"_a.none() = "word512", "hash"_a.none() = "xxh3", "seed"_a.none() = 0, "backend"_a.none() = "auto",
           "Empty counters sized like Filter(n, fpr, ...): the plain filter's params, 4x its bytes.")
        .def_static(
            "from_params",
            [](nb::handle p, nb::handle hash, nb::handle seed, nb::handle backend) {
                return make(params_arg(p), hash, seed, backend);
            },
            "params"_a.none(), nb::kw_only(), "hash"_a.none() = "xxh3", "seed"_a.none() = 0, "backend"_a.none() = "auto",
            "Empty counters for a plain filter with these Params.")
        .def(
            "erase",
            [](PyCounting& self, nb::handle keys) {
                std::size_t erased = 0;
                for_each_batch(keys, [&](const KeyBatch& batch, std::size_t) {
                    write_locked(self, batch.size() <= short_batch, [&](CountingFilter& f) {
                        for_each_span(batch, [&](const auto& k, std::size_t) { erased += f.erase(k); });
                    });
                });
                return erased;
            },
            "keys"_a.none(),
            "Erases a batch of keys, in order; returns how many were erased. A key with a zero\n"
            "counter was certainly not present and is skipped.")
        .def(
            "discard",
            [](PyCounting& self, nb::handle key) {
                const Key k = key_from_python(key);
                return write_locked(self, true, [&](CountingFilter& f) { return std::visit([&](auto v) { return f.erase(v); }, k); });
            },
            "key"_a.none(), "Erases one key; False if it was certainly not present.")
        .def("to_filter",
             [](const PyCounting& self) {
                 return read_locked(self, false, [](const CountingFilter& f) { return PyFilter(f.to_filter()); });
             },
             "The plain Filter of the keys present (counter > 0), byte for byte.")
        .def("saturated_counters",
             [](const PyCounting& self) {
                 return read_locked(self, false, [](const CountingFilter& f) { return f.saturated_counters(); });
             },
             "Number of counters stuck at 15.")
        .def("clear", [](PyCounting& self) { write_locked(self, false, [](CountingFilter& f) { f.clear(); }); },
             "Sets every counter to zero.")
        .def_prop_ro("params", [](const PyCounting& self) { return self.filter.params(); })
        .def_prop_ro("nbytes", [](const PyCounting& self) { return self.filter.bytes().size(); },
                     "Size of the counters in bytes.")
        .def_prop_ro("hash_kind", [](const PyCounting& self) { return std::string(to_string(self.filter.hashing().kind)); })
        .def_prop_ro("seed", [](const PyCounting& self) { return self.filter.hashing().seed; })
        .def_prop_rw(
            "backend", [](const PyCounting& self) { return std::string(to_string(self.filter.backend())); },
            [](PyCounting& self, nb::handle name) {
                const Backend b = backend_arg(name);
                write_locked(self, true, [&](CountingFilter& f) { f.set_backend(b); });
            },
            nb::for_setter(nb::arg("value").none()),
            "Engine of the bulk calls ('auto' or an engine name); not part of the value.")
        .def("__repr__", &repr);
    def_keys(cls);
    def_value(cls);
}

}  // namespace batchbloom::python
