// The extension module batchbloom._core; the package batchbloom re-exports it.
#include <batchbloom/backend.hpp>
#include <batchbloom/environment.hpp>
#include <batchbloom/error.hpp>
#include <batchbloom/version.hpp>

#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/vector.h>

#include <string>

#include "args.hpp"
#include "py_filter.hpp"

NB_MODULE(_core, m) {
    namespace bb = batchbloom;
    namespace nb = nanobind;
    m.doc() = "Blocked Bloom filters built and probed in batches (C++ core of the batchbloom package).";
    m.attr("__version__") = BATCHBLOOM_VERSION_STRING;

    // batchbloom::Error -> batchbloom.Error (a ValueError); FormatError -> its subclass.
    // nanobind tries the most recently registered translator first, so the subclass goes second.
    static nb::exception<bb::Error> error(m, "Error", PyExc_ValueError);
    static nb::exception<bb::FormatError> format_error(m, "FormatError", error);

    m.def("available_backends", &bb::available_backends, "Names of the engines usable on this machine, best first.");
    m.def(
        "resolve_backend",
        [](batchbloom::python::Typed<nb::str> name) {
            const auto b = bb::parse_backend(batchbloom::python::str_arg(name, "name", batchbloom::python::backend_names));
            return std::string(bb::to_string(bb::resolve_backend(b)));
        },
        nb::arg("name").none() = "auto",
        "The engine `name` runs on here ('auto': BATCHBLOOM_BACKEND if set, else the best one).");
    m.def("reload_environment", &bb::reload_environment,
          "Reads BATCHBLOOM_BACKEND and BATCHBLOOM_BATCH_PATH again. The library reads them once:\n"
          "after changing them in os.environ, call this for later calls to follow.");

    batchbloom::python::bind_params(m);
    batchbloom::python::bind_filter(m);
    batchbloom::python::bind_counting(m);
    batchbloom::python::bind_scalable(m);
    batchbloom::python::bind_classic(m);
    batchbloom::python::bind_deletable(m);
    batchbloom::python::bind_join(m);
    batchbloom::python::bind_load_any(m);
    batchbloom::python::bind_concurrent(m);
    batchbloom::python::bind_parquet(m);
}
