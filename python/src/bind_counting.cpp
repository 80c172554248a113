// batchbloom.CountingFilter: 4-bit counters under every bit of a blocked filter, so keys can
// be erased (include/batchbloom/counting.hpp).
#include <batchbloom/counting.hpp>

#include "bind_common.hpp"

namespace batchbloom::python {

namespace {

using namespace nb::literals;
using PyCounting = Locked<CountingFilter>;

PyCounting make(const Params& params, std::string_view hash, std::uint64_t seed, std::string_view backend) {
    return PyCounting(CountingFilter(params, hashing(hash, seed), parse_backend(backend)));
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
           [](PyCounting* self, std::optional<std::uint64_t> n, std::optional<double> fpr, std::optional<double> bpk,
              std::string_view shape, std::string_view hash, std::uint64_t seed, std::string_view backend) {
               new (self) PyCounting(make(sizing("CountingFilter", n, fpr, bpk, shape), hash, seed, backend));
           },
           "n"_a = nb::none(), "fpr"_a = nb::none(), nb::kw_only(), "bits_per_key"_a = nb::none(),
           "shape"_a = "word512", "hash"_a = "xxh3", "seed"_a = 0, "backend"_a = "auto",
           "Empty counters sized like Filter(n, fpr, ...): the plain filter's params, 4x its bytes.")
        .def_static(
            "from_params",
            [](const Params& p, std::string_view hash, std::uint64_t seed, std::string_view backend) {
                return make(p, hash, seed, backend);
            },
            "params"_a, nb::kw_only(), "hash"_a = "xxh3", "seed"_a = 0, "backend"_a = "auto",
            "Empty counters for a plain filter with these Params.")
        .def(
            "erase",
            [](PyCounting& self, nb::handle keys) {
                const KeyBatch batch = KeyBatch::from_python(keys);
                return write_locked(self, batch.size() <= short_batch, [&](CountingFilter& f) {
                    std::size_t erased = 0;
                    for_each_span(batch, [&](const auto& k, std::size_t) { erased += f.erase(k); });
                    return erased;
                });
            },
            "keys"_a,
            "Erases a batch of keys, in order; returns how many were erased. A key with a zero\n"
            "counter was certainly not present and is skipped.")
        .def(
            "discard",
            [](PyCounting& self, nb::handle key) {
                const Key k = key_from_python(key);
                return write_locked(self, true, [&](CountingFilter& f) { return std::visit([&](auto v) { return f.erase(v); }, k); });
            },
            "key"_a, "Erases one key; False if it was certainly not present.")
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
            [](PyCounting& self, std::string_view name) {
                const Backend b = parse_backend(name);
                write_locked(self, true, [&](CountingFilter& f) { f.set_backend(b); });
            },
            "Engine of the bulk calls ('auto' or an engine name); not part of the value.")
        .def("__repr__", &repr);
    def_keys(cls);
    def_value(cls);
}

}  // namespace batchbloom::python
