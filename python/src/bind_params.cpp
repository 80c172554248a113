// batchbloom.Params: the shape, block count and k of a filter, and the sizing functions.
#include <batchbloom/params.hpp>

#include <nanobind/operators.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/tuple.h>

#include <limits>
#include <string>

#include "args.hpp"
#include "py_filter.hpp"

namespace batchbloom::python {

namespace {

std::string repr(const Params& p) {
    return "batchbloom.Params(shape='" + std::string(to_string(p.shape)) + "', blocks=" + std::to_string(p.blocks) +
           ", k=" + std::to_string(p.k) + ")";
}

}  // namespace

void bind_params(nb::module_& m) {
    nb::class_<Params>(m, "Params",
                       "Shape, block count and bits set per key (k) of a blocked Bloom filter. Immutable.")
        .def(
            "__init__",
            [](Params* self, Typed<nb::str> shape, Typed<int> blocks, Typed<int> k) {
                new (self) Params(Params::make(shape_arg(shape), int_arg(blocks, "blocks"),
                                               unsigned(int_arg(k, "k", 0, std::numeric_limits<std::uint32_t>::max()))));
            },
            nb::arg("shape").none(), nb::arg("blocks").none(), nb::arg("k").none(),
            "Explicit parameters, validated (ValueError names the first invalid one).")
        .def_static(
            "for_fpr",
            [](Typed<int> n, Typed<float> fpr, Typed<nb::str> shape) {
                return Params::for_fpr(int_arg(n, "n", 1), real_arg(fpr, "fpr"), shape_arg(shape));
            },
            nb::arg("n").none(), nb::arg("fpr").none(), nb::arg("shape").none() = "word512",
            "The smallest filter whose predicted false-positive rate for n distinct keys is <= fpr\n"
            "(the blocked-filter model of Putze, Sanders and Singler), with the best k.")
        .def_static(
            "for_bits_per_key",
            [](Typed<int> n, Typed<float> bits_per_key, Typed<nb::str> shape) {
                return Params::for_bits_per_key(int_arg(n, "n", 1), real_arg(bits_per_key, "bits_per_key"),
                                                shape_arg(shape));
            },
            nb::arg("n").none(), nb::arg("bits_per_key").none(), nb::arg("shape").none() = "word512",
            "ceil(n * bits_per_key / block bits) blocks, with the k that minimises the predicted FPR.")
        .def_prop_ro("shape", [](const Params& p) { return std::string(to_string(p.shape)); },
                     "'split256', 'word512' or 'line512'.")
        .def_ro("blocks", &Params::blocks, "Number of blocks.")
        .def_ro("k", &Params::k, "Bits set per key.")
        .def_prop_ro("block_bytes", &Params::block_bytes, "Bytes per block (32 or 64).")
        .def_prop_ro("nbytes", &Params::bytes, "Size of the bit array in bytes.")
        .def_prop_ro("bits", &Params::bits, "Size of the bit array in bits.")
        .def("predicted_fpr", [](const Params& p, Typed<int> n) { return predicted_fpr(p, int_arg(n, "n")); }, nb::arg("n").none(),
             "Predicted false-positive rate after n distinct keys.")
        .def(nb::self == nb::self)
        .def("__hash__",
             [](const Params& p) { return nb::hash(nb::make_tuple(std::string(to_string(p.shape)), p.blocks, p.k)); })
        .def("__repr__", &repr)
        .def("__getstate__", [](const Params& p) { return std::make_tuple(std::string(to_string(p.shape)), p.blocks, p.k); })
        .def("__setstate__", [](Params* self, const std::tuple<std::string, std::uint64_t, unsigned>& s) {
            new (self) Params(Params::make(parse_shape(std::get<0>(s)), std::get<1>(s), std::get<2>(s)));
        });
}

}  // namespace batchbloom::python
