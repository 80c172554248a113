// batchbloom.ScalableFilter: a filter that grows by adding stages (include/batchbloom/scalable.hpp).
#include <batchbloom/scalable.hpp>

#include <nanobind/stl/vector.h>

#include <sstream>

#include "bind_common.hpp"

namespace batchbloom::python {

namespace {

using namespace nb::literals;
using PyScalable = Locked<ScalableFilter>;

std::string number(double v) {
    std::ostringstream out;
    out << v;
    return out.str();
}

std::string repr(const PyScalable& self) {
    const ScalableFilter& f = self.filter;
    const ScalableParams& p = f.params();
    return "batchbloom.ScalableFilter(initial_capacity=" + std::to_string(p.initial_capacity) +
           ", fpr=" + number(p.initial_fpr) + ", growth=" + number(p.growth) +
           ", tightening=" + number(p.tightening) + ", shape='" + std::string(to_string(p.shape)) +
           "', stages=" + std::to_string(f.stages().size()) + ")";
}

}  // namespace

void bind_scalable(nb::module_& m) {
    auto cls = nb::class_<PyScalable>(
        m, "ScalableFilter",
        "A scalable Bloom filter (Almeida et al. 2007): stage i is a blocked filter for\n"
        "initial_capacity * growth**i keys at fpr * tightening**i; a new stage starts when the newest\n"
        "is full, so the FPR stays below fpr / (1 - tightening) at any size. Bulk calls release the GIL.");
    cls.def(
           "__init__",
           [](PyScalable* self, nb::handle initial_capacity, nb::handle fpr, nb::handle growth, nb::handle tightening,
              nb::handle shape, nb::handle hash, nb::handle seed, nb::handle backend, nb::handle threads) {
               const ScalableParams p{.initial_capacity = int_arg(initial_capacity, "initial_capacity", 1),
                                      .initial_fpr = real_arg(fpr, "fpr"),
                                      .growth = real_arg(growth, "growth"),
                                      .tightening = real_arg(tightening, "tightening"),
                                      .shape = parse_shape(str_arg(shape, "shape", shape_names))};
               ScalableFilter f(p, hashing(hash, seed), backend_arg(backend));
               f.set_threads(threads_arg(threads));
               new (self) PyScalable(std::move(f));
           },
           "initial_capacity"_a.none(), "fpr"_a.none() = 0.01, nb::kw_only(), "growth"_a.none() = 2.0, "tightening"_a.none() = 0.85,
           "shape"_a.none() = "word512", "hash"_a.none() = "xxh3", "seed"_a.none() = 0, "backend"_a.none() = "auto", "threads"_a.none() = 0,
           "An empty scalable filter whose first stage holds initial_capacity keys at fpr.")
        .def_prop_ro("inserted",
                     [](const PyScalable& self) { return read_locked(self, true, [](const ScalableFilter& f) { return f.size(); }); },
                     "Keys handed to insert so far, duplicates included (not a count of distinct keys).")
        .def_prop_ro("stage_sizes",
                     [](const PyScalable& self) {
                         return read_locked(self, true, [](const ScalableFilter& f) { return f.stage_sizes(); });
                     },
                     "Keys each stage took, oldest first.")
        .def("stages",
             [](const PyScalable& self) {
                 return read_locked(self, false, [](const ScalableFilter& f) {
                     std::vector<PyFilter> out;
                     for (const Filter& s : f.stages()) out.emplace_back(s);
                     return out;
                 });
             },
             "Copies of the stages, oldest first.")
        .def("fpr_bound", [](const PyScalable& self) { return self.filter.fpr_bound(); },
             "fpr / (1 - tightening): the bound on the FPR at any size.")
        .def("predicted_fpr",
             [](const PyScalable& self) {
                 return read_locked(self, false, [](const ScalableFilter& f) { return f.predicted_fpr(); });
             },
             "Sum of the stages' predicted FPRs at their current loads.")
        .def_prop_ro("nbytes",
                     [](const PyScalable& self) { return read_locked(self, true, [](const ScalableFilter& f) { return f.bytes(); }); },
                     "Bytes of all stages.")
        .def_prop_ro("hash_kind", [](const PyScalable& self) { return std::string(to_string(self.filter.hashing().kind)); })
        .def_prop_ro("seed", [](const PyScalable& self) { return self.filter.hashing().seed; })
        .def("__repr__", &repr);
    def_keys(cls);
    def_value(cls);
}

}  // namespace batchbloom::python
