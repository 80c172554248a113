// batchbloom.CountingFilter: 4-bit counters under every bit of a blocked filter, so keys can
// be erased (include/batchbloom/counting.hpp).
#include <batchbloom/counting.hpp>

#include "bind_common.hpp"

namespace batchbloom::python {

namespace {

using namespace nb::literals;
using PyCounting = Locked<CountingFilter>;

std::string repr(const PyCounting& self) {
    return "batchbloom.CountingFilter(" + blocked_fields(self.filter.params(), self.filter.hashing()) + ")";
}

}  // namespace

void bind_counting(nb::module_& m) {
    auto cls = nb::class_<PyCounting>(
        m, "CountingFilter",
        "A counting Bloom filter: a 4-bit counter for every bit of a blocked filter, so keys can be\n"
        "erased. Counters saturate at 15 and then stay. Erase only keys you inserted: erasing a\n"
        "false positive can make present keys test negative. Bulk calls release the GIL.");
    def_sized_constructors(cls, "CountingFilter",
                           "Empty counters sized like Filter(n, fpr, ...): the blocked filter's params, 4x its bytes.",
                           "Empty counters for a blocked filter with these Params.");
    cls.def(
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
            "keys"_a.none(), BATCHBLOOM_SIG_KEYS_ONLY("erase", "int"),
            "Erases a batch of keys, in order; returns how many were erased. A key with a zero\n"
            "counter was certainly not present and is skipped.")
        .def(
            "discard",
            [](PyCounting& self, nb::handle key) {
                return write_key(self, key, [](CountingFilter& f, auto k) { return f.erase(k); });
            },
            "key"_a.none(), BATCHBLOOM_SIG_KEY("discard", "bool"), "Erases one key; False if it was certainly not present.")
        .def_prop_ro("params", [](const PyCounting& self) { return self.filter.params(); })
        .def_prop_ro("nbytes", [](const PyCounting& self) { return self.filter.bytes().size(); },
                     "Size of the counters in bytes.")
        .def("__repr__", &repr);
    def_read(cls, "to_filter", [](const CountingFilter& f) { return PyFilter(f.to_filter()); },
             "The blocked Filter of the keys present (counter > 0), byte for byte.");
    def_read(cls, "saturated_counters", [](const CountingFilter& f) { return f.saturated_counters(); },
             "Number of counters stuck at 15.");
    def_clear(cls, "Sets every counter to zero.");
    def_hashing(cls);
    def_engine(cls, "Engine of the bulk calls ('auto' or an engine name); not part of the value.");
    def_keys(cls);
    def_value(cls);
}

}  // namespace batchbloom::python
