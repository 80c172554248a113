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
           ", initial_fpr=" + number(p.initial_fpr) + ", growth=" + number(p.growth) +
           ", tightening=" + number(p.tightening) + ", shape='" + std::string(to_string(p.shape)) +
           "', stages=" + std::to_string(f.stages().size()) + ")";
}

}  // namespace

void bind_scalable(nb::module_& m) {
    auto cls = nb::class_<PyScalable>(
        m, "ScalableFilter",
        "A scalable Bloom filter (Almeida et al. 2007): stage i is a blocked filter for\n"
        "initial_capacity * growth**i keys at initial_fpr * tightening**i; a new stage starts when the\n"
        "newest is full or one more key would put its FPR, measured from its bits, above its target,\n"
        "so the FPR stays at or below initial_fpr / (1 - tightening) = fpr_bound() at any size, for\n"
        "keys inserted in any order (probes chosen without knowledge of the seed). Bulk calls\n"
        "release the GIL.");
    cls.def(
           "__init__",
           [](PyScalable* self, Typed<int> initial_capacity, Typed<float> fpr_arg, Typed<float> initial_fpr_arg,
              Typed<float> growth, Typed<float> tightening, Typed<nb::str> shape, Typed<nb::str> hash, Typed<int> seed,
              Typed<nb::str> backend, Typed<int> threads) {
               const auto fpr = optional_real_arg(fpr_arg, "fpr");
               const auto initial_fpr = optional_real_arg(initial_fpr_arg, "initial_fpr");
               if (fpr && initial_fpr)
                   throw nb::type_error(
                       "ScalableFilter() takes fpr= (the whole filter's) or initial_fpr= (the first stage's), not both");
               const std::uint64_t capacity = int_arg(initial_capacity, "initial_capacity", 1);
               const double g = real_arg(growth, "growth"), r = real_arg(tightening, "tightening");
               const Shape sh = shape_arg(shape);
               const ScalableParams p =
                   initial_fpr ? ScalableParams{.initial_capacity = capacity, .initial_fpr = *initial_fpr, .growth = g,
                                                .tightening = r, .shape = sh}
                               : ScalableParams::for_total_fpr(capacity, fpr.value_or(0.01), g, r, sh);
               ScalableFilter f(p, hashing(hash, seed), backend_arg(backend));
               f.set_threads(threads_arg(threads));
               new (self) PyScalable(std::move(f));
           },
           "initial_capacity"_a.none(), "fpr"_a.none() = nb::none(), nb::kw_only(), "initial_fpr"_a.none() = nb::none(),
           "growth"_a.none() = 2.0, "tightening"_a.none() = 0.85, "shape"_a.none() = "word512", "hash"_a.none() = "xxh3",
           "seed"_a.none() = 0, "backend"_a.none() = "auto", "threads"_a.none() = 0,
           "An empty scalable filter whose false-positive rate stays at or below fpr (default 0.01) at\n"
           "any size: its first stage holds initial_capacity keys at fpr * (1 - tightening). Or give\n"
           "initial_fpr, the first stage's FPR, instead (the whole then stays below\n"
           "initial_fpr / (1 - tightening)).")
        .def_prop_ro("inserted",
                     [](const PyScalable& self) { return read_locked(self, true, [](const ScalableFilter& f) { return f.size(); }); },
                     "Keys handed to insert so far, duplicates included (not a count of distinct keys).")
        .def("__len__",
             [](const PyScalable& self) { return read_locked(self, true, [](const ScalableFilter& f) { return f.size(); }); },
             "len(f): the keys handed to insert so far, duplicates included (f.inserted). The other\n"
             "filter types keep no count and have no len(); Filter.estimated_cardinality() estimates one.")
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
             "initial_fpr / (1 - tightening): the bound on the FPR at any size (<= the fpr asked for).")
        .def_prop_ro("initial_fpr", [](const PyScalable& self) { return self.filter.params().initial_fpr; },
                     "The first stage's FPR at capacity.")
        .def_prop_ro("initial_capacity", [](const PyScalable& self) { return self.filter.params().initial_capacity; })
        .def_prop_ro("growth", [](const PyScalable& self) { return self.filter.params().growth; })
        .def_prop_ro("tightening", [](const PyScalable& self) { return self.filter.params().tightening; })
        .def_prop_ro("nbytes",
                     [](const PyScalable& self) { return read_locked(self, true, [](const ScalableFilter& f) { return f.bytes(); }); },
                     "Bytes of all stages.")
        .def("__repr__", &repr);
    def_read(cls, "predicted_fpr", [](const ScalableFilter& f) { return f.predicted_fpr(); },
             "Sum of the stages' predicted FPRs at their current loads.");
    def_hashing(cls);
    def_engine(cls, "Engine of every stage's bulk calls ('auto' or an engine name); not part of the value.");
    def_scratch(cls,
                "Bytes of scratch the filter may keep between calls, half for the keys a large probe\n"
                "carries from stage to stage, half for the partitioned path its stages share; by\n"
                "default each half is what a Filter of the whole size may keep. 0: none is kept.");
    def_keys(cls);
    def_value(cls);
}

}  // namespace batchbloom::python
